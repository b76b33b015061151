//! The kernel-tree dataset: a deterministic stand-in for the Linux source trees the seeds
//! untarred, tarred, copied and removed (S1: 2.6.14.4, S4: 2.6.22.5, S2: four copies of
//! 2.6.37), or the user's own kernel tarball.
//!
//! A dataset lives on the *source disk*, a directory that is not a target (S1 copied the
//! tarball "from the other disk"): an uncompressed tar plus what it holds (counts, bytes and a
//! content hash of the tree it extracts to). Workloads verify what they extracted or copied
//! against that hash, so a filesystem that loses data fails its cell instead of looking fast;
//! when the hash differs, [`SourceDataset::compare`] says which entries differ and how, within
//! what the filesystem can store ([`Stores`]).
//!
//! Invariants: a [`DatasetSpec`] names one tree forever (same bytes, same hash, any machine);
//! a run prepares each spec once ([`DatasetStore`]) before or during its first use, and never
//! writes to a user's tarball.

mod compare;
mod generated;
mod generator;
mod hash;
pub mod profile;
pub mod rng;
mod store;
mod tarball;

pub use compare::{Comparison, DiffKind, Difference, Stores, StoresProbe};
pub use fsbattery_record::dataset::{DatasetInfo, DatasetSpec};
pub use generated::{Generated, MakeFn};
pub use generator::{generate, Manifest};
pub use hash::{content_hash, summarize, TreeSummary};
pub use profile::{Profile, PROFILES};
pub use store::DatasetStore;
pub(crate) use tarball::normalize as normalize_member;

use crate::error::{UsageError, WorkloadError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use thiserror::Error;

/// A dataset could not be made or read.
#[derive(Debug, Error)]
pub enum DatasetError {
    /// A system call failed; `what` names the operation and path.
    #[error("{what}: {source}")]
    Io {
        /// Operation and path.
        what: String,
        /// The kernel's error.
        #[source]
        source: std::io::Error,
    },
    /// No profile has this id.
    #[error("unknown kernel profile {id}: choose one of {known}")]
    UnknownKernel {
        /// The id asked for.
        id: u64,
        /// The known ids with their versions.
        known: String,
    },
    /// A compressed tarball where an uncompressed one is needed.
    #[error(
        "{path} is {kind}-compressed: the tree workloads need an uncompressed tar (decompression \
         would be timed as CPU work); run `{tool} -dk {path}` and pass the .tar"
    )]
    Compressed {
        /// The file.
        path: PathBuf,
        /// gzip, xz, bzip2 or zstd.
        kind: &'static str,
        /// The tool that decompresses it.
        tool: &'static str,
    },
    /// The file is not a tar archive that can be read.
    #[error("{path}: not a readable tar archive: {message}")]
    BadTarball {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// An entry kind the tree workloads do not handle.
    #[error("{path}: {what} is not supported in a tree dataset (only files, directories, symlinks and hard links)")]
    Unsupported {
        /// The entry.
        path: PathBuf,
        /// Its kind.
        what: String,
    },
}

impl DatasetError {
    /// An I/O error while doing `what` (a sentence fragment naming the path).
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        DatasetError::Io {
            what: what.into(),
            source,
        }
    }
}

impl From<DatasetError> for WorkloadError {
    fn from(e: DatasetError) -> Self {
        match e {
            DatasetError::Io { what, source } => WorkloadError::Io { what, source },
            other => WorkloadError::Failed(other.to_string()),
        }
    }
}

/// How many differing files [`SourceDataset::compare`] locates to the byte.
const LOCATED: usize = 5;

/// What core adds to the record's plain [`DatasetSpec`]: its profile and plan-time checks.
pub trait DatasetSpecExt {
    /// Its profile, or an error naming the known ones.
    fn profile(&self) -> Result<&'static Profile, DatasetError>;
    /// Check the spec before any I/O (plan validation).
    fn validate(&self, workload: &str) -> Result<(), UsageError>;
}

impl DatasetSpecExt for DatasetSpec {
    fn profile(&self) -> Result<&'static Profile, DatasetError> {
        profile::by_id(self.kernel).ok_or(DatasetError::UnknownKernel {
            id: self.kernel,
            known: profile::known(),
        })
    }

    fn validate(&self, workload: &str) -> Result<(), UsageError> {
        if let Err(e) = self.profile() {
            return Err(UsageError::Invalid(format!(
                "parameter {workload}.kernel: {e}"
            )));
        }
        if self.scale_div == 0 {
            return Err(UsageError::Invalid(format!(
                "parameter {workload}.scale_div: must be at least 1 (1 = the real tree)"
            )));
        }
        if self.copies == 0 {
            return Err(UsageError::Invalid(format!(
                "parameter {workload}.copies: must be at least 1"
            )));
        }
        Ok(())
    }
}

/// File name stem of a spec's tarball, e.g. `linux-2.6.14.4-div16-seed1`.
fn stem(spec: &DatasetSpec, profile: &Profile) -> String {
    format!(
        "linux-{}-div{}-seed{}",
        profile.version, spec.scale_div, spec.seed
    )
}

/// Where a dataset came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Made by the generator from this spec.
    Generated(DatasetSpec),
    /// The user's own tarball (`--tree-tarball`); never modified.
    User(PathBuf),
}

/// A tarball on the source disk and what it holds.
#[derive(Debug, Clone)]
pub struct SourceDataset {
    tarball: PathBuf,
    scratch_dir: PathBuf,
    origin: Origin,
    copies: u32,
    summary: tarball::TarSummary,
    /// Every entry of the tree, read from the tarball the first time a comparison needs it.
    entries: OnceLock<Arc<hash::TreeHasher>>,
}

impl SourceDataset {
    /// Generate the tarball of `spec` in `source_dir` (a directory outside every target; it
    /// must exist). With `copies` > 1 the single-copy tarball is made first and kept beside.
    pub fn prepare(source_dir: &Path, spec: &DatasetSpec) -> Result<SourceDataset, DatasetError> {
        let profile = spec.profile()?;
        let plan = generator::TreePlan::new(profile, spec.scale_div, spec.seed);
        let path = source_dir.join(format!("{}.tar", stem(spec, profile)));
        let summary = tarball::write_plan(&plan, &path)?;
        let one = SourceDataset {
            tarball: path,
            scratch_dir: source_dir.to_path_buf(),
            origin: Origin::Generated(DatasetSpec { copies: 1, ..*spec }),
            copies: 1,
            summary,
            entries: OnceLock::new(),
        };
        if spec.copies > 1 {
            one.with_copies(spec.copies, source_dir)
        } else {
            Ok(one)
        }
    }

    /// The user's own uncompressed kernel tarball: scanned (counts, content hash), never
    /// written. Compressed archives are refused with the command that decompresses them.
    pub fn from_user_tarball(path: &Path) -> Result<SourceDataset, DatasetError> {
        let summary = tarball::scan(path)?;
        if summary.tree.files == 0 {
            return Err(DatasetError::BadTarball {
                path: path.to_path_buf(),
                message: "it holds no regular files".into(),
            });
        }
        let scratch_dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok(SourceDataset {
            tarball: path.to_path_buf(),
            scratch_dir,
            origin: Origin::User(path.to_path_buf()),
            copies: 1,
            summary,
            entries: OnceLock::new(),
        })
    }

    /// A dataset of `copies` copies of this one's tree under `data1/ … dataN/`, written as a
    /// new tarball in `dir`.
    pub fn with_copies(&self, copies: u32, dir: &Path) -> Result<SourceDataset, DatasetError> {
        let stem = self
            .tarball
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned());
        let out = dir.join(format!(
            "{}-x{copies}.tar",
            stem.unwrap_or_else(|| "tree".into())
        ));
        let summary = tarball::write_copies(&self.tarball, copies, &out)?;
        let origin = match &self.origin {
            Origin::Generated(spec) => Origin::Generated(DatasetSpec { copies, ..*spec }),
            user => user.clone(),
        };
        Ok(SourceDataset {
            tarball: out,
            scratch_dir: dir.to_path_buf(),
            origin,
            copies,
            summary,
            entries: OnceLock::new(),
        })
    }

    /// Same dataset, with temporary source-disk files (S1's "copy back") going to `dir`.
    pub(crate) fn with_scratch_dir(mut self, dir: &Path) -> SourceDataset {
        self.scratch_dir = dir.to_path_buf();
        self
    }

    /// The tarball on the source disk.
    pub fn tarball(&self) -> &Path {
        &self.tarball
    }
    /// A directory on the source disk where workloads may put (and must remove) files.
    pub fn scratch_dir(&self) -> &Path {
        &self.scratch_dir
    }
    /// Generated or the user's.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }
    /// Copies of the tree in the tarball.
    pub fn copies(&self) -> u32 {
        self.copies
    }
    /// Content hash of the extracted tree.
    pub fn hash(&self) -> &str {
        &self.summary.tree.hash
    }
    /// Counts and hash of the extracted tree.
    pub fn tree(&self) -> &TreeSummary {
        &self.summary.tree
    }
    /// Top-level names the tarball extracts (e.g. `linux-2.6.14.4`, or `data1` … `data4`).
    pub fn top(&self) -> &[String] {
        &self.summary.top
    }
    /// Size of the tarball in bytes.
    pub fn tar_bytes(&self) -> u64 {
        self.summary.tar_bytes
    }

    /// Compare the tree in `dir` with this dataset, within what its filesystem `stores`
    /// (see [`Comparison`]). Equal content hashes need no further reading.
    pub fn compare(&self, dir: &Path, stores: Stores) -> Result<Comparison, DatasetError> {
        let actual = hash::scan_dir(dir)?;
        if actual.summary().hash == self.summary.tree.hash {
            return Ok(Comparison {
                stores,
                unstorable: Vec::new(),
                differences: Vec::new(),
            });
        }
        let expected = match self.entries.get() {
            Some(e) => e.clone(),
            None => {
                let (entries, _) = tarball::scan_entries(&self.tarball)?;
                self.entries.get_or_init(|| Arc::new(entries)).clone()
            }
        };
        let mut c = compare::compare(&expected, &actual, stores);
        compare::locate(&self.tarball, dir, &mut c.differences, LOCATED)?;
        Ok(c)
    }

    /// What the run record keeps of this dataset.
    pub fn info(&self) -> DatasetInfo {
        let t = &self.summary.tree;
        let (origin, spec) = match &self.origin {
            Origin::Generated(s) => ("generated", Some(*s)),
            Origin::User(_) => ("user", None),
        };
        DatasetInfo {
            origin: origin.into(),
            kernel: spec
                .and_then(|s| s.profile().ok())
                .map(|p| p.version.to_string()),
            spec,
            copies: self.copies,
            tarball: self.tarball.display().to_string(),
            tar_bytes: self.summary.tar_bytes,
            files: t.files,
            dirs: t.dirs,
            symlinks: t.symlinks,
            bytes: t.bytes,
            content_hash: t.hash.clone(),
        }
    }
}

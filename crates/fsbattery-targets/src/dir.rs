//! `dir:PATH[,label=NAME]` — an existing directory on whatever filesystem holds it.
//!
//! Its column is "dir", or NAME; two unlabelled directories in one run are told apart by
//! their paths ([`Target::distinct_label`]). A label names the target and shapes nothing, so
//! it is not among the options `compare` weighs.
//!
//! fsbattery makes no filesystem here, so there is no lifecycle; the directory itself is
//! never removed unless fsbattery created it (the default target: a scratch directory of a
//! guard session, recorded in a state file before it is made, so `cleanup` removes it after a
//! kill -9). The writability probe never touches a file it did not create.

use super::scratch::ScratchDir;
use super::{probe_direct_io, Target, TargetError, TargetOptions};
use crate::error::UsageError;
use crate::model::{Capabilities, Lifecycle};
use std::path::{Path, PathBuf};

/// A plain directory target.
#[derive(Debug)]
pub struct DirTarget {
    spec: String,
    label: String,
    /// Whether the user named it (`label=`): then the path never replaces the name.
    labelled: bool,
    path: PathBuf,
    /// Set when fsbattery created the directory (the default target): dropping it removes
    /// the directory.
    _scratch: Option<ScratchDir>,
    /// Probed on the first call (when the plan is built) and kept: the run records the
    /// capabilities the plan was checked against.
    caps: std::sync::OnceLock<Capabilities>,
}

pub(super) fn parse(
    spec: &str,
    rest: &str,
    _opts: &TargetOptions,
) -> Result<Box<dyn Target>, UsageError> {
    let bad = |m: &str| UsageError::Target {
        spec: spec.into(),
        message: m.into(),
    };
    // The label is split off the end: a path may hold commas, a label may not.
    let (rest, label) = match rest.rsplit_once(",label=") {
        Some((p, l)) => (p, Some(super::spec::label_of(l).map_err(|m| bad(&m))?)),
        None => (rest, None),
    };
    if rest.is_empty() {
        return Err(bad("no path given: write dir:PATH"));
    }
    let path = PathBuf::from(rest);
    let meta = std::fs::metadata(&path)
        .map_err(|e| bad(&format!("{} cannot be used: {e}", path.display())))?;
    if !meta.is_dir() {
        return Err(bad(&format!("{} is not a directory", path.display())));
    }
    // Create and remove a probe file rather than ask access(2): root passes access() on a
    // read-only filesystem, and the workloads will need to create files there.
    super::with_probe_file(&path, "probe", |_| ())
        .map_err(|e| bad(&format!("{} is not writable: {e}", path.display())))?;
    let path = path
        .canonicalize()
        .map_err(|e| bad(&format!("{}: {e}", path.display())))?;
    Ok(Box::new(DirTarget {
        spec: spec.into(),
        labelled: label.is_some(),
        label: label.unwrap_or_else(|| "dir".into()),
        path,
        _scratch: None,
        caps: Default::default(),
    }))
}

impl DirTarget {
    /// A fresh directory under `workdir` that fsbattery creates now and removes on teardown.
    pub fn owned_under(workdir: &Path) -> Result<DirTarget, TargetError> {
        let scratch = ScratchDir::new(workdir, "dir")?;
        let path = scratch.path().to_path_buf();
        Ok(DirTarget {
            spec: format!("dir:{}", path.display()),
            label: "dir".into(),
            labelled: false,
            path,
            _scratch: Some(scratch),
            caps: Default::default(),
        })
    }
}

impl Target for DirTarget {
    fn label(&self) -> &str {
        &self.label
    }
    fn spec(&self) -> &str {
        &self.spec
    }
    fn distinct_label(&self) -> String {
        if self.labelled {
            self.label.clone()
        } else {
            self.path.display().to_string()
        }
    }
    fn capabilities(&self) -> Capabilities {
        *self.caps.get_or_init(|| {
            let direct = probe_direct_io(&self.path);
            let fs = super::fsinfo::describe(&self.path);
            let (space_bytes, inodes) = super::room(&self.path);
            Capabilities {
                needs_root: false,
                drop_caches: crate::cache::can_drop_caches(),
                direct_io: direct,
                direct_io_bypasses_cache: direct && !super::fsinfo::in_ram(&fs.fs_type),
                direct_io_align: direct
                    .then(|| crate::engine::dio_alignment(&self.path).offset as u64),
                io_uring: Some(crate::engine::uring_available().is_ok()),
                space_bytes,
                inodes,
            }
        })
    }
    fn setup(&mut self, _repeat: u32) -> Result<Option<Lifecycle>, TargetError> {
        Ok(None)
    }
    fn root(&self) -> &Path {
        &self.path
    }
    fn teardown(&mut self) -> Result<Option<crate::measure::Timing>, TargetError> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writability_probe_leaves_a_users_file_of_the_same_name_alone() {
        let dir = tempfile::tempdir().unwrap();
        let theirs = dir
            .path()
            .join(format!(".fsbattery-probe-{}", std::process::id()));
        std::fs::write(&theirs, b"user data").unwrap();
        let spec = format!("dir:{}", dir.path().display());
        let rest = spec.strip_prefix("dir:").unwrap();
        assert!(parse(&spec, rest, &TargetOptions::default()).is_ok());
        assert_eq!(std::fs::read(&theirs).unwrap(), b"user data");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the user's file remains: {names:?}");
    }

    #[test]
    fn the_default_directory_is_recorded_and_removed() {
        let work = tempfile::tempdir().unwrap();
        let t = DirTarget::owned_under(work.path()).unwrap();
        assert!(t.root().is_dir());
        std::fs::write(t.root().join("f"), b"x").unwrap();
        drop(t);
        let left: Vec<_> = std::fs::read_dir(work.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }

    fn dir(spec: &str) -> Box<dyn Target> {
        let rest = spec.strip_prefix("dir:").unwrap();
        parse(spec, rest, &TargetOptions::default()).unwrap()
    }

    #[test]
    fn a_label_names_the_directory_and_shapes_nothing() {
        let d = tempfile::tempdir().unwrap();
        let with_comma = d.path().join("a,b");
        std::fs::create_dir(&with_comma).unwrap();
        let t = dir(&format!("dir:{},label=nvme", with_comma.display()));
        assert_eq!((t.label(), t.distinct_label().as_str()), ("nvme", "nvme"));
        assert_eq!(t.root(), with_comma.canonicalize().unwrap());
        assert!(
            t.options().is_empty(),
            "a label is no option compare weighs"
        );
        let bad = format!("dir:{},label=a/b", d.path().display());
        assert!(parse(&bad, &bad[4..], &TargetOptions::default()).is_err());
    }

    #[test]
    fn two_unlabelled_directories_are_told_apart_by_their_paths() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (pa, pb) = (
            a.path().canonicalize().unwrap(),
            b.path().canonicalize().unwrap(),
        );
        let targets = vec![
            dir(&format!("dir:{}", pa.display())),
            dir(&format!("dir:{}", pb.display())),
            dir(&format!("dir:{},label=fast", pb.display())),
            dir(&format!("dir:{}", pb.display())),
        ];
        let labels = crate::column_labels(&targets);
        let (sa, sb) = (pa.display().to_string(), pb.display().to_string());
        assert_eq!(labels, [sa, sb.clone(), "fast".into(), format!("{sb}-2")]);
        let one = crate::column_labels(&targets[..1]);
        assert_eq!(one, ["dir"], "a single directory keeps its short label");
    }
}

//! fsbattery-targets — the filesystem lifecycle: where workloads run. One trait, one file per kind, one registry of kinds.
//!
//! A target is parsed from its spec with no side effects (validation only), then driven by
//! the runner: `setup` (make + mount a fresh filesystem when the kind makes one), workloads in
//! `root()`, `teardown` (unmount, destroy). Kinds that make filesystems record a
//! [`Lifecycle`] per setup; plain directories record none.
//!
//! `tmpfs:`, `loop:` and `dev:` share one implementation (`fstarget`), which dispatches to
//! the kind's file (`tmpfs`, `loopfs`, `device`; what they share is in `made`): a setup opens
//! a guard session (`guards`) that writes every resource to a state file in the work
//! directory before creating it (`state`), and releases them (`release`) in reverse order,
//! checked, on teardown, on any error, or — after a kill -9 — through [`cleanup`].
//! Per-filesystem knowledge lives in the kinds table (`kinds/`, one file per filesystem or
//! family), the command lines and availability checks that read it in `mkfs`, the spec
//! grammar in `spec`, loop devices in `loopdev`, zfs-fuse's daemon and pools in `zfs` (their
//! removal in `zfs_pool` and `release`).

//!
//! What it may use: the foundation (`fsbattery-base`, imported at this crate's root so
//! `crate::error`, `crate::process`, ... read as in the rest of fsbattery) and the leaves
//! (`fsbattery-engine`, `fsbattery-record`). It never names a workload, the plan or the
//! runner: the workloads and the core sit above it and call it.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

use fsbattery_base::{
    cache, engine, error, host, journal, measure, model, notice, packages, params, process,
    residency, suggest, units,
};

mod alias;
mod availability;
pub mod blockstat;
mod cleanup;
mod column_labels;
mod device;
mod dir;
pub mod disk_model;
mod faultlog;
mod fsdefaults;
pub mod fsinfo;
mod fstarget;
mod fusewatch;
pub mod guards;
pub mod kinds;
mod loopdev;
mod loopfs;
mod made;
mod memcg;
mod memcg_release;
mod mkfs;
mod outcome;
pub mod postgres_release;
pub mod release;
mod safety;
mod scratch;
mod spec;
pub mod state;
mod tmpfs;
pub mod vm;
mod zfs;
mod zfs_pool;

pub use availability::{
    availability, default_specs, default_targets, fuse_specs, spec_needs, Defaults,
};
pub use cleanup::{cleanup, CleanupReport};
pub use column_labels::column_labels;
pub use dir::DirTarget;
pub use fsdefaults::{FsDefault, FsDefaults, ANY_FS};
pub use memcg::MemoryCgroup;
pub use safety::check_workdir;
pub use scratch::ScratchDir;

use crate::error::UsageError;
use crate::model::{Capabilities, Lifecycle};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Preparing or tearing down a target failed; the message is the tool's or kernel's own.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct TargetError(pub String);

impl From<crate::process::ProcessError> for TargetError {
    fn from(e: crate::process::ProcessError) -> Self {
        TargetError(e.0)
    }
}

/// A place to run workloads.
pub trait Target: Send {
    /// Column label, unique within a run (e.g. "ext4", "dir").
    fn label(&self) -> &str;
    /// The spec as the user wrote it.
    fn spec(&self) -> &str;
    /// The label when another target of the run has the same `label()` and makes no
    /// filesystem (a directory's path); made targets are told apart by their options instead
    /// (see [`column_labels`]).
    fn distinct_label(&self) -> String {
        self.label().to_string()
    }
    /// What the target can do and holds (O_DIRECT and its alignment, io_uring, space,
    /// inodes); probed on the first call, which the plan makes before any setup, and kept, so
    /// the run records what the plan was checked against. Kinds that make a filesystem
    /// predict it from the spec; a measurement after setup may correct `direct_io`.
    fn capabilities(&self) -> Capabilities;
    /// What the spec asked for that shapes the filesystem (fs, size, `mkfs=`, `mount=`, ...),
    /// resolved; recorded so `compare` can refuse runs whose targets differ. Empty for kinds
    /// that make no filesystem.
    fn options(&self) -> std::collections::BTreeMap<String, String> {
        std::collections::BTreeMap::new()
    }
    /// Make and mount a fresh filesystem for `repeat` (a no-op for kinds that make none).
    fn setup(&mut self, repeat: u32) -> Result<Option<Lifecycle>, TargetError>;
    /// Directory the workloads run in; valid between `setup` and `teardown`.
    fn root(&self) -> &Path;
    /// Undo `setup`; returns the wall and CPU time of the unmount alone when something was
    /// unmounted (not of the whole teardown: detaching a loop device is not the unmount).
    fn teardown(&mut self) -> Result<Option<crate::measure::Timing>, TargetError>;
    /// The block devices the mounted filesystem lives on, with their roles; valid between
    /// `setup` and `teardown`. Empty for kinds on no block device (dir, tmpfs, zfs-fuse).
    fn block_devices(&self) -> Vec<crate::model::BlockDevice> {
        Vec::new()
    }
    /// What went wrong underneath the filesystem since the last call — the kernel's errors
    /// on its devices, a FUSE daemon's connection aborted — for a failed cell's reason, where
    /// the workload saw only the errno. `None` for kinds that make nothing.
    fn fault(&mut self) -> Option<String> {
        None
    }
}

/// Options that apply to every target of a run.
#[derive(Debug, Clone, Default)]
pub struct TargetOptions {
    /// Where fsbattery may create images, mount points, state files and default
    /// directories (relative paths are taken from the current directory).
    pub workdir: PathBuf,
    /// Allow `dev:` targets on devices that hold a partition table, a filesystem or any other
    /// signature (their data is destroyed). Devices in use are refused regardless.
    pub destroy_data: bool,
    /// Size of each loop image when a `loop:` spec gives no `size=`; chosen from the scale so
    /// that standard-scale files fit (images are sparse: only written blocks use disk).
    pub image_size: Option<u64>,
    /// With `image_size`: the most a run writes into one target's images, which the space
    /// check counts instead of the whole sparse images (a suite's `volume`, far larger than
    /// what its workloads write).
    pub image_written: Option<u64>,
    /// Loop devices use direct I/O unless the spec chooses `dio=` (`run --memory`: a memory
    /// cgroup's limit would otherwise count the image file's cache and the filesystem's).
    pub loop_dio: bool,
    /// The suite's default `mkfs=`/`mount=` per filesystem, for specs that do not give them.
    pub fs_defaults: FsDefaults,
    /// `--fuse-timeout`: how long a FUSE daemon may answer nothing while stopped or waited on
    /// before its connection is aborted and the cell fails [default: 30 s].
    pub fuse_timeout: Option<std::time::Duration>,
}

/// The filesystems a `loop:` target can hold, as a phrase for help texts (built from the
/// kinds table, so a new kind appears in every help at once).
pub fn loop_fstypes() -> String {
    kinds::loop_fstypes()
}

/// Every filesystem name fsbattery knows how to make (and `tmpfs`), for shell completion.
pub fn known_filesystems() -> &'static [&'static str] {
    kinds::known_names()
}

/// Whether the known filesystem `name` is made on loop images or devices (`loop:NAME`), as
/// every one but those kept in RAM (tmpfs, a target kind of its own) is.
pub fn made_on_images(name: &str) -> bool {
    kinds::lookup(name).is_some_and(|e| e.on_images())
}

/// The free-space report of the filesystem kind a mount's type names (`ext4` in
/// /proc/mounts), if that kind has one.
pub fn free_space_tool(fs_type: &str) -> Option<kinds::FreeSpaceTool> {
    kinds::TABLE
        .iter()
        .find(|e| e.name == fs_type)
        .and_then(|e| e.free_space)
}

/// The shipped `tune` option spaces, (filesystem, TOML text), in table order.
pub fn option_spaces() -> impl Iterator<Item = (&'static str, &'static str)> {
    kinds::TABLE
        .iter()
        .filter_map(|e| e.option_space.map(|t| (e.name, t)))
}

/// A filesystem name as a suite's `[fs.NAME]` may give it, canonical (`ntfs-3g` is `ntfs`):
/// any filesystem a `loop:`/`dev:` target can make, `tmpfs`, or [`ANY_FS`].
pub fn fs_name(name: &str) -> Result<String, String> {
    match kinds::lookup(name) {
        _ if name == ANY_FS => Ok(name.to_string()),
        Some(e) if !e.on_images() => Ok(e.name.to_string()),
        _ => mkfs::FsKind::from_name(name).map(|k| k.name().to_string()),
    }
}

/// Whether `s` splits into mkfs words as a spec's `mkfs=` value would (quotes balanced).
pub fn check_words(s: &str) -> Result<(), String> {
    crate::process::split_words(s).map(|_| ())
}

/// The option keys `spec` gives itself (e.g. `mount` in `loop:xfs,mount=noatime`): where a
/// suite's default was replaced by the user's own.
pub fn given_option_keys(spec: &str) -> Vec<String> {
    spec::given_keys(spec)
}

/// Parses the part of a spec after `prefix:` into a target, without side effects.
pub type ParseFn =
    fn(spec: &str, rest: &str, opts: &TargetOptions) -> Result<Box<dyn Target>, UsageError>;

/// A kind of target: its spec prefix, grammar and parser.
pub struct TargetKind {
    /// Spec prefix before the first ':' (e.g. "dir").
    pub prefix: &'static str,
    /// Grammar, shown by `fsbattery list targets` and `--help`.
    pub grammar: &'static str,
    /// What it is.
    pub help: &'static str,
    /// Parse and validate the rest of the spec (no side effects).
    pub parse: ParseFn,
    /// Check only the grammar of the rest of the spec, without looking at the machine (see
    /// [`check_syntax`]).
    pub syntax: SyntaxFn,
}

/// Checks the part of a spec after `prefix:` against its kind's grammar alone.
pub type SyntaxFn = fn(rest: &str) -> Result<(), String>;

fn dir_syntax(rest: &str) -> Result<(), String> {
    match rest.is_empty() {
        true => Err("no path given: write dir:PATH".to_string()),
        false => Ok(()),
    }
}

fn tmpfs_syntax(rest: &str) -> Result<(), String> {
    spec::TmpfsSpec::parse(rest).map(|_| ())
}

/// `image_bytes` is what `parse` checks free space against: it must be computable.
fn loop_syntax(rest: &str) -> Result<(), String> {
    spec::LoopSpec::parse(rest).map(|l| {
        let _bytes = l.image_bytes();
    })
}

fn dev_syntax(rest: &str) -> Result<(), String> {
    spec::DevSpec::parse(rest).map(|_| ())
}

/// Every target kind, in listing order.
pub fn kinds() -> &'static [TargetKind] {
    &*KINDS
}

/// The `loop:` kind's help: its options, then the filesystems from the kinds table.
static LOOP_HELP: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "a fresh filesystem on sparse images in the work directory, made with mkfs defaults \
         before every repeat (default size 1G per image); needs root. {} dio=on binds the \
         loop devices with direct I/O. mkfs=/mount= values may contain commas; quote them \
         ('...') to hold a key name",
        kinds::loop_help()
    )
});

static KINDS: std::sync::LazyLock<[TargetKind; 5]> = std::sync::LazyLock::new(|| {
    [
        TargetKind {
            prefix: "dir",
            grammar: "dir:PATH[,label=NAME]",
            help: "an existing, writable directory; fsbattery makes no filesystem",
            parse: dir::parse,
            syntax: dir_syntax,
        },
        TargetKind {
            prefix: "tmpfs",
            grammar: "tmpfs[:size=SIZE][,mount=OPTS][,label=NAME]",
            help: "a fresh tmpfs on a private mount point under the work directory \
                   (default size: the kernel's, half of RAM); needs root",
            parse: fstarget::parse_tmpfs,
            syntax: tmpfs_syntax,
        },
        TargetKind {
            prefix: "loop",
            grammar: "loop:FSTYPE[,size=SIZE][,mkfs=OPTS][,mount=OPTS][,label=NAME]",
            help: &LOOP_HELP,
            parse: fstarget::parse_loop,
            syntax: loop_syntax,
        },
        TargetKind {
            prefix: "dev",
            grammar: "dev:/dev/NAME[,fs=FSTYPE][,mkfs=OPTS][,mount=OPTS][,journal=/dev/NAME][,label=NAME]",
            help: "a fresh filesystem (default ext4) on a whole block device; refused when it \
                   is in use, or holds a partition table or any signature unless data may be \
                   destroyed; signatures we write are wiped on teardown; needs root",
            parse: fstarget::parse_dev,
            syntax: dev_syntax,
        },
        TargetKind {
            prefix: "vm",
            grammar: "vm:[md-raidN:]FSTYPE[,kernel=K][,disks=N][,size=SIZE][,journal=external[,journal_size=SIZE]][,mkfs=OPTS][,mount=OPTS][,timeout=SECS][,label=NAME]",
            help: "a fresh filesystem inside a QEMU guest booted from a distribution kernel \
                   (fetched by `fsbattery setup`), on its own sparse virtio disks (default 4G \
                   each), or on an md array over them; for filesystems the running kernel \
                   lacks; `run` only; needs root",
            parse: vm::parse_refusal,
            syntax: vm::syntax,
        },
    ]
});

/// Parse a target spec such as `dir:/mnt/test`.
pub fn parse(spec: &str, opts: &TargetOptions) -> Result<Box<dyn Target>, UsageError> {
    let (prefix, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let kind = kinds()
        .iter()
        .find(|k| k.prefix == prefix)
        .ok_or_else(|| UsageError::Unknown {
            kind: "target kind",
            name: prefix.to_string(),
            choices: kinds()
                .iter()
                .map(|k| k.grammar)
                .collect::<Vec<_>>()
                .join(", "),
            list: "targets",
        })?;
    (kind.parse)(spec, rest, opts)
}

/// Check only a spec's grammar — kind, options, sizes, counts, labels — without looking at
/// the machine (no root check, no probe file, no device or free-space check), so the fuzzer
/// and tests can feed it anything. [`parse`] applies the same grammar, then those checks.
pub fn check_syntax(spec: &str) -> Result<(), UsageError> {
    let (prefix, rest) = spec.split_once(':').unwrap_or((spec, ""));
    // An unknown kind gets parse's error (which lists every grammar) without reaching any
    // kind's parser.
    let Some(kind) = kinds().iter().find(|k| k.prefix == prefix) else {
        return parse(spec, &TargetOptions::default()).map(|_| ());
    };
    (kind.syntax)(rest).map_err(|message| UsageError::Target {
        spec: spec.into(),
        message,
    })
}

/// Bytes and inodes free in `dir` for an unprivileged writer (statvfs), when it answers.
pub fn room(dir: &Path) -> (Option<u64>, Option<u64>) {
    match nix::sys::statvfs::statvfs(dir) {
        Ok(s) => (
            Some(s.blocks_available().saturating_mul(s.fragment_size())),
            Some(s.files_available()),
        ),
        Err(_) => (None, None),
    }
}

/// Probe whether `dir` accepts O_DIRECT by creating and removing a small file there.
pub fn probe_direct_io(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    // The file is created first without O_DIRECT: where O_DIRECT is refused the kernel may
    // still create the file before failing the open, and then we would not know it is ours.
    with_probe_file(dir, "odirect", |probe| {
        std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(probe)
            .is_ok()
    })
    .unwrap_or(false)
}

/// Create `dir/.fsbattery-WHAT-PID[-N]` with O_EXCL (another name when one exists: it may be a
/// user's file), run `f` on it, and remove it — only the file this call created.
pub fn with_probe_file<T>(
    dir: &Path,
    what: &str,
    f: impl FnOnce(&Path) -> T,
) -> std::io::Result<T> {
    let pid = std::process::id();
    for n in 0..100 {
        let name = match n {
            0 => format!(".fsbattery-{what}-{pid}"),
            n => format!(".fsbattery-{what}-{pid}-{n}"),
        };
        let probe = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
        {
            Ok(file) => {
                drop(file);
                let out = f(&probe);
                let _ = std::fs::remove_file(&probe);
                return Ok(out);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!(
        "no free probe file name in {}",
        dir.display()
    )))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_direct_io_probe_leaves_a_users_file_of_the_same_name_alone() {
        let dir = tempfile::tempdir().unwrap();
        let theirs = dir
            .path()
            .join(format!(".fsbattery-odirect-{}", std::process::id()));
        std::fs::write(&theirs, b"user data").unwrap();
        super::probe_direct_io(dir.path());
        assert_eq!(std::fs::read(&theirs).unwrap(), b"user data");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

//! Targets: where workloads run. One trait, one file per kind, one registry of kinds.
//!
//! A target is parsed from its spec with no side effects (validation only), then driven by
//! the runner: `setup` (make + mount a fresh filesystem when the kind makes one), workloads in
//! `root()`, `teardown` (unmount, destroy). Kinds that make filesystems record a
//! [`Lifecycle`] per setup; plain directories record none.

mod dir;
pub mod fsinfo;

pub use dir::DirTarget;

use crate::error::UsageError;
use crate::model::{Capabilities, Lifecycle};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Preparing or tearing down a target failed; the message is the tool's or kernel's own.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct TargetError(pub String);

/// A place to run workloads.
pub trait Target: Send {
    /// Column label, unique within a run (e.g. "ext4", "dir").
    fn label(&self) -> &str;
    /// The spec as the user wrote it.
    fn spec(&self) -> &str;
    /// What the target can do; probed when the plan is built, before any workload.
    fn capabilities(&self) -> Capabilities;
    /// Make and mount a fresh filesystem for `repeat` (a no-op for kinds that make none).
    fn setup(&mut self, repeat: u32) -> Result<Option<Lifecycle>, TargetError>;
    /// Directory the workloads run in; valid between `setup` and `teardown`.
    fn root(&self) -> &Path;
    /// Undo `setup`; returns the unmount time in seconds when something was unmounted.
    fn teardown(&mut self) -> Result<Option<f64>, TargetError>;
}

/// Options that apply to every target of a run.
#[derive(Debug, Clone, Default)]
pub struct TargetOptions {
    /// Where fsbattery may create images, mount points and default directories.
    pub workdir: PathBuf,
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
}

/// Every target kind, in listing order.
pub fn kinds() -> &'static [TargetKind] {
    &[TargetKind {
        prefix: "dir",
        grammar: "dir:PATH",
        help: "an existing, writable directory; fsbattery makes no filesystem",
        parse: dir::parse,
    }]
}

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

/// Probe whether `dir` accepts O_DIRECT by creating and removing a small file there.
pub fn probe_direct_io(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let probe = dir.join(format!(".fsbattery-odirect-{}", std::process::id()));
    let ok = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_DIRECT)
        .open(&probe)
        .is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

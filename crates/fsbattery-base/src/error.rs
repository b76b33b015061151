//! Error types and the exit statuses they map to.
//!
//! Two families: `UsageError` is the user's input being wrong (exit 2, nothing written, nothing
//! touched); everything else is a failure while running. Messages say what to do next and name
//! every path, device and command involved.

use crate::engine::{EngineError, PoolError};
use std::path::PathBuf;
use thiserror::Error;

/// Exit status for bad input: unknown names, malformed suite files, bad paths.
pub const EXIT_USAGE: u8 = 2;
/// Exit status when the run finished but at least one cell failed.
pub const EXIT_CELL_FAILED: u8 = 3;
/// Exit status when a target could not be prepared or torn down cleanly.
pub const EXIT_RUNTIME: u8 = 1;
/// Exit status of `compare --fail-if-worse` when a significant regression exceeds the limit.
pub const EXIT_REGRESSION: u8 = 4;
/// Exit status of `setup` when something is missing that the user must install: not root,
/// a dnf/zypper system (the exact command is printed), or no package known for a need.
pub const EXIT_SETUP_NEEDED: u8 = 5;
/// Exit status of `cleanup` when a state file or an entry in it was refused as not verifiably
/// fsbattery's (outside its session, someone else's, or no longer matching): left untouched.
pub const EXIT_REFUSED: u8 = 6;
/// Exit status of `run` when a target's own mkfs or mount options were refused by a trial
/// make-and-mount before the run: nothing was measured.
pub const EXIT_TARGET_REFUSED: u8 = 7;
/// Exit status after SIGINT or SIGTERM (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The user's input cannot be run as given. Raised before any I/O.
#[derive(Debug, Error)]
pub enum UsageError {
    /// A name that is in no registry.
    #[error(
        "unknown {kind} '{name}'{}: choose one of {choices} (see `fsbattery list {list}`)",
        crate::suggest::unknown_hint(kind, name, choices)
    )]
    Unknown {
        /// "workload", "suite", "target kind", ...
        kind: &'static str,
        /// What the user wrote.
        name: String,
        /// Comma-separated valid names.
        choices: String,
        /// Which `fsbattery list` shows them.
        list: &'static str,
    },
    /// A suite file that does not parse or names something unknown.
    #[error("suite file {path}: line {line}, key '{key}': {message}")]
    SuiteFile {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The offending key (or "-" when the syntax itself is broken).
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A target path that cannot be used.
    #[error("target {spec}: {message}")]
    Target {
        /// The spec as written.
        spec: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// Any other invalid option value.
    #[error("{0}")]
    Invalid(String),
}

/// A workload stopped before producing its metrics.
#[derive(Debug, Error)]
pub enum WorkloadError {
    /// SIGINT/SIGTERM arrived; the workload has cleaned up.
    #[error("interrupted")]
    Interrupted,
    /// A system call failed; `what` says which operation on which path.
    #[error("{what}: {source}")]
    Io {
        /// Operation and path, e.g. "create /mnt/x/f0001".
        what: String,
        /// The kernel's error.
        #[source]
        source: std::io::Error,
    },
    /// A child process (command mode) failed.
    #[error("{0}")]
    Failed(String),
    /// Another MPI rank failed or left the phase, so this one gave it up too.
    #[error(transparent)]
    Team(#[from] crate::collective::Fault),
}

impl WorkloadError {
    /// Wrap an io::Error with what was being done.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        WorkloadError::Io {
            what: what.into(),
            source,
        }
    }
}

/// Whether `e` says the target has no room left: ENOSPC or EDQUOT (a quota is a full target
/// as far as a workload can tell). The one test of "target full" every workload uses.
pub fn is_full(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}

/// The one "target full" failure: `written` bytes (and whatever `detail` adds, such as the file
/// or the file count) went in before `cause`; `fix` says what to change. Every workload's full
/// target reads "target full after N bytes (…)…: cause; fix".
pub fn target_full(written: u64, detail: &str, cause: &str, fix: &str) -> WorkloadError {
    WorkloadError::Failed(format!(
        "target full after {written} bytes ({}){detail}: {cause}; {fix}",
        crate::units::format_bytes(written)
    ))
}

/// Extension to attach "what" to io results tersely inside workloads.
pub trait IoContext<T> {
    /// Map an io error to [`WorkloadError::Io`] with a lazily built description.
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T, WorkloadError>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T, WorkloadError> {
        self.map_err(|e| WorkloadError::io(what(), e))
    }
}

impl From<EngineError> for WorkloadError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Interrupted => WorkloadError::Interrupted,
            EngineError::Io { what, path, source } => {
                WorkloadError::io(format!("{what} {}", path.display()), source)
            }
            EngineError::Ring { what, source } => {
                WorkloadError::io(format!("io_uring {what}"), source)
            }
            other => WorkloadError::Failed(other.to_string()),
        }
    }
}

/// A workload's thread in the engine's pool ends with a `WorkloadError`; "interrupted" is the
/// echo the pool ranks below a real cause.
impl PoolError for WorkloadError {
    fn is_interruption(&self) -> bool {
        matches!(self, WorkloadError::Interrupted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run_pool;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn first_real_error_wins_and_nobody_waits_forever() {
        let stop = AtomicBool::new(false);
        let r = run_pool(
            3,
            &stop,
            |t| {
                if t == 1 {
                    Err(WorkloadError::Failed("setup of 1 failed".into()))
                } else {
                    Ok(t)
                }
            },
            |_, _, _| {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                }
                Err::<(), _>(WorkloadError::Interrupted)
            },
        );
        let e = r.expect_err("setup failure is reported");
        assert_eq!(e.to_string(), "setup of 1 failed");
    }
}

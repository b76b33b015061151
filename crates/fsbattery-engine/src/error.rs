//! Errors of the IO engine: a bad job description, a failed system call, a verification miss.
//!
//! Invariant: every variant that involves a file names its path, and an I/O failure says which
//! operation at which offset failed, so a report can show the cause without a debugger.
//! `Invalid` is raised by [`super::JobSpec::validate`] before any I/O (house rule 5).

use std::path::PathBuf;
use thiserror::Error;

/// Why a job could not run or stopped early.
#[derive(Debug, Error)]
pub enum EngineError {
    /// The job description is impossible; nothing was touched.
    #[error("invalid IO job: {0}")]
    Invalid(String),
    /// A system call failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// Operation, e.g. "pread at offset 4096 of".
        what: String,
        /// The file.
        path: PathBuf,
        /// The kernel's error.
        #[source]
        source: std::io::Error,
    },
    /// An io_uring call that concerns the ring rather than one file.
    #[error("io_uring {what}: {source}")]
    Ring {
        /// The call, e.g. "register_buffers (raise RLIMIT_MEMLOCK?)".
        what: String,
        /// The kernel's error.
        #[source]
        source: std::io::Error,
    },
    /// A read or write moved fewer bytes than asked (file shorter than the job assumes).
    #[error("short {kind} at offset {offset} of {path}: {got} of {want} bytes")]
    Short {
        /// "read" or "write".
        kind: &'static str,
        /// Byte offset of the operation.
        offset: u64,
        /// Bytes the kernel moved.
        got: u32,
        /// Bytes asked for.
        want: u32,
        /// The file.
        path: PathBuf,
    },
    /// A verified read returned other bytes than the job's fill pattern predicts.
    #[error("verify failed at offset {offset} of {path}: block differs from what was written")]
    Verify {
        /// Byte offset of the block.
        offset: u64,
        /// The file.
        path: PathBuf,
    },
    /// io_uring cannot be used here (kernel too old, disabled by sysctl or seccomp).
    #[error("io_uring unavailable: {0}; use the sync engine instead")]
    UringUnavailable(String),
    /// SIGINT or SIGTERM arrived during the job.
    #[error("interrupted")]
    Interrupted,
}

impl EngineError {
    /// Wrap an io::Error with the operation and the file.
    pub fn io(what: impl Into<String>, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EngineError::Io {
            what: what.into(),
            path: path.into(),
            source,
        }
    }
}

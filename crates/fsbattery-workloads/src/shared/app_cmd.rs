//! Applications as child processes (git, make, gcc) in a clean environment, so a result
//! depends on the filesystem and the program's version, not on the host's user: no inherited
//! variables but `PATH` (no `MAKEFLAGS`, `CFLAGS`, `GIT_*`), `HOME` a private empty directory
//! (no `~/.gitconfig`), `GIT_CONFIG_NOSYSTEM=1` (no `/etc/gitconfig`), the C locale and UTC.
//!
//! Invariants: every child is waited for, so its CPU (and its own children's, waited for by
//! it) lands in `RUSAGE_CHILDREN` and in the phase that ran it; the private `HOME` is removed
//! on drop; a child killed by the run's interrupting signal is an interruption, not a failure.

use crate::error::WorkloadError;
use std::path::Path;
use std::process::{Command, Stdio};

/// A clean environment for one workload run: its private `HOME`, removed on drop.
#[derive(Debug)]
pub struct CleanEnv {
    home: tempfile::TempDir,
}

impl CleanEnv {
    /// A fresh private `HOME` in the system's temporary directory (never on the target).
    pub fn new() -> Result<CleanEnv, WorkloadError> {
        let home = tempfile::Builder::new()
            .prefix("fsbattery-home-")
            .tempdir()
            .map_err(|e| WorkloadError::io("create a private HOME for the child processes", e))?;
        Ok(CleanEnv { home })
    }

    /// `program` to run in `cwd` with only the clean environment's variables.
    pub fn command(&self, program: &str, cwd: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(cwd).env_clear();
        c.env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| DEFAULT_PATH.into()),
        );
        c.env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C")
            .env("TZ", "UTC");
        c.stdin(Stdio::null());
        c
    }
}

/// The search path when fsbattery itself was started without one.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Run `cmd` to its end; its stdout on success, else a failure naming `what` with the first
/// lines of its stderr (or [`WorkloadError::Interrupted`] when the run was interrupted).
pub fn output(mut cmd: Command, what: &str) -> Result<String, WorkloadError> {
    let out = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| WorkloadError::io(format!("run {what}"), e))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    if crate::interrupt::requested() {
        return Err(WorkloadError::Interrupted);
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.trim().lines().take(3).collect();
    Err(WorkloadError::Failed(format!(
        "{what} failed ({}): {}",
        out.status,
        lines.join(" / ")
    )))
}

/// The first line `program arg` prints (its version), or a line saying it could not be read.
pub fn version(program: &str, arg: &str) -> String {
    let out = Command::new(program)
        .arg(arg)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        _ => format!("{program}: version unknown ({program} {arg} failed)"),
    }
}

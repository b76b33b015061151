//! Command mode: the seeds' own commands as child processes, so a user can reproduce a seed's
//! numbers the seed's way, process-spawn cost included. CPU of the children is counted because
//! the stopwatch reads `RUSAGE_CHILDREN` and every child is waited for (reaped) here.

use crate::error::WorkloadError;
use std::path::Path;
use std::process::{Command, Stdio};

/// Run `program args...` in `cwd`, output discarded; a non-zero exit fails with its stderr.
pub fn run(cwd: &Path, program: &str, args: &[&str]) -> Result<(), WorkloadError> {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| WorkloadError::io(format!("run {program}"), e))?;
    if out.status.success() {
        return Ok(());
    }
    // Ctrl-C reaches the whole foreground process group and mpirun's SIGTERM the ranks'
    // groups: the child dies of the same signal that interrupts the run, which is an
    // interruption (journal kept, run ends as interrupted), not a failed cell.
    if crate::interrupt::requested() {
        return Err(WorkloadError::Interrupted);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Err(WorkloadError::Failed(format!(
        "{program} {} failed ({}): {}",
        args.join(" "),
        out.status,
        stderr.trim()
    )))
}

/// Run a command once per item (the seeds' `for i in ...; do touch $i; done`).
pub fn run_each(
    cwd: &Path,
    program: &str,
    items: impl Iterator<Item = String>,
) -> Result<(), WorkloadError> {
    for (i, item) in items.enumerate() {
        super::poll(i as u64)?;
        run(cwd, program, &[&item])?;
    }
    Ok(())
}

/// Programs command mode needs, checked when the plan is built.
pub const PROGRAMS: &[&str] = &[
    "touch", "mkdir", "find", "rm", "dd", "cp", "cat", "split", "sync",
];

/// The first program of `PROGRAMS` (plus `extra`) missing from PATH, if any: looked up on
/// PATH alone (`target::on_path`), as the child processes started by name will look.
pub fn missing_program(extra: &[&str]) -> Option<String> {
    PROGRAMS
        .iter()
        .chain(extra)
        .find(|p| crate::target::on_path(p).is_none())
        .map(|p| p.to_string())
}

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
        first_lines(stderr.trim(), 3)
    )))
}

/// The first `n` lines of a tool's stderr and how many more there were: on a filesystem that
/// turned read-only, `rm -rf` says "Read-only file system" once per file, and a failed cell's
/// reason (journaled, shown in the table) must stay readable.
fn first_lines(text: &str, n: usize) -> String {
    let mut lines = text.lines();
    let mut kept: Vec<&str> = lines.by_ref().take(n).collect();
    let more = lines.count();
    let tail = format!("(and {more} more lines)");
    if more > 0 {
        kept.push(&tail);
    }
    kept.join("\n")
}

/// Run a command once per item (the seeds' `for i in ...; do touch $i; done`).
pub fn run_each(
    cwd: &Path,
    program: &str,
    items: impl Iterator<Item = String>,
) -> Result<(), WorkloadError> {
    for (i, item) in items.enumerate() {
        crate::poll(i as u64)?;
        run(cwd, program, &[&item])?;
    }
    Ok(())
}

/// Programs command mode needs, checked when the plan is built.
pub const PROGRAMS: &[&str] = &[
    "touch", "mkdir", "find", "rm", "dd", "cp", "cat", "split", "sync",
];

/// The first program of `PROGRAMS` (plus `extra`) missing from PATH, if any: looked up on
/// PATH alone (`process::on_path`), as the child processes started by name will look.
pub fn missing_program(extra: &[&str]) -> Option<String> {
    PROGRAMS
        .iter()
        .chain(extra)
        .find(|p| crate::process::on_path(p).is_none())
        .map(|p| p.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_stderr_is_cut_to_its_first_lines() {
        let text: Vec<String> = (0..2000)
            .map(|i| format!("rm: cannot remove 'f{i}'"))
            .collect();
        let shown = super::first_lines(&text.join("\n"), 3);
        assert_eq!(shown.lines().count(), 4, "{shown}");
        assert!(shown.ends_with("(and 1997 more lines)"), "{shown}");
        assert_eq!(super::first_lines("one\ntwo", 3), "one\ntwo");
    }
}

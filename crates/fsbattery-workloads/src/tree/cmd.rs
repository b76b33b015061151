//! Command mode: the seeds' own tools as child processes.
//!
//! The commands are the seeds' (cp; tar -xf / -cf; find | cpio -o; find | cpio -pdm, S4's
//! exact copy command; rm -rf) with two deliberate flags, both so that the numbers mean what
//! they meant in 2006–2013: `cp --reflink=never` (coreutils ≥ 9 would otherwise clone the
//! file on btrfs/XFS instead of copying bytes) and `tar -p` (keep the archive's modes even
//! when not root, so the extracted tree can be verified; root's default anyway). Child CPU
//! time is in the phase's getrusage(RUSAGE_CHILDREN). stdout is discarded, stderr is kept
//! for the error message.

use crate::error::WorkloadError;
use std::path::Path;
use std::process::{Command, Stdio};

/// Every tool the tree workloads run in command mode.
pub(super) const TOOLS: &[&str] = &["cp", "rm", "tar", "find", "cpio", "sh"];

/// Fail unless every tool is on PATH, naming the package to install (from the package table).
pub(super) fn require() -> Result<(), WorkloadError> {
    match crate::command::missing_program(TOOLS) {
        None => Ok(()),
        Some(tool) => Err(missing(&tool)),
    }
}

fn missing(tool: &str) -> WorkloadError {
    WorkloadError::Failed(format!(
        "command mode needs `{tool}`, which is not on PATH: {}, or run with --method native",
        crate::packages::hint_here(&crate::packages::Need::program(tool))
    ))
}

/// A name as an argument: never mistaken for an option.
fn arg(name: &str) -> String {
    if name.starts_with('-') {
        format!("./{name}")
    } else {
        name.to_string()
    }
}

/// Run `cmd` to completion; a non-zero exit fails the phase with its stderr.
fn run(mut cmd: Command) -> Result<(), WorkloadError> {
    let shown = format!("{cmd:?}");
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                missing(&program)
            } else {
                WorkloadError::io(format!("run {shown}"), e)
            }
        })?;
    if crate::interrupt::requested() {
        return Err(WorkloadError::Interrupted);
    }
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: String = err
            .trim()
            .chars()
            .rev()
            .take(600)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(WorkloadError::Failed(format!(
            "{shown} failed ({}): {tail}",
            out.status
        )));
    }
    Ok(())
}

/// `cp --reflink=never SRC DST`.
pub(super) fn cp(src: &Path, dst: &Path) -> Result<(), WorkloadError> {
    let mut c = Command::new("cp");
    c.arg("--reflink=never").arg(src).arg(dst);
    run(c)
}

/// `tar -xpf TARBALL -C DEST`.
pub(super) fn untar(tarball: &Path, dest: &Path) -> Result<(), WorkloadError> {
    let mut c = Command::new("tar");
    c.arg("-xpf").arg(tarball).arg("-C").arg(dest);
    run(c)
}

/// `tar -cf OUT NAMES…` in `base`.
pub(super) fn tar(base: &Path, names: &[String], out: &Path) -> Result<(), WorkloadError> {
    let mut c = Command::new("tar");
    c.current_dir(base)
        .arg("-cf")
        .arg(out)
        .args(names.iter().map(|n| arg(n)));
    run(c)
}

/// `find NAMES… | cpio -o -H newc > OUT` in `base`.
pub(super) fn cpio_out(base: &Path, names: &[String], out: &Path) -> Result<(), WorkloadError> {
    let mut c = Command::new("sh");
    c.current_dir(base)
        .args([
            "-c",
            r#"out=$1; shift; find "$@" | cpio -o -H newc > "$out""#,
            "sh",
        ])
        .arg(out)
        .args(names.iter().map(|n| arg(n)));
    run(c)
}

/// `find NAMES… | cpio -pdm DEST` in `base` (S4: `find linux-2.6.22.5 | cpio -pdm linux`).
pub(super) fn cpio_pass(base: &Path, names: &[String], dest: &Path) -> Result<(), WorkloadError> {
    let mut c = Command::new("sh");
    c.current_dir(base)
        .args([
            "-c",
            r#"dest=$1; shift; find "$@" | cpio -pdm "$dest""#,
            "sh",
        ])
        .arg(dest)
        .args(names.iter().map(|n| arg(n)));
    run(c)
}

/// `rm -rf NAMES…` in `base`.
pub(super) fn rm(base: &Path, names: &[String]) -> Result<(), WorkloadError> {
    let mut c = Command::new("rm");
    c.current_dir(base)
        .arg("-rf")
        .args(names.iter().map(|n| arg(n)));
    run(c)
}

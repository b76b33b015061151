//! `fsbattery cleanup`: finish the teardown of a run that was killed (kill -9, power loss),
//! from the state files in its work directory. Only what those files record, inside the
//! session directory each names, and only while it is still verifiably fsbattery's (same
//! image inode, same mount source, same process), is removed. A state file or entry that is
//! not verifiably ours is refused, reported, and makes the exit status 6.

use crate::stderr::errln;
use crate::stdout::outln;
use fsbattery_core::error::{EXIT_REFUSED, EXIT_RUNTIME};
use fsbattery_core::targets;
use std::path::Path;
use std::process::ExitCode;

/// Clean up after runs that used `workdir`.
pub fn cleanup(workdir: &Path) -> anyhow::Result<ExitCode> {
    if !workdir.exists() {
        outln!("nothing to clean: {} does not exist", workdir.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    targets::check_workdir(workdir)?;
    let report = targets::cleanup(workdir)
        .map_err(|e| anyhow::anyhow!("cleanup of {}: {e}", workdir.display()))?;
    if report.is_empty() {
        outln!("nothing to clean in {}", workdir.display())?;
    }
    for r in &report.removed {
        outln!("removed: {r}")?;
    }
    for f in &report.state_files {
        outln!("removed: state file {}", f.display())?;
    }
    for s in &report.skipped {
        outln!("skipped (not ours or still in use): {s}")?;
    }
    for r in &report.refused {
        outln!("refused (left untouched, not verifiably fsbattery's): {r}")?;
    }
    for f in &report.failed {
        errln!("failed: {f}");
    }
    if !report.failed.is_empty() {
        errln!(
            "fsbattery: cleanup left {} item(s); see above",
            report.failed.len()
        );
        return Ok(ExitCode::from(EXIT_RUNTIME));
    }
    if !report.refused.is_empty() {
        errln!(
            "fsbattery: cleanup refused {} item(s) (see above): remove them yourself if they \
             are really leftovers of fsbattery",
            report.refused.len()
        );
        return Ok(ExitCode::from(EXIT_REFUSED));
    }
    Ok(ExitCode::SUCCESS)
}

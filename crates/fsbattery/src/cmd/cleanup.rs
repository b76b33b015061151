//! `fsbattery cleanup`: finish the teardown of a run that was killed (kill -9, power loss),
//! from the state files in its work directory. Only what those files record, and only while
//! it is still verifiably fsbattery's (same image inode, same mount source, same process), is
//! removed.

use fsbattery_core::error::EXIT_RUNTIME;
use fsbattery_core::target;
use std::path::Path;
use std::process::ExitCode;

/// Clean up after runs that used `workdir`.
pub fn cleanup(workdir: &Path) -> anyhow::Result<ExitCode> {
    if !workdir.exists() {
        println!("nothing to clean: {} does not exist", workdir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let report = target::cleanup(workdir)
        .map_err(|e| anyhow::anyhow!("cleanup of {}: {e}", workdir.display()))?;
    if report.is_empty() {
        println!("nothing to clean in {}", workdir.display());
    }
    for r in &report.removed {
        println!("removed: {r}");
    }
    for s in &report.skipped {
        println!("skipped (not ours or still in use): {s}");
    }
    for f in &report.failed {
        eprintln!("failed: {f}");
    }
    if !report.failed.is_empty() {
        eprintln!(
            "fsbattery: cleanup left {} item(s); see above",
            report.failed.len()
        );
        return Ok(ExitCode::from(EXIT_RUNTIME));
    }
    Ok(ExitCode::SUCCESS)
}

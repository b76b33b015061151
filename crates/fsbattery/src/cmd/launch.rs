//! `fsbattery run`'s entry: a resumed run, a run of vm: targets (in a guest) or a run here.
//! Its own module so that `run` and `vm_run`, which uses `run`'s output helpers, do not
//! import each other.

use crate::cli::RunArgs;
use std::process::ExitCode;

/// Run a suite.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &args.resume {
        // The run's own command line, in its own working directory, into its own directory.
        let args = super::resume::prepare(dir)?;
        if super::vm_run::wanted(&args) {
            return Err(fsbattery_core::error::UsageError::Invalid(
                "--resume does not continue a run of vm: targets: start it again".into(),
            )
            .into());
        }
        return super::run::run_part(args, true);
    }
    // vm: targets run in a guest, which runs this same command on its own disks.
    if super::vm_run::wanted(&args) {
        return super::vm_run::run(args);
    }
    super::run::run_part(args, false)
}

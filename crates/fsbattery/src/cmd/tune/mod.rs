//! `fsbattery tune`: which mkfs and mount options matter for a workload, and the best
//! configuration of each filesystem.
//!
//! Phases, each an ordinary run into its own directory under `--out` ([`phase`]):
//! 1. probe — every non-default option value made and mounted once; refused ones left out;
//! 2. pilot — the defaults, twice, to learn what a configuration costs ([`budget`]);
//! 3. screen — a Latin hypercube of configurations, twice each; effects, importance and each
//!    option's verdict (matters, negligible within ±`--margin`, or unresolved);
//!    then follow-ups — designs varying only the unresolved options, until each is resolved or
//!    the time kept for the verification is reached (and again with what the verification
//!    leaves);
//! 4. race — the best candidates in rounds, dropping those the leader significantly beats;
//! 5. verify — each filesystem's recommendation (its defaults changed only where an option's
//!    effect is significant) against those defaults with adaptive repeats, and the
//!    recommendations of several filesystems against each other.

mod answer;
mod budget;
mod drive;
mod objective;
mod outcome;
mod paste;
mod phase;
mod plan;
mod resume;
mod search;
mod show;
mod view;

use crate::cli::TuneArgs;
use crate::stderr::errln;
use fsbattery_core::error::{UsageError, EXIT_INTERRUPTED};
use std::process::ExitCode;

pub use plan::list_options;

/// Run a tune.
pub fn tune(args: TuneArgs) -> anyhow::Result<ExitCode> {
    let objective = objective::Objective::parse(&args.objective).map_err(UsageError::Invalid)?;
    let mut searches = plan::spaces(&args)?;
    if args.dry_run {
        return plan::dry_run(&args, &searches);
    }
    let out = plan::out_dir(&args)?;
    if args.resume {
        if let Some(answer) = show::finished(&args, &out) {
            errln!(
                "tune: {} holds a finished tune; its answer again:",
                out.display()
            );
            crate::stdout::write_unless_closed(answer)?;
            return Ok(ExitCode::SUCCESS);
        }
    }
    match drive::execute(&args, &objective, &mut searches, &out) {
        Ok(a) => {
            show::print(&args, &searches, &a, &out)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if e.is::<phase::Interrupted>() => {
            errln!(
                "fsbattery: tune interrupted: torn down; the phases measured so far are kept in {}",
                out.display()
            );
            Ok(ExitCode::from(EXIT_INTERRUPTED))
        }
        Err(e) => Err(e),
    }
}

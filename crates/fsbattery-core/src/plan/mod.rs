//! From a run's [`Request`] to what the runner accepts, before any I/O: suite, workloads,
//! parameters, targets, repeats and conditions, checked once. Every mistake here is a
//! `UsageError` (exit 2) and nothing has been written.
//!
//! Invariant: [`build`] is the one place a [`Plan`] is assembled
//! outside tests. Its answer is either a [`CheckedPlan`] to run or a [`DryRun`] to show; a
//! dry run's plan is checked without holding the data against each target's room, and since
//! it is not a `CheckedPlan` it cannot be handed to the runner.

mod build;
mod request;
mod settings;

pub use build::{data_bytes, image_size, named_workloads, suite_of};
pub use request::{Repeat, Request};

use crate::error::UsageError;
use crate::runner::{CheckedPlan, Plan, Space};

/// What [`build`] answers: a plan to run, or one to show.
pub enum Planned {
    /// The request was a run.
    Run(Runnable),
    /// The request was a dry run.
    DryRun(DryRun),
}

/// A plan to run: checked, with the reason no default target could be made when it has no
/// targets (the caller then falls back to a fresh directory).
pub struct Runnable {
    /// The checked plan.
    pub plan: CheckedPlan,
    /// Why the plan has no targets, when it has none.
    pub no_default_why: Option<String>,
}

/// A plan to show (`run --dry-run`): checked like a run's, except that a target too small
/// for the data is shown rather than refused, so it is never run.
pub struct DryRun {
    plan: CheckedPlan,
    no_default_why: Option<String>,
    data_bytes: u64,
}

impl DryRun {
    /// The plan, to read.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Why no default target could be made, when the plan has none.
    pub fn no_default_why(&self) -> Option<&str> {
        self.no_default_why.as_deref()
    }

    /// The most any one workload holds on a target at once ([`data_bytes`]).
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }
}

/// Validate everything in `request` and build its plan, checked once
/// ([`CheckedPlan::check`]); targets are parsed but not set up.
pub fn build(request: &Request) -> Result<Planned, UsageError> {
    if request.dry_run {
        let (plan, no_default_why) = build::checked(request, Space::Shown)?;
        let data_bytes = data_bytes(&plan.workloads)?;
        return Ok(Planned::DryRun(DryRun {
            plan,
            no_default_why,
            data_bytes,
        }));
    }
    let (plan, no_default_why) = build::checked(request, Space::Checked)?;
    Ok(Planned::Run(Runnable {
        plan,
        no_default_why,
    }))
}

/// The checks of [`build`] that need neither a target nor this machine's programs, for a run
/// whose `ranked` targets live in a guest: its mistakes are refused before the guest boots
/// (the guest builds the whole plan again).
pub fn check_target_free(request: &Request, ranked: usize) -> Result<(), UsageError> {
    build::target_free(request, ranked)
}

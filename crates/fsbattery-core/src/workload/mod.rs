//! Workloads: one trait, one file per workload, one registry.
//!
//! A workload runs in its own scratch directory on the target and reports its metrics through
//! [`WorkloadCtx::phase`], which quiesces the machine (sync, drop caches, pause) before each
//! timed phase, exactly as the seeds did between tests. Workloads never format output and
//! never decide how results are stored; they poll the interruption flag and clean up their
//! files on every exit path (the scratch directory is a guard).

mod blockio;
mod bonnie;
mod bonnie_files;
pub mod command;
mod ctx;
mod dd;
mod ffsb;
mod fileset;
mod fsops;
mod iozone;
mod iozone_stdio;
mod metadata;
mod personality;
mod postmark;
mod randomio;
mod scratch;
mod split;
mod stream;
mod tree;

pub use ctx::{Method, WorkloadCtx};
pub use scratch::Scratch;

use crate::dataset::DatasetSpec;
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::params::{ParamSpec, Params};

/// A benchmark workload.
pub trait Workload: Sync {
    /// Registry name, used on the command line and in suite files.
    fn name(&self) -> &'static str;
    /// One line: what it does and which seed rows it reproduces.
    fn summary(&self) -> &'static str;
    /// Its parameters with defaults per scale.
    fn params(&self) -> &'static [ParamSpec];
    /// The metrics a run with `params` produces, in report order.
    fn metrics(&self, params: &Params) -> Vec<MetricSpec>;
    /// The source dataset this workload reads (kernel trees), prepared once per run by the
    /// runner before any target is touched; `None` for workloads that need none.
    fn dataset(&self, _params: &Params) -> Option<DatasetSpec> {
        None
    }
    /// The programs it runs as child processes with `--method commands` (checked when the
    /// plan is built; `fsbattery setup --method commands` installs them).
    fn commands(&self) -> &'static [&'static str] {
        &[]
    }
    /// Run once (one repeat) in `ctx`, recording every metric through it.
    fn run(&self, ctx: &mut WorkloadCtx<'_>, params: &Params) -> Result<(), WorkloadError>;
}

/// Every workload fsbattery knows, in listing order. A new workload is one file and one line.
pub fn registry() -> &'static [&'static dyn Workload] {
    &[
        &metadata::Metadata,
        &tree::Tree,
        &stream::Stream,
        &split::Split,
        &tree::Tree4,
        &dd::Dd,
        &randomio::RandomIo,
        &bonnie::Bonnie,
        &iozone::Iozone,
        &ffsb::Ffsb,
        &postmark::POSTMARK,
        &postmark::POSTMARK_1,
        &postmark::POSTMARK_10,
        &postmark::POSTMARK_100,
        &personality::FILESERVER,
        &personality::VARMAIL,
        &personality::WEBSERVER,
    ]
}

/// Look a workload up by name.
pub fn find(name: &str) -> Option<&'static dyn Workload> {
    registry().iter().copied().find(|w| w.name() == name)
}

/// Comma-separated names, for error messages.
pub fn names() -> String {
    registry()
        .iter()
        .map(|w| w.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How many operations pass between two polls of the interruption flag in tight loops.
pub(crate) const POLL_EVERY: u64 = 256;

/// Fail with [`WorkloadError::Interrupted`] every [`POLL_EVERY`] iterations once a signal came.
#[inline]
pub(crate) fn poll(i: u64) -> Result<(), WorkloadError> {
    if i.is_multiple_of(POLL_EVERY) && crate::interrupt::requested() {
        Err(WorkloadError::Interrupted)
    } else {
        Ok(())
    }
}

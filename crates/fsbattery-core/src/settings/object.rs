//! The registry's face of a workload: the object the plan, the runner and the suites hold,
//! taking the resolved values in their erased form ([`Params`]). Only the blanket impl over
//! [`TypedWorkload`](super::TypedWorkload) implements it, so every workload reads its own
//! typed settings and none sees this form.

use crate::dataset::DatasetSpec;
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::params::{ParamSpec, Params};
use crate::workload::{needs, WorkloadCtx};

/// A benchmark workload as the registry, the plan and the runner hold it: its values in their
/// erased form. Workloads implement [`TypedWorkload`](crate::settings::TypedWorkload) and get
/// this by its blanket impl.
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
    /// A source other than a kernel tree that it reads (a git repository, a C project),
    /// generated once per run on the source disk before any target is touched, like
    /// [`Self::dataset`]; `None` for workloads that need none.
    fn generated(&self, _params: &Params) -> Option<crate::dataset::Generated> {
        None
    }
    /// The programs it runs as child processes with `--method commands` (checked when the
    /// plan is built; `fsbattery setup --method commands` installs them).
    fn commands(&self) -> &'static [&'static str] {
        &[]
    }
    /// Whether it runs [`Self::commands`] whatever the method (an application such as git or
    /// make has no native form): the plan then checks them and `fsbattery setup` installs
    /// them for every run that names it.
    fn always_commands(&self) -> bool {
        false
    }
    /// The versions of the programs it runs, one line each ("git version 2.39.5"), read
    /// once when the plan is built and kept in the run's settings; empty for workloads that
    /// run none.
    fn tool_versions(&self) -> Vec<String> {
        Vec::new()
    }
    /// Programs it runs whatever the method (a database server), which `fsbattery setup`
    /// installs; [`Self::unavailable`] says when they are missing.
    fn programs(&self) -> &'static [&'static str] {
        &[]
    }
    /// Why it cannot run on this machine at all — a server or client program it drives is
    /// not installed — probed once when the plan is built, which then leaves it out with this
    /// reason (the fix included); `None` when it can run.
    fn unavailable(&self) -> Option<String> {
        None
    }
    /// What it runs that is not fsbattery — versions of the database or tool and the
    /// settings fsbattery writes for it — as (name, value) pairs, recorded in the run's
    /// settings when the plan is built. Empty for workloads that are fsbattery's own code.
    fn software(&self, _params: &Params) -> Vec<(String, String)> {
        Vec::new()
    }
    /// What the reference tool this workload follows does to the page cache before each
    /// timed phase (`run --cache tool`, the default). No default: a workload that forgot to
    /// say would silently run cold, which no seed's tool did.
    fn tool_cache(&self) -> crate::cache::ToolCache;
    /// The tool whose measurements it follows, named in `fsbattery list workloads` ("" when
    /// it follows none).
    fn reference(&self) -> &'static str {
        ""
    }
    /// Whether it runs as many MPI ranks at once, its phases in step across them (see
    /// [`crate::collective`]); the others run on one process, and `run` under mpirun refuses
    /// them.
    fn runs_on_ranks(&self) -> bool {
        false
    }
    /// Relations between parameters that no single range expresses (size_low ≤ size_high, a
    /// size of at least one block), checked when the plan is built so an impossible
    /// combination is refused before any target is made. Pure: no I/O. The message names the
    /// parameters and says what to change.
    fn check(&self, _params: &Params) -> Result<(), WorkloadError> {
        Ok(())
    }
    /// What a run with `params` needs from its target — O_DIRECT and the sizes it moves,
    /// io_uring, the most bytes and inodes it holds at once — checked against every target's
    /// capabilities when the plan is built (see [`needs::check`]). Pure: no I/O.
    fn needs(&self, params: &Params) -> needs::Needs;
    /// What a run with `params` reads beyond its parameters, for the run's settings (a
    /// tool's command line, a loadfile's path and checksum); `None` when nothing.
    fn recorded(&self, _params: &Params) -> Option<String> {
        None
    }
    /// Run once (one repeat) in `ctx`, recording every metric through it.
    fn run(&self, ctx: &mut WorkloadCtx<'_>, params: &Params) -> Result<(), WorkloadError>;
}


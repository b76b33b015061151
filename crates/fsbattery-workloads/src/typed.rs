//! The one place a workload's erased values become its typed settings: [`TypedWorkload`] is
//! what a workload implements, with its own settings struct; the blanket impl makes it a
//! [`Workload`] (the object the registry, the plan and the runner hold), decoding the
//! resolved values once per call.
//!
//! Invariant: the specs a workload lists are its settings struct's ([`Settings::specs`]),
//! so what `--set` accepts, what a suite may name and what the workload reads cannot drift.

use super::{needs::Needs, Workload, WorkloadCtx};
use crate::dataset::{DatasetSpec, Generated};
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::params::ParamSpec;
use crate::settings::{Resolved, Settings};

/// A workload with typed settings. Every method of [`Workload`] that reads parameters reads
/// `Self::Settings` here; the others are the same (see there for what each means).
pub trait TypedWorkload: Sync {
    /// The settings struct, declared with [`settings!`](crate::settings!).
    type Settings: Settings;
    /// See [`Workload::name`].
    fn name(&self) -> &'static str;
    /// See [`Workload::summary`].
    fn summary(&self) -> &'static str;
    /// See [`Workload::params`]: the settings struct's specs, unless the workload is
    /// registered several times with defaults of its own (then that entry's specs).
    fn params(&self) -> &'static [ParamSpec] {
        Self::Settings::specs()
    }
    /// See [`Workload::metrics`].
    fn metrics(&self, s: &Self::Settings) -> Vec<MetricSpec>;
    /// See [`Workload::dataset`].
    fn dataset(&self, _s: &Self::Settings) -> Option<DatasetSpec> {
        None
    }
    /// See [`Workload::generated`].
    fn generated(&self, _s: &Self::Settings) -> Option<Generated> {
        None
    }
    /// See [`Workload::commands`].
    fn commands(&self) -> &'static [&'static str] {
        &[]
    }
    /// See [`Workload::always_commands`].
    fn always_commands(&self) -> bool {
        false
    }
    /// See [`Workload::tool_versions`].
    fn tool_versions(&self) -> Vec<String> {
        Vec::new()
    }
    /// See [`Workload::programs`].
    fn programs(&self) -> &'static [&'static str] {
        &[]
    }
    /// See [`Workload::unavailable`].
    fn unavailable(&self) -> Option<String> {
        None
    }
    /// See [`Workload::software`].
    fn software(&self, _s: &Self::Settings) -> Vec<(String, String)> {
        Vec::new()
    }
    /// See [`Workload::tool_cache`].
    fn tool_cache(&self) -> crate::cache::ToolCache;
    /// See [`Workload::reference`].
    fn reference(&self) -> &'static str {
        ""
    }
    /// See [`Workload::runs_on_ranks`].
    fn runs_on_ranks(&self) -> bool {
        false
    }
    /// See [`Workload::check`].
    fn check(&self, _s: &Self::Settings) -> Result<(), WorkloadError> {
        Ok(())
    }
    /// See [`Workload::needs`].
    fn needs(&self, s: &Self::Settings) -> Needs;
    /// See [`Workload::recorded`].
    fn recorded(&self, _s: &Self::Settings) -> Option<String> {
        None
    }
    /// See [`Workload::run`].
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &Self::Settings) -> Result<(), WorkloadError>;
}

/// Decode for a method that cannot fail: values come through the plan's resolution of text, which checks
/// them against the same specs, so a failure here is a caller that built values by hand.
fn typed<W: TypedWorkload + ?Sized>(w: &W, p: &Resolved) -> W::Settings {
    crate::settings::decode(w.name(), p).unwrap_or_else(|e| panic!("unresolved parameters: {e}"))
}

impl<W: TypedWorkload> Workload for W {
    fn name(&self) -> &'static str {
        TypedWorkload::name(self)
    }
    fn summary(&self) -> &'static str {
        TypedWorkload::summary(self)
    }
    fn params(&self) -> &'static [ParamSpec] {
        TypedWorkload::params(self)
    }
    fn metrics(&self, p: &Resolved) -> Vec<MetricSpec> {
        TypedWorkload::metrics(self, &typed(self, p))
    }
    fn dataset(&self, p: &Resolved) -> Option<DatasetSpec> {
        TypedWorkload::dataset(self, &typed(self, p))
    }
    fn generated(&self, p: &Resolved) -> Option<Generated> {
        TypedWorkload::generated(self, &typed(self, p))
    }
    fn commands(&self) -> &'static [&'static str] {
        TypedWorkload::commands(self)
    }
    fn always_commands(&self) -> bool {
        TypedWorkload::always_commands(self)
    }
    fn tool_versions(&self) -> Vec<String> {
        TypedWorkload::tool_versions(self)
    }
    fn programs(&self) -> &'static [&'static str] {
        TypedWorkload::programs(self)
    }
    fn unavailable(&self) -> Option<String> {
        TypedWorkload::unavailable(self)
    }
    fn software(&self, p: &Resolved) -> Vec<(String, String)> {
        TypedWorkload::software(self, &typed(self, p))
    }
    fn tool_cache(&self) -> crate::cache::ToolCache {
        TypedWorkload::tool_cache(self)
    }
    fn reference(&self) -> &'static str {
        TypedWorkload::reference(self)
    }
    fn runs_on_ranks(&self) -> bool {
        TypedWorkload::runs_on_ranks(self)
    }
    fn check(&self, p: &Resolved) -> Result<(), WorkloadError> {
        TypedWorkload::check(self, &crate::settings::decode(self.name(), p)?)
    }
    fn needs(&self, p: &Resolved) -> Needs {
        TypedWorkload::needs(self, &typed(self, p))
    }
    fn recorded(&self, p: &Resolved) -> Option<String> {
        TypedWorkload::recorded(self, &typed(self, p))
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, p: &Resolved) -> Result<(), WorkloadError> {
        TypedWorkload::run(self, ctx, &crate::settings::decode(self.name(), p)?)
    }
}

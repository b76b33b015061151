//! A suite's cache policy per workload and per phase: `cache = "cold"` in a `[[workload]]`
//! for all its phases, `phase_cache = { tar = "cold" }` for single phases (named by the
//! metric they record), for where a seed's own sequence left a phase cold (S4's tree copy
//! and tar ran after its 4 GB dd and randomio on a 1 GB machine, so they found nothing of
//! the tree cached), while the run's policy (`cache = "tool"`) holds for the rest.
//!
//! `--cache` on the command line sets every phase of every workload and ignores these, as
//! it ignores the suite's own `cache`; the plan prints what a suite set per workload.

use crate::error::UsageError;
use crate::model::CachePolicy;
use crate::suite_settings::ErrAt;
use std::collections::BTreeMap;
use toml::Spanned;

/// The cache policy of one planned workload: its own, and the phases that differ.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkloadCache {
    /// The policy of every phase not named in `phases`.
    pub policy: CachePolicy,
    /// Policy per phase, by the metric the phase records.
    pub phases: BTreeMap<String, CachePolicy>,
}

impl WorkloadCache {
    /// One policy for every phase.
    pub fn uniform(policy: CachePolicy) -> Self {
        WorkloadCache {
            policy,
            phases: BTreeMap::new(),
        }
    }

    /// The policy of the phase recording `metric` (the workload's own for an unnamed phase).
    pub fn for_phase(&self, metric: Option<&str>) -> CachePolicy {
        metric
            .and_then(|m| self.phases.get(m))
            .copied()
            .unwrap_or(self.policy)
    }

    /// The workload's cache: `--cache` when given (every phase), else the suite entry's
    /// `cache` and `phase_cache` over the run's policy.
    pub fn planned(
        command_line: bool,
        run: CachePolicy,
        own: Option<CachePolicy>,
        phases: &BTreeMap<String, CachePolicy>,
    ) -> Self {
        if command_line {
            return Self::uniform(run);
        }
        WorkloadCache {
            policy: own.unwrap_or(run),
            phases: phases.clone(),
        }
    }

    /// A line for the plan's notes when this differs from the run's policy, e.g.
    /// "cache: tree's copy_tree and tar cold (suite zfs2007)".
    pub fn note(&self, workload: &str, run: CachePolicy, suite: &str) -> Option<String> {
        let mut parts = Vec::new();
        if self.policy != run {
            parts.push(format!("{workload} {}", self.policy));
        }
        for (phase, p) in &self.phases {
            parts.push(format!("{workload}'s {phase} {p}"));
        }
        (!parts.is_empty()).then(|| format!("cache: {} (suite {suite})", parts.join(", ")))
    }
}

/// A `[[workload]]`'s `cache` and `phase_cache`; phase names must be metrics of the workload
/// (`metrics`), so a misspelt phase is refused instead of silently left at the run's policy.
pub(crate) fn workload_cache(
    cache: &Option<Spanned<String>>,
    phase_cache: &Option<Spanned<BTreeMap<String, String>>>,
    workload: &str,
    metrics: &[String],
    err: ErrAt<'_>,
) -> Result<(Option<CachePolicy>, BTreeMap<String, CachePolicy>), UsageError> {
    let own = crate::suite_settings::cache(cache, err)?;
    let mut phases = BTreeMap::new();
    let Some(map) = phase_cache else {
        return Ok((own, phases));
    };
    let at = map.span().start;
    for (phase, value) in map.get_ref() {
        if !metrics.iter().any(|m| m == phase) {
            return Err(err(
                at,
                "phase_cache",
                format!(
                    "phase_cache: '{phase}' is not a phase of workload '{workload}' (its phases: {})",
                    metrics.join(", ")
                ),
            ));
        }
        let policy = crate::suite_settings::cache(&Some(Spanned::new(at..at, value.clone())), err)?
            .expect("a value was given");
        phases.insert(phase.clone(), policy);
    }
    Ok((own, phases))
}

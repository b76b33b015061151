//! `run --repeat auto`: the plan's bounds and precision, and what each target × workload
//! took to get there. Kept apart from the fixed repeat count so a fixed run's record is
//! byte-for-byte what it was before auto repeats existed.

use serde::{Deserialize, Serialize};

/// As many repeats as the precision needs, between `min` and `max`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct AutoRepeat {
    /// Repeats always made (at least 2: one sample says nothing about spread).
    pub min: u32,
    /// Repeats never exceeded.
    pub max: u32,
    /// Stop once every comparable metric's CI95 half-width is within this percentage of its
    /// mean.
    pub precision_pct: f64,
}

impl AutoRepeat {
    /// Default bounds of `--repeat auto`.
    pub const DEFAULT_MIN: u32 = 3;
    /// Default upper bound of `--repeat auto`.
    pub const DEFAULT_MAX: u32 = 15;
    /// Default `--precision`, percent.
    pub const DEFAULT_PRECISION_PCT: f64 = 3.0;

    /// "3..15 repeats (auto, 3 %)".
    pub fn describe(&self) -> String {
        format!(
            "{}..{} repeats (auto, {} %)",
            self.min, self.max, self.precision_pct
        )
    }
}

/// The repeats of a plan as one phrase: "3 repeat(s)" or "3..15 repeats (auto, 3 %)".
pub fn describe(repeat: u32, auto: Option<&AutoRepeat>) -> String {
    auto.map_or_else(|| format!("{repeat} repeat(s)"), AutoRepeat::describe)
}

/// How many repeats one workload took on one target under `--repeat auto`, and why it stopped.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Convergence {
    /// The workload (every metric cell of it on this target shares the decision).
    pub workload: String,
    /// Repeats made.
    pub repeats: u32,
    /// Every comparable metric reached the precision; false: stopped at the maximum.
    pub reached: bool,
    /// The metric with the widest relative CI95 half-width at the stop (empty when the
    /// workload has no comparable metric).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub widest_metric: String,
    /// Its half-width in percent of its mean; absent when it could not be stated (a zero
    /// mean with spread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widest_half_width_pct: Option<f64>,
}

impl Convergence {
    /// "5 repeats, ±2.1 % (metadata.touch)" or "15 repeats, not converged: ±8.3 % (stream.write)".
    pub fn describe(&self) -> String {
        let width = self
            .widest_half_width_pct
            .map_or("±?".to_string(), |w| format!("±{w:.1} %"));
        let which = match self.widest_metric.as_str() {
            "" => String::new(),
            m => format!(" ({}.{m})", self.workload),
        };
        let state = if self.reached { "" } else { "not converged: " };
        format!("{} repeats, {state}{width}{which}", self.repeats)
    }
}

impl crate::RunRecord {
    /// The auto-repeat decision for `workload` on `target`, if one was recorded.
    pub fn convergence(&self, target: &str, workload: &str) -> Option<&Convergence> {
        let t = self.targets.iter().find(|t| t.label == target)?;
        t.convergence.iter().find(|c| c.workload == workload)
    }

    /// Samples a cell of `workload` on `target` must hold to be complete: the repeats its
    /// auto decision took, else the plan's count; `None` under `--repeat auto` before any
    /// decision (the run stopped while the cell was still repeating).
    pub fn expected_samples(&self, target: &str, workload: &str) -> Option<u32> {
        match (self.convergence(target, workload), &self.plan.repeat_auto) {
            (Some(c), _) => Some(c.repeats),
            (None, Some(_)) => None,
            (None, None) => Some(self.plan.repeat),
        }
    }
}

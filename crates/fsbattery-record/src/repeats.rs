//! `run --repeat auto`: the plan's bounds, stopping rule and budget, and what each target ×
//! workload took to get there and why it stopped. Kept apart from the fixed repeat count so a
//! fixed run's record is byte-for-byte what it was before auto repeats existed.
//!
//! Two stopping rules: with two or more ranked targets, a cell stops once its place in every
//! ranked headline row is decided — separated from the best (significant) or shown equivalent
//! to it within ±`margin_pct` — which is what a comparison needs; alone (one ranked target, or
//! a filesystem kept for the whole run, where no other target's samples exist yet), once every
//! comparable metric's CI95 is within `precision_pct` of its mean.

use serde::{Deserialize, Serialize};

/// As many repeats as the precision needs, between `min` and `max`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct AutoRepeat {
    /// Repeats always made (at least 2: one sample says nothing about spread).
    pub min: u32,
    /// Repeats never exceeded.
    pub max: u32,
    /// Alone: stop once every comparable metric's CI95 half-width is within this percentage
    /// of its mean.
    pub precision_pct: f64,
    /// Compared: the equivalence margin, percent of the better mean (TOST).
    #[serde(default = "default_margin")]
    pub margin_pct: f64,
    /// No new round starts once the run's repeats have taken this long (seconds); `None`:
    /// no limit. Records written before it existed have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_secs: Option<f64>,
    /// Every ranked target of a workload stops at the same repeat (the round in which all of
    /// them are decided, or the maximum, or the budget): set when a row is aggregated by best,
    /// min or max, whose value grows with the number of samples — the best of 5..30 unequal
    /// repeats favours the target repeated most. Absent (false) in records before it existed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub equal_counts: bool,
    /// `--precision` was given: a reference target (shown, not ranked) of a compared run
    /// repeats to it; otherwise it gets its table's `min` repeats and no more. Absent (false)
    /// in records before it existed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub precision_stated: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn default_margin() -> f64 {
    AutoRepeat::DEFAULT_MARGIN_PCT
}

impl AutoRepeat {
    /// Default bounds of `--repeat auto`.
    pub const DEFAULT_MIN: u32 = 3;
    /// Default upper bound of `--repeat auto`: 30, so that the budget rather than the count
    /// normally ends an undecided cell (the default comparison's rounds take about 15 s at
    /// quick scale here, so 30 of them fit in its 10 minutes).
    pub const DEFAULT_MAX: u32 = 30;
    /// Default `--precision`, percent.
    pub const DEFAULT_PRECISION_PCT: f64 = 3.0;
    /// Default `--margin`, percent: differences below it are called equivalent.
    pub const DEFAULT_MARGIN_PCT: f64 = 5.0;

    /// Bounds with the default rules and no budget.
    pub fn new(min: u32, max: u32) -> AutoRepeat {
        AutoRepeat {
            min,
            max,
            precision_pct: Self::DEFAULT_PRECISION_PCT,
            margin_pct: Self::DEFAULT_MARGIN_PCT,
            budget_secs: None,
            equal_counts: false,
            precision_stated: false,
        }
    }

    /// "3..30 repeats (auto: until separated or equivalent within ±5 %, alone ±3 %; budget
    /// 10 min)".
    pub fn describe(&self) -> String {
        let budget = self
            .budget_secs
            .map_or(String::new(), |b| format!("; budget {}", budget_words(b)));
        let equal = if self.equal_counts {
            "; equal counts per workload, as best/min/max need"
        } else {
            ""
        };
        format!(
            "{}..{} repeats (auto: until separated or equivalent within ±{} %, alone ±{} %{budget}{equal})",
            self.min, self.max, self.margin_pct, self.precision_pct
        )
    }
}

/// "10 min", "90 s", "2 h".
fn budget_words(secs: f64) -> String {
    if secs >= 3600.0 && secs % 3600.0 == 0.0 {
        format!("{} h", secs / 3600.0)
    } else if secs >= 60.0 && secs % 60.0 == 0.0 {
        format!("{} min", secs / 60.0)
    } else {
        format!("{secs} s")
    }
}

/// Why a cell stopped repeating under `--repeat auto`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Its place in every ranked row is decided: separated from the best, or equivalent to it.
    Decided,
    /// Alone: every comparable metric reached the precision.
    Precise,
    /// The maximum number of repeats was made, still undecided.
    Maximum,
    /// The budget ran out, still undecided.
    Budget,
    /// Still undecided, and the observed noise says it would take far more repeats than the
    /// maximum or the budget leaves (futility): the time goes to rows more repeats can decide.
    Hopeless,
    /// A reference target (shown, not ranked) of a compared run: its table's repeats (the
    /// minimum) made, no verdict waits on it.
    Reference,
}

/// The repeats of a plan as one phrase: "3 repeat(s)" or "3..30 repeats (auto: ...)".
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
    /// Stopped because it was decided (or precise); false: at the maximum or the budget.
    pub reached: bool,
    /// Why it stopped; absent in records written before the reason was kept (those stopped
    /// at the precision when `reached`, else at the maximum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopReason>,
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
    /// "5 repeats, decided", "5 repeats, ±2.1 % (metadata.touch)" or "15 repeats, not
    /// converged at the maximum: ±8.3 % (stream.write)".
    pub fn describe(&self) -> String {
        let width = self
            .widest_half_width_pct
            .map_or("±?".to_string(), |w| format!("±{w:.1} %"));
        let which = match self.widest_metric.as_str() {
            "" => String::new(),
            m => format!(" ({}.{m})", self.workload),
        };
        let state = match (self.stop, self.reached) {
            (Some(StopReason::Decided), _) => "decided: ",
            (Some(StopReason::Precise), _) | (None, true) => "",
            (None, false) => "not converged: ",
            (Some(StopReason::Maximum), _) => "not converged at the maximum: ",
            (Some(StopReason::Budget), _) => "undecided when the budget ran out: ",
            (Some(StopReason::Hopeless), _) => {
                "undecided, given up: far more repeats than are left would be needed: "
            }
            (Some(StopReason::Reference), _) => "a reference, shown not ranked: ",
        };
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

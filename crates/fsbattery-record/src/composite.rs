//! The run's answer as data in the record: the composite ranking with its ties, the groups it
//! weighs, every pair's test, what the numbers were measured on, and what an interrupted run
//! lacks. Derived like [`crate::model::Cell::stats`] (written with them into `results.json`
//! and `--format json`, absent while running and in older records), from the same computation
//! the terminal and the HTML show, so a script reads the ranking a person reads.

use serde::{Deserialize, Serialize};

/// The composite answer of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Composite {
    /// Targets best first with their scores (empty when nothing is ranked).
    pub scores: Vec<CompositeScore>,
    /// "xfs ≈ ext4 (not separated: …), then ext3 (…)": the ranking in words.
    pub ranking: String,
    /// The workload groups the composite weighs.
    pub groups: Vec<CompositeGroup>,
    /// Groups measured but left out (weight 0: the lifecycle rows by default).
    pub left_out: Vec<String>,
    /// Every pair of ranked targets as the composite's test saw it.
    pub pairs: Vec<CompositePair>,
    /// What the numbers were measured on, in one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_on: Option<String>,
    /// For an interrupted run, "target · workload" of every planned cell it lacks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// Rows decided, the wall time they took and the share of it measured (absent for an
    /// imported record and in older ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_answer: Option<TimeToAnswer>,
}

/// A target's composite score.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CompositeScore {
    /// The target.
    pub target: String,
    /// Weighted geometric mean of its values relative to each row's best (1 = best everywhere).
    pub score: f64,
    /// The score's 95 % interval.
    pub ci95: [f64; 2],
    /// Its tier: targets of one tier are not separated (0 = first).
    pub tier: usize,
}

/// A workload group and its weight.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CompositeGroup {
    /// The workload.
    pub name: String,
    /// Its weight.
    pub weight: f64,
    /// Its rows, averaged within it.
    pub rows: usize,
}

/// Two targets on the composite.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CompositePair {
    /// The better-scored target.
    pub better: String,
    /// The other.
    pub worse: String,
    /// How many times worse, as the test estimates it.
    pub ratio: f64,
    /// The ratio's 95 % interval.
    pub ci95: [f64; 2],
    /// Holm-adjusted p of "no difference".
    pub p_holm: f64,
    /// Whether the composite separates them.
    pub separated: bool,
    /// How they were tested: "paired_rounds" or "too_few_rounds".
    pub method: String,
}

/// How long the run took to its answer, and how much of that was measurement.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct TimeToAnswer {
    /// Ranked rows decided (a winner, or equivalent).
    pub decided: usize,
    /// Ranked rows.
    pub rows: usize,
    /// Wall seconds from the run's start to its end.
    pub wall_secs: f64,
    /// Wall seconds inside timed phases (each phase once, however many metrics it gave).
    pub measured_secs: f64,
}

impl TimeToAnswer {
    /// The share of wall time inside timed phases, in percent.
    pub fn efficiency_pct(&self) -> f64 {
        if self.wall_secs > 0.0 {
            (self.measured_secs / self.wall_secs * 100.0).min(100.0)
        } else {
            0.0
        }
    }
}

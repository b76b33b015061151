//! The statistics of one cell as a record carries them: its summary and its standing in the
//! row verdict, beside the samples they come from.
//!
//! Role: a consumer of results.json or `--format json` (a script, a spreadsheet, a CI check)
//! should not have to re-implement Welch, TOST and Holm to learn what the table said. These
//! fields are derived: filled from the samples when a record is written out, never read back
//! as input (a renderer recomputes them from the samples).
//!
//! Invariants: plain data, no I/O; absent in records written before they existed (every
//! field of a [`Cell`](crate::Cell) that holds them is `#[serde(default)]`), so old records
//! stay readable.

use serde::{Deserialize, Serialize};

/// A cell's summary and verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellStats {
    /// Number of samples.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Sample standard deviation (0 for one sample).
    pub stddev: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// The two-sided 95 % Student t confidence interval of the mean, `[low, high]`; absent
    /// with one sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<[f64; 2]>,
    /// The cell's standing in its row's verdict.
    pub verdict: CellVerdict,
    /// The p-value behind `verdict` (Holm-adjusted): Welch's for `winner` and `worse`,
    /// TOST's for `equivalent`; for `undecided` the smaller of the two; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// The row's verdict as a sentence, with the numbers behind it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub row_verdict: String,
    /// How the row's verdict compared the targets: `{"test": "paired_rounds", "rounds": N}`
    /// (per-round ratios over the N rounds shared, when the run measured its targets in
    /// interleaved rounds) or `{"test": "independent"}`; absent when the row has no verdict
    /// and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_test: Option<fsbattery_stats::RowTest>,
    /// Repeats (their `repeat` index) whose value is an outlier among the cell's repeats
    /// (modified z-score above 14, as hyperfine flags them); empty when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outliers: Vec<u32>,
    /// A monotone trend across the repeats (Mann–Kendall): Kendall's τ (positive: rising)
    /// and its p; absent when none was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trend: Option<[f64; 2]>,
}

/// Where a cell stands in its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CellVerdict {
    /// Significantly better than every other target.
    Winner,
    /// Shown equivalent to the best within the margin (or the best of such a row).
    Equivalent,
    /// Significantly worse than the best.
    Worse,
    /// Neither separated from nor shown equivalent to the best (or the best of such a row).
    Undecided,
    /// The row has a target with fewer than 3 samples.
    NotEnoughSamples,
    /// The only target measured.
    Alone,
    /// Not ranked: CPU %, values that describe the target, a reference in RAM, a tool-bound
    /// rate, a failed cell.
    NotRanked,
}

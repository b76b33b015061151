//! Then and now, as the record keeps it: the seed's values and ranks beside a run's.
//!
//! Role: the derived part of [`crate::RunRecord::then_and_now`], computed by
//! fsbattery-report's `then_now::compute` from the published numbers
//! ([`crate::published`]) and the run's cells, and written into results.json with the cells'
//! statistics. Every renderer shows these same numbers.
//!
//! Invariants: ranks are among the filesystems this run measured that the seed also did (1 is
//! best; ties share the lower rank); absolute values are never compared across the years,
//! the ratio is for information only.

use fsbattery_stats::Better;
use serde::{Deserialize, Serialize};

/// Then and now for one run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ThenAndNow {
    /// The study (S1..S4) and its title.
    pub study: String,
    /// The article's title.
    pub title: String,
    /// The year the seed was published.
    pub year: u32,
    /// The scale this run used, and a sentence when it is not the seeds' own (standard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_note: Option<String>,
    /// One entry per published table ranked against the run.
    pub tables: Vec<TableThenNow>,
}

/// One published table beside the run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TableThenNow {
    /// The published table's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The run's targets matched to the seed's columns, in the run's order.
    pub columns: Vec<ColumnMatch>,
    /// The rows both the seed published and the run measured.
    pub rows: Vec<RowThenNow>,
    /// Kendall's tau-b between the ranks then and now, pooled over the rows (pairs within a
    /// row only; ambiguous rows left out); `None` with fewer than two comparable pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tau: Option<f64>,
    /// Its two-sided p-value (normal approximation with ties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// Pairs of filesystems compared (within rows).
    pub pairs: u64,
    /// Rank flips, one sentence each.
    pub flips: Vec<String>,
}

/// A run target and the seed's column it stands beside.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ColumnMatch {
    /// The run's target label.
    pub target: String,
    /// The seed's column heading.
    pub column: String,
}

/// One row then and now.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RowThenNow {
    /// The run's label (with this run's sizes).
    pub label: String,
    /// The seed's wording.
    pub seed: String,
    /// The seed's unit.
    pub unit: String,
    /// The direction both are ranked by.
    pub better: Better,
    /// Set when the row was measured at another scale than the seed's: what differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_scale: Option<String>,
    /// How the transcription read the seed's row, where it was not plain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The seed's split of this row is not pinned down by its text
    /// ([`crate::published::PubRow::ambiguous`]): shown, not in τ, no flip.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ambiguous: bool,
    /// One per matched column, in [`TableThenNow::columns`] order.
    pub cells: Vec<CellThenNow>,
}

/// One filesystem's value and rank then and now.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CellThenNow {
    /// The seed's value as printed.
    pub then_text: String,
    /// The seed's value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<f64>,
    /// This run's aggregated value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<f64>,
    /// Rank then among the matched columns with a value both then and now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_then: Option<u32>,
    /// Rank now among the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_now: Option<u32>,
    /// now / then, for information.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
}

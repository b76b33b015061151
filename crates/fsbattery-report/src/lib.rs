//! Pure renderers of run records: records in, bytes out.
//!
//! No renderer runs a workload, opens a file or reads a global flag; the binary decides where
//! bytes go. Every table is built from one [`matrix::Matrix`], so the terminal table, the
//! Markdown and later the HTML show the same numbers, ranked the same way.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod answer;
pub mod cache_notes;
pub mod cell_lines;
pub mod cell_stats;
pub mod closing;
pub mod comparable;
pub mod compare;
pub mod compare_out;
pub mod conditions;
pub mod csv_out;
pub mod device_io;
pub mod format;
pub mod html;
pub mod import_hints;
pub mod io500;
pub mod iozone_tables;
pub mod markdown;
pub mod matrix;
pub mod rank_spread;
pub mod reference;
pub mod seed_notes;
pub mod seed_tables;
pub mod settings_notes;
pub mod table;
pub mod target_match;
pub mod term_width;
pub mod then_now;
pub mod then_now_out;
pub mod verdict_text;
#[cfg(feature = "xlsx")]
pub mod xlsx;

use fsbattery_record::RunRecord;
use fsbattery_stats::Aggregate;

/// What renderers read: a run record and how to aggregate its samples.
pub struct Report<'a> {
    /// The run.
    pub record: &'a RunRecord,
    /// Aggregate shown in tables.
    pub aggregate: Aggregate,
    /// Rank targets in RAM (tmpfs) against disks too (`--rank-reference`); by default they
    /// are shown but not ranked ([`mod@reference`]).
    pub rank_reference: bool,
}

impl<'a> Report<'a> {
    /// A report of `record` by `aggregate`, reference targets not ranked.
    pub fn new(record: &'a RunRecord, aggregate: Aggregate) -> Report<'a> {
        Report {
            record,
            aggregate,
            rank_reference: false,
        }
    }
}

/// Something that turns a report into bytes.
pub trait Renderer {
    /// Render the whole report.
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError>;
}

/// A renderer could not produce its output.
#[derive(Debug)]
pub struct RenderError(pub String);

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RenderError {}

//! Pure renderers of run records: records in, bytes out.
//!
//! No renderer runs a workload, opens a file or reads a global flag; the binary decides where
//! bytes go. Every table is built from one [`matrix::Matrix`], so the terminal table, the
//! Markdown and later the HTML show the same numbers, ranked the same way. Every format is a
//! [`Format`] entry of one table, [`formats::FORMATS`]; the types every renderer shares
//! ([`Report`], [`Runs`], [`Renderer`], [`Format`]) are here at the root, so that the table
//! imports the renderers and no renderer imports the table.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
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
pub mod formats;
pub mod history;
pub mod html;
pub mod import_hints;
pub mod io500;
pub mod iozone_tables;
pub mod markdown;
pub mod matrix;
pub mod measured_on;
pub mod partial;
pub mod rank_spread;
pub mod reference;
pub mod repeat_flags;
pub mod seed_notes;
pub mod seed_tables;
pub mod settings_notes;
pub mod site;
pub mod sweep;
pub mod table;
mod table_compact;
pub mod target_match;
pub mod term_width;
pub mod then_now;
pub mod then_now_closing;
pub mod then_now_out;
pub mod time_to_answer;
pub mod tune;
pub mod verdict_text;
pub mod weights;
pub mod wrap;
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

/// Several labelled runs rendered into one output ([`Renderer::render_runs`]): `report
/// DIR DIR ...`, or a run directory's own record.
pub struct Runs<'a> {
    /// Each run with its label ("label: target" columns where runs are shown side by side).
    pub runs: &'a [(String, &'a RunRecord)],
    /// Aggregate shown in tables.
    pub aggregate: Aggregate,
    /// As [`Report::rank_reference`].
    pub rank_reference: bool,
}

/// Something that turns a report into bytes.
pub trait Renderer {
    /// Render the whole report.
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError>;

    /// Render several runs as one output. By default each run is rendered on its own, one
    /// after the other (as `report A B --format csv` has always printed them); formats that
    /// show runs side by side (HTML, xlsx) render them together.
    fn render_runs(&self, runs: &Runs<'_>) -> Result<Vec<u8>, RenderError> {
        let mut out = Vec::new();
        for (_, record) in runs.runs {
            let report = Report {
                record,
                aggregate: runs.aggregate,
                rank_reference: runs.rank_reference,
            };
            out.extend(self.render(&report)?);
        }
        Ok(out)
    }
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

/// What an output asks of its format beyond the runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Colour and bold: the output is a terminal (only formats meant for one read it).
    pub styled: bool,
}

/// One report format: its name and capabilities, and how to make its renderer; declared
/// beside the renderer and listed in [`formats::FORMATS`].
pub struct Format {
    /// The value of `--format` and `--export FORMAT:FILE`.
    pub name: &'static str,
    /// One line of help, shown with the value.
    pub about: &'static str,
    /// What `report` calls the file when it says where it wrote it ("html report: FILE").
    pub noun: &'static str,
    /// Written under this name into every run directory (`run`, `import`); `None`: only when
    /// asked for.
    pub run_file: Option<&'static str>,
    /// Text that may go to stdout (`--format`); false for a binary file (xlsx).
    pub stdout: bool,
    /// The human table: `run` prints it on stdout with the paths of the files after it.
    pub terminal: bool,
    /// Its renderer for one output.
    pub renderer: fn(&Options) -> Box<dyn Renderer>,
}

impl Format {
    /// `runs` in this format, as one output.
    pub fn render(&self, runs: &Runs<'_>, options: &Options) -> Result<Vec<u8>, RenderError> {
        (self.renderer)(options).render_runs(runs)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name == other.name
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Format({})", self.name)
    }
}

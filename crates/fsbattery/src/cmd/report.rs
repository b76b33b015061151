//! `fsbattery report RUN_DIR`: re-render a saved run. Reads results.json, or assembles the
//! record from journal.jsonl when the run never got to write results.json (kill -9).

use crate::cli::{ReportArgs, ReportFormat};
use anyhow::Context;
use fsbattery_core::error::UsageError;
use fsbattery_core::journal::{self, JOURNAL_FILE};
use fsbattery_core::model::RunRecord;
use fsbattery_core::runner::RESULTS_FILE;
use fsbattery_report::{csv_out::Csv, markdown::Markdown, table::TerminalTable, Renderer, Report};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

/// Render a saved run to stdout.
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let record = load(&args.run_dir)?;
    let report = Report {
        record: &record,
        aggregate: args
            .aggregate
            .map(Into::into)
            .unwrap_or(record.plan.aggregate),
    };
    let bytes = match args.format {
        ReportFormat::Table => TerminalTable {
            styled: std::io::stdout().is_terminal(),
        }
        .render(&report)?,
        ReportFormat::Markdown => Markdown.render(&report)?,
        ReportFormat::Csv => Csv.render(&report)?,
        ReportFormat::Json => serde_json::to_vec_pretty(&record)?,
    };
    std::io::stdout().write_all(&bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// Load a run record from a run directory.
pub fn load(dir: &Path) -> anyhow::Result<RunRecord> {
    let results = dir.join(RESULTS_FILE);
    if results.exists() {
        let text =
            std::fs::read(&results).with_context(|| format!("reading {}", results.display()))?;
        let rec: RunRecord = serde_json::from_slice(&text)
            .with_context(|| format!("{} is not a fsbattery run record", results.display()))?;
        return Ok(rec);
    }
    let jpath = dir.join(JOURNAL_FILE);
    if jpath.exists() {
        let events = journal::read(&jpath).map_err(anyhow::Error::msg)?;
        return journal::assemble(&events).map_err(anyhow::Error::msg);
    }
    Err(UsageError::Invalid(format!(
        "{} holds no {RESULTS_FILE} or {JOURNAL_FILE}: give a directory written by `fsbattery run`",
        dir.display()
    ))
    .into())
}

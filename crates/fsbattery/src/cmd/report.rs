//! `fsbattery report RUN_DIR...`: re-render saved runs. Reads results.json, or assembles the
//! record from journal.jsonl when the run never got to write results.json (kill -9).

use crate::cli::{ReportArgs, ReportFormat};
use anyhow::Context;
use fsbattery_core::error::UsageError;
use fsbattery_core::journal::{self, JOURNAL_FILE};
use fsbattery_core::model::RunRecord;
use fsbattery_core::runner::RESULTS_FILE;
use fsbattery_report::{csv_out::Csv, markdown::Markdown, table::TerminalTable, Renderer, Report};
use fsbattery_stats::Aggregate;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Render saved runs: --html/--xlsx files when asked, else `--format` to stdout per run.
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    if !args.labels.is_empty() && args.labels.len() != args.run_dirs.len() {
        return Err(UsageError::Invalid(format!(
            "--label given {} time(s) for {} run directories: give one per run or none",
            args.labels.len(),
            args.run_dirs.len()
        ))
        .into());
    }
    let records: Vec<RunRecord> = args
        .run_dirs
        .iter()
        .map(|d| load(d))
        .collect::<Result<_, _>>()?;
    let aggregate = args
        .aggregate
        .map(Into::into)
        .unwrap_or(records[0].plan.aggregate);
    let labels = labels(&args.labels, &args.run_dirs);
    let runs: Vec<(String, &RunRecord)> = labels.into_iter().zip(&records).collect();
    if let Some(path) = &args.html {
        write_html(&runs, aggregate, path)?;
        println!("html report: {}", path.display());
    }
    if let Some(path) = &args.xlsx {
        let bytes = fsbattery_report::xlsx::xlsx(&runs, aggregate)?;
        std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
        println!("spreadsheet: {}", path.display());
    }
    if args.html.is_none() && args.xlsx.is_none() {
        for record in &records {
            let report = Report { record, aggregate };
            let bytes = match args.format {
                ReportFormat::Table => TerminalTable {
                    styled: std::io::stdout().is_terminal(),
                }
                .render(&report)?,
                ReportFormat::Markdown => Markdown.render(&report)?,
                ReportFormat::Csv => Csv.render(&report)?,
                ReportFormat::Json => serde_json::to_vec_pretty(record)?,
            };
            std::io::stdout().write_all(&bytes)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Write the self-contained HTML report of `runs` to `path`.
pub fn write_html(
    runs: &[(String, &RunRecord)],
    aggregate: Aggregate,
    path: &Path,
) -> anyhow::Result<()> {
    let bytes = fsbattery_report::html::Html::render_many(runs, aggregate)?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// The given labels, or each run directory's own name.
fn labels(given: &[String], dirs: &[PathBuf]) -> Vec<String> {
    if !given.is_empty() {
        return given.to_vec();
    }
    dirs.iter()
        .map(|d| {
            let name = d
                .canonicalize()
                .ok()
                .and_then(|c| c.file_name().map(|n| n.to_owned()));
            name.map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| d.display().to_string())
        })
        .collect()
}

/// Load a run record from a run directory.
pub fn load(dir: &Path) -> anyhow::Result<RunRecord> {
    let results = dir.join(RESULTS_FILE);
    if results.exists() {
        let text =
            std::fs::read(&results).with_context(|| format!("reading {}", results.display()))?;
        let mut rec: RunRecord = serde_json::from_slice(&text)
            .with_context(|| format!("{} is not a fsbattery run record", results.display()))?;
        fsbattery_core::runner::lifecycle::upgrade(&mut rec);
        return Ok(rec);
    }
    let jpath = dir.join(JOURNAL_FILE);
    if jpath.exists() {
        let events = journal::read(&jpath).map_err(anyhow::Error::msg)?;
        let mut rec = journal::assemble(&events).map_err(anyhow::Error::msg)?;
        fsbattery_core::runner::lifecycle::upgrade(&mut rec);
        return Ok(rec);
    }
    Err(UsageError::Invalid(format!(
        "{} holds no {RESULTS_FILE} or {JOURNAL_FILE}: give a directory written by `fsbattery run`",
        dir.display()
    ))
    .into())
}

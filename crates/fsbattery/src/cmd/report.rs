//! `fsbattery report RUN_DIR...`: re-render saved runs, loaded by [`super::record::load`]
//! (results.json, else rebuilt from journal.jsonl).

use crate::cli::{ReportArgs, ReportFormat};
use anyhow::Context;
use fsbattery_core::error::UsageError;
use fsbattery_core::model::RunRecord;
use fsbattery_stats::Aggregate;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Render saved runs: --html/--xlsx files when asked, else `--format` to stdout per run.
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    if let Some(suite) = &args.then {
        let p = fsbattery_core::published::for_suite_or_refuse(suite)?;
        let text = match args.format {
            ReportFormat::Json => serde_json::to_string_pretty(&p)? + "\n",
            ReportFormat::Markdown => fsbattery_report::seed_tables::markdown(&p),
            _ => fsbattery_report::seed_tables::text(&p),
        };
        crate::stdout::write(text)?;
        return Ok(ExitCode::SUCCESS);
    }
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
        .map(|d| super::record::load(d))
        .collect::<Result<_, _>>()?;
    let aggregate = args
        .aggregate
        .map(Into::into)
        .unwrap_or(records[0].plan.aggregate);
    let labels = labels(&args.labels, &args.run_dirs, &records);
    let runs: Vec<(String, &RunRecord)> = labels.into_iter().zip(&records).collect();
    if let Some(path) = &args.html {
        write_html(&runs, aggregate, args.rank_reference, path)?;
        crate::stdout::write(format!("html report: {}\n", path.display()))?;
    }
    if let Some(path) = &args.xlsx {
        let bytes = fsbattery_report::xlsx::xlsx_ranked(&runs, aggregate, args.rank_reference)?;
        fsbattery_core::atomic::write(path, &bytes)
            .with_context(|| format!("writing {}", path.display()))?;
        crate::stdout::write(format!("spreadsheet: {}\n", path.display()))?;
    }
    if args.html.is_none() && args.xlsx.is_none() {
        for record in &records {
            let styled = std::io::stdout().is_terminal();
            let bytes = super::outputs::render(
                record,
                aggregate,
                args.format,
                styled,
                args.rank_reference,
            )?;
            crate::stdout::write(&bytes)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Write the self-contained HTML report of `runs` to `path`.
pub fn write_html(
    runs: &[(String, &RunRecord)],
    aggregate: Aggregate,
    rank_reference: bool,
    path: &Path,
) -> anyhow::Result<()> {
    let bytes = fsbattery_report::html::Html::render_many_ranked(runs, aggregate, rank_reference)?;
    fsbattery_core::atomic::write(path, &bytes)
        .with_context(|| format!("writing {}", path.display()))
}

/// The given labels, or each run's own (`run --label`), or its directory's name.
fn labels(given: &[String], dirs: &[PathBuf], records: &[RunRecord]) -> Vec<String> {
    if !given.is_empty() {
        return given.to_vec();
    }
    dirs.iter()
        .zip(records)
        .map(|(d, r)| {
            if let Some(l) = &r.plan.label {
                return l.clone();
            }
            let name = d
                .canonicalize()
                .ok()
                .and_then(|c| c.file_name().map(|n| n.to_owned()));
            name.map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| d.display().to_string())
        })
        .collect()
}

//! `fsbattery report RUN_DIR...`: re-render saved runs, loaded by [`super::record::load`]
//! (results.json, else rebuilt from journal.jsonl).

use super::outputs::{Export, Target};
use crate::cli::ReportArgs;
use fsbattery_core::error::UsageError;
use fsbattery_core::model::RunRecord;
use fsbattery_report::Runs;
use std::path::PathBuf;
use std::process::ExitCode;

/// Render saved runs: the files asked for (--html, --xlsx, --export), else `--format` to
/// stdout, one run after the other (html: side by side).
pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    if let Some(suite) = &args.then {
        let p = fsbattery_core::published::for_suite_or_refuse(suite)?;
        // The published tables are another document than a run's: JSON and Markdown forms of
        // their own, text for every other format.
        let f = args.format.0;
        let text = if f == fsbattery_report::formats::JSON {
            serde_json::to_string_pretty(&p)? + "\n"
        } else if *f == fsbattery_report::markdown::FORMAT {
            fsbattery_report::seed_tables::markdown(&p)
        } else {
            fsbattery_report::seed_tables::text(&p)
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
    // A run made in several parts (`run --resume`) or cut short says so, whatever the format.
    for (label, rec) in &runs {
        if let Some(line) = rec.parts_line() {
            crate::stderr::errln!("fsbattery: {label}: {line}");
        }
    }
    let runs = Runs {
        runs: &runs,
        aggregate,
        rank_reference: args.rank_reference,
    };
    for e in exports(&args) {
        e.write(&runs)?;
        if let Target::File(path) = &e.target {
            crate::stdout::write(format!("{}: {}\n", e.format.noun, path.display()))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What `report` writes: `--html` and `--xlsx` (aliases of `--export html:FILE` and
/// `xlsx:FILE`), then each `--export`; with none of them, `--format` on stdout.
fn exports(args: &ReportArgs) -> Vec<Export> {
    let html = (args.html.iter()).map(|p| Export::file(&fsbattery_report::html::FORMAT, p));
    let xlsx = (args.xlsx.iter()).map(|p| Export::file(&fsbattery_report::xlsx::FORMAT, p));
    let asked = args.export.iter().map(Export::from);
    let mut list: Vec<Export> = html.chain(xlsx).chain(asked).collect();
    if list.is_empty() {
        list.push(Export::stdout(args.format.0));
    }
    list
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

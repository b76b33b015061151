//! `fsbattery import`: read other tools' output files (or an io500 app result directory),
//! turn them into one run record (one repeat per file; parsing is `fsbattery_core::import`'s),
//! and write a run directory
//! (results.json, results.md, results.csv, report.html) that `report` and `compare` read.
//! Refuses to overwrite a directory that already holds a run.

use super::outputs;
use crate::cli::ImportArgs;
use anyhow::Context;
use fsbattery_core::error::UsageError;
use fsbattery_core::import::{self, Labels};
use fsbattery_core::journal::JOURNAL_FILE;
use fsbattery_core::runner::RESULTS_FILE;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The io500 app's summary in its result directory.
const IO500_SUMMARY: &str = "result_summary.txt";

/// Import `args.files` into a new run directory and print its table.
pub fn import(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let from = match args.from.as_deref() {
        None => None,
        Some(name) => Some(import::by_name(name).ok_or_else(|| {
            UsageError::Invalid(format!(
                "--from {name}: unknown tool: choose one of {}",
                import::names()
            ))
        })?),
    };
    let mut parsed = Vec::new();
    for file in &args.files {
        // An io500 app result directory is read through its summary.
        let summary = file.join(IO500_SUMMARY);
        let file = if file.is_dir() && summary.is_file() {
            &summary
        } else {
            file
        };
        let name = file.display().to_string();
        let bytes = std::fs::read(file).map_err(|e| {
            UsageError::Invalid(format!(
                "{name}: {e}: give a file fio, bonnie++ or iozone wrote, or an io500 result \
                 directory"
            ))
        })?;
        let p = match args.workload.as_deref() {
            Some(w) => job_file(&name, &bytes, w, args.from.as_deref())?,
            None => import::parse(&name, &bytes, from),
        }
        .map_err(|e| UsageError::Invalid(e.to_string()))?;
        parsed.push((name, p));
    }
    let now = chrono::Local::now().to_rfc3339();
    let labels = Labels {
        label: &args.label,
        target: args.target.as_deref(),
        imported_at: &now,
    };
    let record =
        import::build_record(&parsed, &labels).map_err(|e| UsageError::Invalid(e.to_string()))?;
    let dir = out_dir(args.out)?;
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("creating output directory {}", dir.display()))?;
    let json = serde_json::to_vec_pretty(&record)?;
    let results = dir.join(RESULTS_FILE);
    fsbattery_core::atomic::write(&results, &json)
        .with_context(|| format!("writing {}", results.display()))?;
    outputs::write_all(&record, &dir, false)?;
    let table = outputs::terminal_table(&record, None, false, false)?;
    crate::stdout::write_unless_closed(format!("{table}\nresults: {}\n", dir.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// `--workload fio:FILE`: fio's JSON of that job file, under the native run's names.
fn job_file(
    name: &str,
    bytes: &[u8],
    workload: &str,
    from: Option<&str>,
) -> Result<Result<import::Parsed, import::ImportError>, UsageError> {
    let prefix = fsbattery_core::workload::fio::PREFIX;
    if !workload.starts_with(prefix) || from.is_some_and(|f| f != "fio") {
        return Err(UsageError::Invalid(format!(
            "--workload {workload}: only fio's JSON of a job file is imported as a workload: \
             give --from fio --workload {prefix}FILE"
        )));
    }
    Ok(import::parse_fio_job(name, bytes, workload))
}

/// `--out`, or a fresh timestamped directory; never one that already holds a run.
fn out_dir(out: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let dir = out.unwrap_or_else(|| {
        let stamp = chrono::Local::now()
            .format("import-%Y%m%d-%H%M%S")
            .to_string();
        Path::new("fsbattery-results").join(stamp)
    });
    if dir.join(RESULTS_FILE).exists() || dir.join(JOURNAL_FILE).exists() {
        return Err(UsageError::Invalid(format!(
            "--out {}: already holds a run; choose another directory",
            dir.display()
        ))
        .into());
    }
    Ok(dir)
}

//! Writing a finished run's files (results.md, results.csv, report.html, the io500 app's
//! result_summary.txt for io500 runs) and the terminal table. The
//! journal and results.json are written by the runner as it goes.

use crate::cli::ReportFormat;
use anyhow::Context;
use fsbattery_core::model::RunRecord;
use fsbattery_report::{csv_out::Csv, markdown::Markdown, table::TerminalTable, Renderer, Report};
use fsbattery_stats::Aggregate;
use std::path::{Path, PathBuf};

/// `record` with every cell's statistics and verdict filled ([`fsbattery_report::cell_stats`]),
/// as results.json, `--json` and `--format json` carry it.
pub fn with_stats(record: &RunRecord, rank_reference: bool) -> RunRecord {
    let mut r = record.clone();
    fsbattery_report::cell_stats::annotate(&mut r, rank_reference);
    r
}

/// Write results.md, results.csv and report.html next to results.json, and results.json again
/// with each cell's statistics; returns the HTML path.
pub fn write_all(record: &RunRecord, dir: &Path, rank_reference: bool) -> anyhow::Result<PathBuf> {
    let report = Report {
        record,
        aggregate: record.plan.aggregate,
        rank_reference,
    };
    // The runner wrote the samples as it went; the verdicts need every target, so they are
    // added once the run is whole.
    let json = dir.join("results.json");
    let mut bytes = serde_json::to_vec_pretty(&with_stats(record, rank_reference))?;
    bytes.push(b'\n');
    std::fs::write(&json, bytes).with_context(|| format!("writing {}", json.display()))?;
    for (name, renderer) in [
        ("results.md", &Markdown as &dyn Renderer),
        ("results.csv", &Csv),
    ] {
        let bytes = renderer
            .render(&report)
            .with_context(|| format!("rendering {name}"))?;
        let path = dir.join(name);
        fsbattery_core::atomic::write(&path, &bytes)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    write_io500_summaries(record, dir)?;
    let html = dir.join("report.html");
    let label = (record.plan.label.clone()).unwrap_or_else(|| record.host.hostname.clone());
    super::report::write_html(
        &[(label, record)],
        record.plan.aggregate,
        rank_reference,
        &html,
    )?;
    Ok(html)
}

/// The io500 app's result summary of every io500 run of `record` beside it:
/// `result_summary.txt` for one run, `result_summary.<target>.<repeat>.txt` for several.
fn write_io500_summaries(record: &RunRecord, dir: &Path) -> anyhow::Result<()> {
    let runs = fsbattery_report::io500::runs(record);
    let version = match &record.source {
        Some(s) => s.version.clone(),
        None => format!("{}-{}", record.tool.name, record.tool.version),
    };
    for r in &runs {
        let name = match runs.len() {
            1 => "result_summary.txt".to_string(),
            _ => format!("result_summary.{}.{}.txt", r.target, r.repeat + 1),
        };
        let path = dir.join(name);
        let text = fsbattery_report::io500::result_summary(r, &version);
        fsbattery_core::atomic::write(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The terminal matrix.
pub fn terminal_table(
    record: &RunRecord,
    agg: Option<Aggregate>,
    styled: bool,
    rank_reference: bool,
) -> anyhow::Result<String> {
    let report = Report {
        record,
        aggregate: agg.unwrap_or(record.plan.aggregate),
        rank_reference,
    };
    let bytes = TerminalTable { styled }.render(&report)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// What `run` prints of the record: the results and their verdicts; the seed comparisons and
/// the device paragraph only when `verbose`; one line per cell instead of tables when the
/// output is not a terminal (`styled` false) and `COLUMNS` asks for no table width.
pub fn run_output(
    record: &RunRecord,
    styled: bool,
    verbose: bool,
    rank_reference: bool,
) -> anyhow::Result<String> {
    let report = Report {
        record,
        aggregate: record.plan.aggregate,
        rank_reference,
    };
    let detail = fsbattery_report::table::Detail {
        verbose,
        lines: !styled && fsbattery_report::term_width::columns().is_none(),
    };
    let bytes = TerminalTable { styled }.render_with(&report, detail)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `record` in `format`, as `report` and `run --format` write it to stdout; json is the run
/// record itself with each cell's statistics, as results.json holds it.
pub fn render(
    record: &RunRecord,
    agg: Aggregate,
    format: ReportFormat,
    styled: bool,
    rank_reference: bool,
) -> anyhow::Result<Vec<u8>> {
    let report = Report {
        record,
        aggregate: agg,
        rank_reference,
    };
    Ok(match format {
        ReportFormat::Table => TerminalTable { styled }.render(&report)?,
        ReportFormat::Markdown => Markdown.render(&report)?,
        ReportFormat::Csv => Csv.render(&report)?,
        ReportFormat::Json => {
            let mut v = serde_json::to_vec_pretty(&with_stats(record, rank_reference))?;
            v.push(b'\n');
            v
        }
    })
}

//! The run_record fuzz target's body, shared with the stable regression test
//! (`crates/fsbattery-report/tests/fuzz_regressions.rs`).

use fsbattery_core::model::RunRecord;
use fsbattery_report::{csv_out::Csv, html::Html, markdown::Markdown, table::TerminalTable};
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;

/// results.json: load a run record, then render it (terminal table, Markdown, CSV under
/// every aggregate, HTML) and compare it with itself, as `fsbattery report`/`compare` do
/// with a saved run. Err when it does not load or a renderer refuses it.
pub fn run_record(data: &[u8]) -> Result<(), String> {
    let record: RunRecord = serde_json::from_slice(data).map_err(|e| e.to_string())?;
    let aggregates = [
        Aggregate::Mean,
        Aggregate::Best,
        Aggregate::Median,
        Aggregate::Min,
        Aggregate::Max,
    ];
    for aggregate in aggregates {
        let report = Report {
            record: &record,
            aggregate,
            rank_reference: false,
        };
        let e = |e: fsbattery_report::RenderError| e.to_string();
        TerminalTable { styled: false }.render(&report).map_err(e)?;
        Markdown.render(&report).map_err(e)?;
        Csv.render(&report).map_err(e)?;
    }
    Html::render_many(&[("fuzz".to_string(), &record)], Aggregate::Mean)
        .map_err(|e| e.to_string())?;
    let differences = fsbattery_report::comparable::differences(&record, &record);
    let _ = fsbattery_report::compare::build(&record, &record, 0.05, &differences);
    Ok(())
}

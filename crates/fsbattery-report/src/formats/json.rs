//! JSON: the run record itself, each cell with its statistics and verdict filled
//! ([`crate::cell_stats`]), as `results.json` holds it once the run is whole; several runs are
//! several documents, one after the other.

use crate::{Format, Options, RenderError, Renderer, Report};
use fsbattery_record::RunRecord;

/// The JSON format's entry in [`super::FORMATS`].
pub const FORMAT: Format = Format {
    name: "json",
    about:
        "The run record, each cell with its n, mean, median, CI, verdict and p beside the samples",
    noun: "run record",
    run_file: Some("results.json"),
    stdout: true,
    terminal: false,
    renderer: |_: &Options| Box::new(Json),
};

/// Renders the run record with its statistics, pretty-printed, with a final newline.
pub struct Json;

impl Renderer for Json {
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError> {
        let record = with_stats(report.record, report.rank_reference);
        let mut bytes =
            serde_json::to_vec_pretty(&record).map_err(|e| RenderError(e.to_string()))?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// `record` with every cell's statistics and verdict filled: they are derived, so they are
/// recomputed here whatever the record carried.
pub fn with_stats(record: &RunRecord, rank_reference: bool) -> RunRecord {
    let mut r = record.clone();
    crate::cell_stats::annotate(&mut r, rank_reference);
    r
}

//! CSV: one row per sample. Columns are derived from the model by serialising the cell's key
//! fields and the sample, so a field added to either appears here without a hand-kept list.

use crate::{RenderError, Renderer, Report};
use fsbattery_record::{Cell, Sample};
use serde::Serialize;

/// Renders every sample of every cell as CSV.
pub struct Csv;

/// The identifying part of a cell, repeated on each of its samples.
#[derive(Serialize)]
struct CellKey<'a> {
    target: &'a str,
    workload: &'a str,
    metric: &'a str,
    unit: &'a str,
    better: fsbattery_stats::Better,
    method: &'a str,
    status: String,
}

fn flatten(
    cell: &Cell,
    sample: &Sample,
) -> Result<serde_json::Map<String, serde_json::Value>, RenderError> {
    let status = match &cell.status {
        fsbattery_record::CellStatus::Ok => "ok".to_string(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.get("state").and_then(|s| s.as_str()).map(String::from))
            .unwrap_or_default(),
    };
    let key = CellKey {
        target: &cell.target,
        workload: &cell.workload,
        metric: &cell.metric,
        unit: &cell.unit,
        better: cell.better,
        method: &cell.method,
        status,
    };
    let mut map = match serde_json::to_value(key).map_err(|e| RenderError(e.to_string()))? {
        serde_json::Value::Object(m) => m,
        _ => unreachable!("a struct serialises to an object"),
    };
    if let serde_json::Value::Object(s) =
        serde_json::to_value(sample).map_err(|e| RenderError(e.to_string()))?
    {
        map.extend(s);
    }
    Ok(map)
}

impl Renderer for Csv {
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header_written = false;
        for cell in &report.record.cells {
            for sample in &cell.samples {
                let row = flatten(cell, sample)?;
                if !header_written {
                    w.write_record(row.keys())
                        .map_err(|e| RenderError(e.to_string()))?;
                    header_written = true;
                }
                let fields = row.values().map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                w.write_record(fields)
                    .map_err(|e| RenderError(e.to_string()))?;
            }
        }
        w.into_inner().map_err(|e| RenderError(e.to_string()))
    }
}

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
    mpi: bool,
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
    // Per-rank parts (MPI) as fixed columns, in every row of a run that has them, so each row
    // has the same columns: number of ranks, their smallest and largest value, and the
    // seconds between the first and the last rank to finish.
    map.remove("ranks");
    if mpi {
        let (n, min, max, skew) = rank_columns(sample);
        map.insert("ranks".into(), n.into());
        map.insert("rank_min".into(), min.into());
        map.insert("rank_max".into(), max.into());
        map.insert("rank_skew_s".into(), skew.into());
    }
    Ok(map)
}

fn rank_columns(sample: &Sample) -> (usize, Option<f64>, Option<f64>, Option<f64>) {
    let r = &sample.ranks;
    if r.is_empty() {
        return (0, None, None, None);
    }
    let fold = |f: fn(f64, f64) -> f64, init: f64, g: fn(&fsbattery_record::RankSample) -> f64| {
        r.iter().map(g).fold(init, f)
    };
    let skew =
        fold(f64::max, 0.0, |x| x.elapsed_s) - fold(f64::min, f64::INFINITY, |x| x.elapsed_s);
    (
        r.len(),
        Some(fold(f64::min, f64::INFINITY, |x| x.value)),
        Some(fold(f64::max, f64::NEG_INFINITY, |x| x.value)),
        Some(skew),
    )
}

impl Renderer for Csv {
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header_written = false;
        let cells = &report.record.cells;
        let mpi = cells
            .iter()
            .flat_map(|c| &c.samples)
            .any(|s| !s.ranks.is_empty());
        for cell in cells {
            for sample in &cell.samples {
                let row = flatten(cell, sample, mpi)?;
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

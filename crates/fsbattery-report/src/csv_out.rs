//! CSV: one row per sample. Columns are derived from the model by serialising the cell's key
//! fields and the sample, so a field added to either appears here without a hand-kept list.
//! A nested object (a sample's `device_io`) becomes one column per field (`device_io.write_bytes`);
//! optional fields absent from some samples are empty there, so every row has every column.
//! Each row also carries its cell's statistics (`cell_n`, `cell_mean`, `cell_median`,
//! `cell_ci95_low`, `cell_ci95_high`, `cell_verdict`, `cell_p`; see [`crate::cell_stats`]),
//! repeated on every sample of the cell, so one file answers both "what was measured" and
//! "what was concluded".

use crate::{Format, Options, RenderError, Renderer, Report};
use fsbattery_record::{Cell, Sample};
use serde::Serialize;

/// The CSV format's entry in [`crate::formats::FORMATS`].
pub const FORMAT: Format = Format {
    name: "csv",
    about: "One row per sample, with its cell's n, mean, median, CI, verdict and p",
    noun: "csv",
    run_file: Some("results.csv"),
    stdout: true,
    terminal: false,
    renderer: |_: &Options| Box::new(Csv),
};

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
        for (k, v) in s {
            match v {
                serde_json::Value::Object(inner) => {
                    map.extend(inner.into_iter().map(|(f, v)| (format!("{k}.{f}"), v)))
                }
                v => {
                    map.insert(k, v);
                }
            }
        }
    }
    if let Some(st) = &cell.stats {
        let ci = |i: usize| st.ci95.map(|c| c[i]);
        let verdict = serde_json::to_value(st.verdict).map_err(|e| RenderError(e.to_string()))?;
        map.insert("cell_n".into(), st.n.into());
        map.insert("cell_mean".into(), st.mean.into());
        map.insert("cell_median".into(), st.median.into());
        map.insert("cell_ci95_low".into(), ci(0).into());
        map.insert("cell_ci95_high".into(), ci(1).into());
        map.insert("cell_verdict".into(), verdict);
        map.insert("cell_p".into(), st.p.into());
    }
    // Per-rank parts (MPI) as columns rather than a list: number of ranks, their smallest
    // and largest value, and the seconds between the first and the last rank to finish.
    map.remove("ranks");
    if !sample.ranks.is_empty() {
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
        delimited(report, b',')
    }
}

/// The rows of [`Csv`], their fields separated by `delimiter` (quoted where a field holds
/// it), for the formats that differ from CSV only by it.
pub fn delimited(report: &Report<'_>, delimiter: u8) -> Result<Vec<u8>, RenderError> {
    let mut rows = Vec::new();
    let mut header: Vec<String> = Vec::new();
    // The statistics are derived: recomputed here, whatever the record carried.
    let mut record = report.record.clone();
    crate::cell_stats::annotate(&mut record, report.rank_reference);
    for cell in &record.cells {
        for sample in &cell.samples {
            let row = flatten(cell, sample)?;
            for k in row.keys() {
                if !header.contains(k) {
                    header.push(k.clone());
                }
            }
            rows.push(row);
        }
    }
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(Vec::new());
    let err = |e: csv::Error| RenderError(e.to_string());
    if !rows.is_empty() {
        w.write_record(&header).map_err(err)?;
    }
    for row in &rows {
        let fields = header.iter().map(|k| match row.get(k) {
            None => String::new(),
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        });
        w.write_record(fields).map_err(err)?;
    }
    w.into_inner().map_err(|e| RenderError(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::{CachePolicy, CachePrep, PhaseCache, ResidencyProbe};

    /// A sample with a cache state and one without share one header and one field count.
    #[test]
    fn samples_with_and_without_a_cache_state_have_the_same_columns() {
        let mut rec = crate::compare::tests::record(&[1.0, 2.0]);
        rec.cells[0].samples[1].cache = Some(PhaseCache {
            policy: CachePolicy::Cold,
            prep: CachePrep::Dropped,
            resident_bytes: 0,
            file_bytes: 4096,
            probe: ResidencyProbe::Cachestat,
            memory_medium: false,
        });
        let report = Report {
            record: &rec,
            aggregate: fsbattery_stats::Aggregate::Mean,
            rank_reference: false,
        };
        let text = String::from_utf8(Csv.render(&report).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("cache.resident_bytes"), "{text}");
        let n = lines[0].split(',').count();
        assert!(lines.iter().all(|l| l.split(',').count() == n), "{text}");
        assert!(
            lines[2].contains(",cold,dropped,0,4096,cachestat"),
            "{text}"
        );
    }
}

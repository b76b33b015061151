//! `compare`: each metric of a new run against the same metric of a base run — ratio, change,
//! Welch p-value and a verdict that says "no significant difference" when the samples cannot
//! tell the runs apart, and "not enough samples" when n < 3.
//!
//! Cells are matched by (target, workload, metric); cells that failed or exist on one side
//! only are listed as such, never silently dropped.

use crate::format::num;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell as TCell, CellAlignment, Table};
use fsbattery_core::model::{CellStatus, RunRecord};
use fsbattery_stats::{compare, Better, Comparison, Verdict};

/// One compared metric.
#[derive(Debug, Clone)]
pub struct CompareRow {
    /// Target label.
    pub target: String,
    /// Row label (the suite's test name, else "workload metric").
    pub label: String,
    /// Unit.
    pub unit: String,
    /// Direction.
    pub better: Better,
    /// Mean of the base samples.
    pub base_mean: Option<f64>,
    /// Mean of the new samples.
    pub new_mean: Option<f64>,
    /// The comparison; `None` when either side has no usable cell.
    pub comparison: Option<Comparison>,
    /// Why there is no comparison.
    pub note: Option<String>,
}

impl CompareRow {
    /// How much worse the new run is, in percent (positive = worse), by the metric's direction.
    pub fn worse_pct(&self) -> Option<f64> {
        let c = self.comparison?.change_pct?;
        Some(match self.better {
            Better::Lower => c,
            Better::Higher => -c,
        })
    }
}

/// Compare every cell of `new` against `base` at significance level `alpha`.
pub fn build(base: &RunRecord, new: &RunRecord, alpha: f64) -> Vec<CompareRow> {
    let mut rows = Vec::new();
    for nc in &new.cells {
        let label = new
            .plan
            .rows
            .iter()
            .find(|r| r.workload == nc.workload && r.metric == nc.metric)
            .map(|r| r.label.clone())
            .unwrap_or_else(|| format!("{} {}", nc.workload, nc.metric));
        let bc = base.cell(&nc.target, &nc.workload, &nc.metric);
        let usable = |s: &CellStatus| matches!(s, CellStatus::Ok);
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let (bv, nv) = (bc.map(|c| c.values()).unwrap_or_default(), nc.values());
        let note = match bc {
            None => Some("not in base run".to_string()),
            Some(b) if !usable(&b.status) => Some("base cell not ok".to_string()),
            Some(_) if !usable(&nc.status) => Some("new cell not ok".to_string()),
            Some(_) => None,
        };
        rows.push(CompareRow {
            target: nc.target.clone(),
            label,
            unit: nc.unit.clone(),
            better: nc.better,
            base_mean: mean(&bv),
            new_mean: mean(&nv),
            comparison: note.is_none().then(|| compare(&bv, &nv, nc.better, alpha)),
            note,
        });
    }
    rows
}

fn verdict_text(r: &CompareRow) -> String {
    match (&r.comparison, &r.note) {
        (_, Some(n)) => n.clone(),
        (Some(c), None) => match (c.verdict, c.p_value) {
            (Verdict::Better | Verdict::Worse, Some(p)) => format!("{} (p={p:.3})", c.verdict),
            (v, _) => v.to_string(),
        },
        (None, None) => "-".into(),
    }
}

fn cells(r: &CompareRow) -> [String; 7] {
    let opt = |v: Option<f64>| v.map(num).unwrap_or_else(|| "-".into());
    let c = r.comparison.as_ref();
    [
        r.label.clone(),
        r.target.clone(),
        opt(r.base_mean),
        opt(r.new_mean),
        c.and_then(|c| c.ratio)
            .map(|x| format!("{x:.3}"))
            .unwrap_or_else(|| "-".into()),
        c.and_then(|c| c.change_pct)
            .map(|x| format!("{x:+.1}%"))
            .unwrap_or_else(|| "-".into()),
        verdict_text(r),
    ]
}

const HEADER: [&str; 7] = [
    "test",
    "target",
    "base mean",
    "new mean",
    "ratio",
    "change",
    "verdict",
];

/// Terminal table of a comparison.
pub fn terminal(rows: &[CompareRow]) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .force_no_tty()
        .set_header(HEADER);
    for r in rows {
        let row = cells(r).into_iter().enumerate().map(|(i, s)| {
            let c = TCell::new(s);
            if (2..6).contains(&i) {
                c.set_alignment(CellAlignment::Right)
            } else {
                c
            }
        });
        t.add_row(row);
    }
    format!("{t}\n")
}

/// Markdown table of a comparison.
pub fn markdown(rows: &[CompareRow]) -> String {
    let mut out = format!(
        "| {} |\n|---|---|---:|---:|---:|---:|---|\n",
        HEADER.join(" | ")
    );
    for r in rows {
        out.push_str(&format!(
            "| {} |\n",
            cells(r).map(|s| s.replace('|', "\\|")).join(" | ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_core::model::*;

    fn record(values: &[f64]) -> RunRecord {
        let samples = values
            .iter()
            .enumerate()
            .map(|(i, v)| Sample {
                repeat: i as u32,
                value: *v,
                elapsed_s: *v,
                user_s: 0.0,
                sys_s: 0.0,
                cpu_pct: 0.0,
            })
            .collect();
        RunRecord {
            schema_version: SCHEMA_VERSION,
            tool: ToolInfo {
                name: "fsbattery".into(),
                version: "0".into(),
            },
            started: String::new(),
            finished: None,
            interrupted: false,
            host: HostInfo::default(),
            plan: PlanInfo {
                suite: "t".into(),
                scale: "quick".into(),
                repeat: values.len() as u32,
                aggregate: fsbattery_stats::Aggregate::Mean,
                pause_secs: 0.0,
                method: "native".into(),
                workloads: vec![],
                rows: vec![],
                datasets: vec![],
                skipped_targets: vec![],
            },
            targets: vec![],
            cells: vec![Cell {
                target: "ext4".into(),
                workload: "metadata".into(),
                metric: "touch_files".into(),
                unit: "s".into(),
                better: Better::Lower,
                method: "native".into(),
                status: CellStatus::Ok,
                samples,
            }],
        }
    }

    #[test]
    fn planted_twenty_percent_regression_is_flagged() {
        let base = record(&[1.00, 1.01, 0.99, 1.02, 0.98]);
        let new = record(&[1.20, 1.21, 1.19, 1.22, 1.18]);
        let rows = build(&base, &new, 0.05);
        let c = rows[0].comparison.unwrap();
        assert_eq!(c.verdict, Verdict::Worse);
        assert!((rows[0].worse_pct().unwrap() - 20.0).abs() < 0.5);
        assert!(terminal(&rows).contains("worse"));
    }

    #[test]
    fn same_samples_are_not_flagged() {
        let base = record(&[1.00, 1.01, 0.99, 1.02, 0.98]);
        let rows = build(&base, &base.clone(), 0.05);
        assert_eq!(
            rows[0].comparison.unwrap().verdict,
            Verdict::NoSignificantDifference
        );
        assert!(markdown(&rows).contains("no significant difference"));
    }

    #[test]
    fn two_samples_are_not_enough() {
        let rows = build(&record(&[1.0, 1.1]), &record(&[2.0, 2.1]), 0.05);
        assert_eq!(
            rows[0].comparison.unwrap().verdict,
            Verdict::NotEnoughSamples
        );
    }
}

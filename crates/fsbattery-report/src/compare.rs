//! `compare`: each metric of a new run against the same metric of a base run — ratio, change,
//! Welch p-value and a verdict that says "no significant difference" when the samples cannot
//! tell the runs apart, and "not enough samples" when n < 3.
//!
//! Cells are matched by (target, workload, metric), targets paired by their spec; cells that failed or exist on one side
//! only are listed as such (`presence`), never silently dropped. Rows touched by a
//! [`Difference`] between the runs carry it in `differs` and never count as a regression, so a
//! CI gate cannot fire (or pass) on runs that measured different things. Renderers of these
//! rows are in [`crate::compare_out`].

use crate::comparable::{differences, Difference};
use fsbattery_record::{Cell, CellStatus, RunRecord};
use fsbattery_stats::{compare, Better, Verdict};
use serde::Serialize;

/// Which runs hold a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// Both runs: the row is compared.
    Both,
    /// Only BASE holds it.
    BaseOnly,
    /// Only NEW holds it.
    NewOnly,
}

/// One compared metric. Its fields are the columns of every format (CSV derives them).
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    /// Row label (the suite's test name, else "workload metric").
    pub label: String,
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Metric name.
    pub metric: String,
    /// Unit.
    pub unit: String,
    /// Direction.
    pub better: Better,
    /// Which runs hold the row.
    pub presence: Presence,
    /// Samples in BASE.
    pub base_n: usize,
    /// Samples in NEW.
    pub new_n: usize,
    /// Mean of the base samples.
    pub base_mean: Option<f64>,
    /// Mean of the new samples.
    pub new_mean: Option<f64>,
    /// `new_mean / base_mean`, when compared.
    pub ratio: Option<f64>,
    /// Relative change in percent, when compared.
    pub change_pct: Option<f64>,
    /// Welch p-value, when the test could run.
    pub p_value: Option<f64>,
    /// The verdict; `None` when the row was not compared (see `note`).
    pub verdict: Option<Verdict>,
    /// Why there is no comparison.
    pub note: Option<String>,
    /// The differences between the runs that touch this row (`--allow-different`).
    pub differs: Vec<String>,
}

/// One NEW run against BASE: what differed between them and every row.
#[derive(Debug, Clone, Serialize)]
pub struct CompareReport {
    /// How BASE was named on the command line.
    pub base: String,
    /// How NEW was named on the command line.
    pub new: String,
    /// What the runs did differently (empty when they are comparable).
    pub differences: Vec<Difference>,
    /// Every row of either run.
    pub rows: Vec<CompareRow>,
}

impl CompareRow {
    /// How much worse the new run is, in percent (positive = worse), by the metric's direction.
    pub fn worse_pct(&self) -> Option<f64> {
        let c = self.change_pct?;
        Some(match self.better {
            Better::Lower => c,
            Better::Higher => -c,
        })
    }

    /// A significant regression of more than `limit` percent between like and like: rows in one
    /// run only or touched by a difference never are.
    pub fn regressed(&self, limit: f64) -> bool {
        self.presence == Presence::Both
            && self.differs.is_empty()
            && self.verdict == Some(Verdict::Worse)
            && self.worse_pct().is_some_and(|w| w > limit)
    }
}

impl CompareReport {
    /// Compare `new` against `base` at significance level `alpha`; names are for display.
    pub fn new(
        base_name: &str,
        base: &RunRecord,
        new_name: &str,
        new: &RunRecord,
        alpha: f64,
    ) -> Self {
        let differences = differences(base, new);
        let rows = build(base, new, alpha, &differences);
        CompareReport {
            base: base_name.to_string(),
            new: new_name.to_string(),
            differences,
            rows,
        }
    }
}

fn label_of(rec: &RunRecord, c: &Cell) -> String {
    let row = rec
        .plan
        .rows
        .iter()
        .find(|r| r.workload == c.workload && r.metric == c.metric);
    row.map(|r| r.label.clone())
        .unwrap_or_else(|| format!("{} {}", c.workload, c.metric))
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Every row: NEW's cells in its order, then the cells only BASE holds in BASE's order.
/// Targets are paired by spec ([`crate::target_match`]); a row names a target by NEW's label
/// where NEW holds it.
pub fn build(
    base: &RunRecord,
    new: &RunRecord,
    alpha: f64,
    diffs: &[Difference],
) -> Vec<CompareRow> {
    let m = crate::target_match::match_targets(base, new);
    let mut rows: Vec<CompareRow> = new
        .cells
        .iter()
        .map(|nc| {
            let bc = m
                .base_of(&nc.target)
                .and_then(|t| base.cell(t, &nc.workload, &nc.metric));
            row(label_of(new, nc), &nc.target, bc, Some(nc), alpha, diffs)
        })
        .collect();
    for bc in &base.cells {
        let target = m.new_of(&bc.target);
        let in_new = target.and_then(|t| new.cell(t, &bc.workload, &bc.metric));
        if in_new.is_none() {
            let shown = target.unwrap_or(&bc.target);
            rows.push(row(label_of(base, bc), shown, Some(bc), None, alpha, diffs));
        }
    }
    rows
}

/// One row from the cells of either side (at least one is present).
fn row(
    label: String,
    target: &str,
    bc: Option<&Cell>,
    nc: Option<&Cell>,
    alpha: f64,
    diffs: &[Difference],
) -> CompareRow {
    let any = nc.or(bc).expect("a row has a cell on some side");
    let ok = |c: &Cell| matches!(c.status, CellStatus::Ok);
    let (presence, note) = match (bc, nc) {
        (None, _) => (Presence::NewOnly, Some("only in new run")),
        (_, None) => (Presence::BaseOnly, Some("only in base run")),
        // Incomplete: its run was interrupted before every repeat was measured.
        (Some(b), _) if b.status == CellStatus::Incomplete => {
            (Presence::Both, Some("base cell incomplete"))
        }
        (Some(b), _) if !ok(b) => (Presence::Both, Some("base cell not ok")),
        (_, Some(n)) if n.status == CellStatus::Incomplete => {
            (Presence::Both, Some("new cell incomplete"))
        }
        (_, Some(n)) if !ok(n) => (Presence::Both, Some("new cell not ok")),
        _ => (Presence::Both, None),
    };
    let (bv, nv) = (
        bc.map(Cell::values).unwrap_or_default(),
        nc.map(Cell::values).unwrap_or_default(),
    );
    let c = note.is_none().then(|| compare(&bv, &nv, any.better, alpha));
    CompareRow {
        label,
        target: target.to_string(),
        workload: any.workload.clone(),
        metric: any.metric.clone(),
        unit: any.unit.clone(),
        better: any.better,
        presence,
        base_n: bv.len(),
        new_n: nv.len(),
        base_mean: mean(&bv),
        new_mean: mean(&nv),
        ratio: c.and_then(|c| c.ratio),
        change_pct: c.and_then(|c| c.change_pct),
        p_value: c.and_then(|c| c.p_value),
        verdict: c.map(|c| c.verdict),
        note: note.map(String::from),
        differs: diffs
            .iter()
            .filter(|d| d.applies_to(target, &any.workload))
            .map(|d| d.what.clone())
            .collect(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use fsbattery_record::*;

    pub(crate) fn record(values: &[f64]) -> RunRecord {
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
                device_io: None,
                cache: None,
                ranks: Vec::new(),
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
                label: None,
                repeat_auto: None,
                age: None,
                cache: None,
                settings: None,
                weights: Default::default(),
            },
            targets: vec![],
            cells: vec![Cell {
                target: "ext4".into(),
                workload: "metadata".into(),
                metric: "touch_files".into(),
                unit: "s".into(),
                better: Better::Lower,
                comparable: true,
                method: "native".into(),
                status: CellStatus::Ok,
                samples,
                stats: None,
            }],
            source: None,
            summary: Vec::new(),
            published: None,
            then_and_now: None,
            composite: None,
            parts: Vec::new(),
        }
    }

    #[test]
    fn planted_twenty_percent_regression_is_flagged() {
        let base = record(&[1.00, 1.01, 0.99, 1.02, 0.98]);
        let new = record(&[1.20, 1.21, 1.19, 1.22, 1.18]);
        let rows = build(&base, &new, 0.05, &[]);
        assert_eq!(rows[0].verdict, Some(Verdict::Worse));
        assert!((rows[0].worse_pct().unwrap() - 20.0).abs() < 0.5);
        assert!(rows[0].regressed(10.0) && !rows[0].regressed(25.0));
    }

    #[test]
    fn same_samples_are_not_flagged() {
        let base = record(&[1.00, 1.01, 0.99, 1.02, 0.98]);
        let rows = build(&base, &base.clone(), 0.05, &[]);
        assert_eq!(rows[0].verdict, Some(Verdict::NoSignificantDifference));
    }

    #[test]
    fn two_samples_are_not_enough() {
        let rows = build(&record(&[1.0, 1.1]), &record(&[2.0, 2.1]), 0.05, &[]);
        assert_eq!(rows[0].verdict, Some(Verdict::NotEnoughSamples));
    }
}

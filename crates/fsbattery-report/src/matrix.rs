//! The seeds' matrix: tests as rows, targets as columns, one aggregated value per cell.
//!
//! Rows come from the suite (in the study's order, pending rows included) and then every
//! measured metric no suite row names, so nothing measured is hidden. The best cell of each
//! row is chosen by the metric's direction among cells whose status is ok.

use crate::Report;
use fsbattery_core::model::{Cell, CellStatus, RunRecord};
use fsbattery_stats::{Better, Summary};

/// Which numbers a matrix shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// The metric's own value (seconds, MB/s, ...).
    Value,
    /// CPU % of the measured phase.
    CpuPct,
}

/// One table cell.
#[derive(Debug, Clone)]
pub enum Entry {
    /// Measured: the summary of its samples.
    Measured(Summary),
    /// Measured but not every repeat finished.
    Incomplete(Option<Summary>),
    /// Failed, with the reason.
    Failed(String),
    /// The row's workload does not exist yet.
    Pending(String),
    /// Nothing recorded for this target (e.g. workload not run there).
    Missing,
}

/// A row of the matrix.
#[derive(Debug, Clone)]
pub struct Row {
    /// Label (the study's test name).
    pub label: String,
    /// Workload.
    pub workload: String,
    /// Metric.
    pub metric: String,
    /// Unit of the shown values.
    pub unit: String,
    /// Direction.
    pub better: Better,
    /// One entry per column.
    pub entries: Vec<Entry>,
    /// Column index of the best entry, if any is measured.
    pub best: Option<usize>,
    /// The row's own aggregate (S2's min/max rows); `None`: the table's.
    pub aggregate: Option<fsbattery_stats::Aggregate>,
}

impl Row {
    /// The aggregate this row shows: its own, else the table's.
    pub fn aggregate_or(&self, table: fsbattery_stats::Aggregate) -> fsbattery_stats::Aggregate {
        self.aggregate.unwrap_or(table)
    }
}

/// What identifies a row before its entries are filled in.
struct RowKey {
    label: String,
    workload: String,
    metric: String,
    pending: Option<String>,
    aggregate: Option<fsbattery_stats::Aggregate>,
}

/// The whole matrix.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// Column labels (targets).
    pub columns: Vec<String>,
    /// Rows in display order.
    pub rows: Vec<Row>,
    /// Quantity shown.
    pub quantity: Quantity,
}

impl Matrix {
    /// Build the matrix of `quantity` for a report.
    pub fn build(report: &Report<'_>, quantity: Quantity) -> Matrix {
        let rec = report.record;
        let columns: Vec<String> = column_labels(rec);
        let mut rows = Vec::new();
        for RowKey {
            label,
            workload,
            metric,
            pending,
            aggregate,
        } in row_keys(rec)
        {
            let sample_cell = rec
                .cells
                .iter()
                .find(|c| c.workload == workload && c.metric == metric);
            let (unit, better) = match (quantity, sample_cell) {
                (Quantity::CpuPct, _) => ("%".to_string(), Better::Lower),
                (Quantity::Value, Some(c)) => (c.unit.clone(), c.better),
                (Quantity::Value, None) => ("".to_string(), Better::Lower),
            };
            let entries: Vec<Entry> = columns
                .iter()
                .map(|t| match &pending {
                    Some(p) => Entry::Pending(p.clone()),
                    None => entry(rec.cell(t, &workload, &metric), quantity),
                })
                .collect();
            // CPU % is a property of a timed phase: rows of sizes or rates have none.
            if quantity == Quantity::CpuPct && sample_cell.is_some_and(|c| c.unit != "s") {
                continue;
            }
            // A row nothing was recorded for (e.g. mkfs rows when no target made a
            // filesystem, or a workload not run) is left out; pending rows always stay.
            if entries.iter().all(|e| matches!(e, Entry::Missing)) {
                continue;
            }
            let best = best_of(&entries, better, aggregate.unwrap_or(report.aggregate));
            rows.push(Row {
                label,
                workload,
                metric,
                unit,
                better,
                entries,
                best,
                aggregate,
            });
        }
        Matrix {
            columns,
            rows,
            quantity,
        }
    }

    /// The matrix of the terminal table and the Markdown: [`Matrix::build`] without the rows
    /// of workload `iozone` once any iozone cell was recorded (its `<test>@<record>` points and
    /// the suite's per-test label rows), because [`crate::iozone_tables`] shows them as
    /// iozone's own tables; without iozone cells the suite's pending iozone rows stay listed.
    /// [`Matrix::build`] itself keeps every row: the HTML report reads the points from it.
    pub fn build_main(report: &Report<'_>, quantity: Quantity) -> Matrix {
        let mut m = Matrix::build(report, quantity);
        if crate::iozone_tables::has_cells(report.record) {
            m.rows
                .retain(|r| r.workload != crate::iozone_tables::WORKLOAD);
        }
        m
    }
}

fn column_labels(rec: &RunRecord) -> Vec<String> {
    let mut cols: Vec<String> = rec.targets.iter().map(|t| t.label.clone()).collect();
    for c in &rec.cells {
        if !cols.contains(&c.target) {
            cols.push(c.target.clone());
        }
    }
    cols
}

/// Rows in display order: suite rows, then every other measured metric (planned or found in
/// the cells), so nothing measured is hidden.
fn row_keys(rec: &RunRecord) -> Vec<RowKey> {
    let mut keys: Vec<RowKey> = rec
        .plan
        .rows
        .iter()
        .map(|r| RowKey {
            label: r.label.clone(),
            workload: r.workload.clone(),
            metric: r.metric.clone(),
            pending: r.pending.clone(),
            aggregate: r.aggregate,
        })
        .collect();
    let planned = rec
        .plan
        .workloads
        .iter()
        .flat_map(|w| w.metrics.iter().map(move |m| (&w.name, &m.name)));
    let measured = rec.cells.iter().map(|c| (&c.workload, &c.metric));
    for (w, m) in planned.chain(measured) {
        if !keys.iter().any(|k| k.workload == *w && k.metric == *m) {
            keys.push(RowKey {
                label: format!("{w} {m}"),
                workload: w.clone(),
                metric: m.clone(),
                pending: None,
                aggregate: None,
            });
        }
    }
    keys
}

/// The entry of one cell (or of none) for `quantity`.
pub(crate) fn entry(cell: Option<&Cell>, quantity: Quantity) -> Entry {
    let Some(cell) = cell else {
        return Entry::Missing;
    };
    let values: Vec<f64> = match quantity {
        Quantity::Value => cell.values(),
        Quantity::CpuPct => cell.samples.iter().map(|s| s.cpu_pct).collect(),
    };
    let better = if quantity == Quantity::CpuPct {
        Better::Lower
    } else {
        cell.better
    };
    let summary = Summary::from_samples(&values, better);
    match &cell.status {
        CellStatus::Ok => summary.map(Entry::Measured).unwrap_or(Entry::Missing),
        CellStatus::Incomplete => Entry::Incomplete(summary),
        CellStatus::Failed { reason } => Entry::Failed(reason.clone()),
        CellStatus::Pending { reason } => Entry::Pending(reason.clone()),
    }
}

fn best_of(entries: &[Entry], better: Better, agg: fsbattery_stats::Aggregate) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, e) in entries.iter().enumerate() {
        if let Entry::Measured(s) = e {
            let v = s.aggregate(agg);
            if best.is_none_or(|(_, b)| better.is_better(v, b)) {
                best = Some((i, v));
            }
        }
    }
    // A single column has nothing to win against.
    best.filter(|_| {
        entries
            .iter()
            .filter(|e| matches!(e, Entry::Measured(_)))
            .count()
            > 1
    })
    .map(|(i, _)| i)
}

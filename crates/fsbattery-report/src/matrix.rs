//! The seeds' matrix: tests as rows, targets as columns, one aggregated value per cell.
//!
//! Rows come from the suite (in the study's order, pending rows included) and then every
//! measured metric no suite row names, so nothing measured is hidden. Each row's verdict
//! (a winner, equivalent within the margin, undecided, or none) comes from
//! [`fsbattery_stats::rank_row`] over the cells whose status is ok, reference targets in RAM
//! left out unless asked ([`crate::reference`]); CPU % rows and rows not comparable across
//! targets ([`Cell::comparable`]) get no verdict at all.

use crate::Report;
use fsbattery_record::{Cell, CellStatus, RunRecord};
use fsbattery_stats::{rank_row_within, Better, Contestant, RowVerdict, Summary, DEFAULT_ALPHA};

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
    /// A cell was planned for this target but holds no sample (not run).
    Missing,
    /// No cell exists for this target: the row does not apply to it (tmpfs has no mkfs).
    NotApplicable,
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
    /// Whether targets may be ranked on this row (false: shown, never marked or scored).
    pub comparable: bool,
    /// Winner, equivalent, undecided or no verdict; no marks at all for CPU % and
    /// non-comparable rows.
    pub verdict: RowVerdict,
    /// The row's own aggregate (S2's min/max rows); `None`: the table's.
    pub aggregate: Option<fsbattery_stats::Aggregate>,
    /// Per column: the shown rate is within 20 % of fsbattery's own ceiling, so it measures
    /// the tool; such a cell never takes part in the verdict.
    pub tool_bound: Vec<bool>,
    /// A row the suite asked for (or of a workload it chose no rows for); false: one more
    /// metric of a workload whose rows the suite chose (fio's every percentile beside the two
    /// a use-case preset names), kept in the report files, left out of the answer and of the
    /// terminal table but with `--verbose`.
    pub listed: bool,
}

impl crate::sweep::Row for Row {
    fn workload(&self) -> &str {
        &self.workload
    }
    fn metric(&self) -> &str {
        &self.metric
    }
    fn unit(&self) -> &str {
        &self.unit
    }
    fn better(&self) -> Better {
        self.better
    }
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
    listed: bool,
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
        // Targets in RAM are shown, not ranked against disks, unless asked.
        let reference = crate::reference::excluded(rec, &columns, report.rank_reference);
        let mut rows = Vec::new();
        for RowKey {
            label,
            workload,
            metric,
            pending,
            aggregate,
            listed,
        } in row_keys(rec)
        {
            let sample_cell = rec
                .cells
                .iter()
                .find(|c| c.workload == workload && c.metric == metric);
            let comparable = sample_cell.is_none_or(|c| c.comparable);
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
            if entries
                .iter()
                .all(|e| matches!(e, Entry::Missing | Entry::NotApplicable))
            {
                continue;
            }
            let agg = aggregate.unwrap_or(report.aggregate);
            let tool_bound = match quantity {
                Quantity::Value => tool_bound(rec, &workload, &entries, &unit, better, agg),
                Quantity::CpuPct => vec![false; entries.len()],
            };
            let verdict = if quantity == Quantity::Value && comparable {
                let samples: Vec<Vec<f64>> = columns
                    .iter()
                    .map(|t| {
                        rec.cell(t, &workload, &metric)
                            .map(Cell::values)
                            .unwrap_or_default()
                    })
                    .collect();
                let margin = crate::conditions::margin_pct(rec);
                let rounds = rounds_of(rec, &columns, &workload, &metric);
                judge(&entries, &samples, &rounds, better, agg, margin, |i| {
                    !tool_bound[i] && !reference[i]
                })
            } else {
                // CPU % is shown, never ranked; a non-comparable row is shown, never marked.
                RowVerdict::none(entries.len())
            };
            rows.push(Row {
                label,
                workload,
                metric,
                unit,
                better,
                entries,
                comparable,
                verdict,
                aggregate,
                tool_bound,
                listed,
            });
        }
        Matrix {
            columns,
            rows,
            quantity,
        }
    }

    /// The matrix of the terminal table and the Markdown: [`Matrix::build`] without the
    /// points of sweeps (e.g. iozone's `write@8192`) and, once a workload recorded points,
    /// its rows without cells of their own (the suite's per-test label rows), because
    /// [`crate::iozone_tables`] shows them as tables of their own; without points the suite's
    /// pending iozone rows stay listed.
    /// [`Matrix::build`] itself keeps every row: the HTML report reads the points from it.
    pub fn build_main(report: &Report<'_>, quantity: Quantity) -> Matrix {
        let mut m = Matrix::build(report, quantity);
        let rec = report.record;
        let swept = crate::sweep::swept_workloads(rec);
        m.rows.retain(|r| !crate::sweep::is_swept(rec, r, &swept));
        m
    }
}

/// Which entries' shown values are within 20 % of the run's tool ceiling (none without one),
/// the ceiling scaled to `workload`'s threads ([`thread_scale`]).
pub fn tool_bound(
    rec: &RunRecord,
    workload: &str,
    entries: &[Entry],
    unit: &str,
    better: Better,
    agg: fsbattery_stats::Aggregate,
) -> Vec<bool> {
    let ceiling = rec.host.tool_ceiling.as_ref();
    let scale = thread_scale(rec, workload);
    entries
        .iter()
        .map(|e| match (e, ceiling) {
            (Entry::Measured(s) | Entry::Incomplete(Some(s)), Some(c)) => {
                c.bounds(unit, better, s.aggregate(agg) / scale)
            }
            _ => false,
        })
        .collect()
}

/// How many copies of the (single-threaded) ceiling loop `workload` could run at once: its
/// `threads` parameter (0 = one per CPU), at most the host's CPUs, at least 1. The ceiling is
/// measured on one thread; ten threads of randomio on a 2-CPU machine reach up to twice it
/// before fsbattery itself is the limit (docs/src/performance.md), so an unscaled ceiling marks
/// multithreaded rates tool-bound too readily.
pub fn thread_scale(rec: &RunRecord, workload: &str) -> f64 {
    let cores = rec.host.cores.max(1);
    let threads = rec
        .plan
        .workloads
        .iter()
        .find(|w| w.name == workload)
        .and_then(|w| w.params.get("threads"))
        .and_then(|t| t.parse::<u32>().ok())
        .map_or(1, |t| if t == 0 { cores } else { t });
    f64::from(threads.clamp(1, cores))
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
            listed: true,
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
                listed: !rec.plan.rows.iter().any(|r| r.workload == *w),
            });
        }
    }
    keys
}

/// The entry of one cell (or of none) for `quantity`.
pub(crate) fn entry(cell: Option<&Cell>, quantity: Quantity) -> Entry {
    let Some(cell) = cell else {
        return Entry::NotApplicable;
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
        CellStatus::Missing { .. } => Entry::Missing,
    }
}

/// Per column, the round (repeat) of each sample of the row's cell, when the run measured its
/// targets in interleaved rounds; `None` otherwise (see [`fsbattery_record::RunRecord::interleaved`]).
pub(crate) fn rounds_of(
    rec: &RunRecord,
    columns: &[String],
    workload: &str,
    metric: &str,
) -> Vec<Option<Vec<u32>>> {
    let repeats = |t: &String| {
        let c = rec.cell(t, workload, metric)?;
        Some(c.samples.iter().map(|s| s.repeat).collect())
    };
    columns
        .iter()
        .map(|t| rec.interleaved().then(|| repeats(t)).flatten())
        .collect()
}

/// The verdict of one row: measured entries (of the columns `allowed` admits) compete with
/// their shown aggregate and their samples, at the default significance level (a run record
/// carries no α of its own) and the equivalence margin `margin_pct`. `rounds`: per column, the
/// round of each sample when the run measured its targets in interleaved rounds (the row is
/// then compared round by round), else `None`.
pub(crate) fn judge(
    entries: &[Entry],
    samples: &[Vec<f64>],
    rounds: &[Option<Vec<u32>>],
    better: Better,
    agg: fsbattery_stats::Aggregate,
    margin_pct: f64,
    allowed: impl Fn(usize) -> bool,
) -> RowVerdict {
    let cells: Vec<Option<Contestant<'_>>> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| match e {
            Entry::Measured(s) if allowed(i) => Some(Contestant {
                value: s.aggregate(agg),
                samples: samples.get(i).map(Vec::as_slice).unwrap_or_default(),
                rounds: rounds.get(i).and_then(Option::as_deref),
            }),
            _ => None,
        })
        .collect();
    rank_row_within(&cells, better, DEFAULT_ALPHA, margin_pct)
}

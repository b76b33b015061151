//! The combined view of one or more run records that the HTML page and the spreadsheet draw.
//!
//! Role: merge the per-run matrices (built by [`crate::matrix::Matrix`], so every renderer
//! ranks the same way) into one list of columns — "label: target" when several runs are
//! reported together — and one list of lines, classify each line by its metric's metadata
//! ([`fsbattery_record::MetricMeta`]: an ordinary test, a point of a sweep such as iozone's
//! record sizes, a latency statistic), and judge each line with the verdict every renderer
//! shares ([`crate::matrix::judge`]: a winner, equivalent or undecided; none for lines not
//! comparable across targets, and none on CPU %).
//!
//! Invariants:
//! - every row the matrix keeps appears in exactly one line — the matrix keeps pending rows and
//!   every recorded cell — and failed cells stay [`Entry::Failed`], never dropped;
//! - a line has one value entry and one CPU entry per column, in column order;
//! - a column's colour depends only on the position of its target label among all target
//!   labels (and, for earlier runs, a lighter shade of it), so a filesystem keeps its colour
//!   in every chart and table of the page.
//!
//! Classification reads the metadata only: a metric with dimensions is a point of the sweep
//! it belongs to ([`fsbattery_record::MetricMeta::of`]) at its first dimension; a latency
//! metric is one statistic of its quantity. Older records' names (iozone's `<test>@<record>`,
//! `_p99` suffixes) are turned into metadata by [`fsbattery_record::meta::derive`].

use crate::matrix::{judge, Entry, Matrix, Quantity};
use crate::{RenderError, Report};
use fsbattery_record::{Cell, MetricKind, MetricMeta, RunRecord, Stat};
use fsbattery_stats::{Aggregate, Better, RowVerdict};

/// Tableau 10: distinct, print-safe, readable on white. Keyed by target order.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// One labelled run.
pub(crate) struct Run<'a> {
    /// Label given by the caller ("previous round", "this round").
    pub label: String,
    /// The record.
    pub record: &'a RunRecord,
}

/// One column of every table: a target of one run.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    /// Shown name: the target label, or "run label: target label" for several runs.
    pub name: String,
    /// Index into [`Data::runs`].
    pub run: usize,
    /// Target label within its run.
    pub target: String,
    /// Whether the filesystem keeps a journal (the record's `FsFacts::journaling`): when one
    /// without a journal wins a row, S2 also marks the best journaling filesystem, because the
    /// fair comparison is among filesystems that are crash-safe.
    pub journaling: bool,
    /// Fill colour, `#rrggbb`.
    pub colour: String,
    /// A target in RAM left out of the ranking and the score ([`crate::reference`]).
    pub reference: bool,
}

/// What a line measures, which decides the section that shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// An ordinary test: per-test charts, matrices, summary.
    Test,
    /// One point of a sweep (iozone: a test at one record size).
    Point {
        /// The swept quantity, e.g. iozone's test "write".
        test: String,
        /// Its swept dimension's value here (iozone: record size in bytes).
        record: u64,
    },
    /// A latency statistic.
    Latency {
        /// Metric name without the statistic suffix.
        base: String,
        /// The statistic ("p99", "max", "mean" or "value").
        stat: String,
    },
}

/// One merged row: a (workload, metric) across every column.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    /// The suite's label, else "workload metric".
    pub label: String,
    /// Workload.
    pub workload: String,
    /// Metric.
    pub metric: String,
    /// Unit of the values ("" when no run measured it).
    pub unit: String,
    /// Direction of the value.
    pub better: Better,
    /// Classification.
    pub kind: Kind,
    /// Set when the row is pending in every run that plans it.
    pub pending: Option<String>,
    /// The aggregate its values show: the suite row's own (S2's min and max rows of one
    /// metric are two lines), else the report's.
    pub aggregate: Aggregate,
    /// Value entry per column.
    pub value: Vec<Entry>,
    /// CPU % entry per column.
    pub cpu: Vec<Entry>,
    /// Whether targets may be ranked on this line (false in any run: never marked or scored).
    pub comparable: bool,
    /// Winner, equivalent, undecided or no verdict, over every column.
    pub verdict: RowVerdict,
    /// Significant winner among journaling columns, set only when the line's winner is a
    /// non-journaling filesystem.
    pub best_journaling: Option<usize>,
    /// Per column: within 20 % of that run's tool ceiling ([`crate::matrix::Row::tool_bound`]).
    pub tool_bound: Vec<bool>,
}

impl Line {
    /// The shown value of column `c` (its aggregate), when measured.
    pub fn value_at(&self, c: usize) -> Option<f64> {
        match self.value.get(c)? {
            Entry::Measured(s) => Some(s.aggregate(self.aggregate)),
            _ => None,
        }
    }
}

/// Every run merged.
pub(crate) struct Data<'a> {
    /// Runs in the caller's order.
    pub runs: Vec<Run<'a>>,
    /// Columns: each run's targets, in run then target order.
    pub columns: Vec<Column>,
    /// Lines in suite order (first run first), then lines only later runs have.
    pub lines: Vec<Line>,
    /// Aggregate shown.
    pub aggregate: Aggregate,
    /// Targets in RAM are ranked against disks too (`--rank-reference`).
    pub rank_reference: bool,
}

/// A swept quantity and its points (iozone: a test by record size).
pub(crate) struct IozoneTest<'d> {
    /// Workload that measured it.
    pub workload: String,
    /// The swept quantity (iozone test name).
    pub test: String,
    /// Label (the suite row's, else the test name).
    pub label: String,
    /// Unit of the points.
    pub unit: String,
    /// (record bytes, line), sorted by record size.
    pub points: Vec<(u64, &'d Line)>,
}

/// The latency statistics of one measured quantity.
pub(crate) struct LatencyGroup<'d> {
    /// Workload.
    pub workload: String,
    /// Metric name without the statistic suffix.
    pub base: String,
    /// (statistic, line) in [`Stat::rank`] order.
    pub stats: Vec<(String, &'d Line)>,
}

impl<'a> Data<'a> {
    /// Merge `runs`; an empty list is an error (there is nothing to report).
    pub fn build(
        runs: &[(String, &'a RunRecord)],
        aggregate: Aggregate,
        rank_reference: bool,
    ) -> Result<Self, RenderError> {
        if runs.is_empty() {
            return Err(RenderError("no run record to report".into()));
        }
        let runs: Vec<Run<'a>> = runs
            .iter()
            .map(|(label, record)| Run {
                label: label.clone(),
                record,
            })
            .collect();
        let matrices: Vec<(Matrix, Matrix)> = runs
            .iter()
            .map(|r| {
                let report = Report {
                    record: r.record,
                    aggregate,
                    rank_reference,
                };
                (
                    Matrix::build(&report, Quantity::Value),
                    Matrix::build(&report, Quantity::CpuPct),
                )
            })
            .collect();
        let columns = columns(&runs, &matrices, rank_reference);
        let mut lines: Vec<Line> = Vec::new();
        let mut first_col = 0;
        for (val, cpu) in &matrices {
            merge_run(&mut lines, (val, cpu), aggregate, first_col, columns.len());
            first_col += val.columns.len();
        }
        for line in &mut lines {
            // Classified once merged: the unit may come from a later run.
            line.kind = classify(&meta_of(&runs, line), &line.metric);
            line.pending = pending_everywhere(&runs, line);
        }
        let mut data = Data {
            runs,
            columns,
            lines,
            aggregate,
            rank_reference,
        };
        let all: Vec<usize> = (0..data.columns.len()).collect();
        let journaling: Vec<usize> = all
            .iter()
            .copied()
            .filter(|c| data.columns[*c].journaling)
            .collect();
        for i in 0..data.lines.len() {
            let verdict = data.verdict(&data.lines[i], &all);
            let winner = verdict.winner();
            let best_journaling = winner
                .filter(|w| !data.columns[*w].journaling)
                .and_then(|_| data.verdict(&data.lines[i], &journaling).winner());
            let line = &mut data.lines[i];
            (line.verdict, line.best_journaling) = (verdict, best_journaling);
        }
        Ok(data)
    }

    /// The verdict of `line` among the columns `cols` (the shared rule of
    /// [`crate::matrix::judge`]); no marks when the line is not comparable across targets.
    pub fn verdict(&self, line: &Line, cols: &[usize]) -> RowVerdict {
        if !line.comparable {
            return RowVerdict::none(self.columns.len());
        }
        let samples: Vec<Vec<f64>> = (0..self.columns.len())
            .map(|c| self.samples(line, c))
            .collect();
        let margin = self
            .runs
            .first()
            .map_or(fsbattery_stats::DEFAULT_MARGIN_PCT, |r| {
                crate::conditions::margin_pct(r.record)
            });
        // Round by round only within one interleaved run: rounds of two runs share nothing.
        let one_run = cols
            .iter()
            .all(|&c| self.columns[c].run == self.columns[cols[0]].run);
        let rounds: Vec<Option<Vec<u32>>> = (0..self.columns.len())
            .map(|c| {
                let run = self.runs[self.columns[c].run].record;
                let cell = self
                    .cell(line, c)
                    .filter(|_| one_run && run.interleaved())?;
                Some(cell.samples.iter().map(|s| s.repeat).collect())
            })
            .collect();
        judge(
            &line.value,
            &samples,
            &rounds,
            line.better,
            line.aggregate,
            margin,
            |i| cols.contains(&i) && !line.tool_bound[i] && !self.columns[i].reference,
        )
    }

    /// Ordinary test lines (not sweep points, not latency), pending ones included.
    pub fn tests(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter().filter(|l| l.kind == Kind::Test)
    }

    /// Column indices of one run.
    pub fn run_columns(&self, run: usize) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|c| self.columns[*c].run == run)
            .collect()
    }

    /// The raw samples behind a line's value in one column (empty when none).
    pub fn samples(&self, line: &Line, col: usize) -> Vec<f64> {
        self.cell(line, col).map(Cell::values).unwrap_or_default()
    }

    /// The recorded cell behind a line in one column.
    pub fn cell(&self, line: &Line, col: usize) -> Option<&'a Cell> {
        let c = &self.columns[col];
        self.runs[c.run]
            .record
            .cell(&c.target, &line.workload, &line.metric)
    }

    /// Swept quantities (iozone tests) in the order their first point appears.
    pub fn iozone(&self) -> Vec<IozoneTest<'_>> {
        let mut tests: Vec<IozoneTest<'_>> = Vec::new();
        for line in &self.lines {
            let Kind::Point { test, record } = &line.kind else {
                continue;
            };
            let same = |t: &IozoneTest<'_>| &t.test == test && t.workload == line.workload;
            let at = match tests.iter().position(same) {
                Some(i) => i,
                None => {
                    tests.push(IozoneTest {
                        workload: line.workload.clone(),
                        test: test.clone(),
                        label: self.iozone_label(&line.workload, test),
                        unit: line.unit.clone(),
                        points: Vec::new(),
                    });
                    tests.len() - 1
                }
            };
            tests[at].points.push((*record, line));
        }
        for t in &mut tests {
            t.points.sort_by_key(|p| p.0);
        }
        tests
    }

    /// A suite row `<workload>`/`<test>` names the swept quantity ("Writer report"); its own
    /// line has no cells (the points do), so the label is read from the plans.
    fn iozone_label(&self, workload: &str, test: &str) -> String {
        self.runs
            .iter()
            .flat_map(|r| &r.record.plan.rows)
            .find(|r| r.workload == workload && r.metric == test)
            .map(|r| r.label.clone())
            .unwrap_or_else(|| test.replace('_', " "))
    }

    /// Latency groups in the order their first statistic appears.
    pub fn latency(&self) -> Vec<LatencyGroup<'_>> {
        let mut groups: Vec<LatencyGroup<'_>> = Vec::new();
        for line in &self.lines {
            let Kind::Latency { base, stat } = &line.kind else {
                continue;
            };
            let at = groups
                .iter()
                .position(|g| g.workload == line.workload && &g.base == base);
            let at = at.unwrap_or_else(|| {
                groups.push(LatencyGroup {
                    workload: line.workload.clone(),
                    base: base.clone(),
                    stats: Vec::new(),
                });
                groups.len() - 1
            });
            groups[at].stats.push((stat.clone(), line));
        }
        let rank = |s: &str| Stat::parse(s).map_or(f64::MAX, |s| s.rank());
        for g in &mut groups {
            g.stats
                .sort_by(|(a, _), (b, _)| rank(a).total_cmp(&rank(b)));
        }
        groups
    }
}

fn columns(runs: &[Run<'_>], matrices: &[(Matrix, Matrix)], rank_reference: bool) -> Vec<Column> {
    let mut targets: Vec<&str> = Vec::new();
    for (m, _) in matrices {
        for c in &m.columns {
            if !targets.contains(&c.as_str()) {
                targets.push(c);
            }
        }
    }
    let many = runs.len() > 1;
    let mut out = Vec::new();
    for (ri, (m, _)) in matrices.iter().enumerate() {
        let reference = crate::reference::excluded(runs[ri].record, &m.columns, rank_reference);
        for (ti, t) in m.columns.iter().enumerate() {
            let rec = runs[ri].record;
            // A column without its target's record (none in the run) is known by its label.
            let journaling = rec.targets.iter().find(|x| &x.label == t).map_or_else(
                || fsbattery_record::FsFacts::inferred("", "", t).journaling,
                |x| x.journaling(),
            );
            let hue = targets.iter().position(|x| x == t).unwrap_or(0);
            // The latest run gets the full colour; earlier rounds fade towards white.
            let fade = if many {
                0.55 * (runs.len() - 1 - ri) as f64 / (runs.len() - 1) as f64
            } else {
                0.0
            };
            out.push(Column {
                name: if many {
                    format!("{}: {t}", runs[ri].label)
                } else {
                    t.clone()
                },
                run: ri,
                target: t.clone(),
                journaling,
                colour: tint(PALETTE[hue % PALETTE.len()], fade),
                reference: reference[ti],
            });
        }
    }
    out
}

/// Mix `hex` with white by `amount` (0 = unchanged, 1 = white).
fn tint(hex: &str, amount: f64) -> String {
    let c = u32::from_str_radix(&hex[1..], 16).unwrap_or(0);
    let ch = |shift: u32| {
        let v = ((c >> shift) & 0xff) as f64;
        (v + (255.0 - v) * amount).round() as u32
    };
    format!("#{:02x}{:02x}{:02x}", ch(16), ch(8), ch(0))
}

/// Rows are matched by (workload, metric), not by position: the CPU matrix may leave out rows
/// that have no timed phase (sizes, rates), whose CPU entries then stay `Missing`.
/// A row with its own aggregate (S2's min and max of one metric) is a line of its own.
fn merge_run(
    lines: &mut Vec<Line>,
    (val, cpu): (&Matrix, &Matrix),
    table: Aggregate,
    first: usize,
    width: usize,
) {
    for row in &val.rows {
        let at = find_or_push(lines, row, row.aggregate_or(table), width);
        let line = &mut lines[at];
        if line.unit.is_empty() && !row.unit.is_empty() {
            (line.unit, line.better) = (row.unit.clone(), row.better);
        }
        line.comparable &= row.comparable;
        for (i, e) in row.entries.iter().enumerate() {
            line.value[first + i] = e.clone();
            line.tool_bound[first + i] = row.tool_bound[i];
        }
    }
    for row in &cpu.rows {
        let at = find_or_push(lines, row, row.aggregate_or(table), width);
        for (i, e) in row.entries.iter().enumerate() {
            lines[at].cpu[first + i] = e.clone();
        }
    }
}

fn find_or_push(
    lines: &mut Vec<Line>,
    row: &crate::matrix::Row,
    aggregate: Aggregate,
    width: usize,
) -> usize {
    if let Some(i) = lines.iter().position(|l| {
        l.workload == row.workload && l.metric == row.metric && l.aggregate == aggregate
    }) {
        return i;
    }
    lines.push(Line {
        label: row.label.clone(),
        workload: row.workload.clone(),
        metric: row.metric.clone(),
        aggregate,
        unit: String::new(),
        better: Better::Lower,
        kind: Kind::Test,
        pending: None,
        value: vec![Entry::NotApplicable; width],
        cpu: vec![Entry::NotApplicable; width],
        comparable: true,
        verdict: RowVerdict::none(width),
        best_journaling: None,
        tool_bound: vec![false; width],
    });
    lines.len() - 1
}

/// The pending reason when every run that plans the row has it pending (a row pending in the
/// previous round but measured now is not pending).
fn pending_everywhere(runs: &[Run<'_>], line: &Line) -> Option<String> {
    let mut reason = None;
    for run in runs {
        let row = run
            .record
            .plan
            .rows
            .iter()
            .find(|r| r.workload == line.workload && r.metric == line.metric);
        match row.map(|r| &r.pending) {
            Some(Some(p)) => reason = reason.or(Some(p.clone())),
            Some(None) => return None,
            None => {}
        }
    }
    reason
}

/// The metadata of a line: as the first run that declares it says, else as its name implies
/// ([`RunRecord::metric_meta`]).
fn meta_of(runs: &[Run<'_>], line: &Line) -> MetricMeta {
    let declared = runs
        .iter()
        .find_map(|r| r.record.declared_meta(&line.workload, &line.metric));
    match declared {
        Some(m) => m.clone(),
        None => runs[0]
            .record
            .metric_meta(&line.workload, &line.metric, &line.unit, line.better),
    }
}

/// What a line is, from its metric's metadata alone (see the module header).
pub(crate) fn classify(meta: &MetricMeta, metric: &str) -> Kind {
    if let Some(dim) = meta.dims.first() {
        return Kind::Point {
            test: meta.quantity(metric).to_string(),
            record: dim.value,
        };
    }
    if meta.kind == MetricKind::Latency {
        return Kind::Latency {
            base: meta.quantity(metric).to_string(),
            stat: meta.stat.unwrap_or(Stat::Value).to_string(),
        };
    }
    Kind::Test
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::meta::derive;

    #[test]
    fn conventions() {
        assert_eq!(
            classify(
                &derive("iozone", "write@8192", "KB/s", Better::Higher),
                "write@8192"
            ),
            Kind::Point {
                test: "write".into(),
                record: 8192
            }
        );
        assert_eq!(
            classify(&derive("iozone", "write", "KB/s", Better::Higher), "write"),
            Kind::Test
        );
        assert_eq!(
            classify(
                &derive("randomio", "read_latency_p99.9", "s", Better::Lower),
                "read_latency_p99.9"
            ),
            Kind::Latency {
                base: "read_latency".into(),
                stat: "p99.9".into()
            }
        );
        assert_eq!(
            classify(
                &derive("randomio", "write_latency", "us", Better::Lower),
                "write_latency"
            ),
            Kind::Latency {
                base: "write_latency".into(),
                stat: "value".into()
            }
        );
        // A percentile of a throughput is not a latency.
        assert_eq!(
            classify(&derive("fio", "bw_p99", "MB/s", Better::Higher), "bw_p99"),
            Kind::Test
        );
        assert_eq!(
            classify(
                &derive("metadata", "touch_files", "s", Better::Lower),
                "touch_files"
            ),
            Kind::Test
        );
    }

    #[test]
    fn tint_fades_towards_white() {
        assert_eq!(tint("#4e79a7", 0.0), "#4e79a7");
        assert_eq!(tint("#000000", 1.0), "#ffffff");
    }
}

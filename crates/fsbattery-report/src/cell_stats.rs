//! Fill each cell's statistics ([`fsbattery_record::CellStats`]) from its samples and the row
//! verdict the tables show, for results.json, `--format json` and the CSV.
//!
//! Role: machine-readable output carries what the table said — n, mean, median, CI, the
//! cell's verdict and the p behind it — computed by the same [`Matrix`] as every renderer, so
//! a script reading the JSON and a person reading the table never disagree.
//!
//! Invariants: only [`fsbattery_record::Cell::stats`], the record's `summary` (the closing
//! lines of [`crate::closing`]) and its `then_and_now` ([`crate::then_now`]) change; a cell without a usable
//! summary (no finite sample) gets none; a (workload, metric) shown on several rows (S2's min
//! and max rows) takes its verdict from the first, the one the suite lists first.

use crate::matrix::{Matrix, Quantity};
use crate::verdict_text::sentence;
use crate::Report;
use fsbattery_record::{CellStats, CellVerdict, RunRecord};
use fsbattery_stats::{Decision, Outcome, Standing, Summary};

/// Set `stats` on every cell of `record` and its `summary`, ranking targets in RAM when
/// `rank_reference`.
pub fn annotate(record: &mut RunRecord, rank_reference: bool) {
    let m = Matrix::build(
        &Report {
            record,
            aggregate: record.plan.aggregate,
            rank_reference,
        },
        Quantity::Value,
    );
    let mut found: Vec<(usize, CellStats)> = Vec::new();
    for (ci, cell) in record.cells.iter().enumerate() {
        let Some(s) = Summary::from_samples(&cell.values(), cell.better) else {
            continue;
        };
        let flags = fsbattery_stats::sample_flags(&cell.values());
        let row = m
            .rows
            .iter()
            .find(|r| r.workload == cell.workload && r.metric == cell.metric);
        let col = m.columns.iter().position(|c| *c == cell.target);
        let (verdict, p, words, row_test) = match (row, col) {
            (Some(r), Some(c)) => {
                let name = |i: usize| m.columns[i].clone();
                let judged = r.verdict.outcome != Outcome::NoContest;
                let words = if judged {
                    sentence(&r.verdict, &name)
                } else {
                    String::new()
                };
                let (v, p) = standing(&r.verdict, c);
                (v, p, words, judged.then_some(r.verdict.test))
            }
            _ => (CellVerdict::NotRanked, None, String::new(), None),
        };
        found.push((
            ci,
            CellStats {
                n: s.n,
                mean: s.mean,
                median: s.median,
                stddev: s.stddev,
                min: s.min,
                max: s.max,
                ci95: s.ci95_half_width.map(|h| [s.mean - h, s.mean + h]),
                verdict,
                p,
                row_verdict: words,
                row_test,
                outliers: flags
                    .outliers
                    .iter()
                    .map(|&i| cell.samples[i].repeat)
                    .collect(),
                trend: flags.trend.map(|(tau, p)| [tau, p]),
            },
        ));
    }
    let report = Report {
        record,
        aggregate: record.plan.aggregate,
        rank_reference,
    };
    let mut summary = crate::closing::lines(&Matrix::build_main(&report, Quantity::Value));
    let answer = crate::answer::for_report(&report);
    summary.extend(crate::answer::lines(&answer));
    summary.extend(crate::then_now_closing::lines(&report));
    let composite = Some(Box::new(answer.to_record()));
    let then_and_now = crate::then_now::for_report(&report).map(Box::new);
    summary.extend(crate::io500::notes(record));
    record.summary = summary;
    record.then_and_now = then_and_now;
    record.composite = composite;
    for c in &mut record.cells {
        c.stats = None;
    }
    for (ci, stats) in found {
        record.cells[ci].stats = Some(stats);
    }
}

/// The verdict of column `c` of a row and the p behind it.
fn standing(v: &fsbattery_stats::RowVerdict, c: usize) -> (CellVerdict, Option<f64>) {
    let s = v.standings.get(c).copied().unwrap_or(Standing::Absent);
    match (&v.decision, s) {
        (Decision::NoContest, _) | (_, Standing::Absent) => (CellVerdict::NotRanked, None),
        (Decision::Alone { .. }, _) => (CellVerdict::Alone, None),
        (Decision::NotEnoughSamples { .. }, _) => (CellVerdict::NotEnoughSamples, None),
        (Decision::Winner { p, .. }, Standing::Best) => (CellVerdict::Winner, Some(*p)),
        (Decision::Equivalent { p, .. }, Standing::Best) => (CellVerdict::Equivalent, Some(*p)),
        (
            Decision::Undecided {
                p_diff, p_equiv, ..
            },
            Standing::Best,
        ) => (CellVerdict::Undecided, Some(p_diff.min(*p_equiv))),
        (_, Standing::Worse { p }) => (CellVerdict::Worse, Some(p)),
        (_, Standing::Equivalent { p }) => (CellVerdict::Equivalent, Some(p)),
        (_, Standing::Undecided { p_diff, p_equiv }) => {
            (CellVerdict::Undecided, Some(p_diff.min(p_equiv)))
        }
        (_, Standing::NotEnoughSamples | Standing::Unjudged) => {
            (CellVerdict::NotEnoughSamples, None)
        }
    }
}

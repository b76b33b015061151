//! The answer at the end of a run as data, and its closing lines: the composite ranking with
//! its uncertainty and how many rows are decided. The per-row sentences are
//! [`crate::closing`]'s (the same words as the table marks, from the same verdicts); this
//! module adds what a reader asks last — "so which is best overall, and how sure is that?" —
//! and gathers both for `--format json` and the HTML.
//!
//! Built from the table's own rows ([`Matrix::build_main`]) and their verdicts (Welch and
//! TOST against the best, Holm over the row; a RAM reference left out unless ranked).
//!
//! The composite score of a target is the geometric mean, over the rows every ranked target
//! measured, of its shown value relative to the row's best, oriented so that 1 is the best and
//! 1.2 is "1.2 times worse" (as the Phoronix Test Suite's geometric mean, but relative to the
//! best rather than to a reference machine). Its 95 % interval comes from a bootstrap over each
//! cell's samples with a fixed seed, so one record always gives the same interval.

use crate::matrix::{Entry, Matrix, Quantity};
use crate::verdict_text::sentence;
use crate::Report;
use fsbattery_stats::{Aggregate, Better, Outcome, DEFAULT_ALPHA};
use rand::{RngExt, SeedableRng};
use serde::Serialize;

/// Bootstrap resamples behind a composite score's interval.
const RESAMPLES: usize = 1000;
/// The bootstrap's seed: fixed, so the same record gives the same interval.
const SEED: u64 = 0x5eed_f5ba;

/// The whole answer.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// Significance level of every test (Holm-adjusted within a row).
    pub alpha: f64,
    /// The ranked targets.
    pub ranked: Vec<String>,
    /// Targets shown in the table but not ranked.
    pub unranked: Vec<String>,
    /// Every ranked row, in table order.
    pub rows: Vec<RowAnswer>,
    /// The composite ranking, best first (empty when no row has two ranked targets).
    pub overall: Vec<Score>,
    /// Rows the composite score is taken over.
    pub overall_rows: usize,
    /// How the rows came out.
    pub counts: Counts,
}

/// One row's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct RowAnswer {
    /// The workload.
    pub workload: String,
    /// The row's label, as the table shows it.
    pub label: String,
    /// "winner", "equivalent", "undecided", "not_enough_samples" or "alone".
    pub outcome: &'static str,
    /// The winner, or the best of an equivalent or undecided row.
    pub best: Option<String>,
    /// The verdict in words ([`crate::verdict_text::sentence`]).
    pub text: String,
}

/// A target's composite score.
#[derive(Debug, Clone, Serialize)]
pub struct Score {
    /// The target.
    pub target: String,
    /// Geometric mean of value relative to the best (1 = best in every row).
    pub score: f64,
    /// Its 95 % bootstrap interval.
    pub ci95: (f64, f64),
}

/// How many rows came out which way.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    /// Ranked rows with two or more targets measured.
    pub rows: usize,
    /// With a significant winner.
    pub winners: usize,
    /// Shown equivalent (and the rest separated).
    pub equivalent: usize,
    /// Undecided, or short of samples.
    pub undecided: usize,
}

impl Counts {
    /// Rows with a winner or shown equivalent.
    pub fn decided(&self) -> usize {
        self.winners + self.equivalent
    }
}

/// A row as the composite score sees it: the ranked columns' shown values and samples.
struct Judged {
    better: Better,
    /// Per ranked target: shown value and samples (`None`: not measured there).
    cells: Vec<Option<(f64, Vec<f64>)>>,
    agg: Aggregate,
}

/// The answer for `report`: the table's verdicts, the reference targets its matrix leaves
/// out, and the composite score over the ranked ones.
pub fn for_report(report: &Report<'_>) -> Answer {
    let m = Matrix::build_main(report, Quantity::Value);
    let excluded = crate::reference::excluded(report.record, &m.columns, report.rank_reference);
    let cols: Vec<usize> = (0..m.columns.len()).filter(|&i| !excluded[i]).collect();
    let ranked: Vec<String> = cols.iter().map(|&i| m.columns[i].clone()).collect();
    let mut answer = Answer {
        alpha: DEFAULT_ALPHA,
        unranked: m
            .columns
            .iter()
            .filter(|c| !ranked.contains(c))
            .cloned()
            .collect(),
        ranked,
        rows: Vec::new(),
        overall: Vec::new(),
        overall_rows: 0,
        counts: Counts::default(),
    };
    let name = |c: usize| m.columns[c].clone();
    for row in &m.rows {
        let v = &row.verdict;
        let outcome = match v.outcome {
            Outcome::NoContest => continue,
            Outcome::Alone => "alone",
            Outcome::NotEnoughSamples => "not_enough_samples",
            Outcome::Winner(_) => "winner",
            Outcome::Equivalent => "equivalent",
            Outcome::Undecided => "undecided",
        };
        match outcome {
            "alone" => {}
            "winner" => answer.counts.winners += 1,
            "equivalent" => answer.counts.equivalent += 1,
            _ => answer.counts.undecided += 1,
        }
        answer.counts.rows += usize::from(outcome != "alone");
        answer.rows.push(RowAnswer {
            workload: row.workload.clone(),
            label: row.label.clone(),
            outcome,
            best: v.best.map(name),
            text: sentence(v, &name),
        });
    }
    let judged = judged_rows(report, &m, &cols);
    let (overall, rows) = composite(&judged, &answer.ranked);
    answer.overall = overall;
    answer.overall_rows = rows;
    answer
}

/// The ranked rows with two or more ranked targets measured, for the composite score.
fn judged_rows(report: &Report<'_>, m: &Matrix, cols: &[usize]) -> Vec<Judged> {
    let rec = report.record;
    let mut out = Vec::new();
    for row in m
        .rows
        .iter()
        .filter(|r| r.verdict.outcome != Outcome::NoContest)
    {
        let agg = row.aggregate_or(report.aggregate);
        let cells: Vec<Option<(f64, Vec<f64>)>> = cols
            .iter()
            .map(|&i| match &row.entries[i] {
                Entry::Measured(s) if !row.tool_bound[i] => {
                    let samples = rec
                        .cell(&m.columns[i], &row.workload, &row.metric)
                        .map(fsbattery_record::Cell::values)
                        .unwrap_or_default();
                    Some((s.aggregate(agg), samples))
                }
                _ => None,
            })
            .collect();
        if cells.iter().flatten().count() < 2 {
            continue;
        }
        out.push(Judged {
            better: row.better,
            cells,
            agg,
        });
    }
    out
}

/// Each target's composite score over the rows every ranked target measured, best first, and
/// how many rows that is.
fn composite(judged: &[Judged], names: &[String]) -> (Vec<Score>, usize) {
    let full: Vec<&Judged> = judged
        .iter()
        .filter(|j| {
            j.cells
                .iter()
                .all(|c| c.as_ref().is_some_and(|c| c.0 > 0.0))
        })
        .collect();
    if full.is_empty() || names.len() < 2 {
        return (Vec::new(), 0);
    }
    let shown: Vec<Vec<f64>> = full
        .iter()
        .map(|j| j.cells.iter().flatten().map(|c| c.0).collect())
        .collect();
    let best = best_of(&full, &shown);
    let point = scores(&full, &shown, &best);
    let mut rng = rand_xorshift::XorShiftRng::seed_from_u64(SEED);
    let mut draws: Vec<Vec<f64>> = vec![Vec::with_capacity(RESAMPLES); names.len()];
    for _ in 0..RESAMPLES {
        let resampled: Vec<Vec<f64>> = full
            .iter()
            .map(|j| {
                j.cells
                    .iter()
                    .flatten()
                    .map(|(value, s)| {
                        if s.is_empty() {
                            return *value;
                        }
                        let pick: Vec<f64> = (0..s.len())
                            .map(|_| s[rng.random_range(0..s.len())])
                            .collect();
                        aggregate(&pick, j.agg, j.better)
                    })
                    .collect()
            })
            .collect();
        for (t, s) in scores(&full, &resampled, &best).into_iter().enumerate() {
            draws[t].push(s);
        }
    }
    let mut out: Vec<Score> = names
        .iter()
        .zip(point)
        .zip(draws)
        .map(|((target, score), mut d)| {
            d.sort_by(f64::total_cmp);
            let at = |q: f64| d[((d.len() - 1) as f64 * q).round() as usize];
            Score {
                target: target.clone(),
                score,
                ci95: (at(0.025), at(0.975)),
            }
        })
        .collect();
    out.sort_by(|a, b| a.score.total_cmp(&b.score));
    (out, full.len())
}

/// Per target, the geometric mean over `rows` of its value (`values[row][target]`) relative
/// to the value of the row's best target, `best[row]` (chosen once, from the shown values, so
/// a resample that reorders the targets does not pick its own best: taking the best of noisy
/// values would bias every resampled score upwards).
fn scores(rows: &[&Judged], values: &[Vec<f64>], best: &[usize]) -> Vec<f64> {
    let targets = values.first().map_or(0, Vec::len);
    let mut logs = vec![0.0; targets];
    for ((j, v), &b) in rows.iter().zip(values).zip(best) {
        for (t, x) in v.iter().enumerate() {
            let rel = match j.better {
                Better::Lower => x / v[b],
                Better::Higher => v[b] / x,
            };
            logs[t] += rel.ln();
        }
    }
    logs.iter().map(|l| (l / rows.len() as f64).exp()).collect()
}

/// Per row of `values`, the index of its best value.
fn best_of(rows: &[&Judged], values: &[Vec<f64>]) -> Vec<usize> {
    rows.iter()
        .zip(values)
        .map(|(j, v)| {
            let order = |a: &&f64, b: &&f64| match j.better {
                Better::Lower => a.total_cmp(b),
                Better::Higher => b.total_cmp(a),
            };
            v.iter()
                .enumerate()
                .min_by(|a, b| order(&a.1, &b.1))
                .map_or(0, |(i, _)| i)
        })
        .collect()
}

/// The shown statistic of `samples` (what the table shows for the row).
fn aggregate(samples: &[f64], agg: Aggregate, better: Better) -> f64 {
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let max = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match agg {
        Aggregate::Mean => samples.iter().sum::<f64>() / samples.len() as f64,
        Aggregate::Min => min,
        Aggregate::Max => max,
        Aggregate::Best => match better {
            Better::Lower => min,
            Better::Higher => max,
        },
        Aggregate::Median => {
            let mut s = samples.to_vec();
            s.sort_by(f64::total_cmp);
            let n = s.len();
            match n % 2 {
                1 => s[n / 2],
                _ => (s[n / 2 - 1] + s[n / 2]) / 2.0,
            }
        }
    }
}

/// The closing lines after the per-row verdicts: the composite ranking and the count of
/// decided rows. Nothing when no row reached a verdict (one repeat, one target), as
/// [`crate::closing`] says nothing then either.
pub fn lines(a: &Answer) -> Vec<String> {
    let mut out = Vec::new();
    let judged = |r: &RowAnswer| matches!(r.outcome, "winner" | "equivalent" | "undecided");
    if !a.rows.iter().any(judged) {
        return out;
    }
    if !a.overall.is_empty() {
        out.push(format!(
            "Overall, over the {} rows every ranked target measured (geometric mean of each row's \
             value relative to its best, 1 = best everywhere; 95 % bootstrap interval):",
            a.overall_rows
        ));
        let ranking: Vec<String> = a
            .overall
            .iter()
            .enumerate()
            .map(|(i, s)| {
                format!(
                    "{}. {} {:.2} [{:.2}–{:.2}]",
                    i + 1,
                    s.target,
                    s.score,
                    s.ci95.0,
                    s.ci95.1
                )
            })
            .collect();
        out.push(format!("  {}", ranking.join("   ")));
    }
    let c = a.counts;
    out.push(format!(
        "Decided: {} of {} ranked rows ({} with a winner, {} equivalent); {} undecided.",
        c.decided(),
        c.rows,
        c.winners,
        c.equivalent,
        c.undecided
    ));
    out
}

#[cfg(test)]
#[path = "answer_tests.rs"]
mod tests;

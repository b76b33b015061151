//! The answer at the end of a run: per workload, who wins which row and by how much (with its
//! interval), where targets are equivalent, what stayed undecided and what would decide it;
//! then a composite ranking with its uncertainty and how many rows are decided. hyperfine's
//! closing lines ("A ran 1.23 ± 0.04 times faster than B") are the model: plain words, the
//! ratio, the interval.
//!
//! Built from the table's own rows ([`Matrix::build_main`]), so the answer never names a row
//! the table does not show. Each row is decided by [`fsbattery_stats::decide_row`] (Welch and
//! TOST against the best, Holm over the row) on its ranked cells: comparable rows only, cells
//! that measured (not tool-bound), targets that are ranked (a RAM reference such as tmpfs is
//! shown in the table but left out here unless the caller ranks it).
//!
//! The composite score of a target is the geometric mean, over the rows every ranked target
//! measured, of its shown value relative to the row's best, oriented so that 1 is the best and
//! 1.2 is "1.2 times worse" (as the Phoronix Test Suite's geometric mean, but relative to the
//! best rather than to a reference machine). Its 95 % interval comes from a bootstrap over each
//! cell's samples with a fixed seed, so one record always gives the same interval.

use crate::matrix::{Entry, Matrix, Quantity};
use crate::Report;
use fsbattery_stats::{decide_row, Aggregate, Better, Contestant, Decision, DEFAULT_ALPHA};
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
    /// Equivalence margin, percent of the better mean.
    pub margin_pct: f64,
    /// The ranked targets.
    pub ranked: Vec<String>,
    /// Targets shown in the table but not ranked here.
    pub unranked: Vec<String>,
    /// Per workload, in table order.
    pub groups: Vec<Group>,
    /// The composite ranking, best first (empty when no row has two ranked targets).
    pub overall: Vec<Score>,
    /// Rows the composite score is taken over.
    pub overall_rows: usize,
    /// How the rows came out.
    pub counts: Counts,
}

/// One workload's rows.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// The workload.
    pub workload: String,
    /// Its ranked rows, in table order.
    pub rows: Vec<RowAnswer>,
}

/// One row's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct RowAnswer {
    /// The row's label, as the table shows it.
    pub label: String,
    /// "winner", "equivalent", "undecided" or "not_enough_samples".
    pub outcome: &'static str,
    /// The winner (or the best, for an equivalent or undecided row).
    pub best: Option<String>,
    /// The p-value behind the outcome (Holm-adjusted).
    pub p: Option<f64>,
    /// The outcome in words, without the label.
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
    /// Rows with two or more ranked targets.
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

/// A row as the answer sees it: the ranked columns' contestants and labels.
struct Judged {
    label: String,
    workload: String,
    unit: String,
    better: Better,
    /// Per ranked target: shown value and samples (`None`: not measured there).
    cells: Vec<Option<(f64, Vec<f64>)>>,
    agg: Aggregate,
}

/// The answer a renderer shows for `report`: RAM reference targets left unranked, the margin
/// the run's `--repeat auto` used (else the default).
pub fn for_report(report: &Report<'_>) -> Answer {
    let rec = report.record;
    let margin = rec
        .plan
        .repeat_auto
        .map_or(fsbattery_stats::DEFAULT_MARGIN_PCT, |a| a.margin_pct);
    let reference = |label: &str| {
        rec.targets
            .iter()
            .find(|t| t.label == label)
            .is_some_and(|t| {
                matches!(t.fs_type.as_str(), "tmpfs" | "ramfs")
                    || t.spec == "tmpfs"
                    || t.spec.starts_with("tmpfs:")
            })
    };
    answer(report, &|t| !reference(t), margin)
}

/// The answer of `report`, ranking only the targets `ranked` admits, at the equivalence
/// margin `margin_pct`.
pub fn answer(report: &Report<'_>, ranked: &dyn Fn(&str) -> bool, margin_pct: f64) -> Answer {
    let m = Matrix::build_main(report, Quantity::Value);
    let cols: Vec<usize> = (0..m.columns.len())
        .filter(|&i| ranked(&m.columns[i]))
        .collect();
    let names: Vec<String> = cols.iter().map(|&i| m.columns[i].clone()).collect();
    let judged = judged_rows(report, &m, &cols);
    let mut answer = Answer {
        alpha: DEFAULT_ALPHA,
        margin_pct,
        unranked: m
            .columns
            .iter()
            .filter(|c| !names.contains(c))
            .cloned()
            .collect(),
        ranked: names,
        groups: Vec::new(),
        overall: Vec::new(),
        overall_rows: 0,
        counts: Counts::default(),
    };
    for j in &judged {
        let row = row_answer(j, &answer.ranked, margin_pct);
        match row.outcome {
            "winner" => answer.counts.winners += 1,
            "equivalent" => answer.counts.equivalent += 1,
            _ => answer.counts.undecided += 1,
        }
        answer.counts.rows += 1;
        match answer.groups.iter_mut().find(|g| g.workload == j.workload) {
            Some(g) => g.rows.push(row),
            None => answer.groups.push(Group {
                workload: j.workload.clone(),
                rows: vec![row],
            }),
        }
    }
    let (overall, rows) = composite(&judged, &answer.ranked);
    answer.overall = overall;
    answer.overall_rows = rows;
    answer
}

/// The rows with two or more ranked targets measured.
fn judged_rows(report: &Report<'_>, m: &Matrix, cols: &[usize]) -> Vec<Judged> {
    let rec = report.record;
    let mut out = Vec::new();
    for row in m.rows.iter().filter(|r| r.comparable) {
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
            label: row.label.clone(),
            workload: row.workload.clone(),
            unit: row.unit.clone(),
            better: row.better,
            cells,
            agg,
        });
    }
    out
}

/// "faster" for times and rates, else "better".
fn better_word(unit: &str, better: Better) -> &'static str {
    let timed = match better {
        Better::Lower => unit == "s" || unit == "ms" || unit == "us" || unit == "µs",
        Better::Higher => unit.ends_with("/s"),
    };
    if timed {
        "faster"
    } else {
        "better"
    }
}

/// "1.31× [1.12–1.50]".
fn times(ratio: Option<f64>, ci: Option<(f64, f64)>) -> String {
    match (ratio, ci) {
        // The interval is the difference's, relative to the worse mean (so it holds 1 exactly
        // when the test finds no difference); under heavy noise its low end can pass 0, which
        // no ratio of two times or rates can: shown as 0.
        (Some(r), Some((lo, hi))) => format!("{r:.2}× [{:.2}–{hi:.2}]", lo.max(0.0)),
        (Some(r), None) => format!("{r:.2}×"),
        _ => "by an unstated ratio".into(),
    }
}

/// One row decided, in words.
fn row_answer(j: &Judged, names: &[String], margin_pct: f64) -> RowAnswer {
    let contestants: Vec<Option<Contestant<'_>>> = j
        .cells
        .iter()
        .map(|c| {
            c.as_ref().map(|(value, samples)| Contestant {
                value: *value,
                samples,
            })
        })
        .collect();
    let row = decide_row(&contestants, j.better, DEFAULT_ALPHA, margin_pct);
    let name = |i: usize| names[i].clone();
    let list = |v: &[usize]| {
        v.iter()
            .map(|&i| names[i].as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let word = better_word(&j.unit, j.better);
    let n = |i: usize| j.cells[i].as_ref().map_or(0, |c| c.1.len());
    let (outcome, best, p, text) = match &row.decision {
        Decision::Winner {
            column,
            next,
            ratio,
            ratio_ci,
            p,
        } => (
            "winner",
            Some(name(*column)),
            Some(*p),
            format!(
                "{} wins, {} {word} than {} ({})",
                name(*column),
                times(*ratio, *ratio_ci),
                name(*next),
                p_text(*p)
            ),
        ),
        Decision::Equivalent {
            best,
            equivalent,
            worse,
            margin_pct,
            p,
        } => {
            let mut all = vec![*best];
            all.extend(equivalent);
            let rest = match worse.is_empty() {
                true => String::new(),
                false => format!("; {} significantly worse", list(worse)),
            };
            (
                "equivalent",
                Some(name(*best)),
                Some(*p),
                format!(
                    "{} equivalent within ±{margin_pct} % ({}){rest}",
                    list(&all),
                    p_text(*p)
                ),
            )
        }
        Decision::Undecided {
            best,
            column,
            ratio,
            ratio_ci,
            p_diff,
            repeats,
            ..
        } => {
            let more = match repeats {
                Some(r) if *r > n(*column) => {
                    format!("about {} more repeats would decide it", r - n(*column))
                }
                _ => "more repeats than are worth making would decide it".into(),
            };
            (
                "undecided",
                Some(name(*best)),
                Some(*p_diff),
                format!(
                    "undecided: {} too noisy to tell from {} ({} is {} {word}, n = {}); {more}",
                    name(*column),
                    name(*best),
                    name(*best),
                    times(*ratio, *ratio_ci),
                    n(*column)
                ),
            )
        }
        Decision::NotEnoughSamples { column } => (
            "not_enough_samples",
            None,
            None,
            format!(
                "undecided: {} has {} sample(s); 3 or more decide (--repeat 3, or --repeat auto)",
                name(*column),
                n(*column)
            ),
        ),
        Decision::Alone { .. } | Decision::NoContest => (
            "not_enough_samples",
            None,
            None,
            "nothing to compare".into(),
        ),
    };
    RowAnswer {
        label: j.label.clone(),
        outcome,
        best,
        p,
        text,
    }
}

/// "p = 0.003", "p < 0.001".
fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else {
        format!("p = {p:.3}")
    }
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
    let point = scores(&full, &shown);
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
        for (t, s) in scores(&full, &resampled).into_iter().enumerate() {
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
/// to the row's best.
fn scores(rows: &[&Judged], values: &[Vec<f64>]) -> Vec<f64> {
    let targets = values.first().map_or(0, Vec::len);
    let mut logs = vec![0.0; targets];
    for (j, v) in rows.iter().zip(values) {
        let best = match j.better {
            Better::Lower => v.iter().copied().fold(f64::INFINITY, f64::min),
            Better::Higher => v.iter().copied().fold(0.0, f64::max),
        };
        for (t, x) in v.iter().enumerate() {
            let rel = match j.better {
                Better::Lower => x / best,
                Better::Higher => best / x,
            };
            logs[t] += rel.max(1.0).ln();
        }
    }
    logs.iter().map(|l| (l / rows.len() as f64).exp()).collect()
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

/// The answer as lines of plain text, for the terminal and the Markdown.
pub fn lines(a: &Answer) -> Vec<String> {
    let mut out = Vec::new();
    if a.counts.rows == 0 {
        return out;
    }
    let unranked = match a.unranked.is_empty() {
        true => String::new(),
        false => format!(" ({} shown, not ranked)", a.unranked.join(", ")),
    };
    out.push(format!(
        "Answer — {} ranked targets{unranked}; α = {} with Holm per row, equivalence within ±{} %:",
        a.ranked.len(),
        a.alpha,
        a.margin_pct
    ));
    for g in &a.groups {
        out.push(format!("  {}:", g.workload));
        for r in &g.rows {
            out.push(format!("    {}: {}", r.label, r.text));
        }
    }
    if !a.overall.is_empty() {
        out.push(format!(
            "  Overall, over the {} rows every ranked target measured (geometric mean of each \
             row's value relative to its best; 1 = best everywhere; 95 % bootstrap interval):",
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
        out.push(format!("    {}", ranking.join("   ")));
    }
    let c = a.counts;
    out.push(format!(
        "  Decided: {} of {} rows ({} with a winner, {} equivalent); {} undecided.",
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

//! The answer at the end of a run as data, and its closing lines: the composite ranking with
//! its uncertainty and how many rows are decided. The per-row sentences are
//! [`crate::closing`]'s (the same words as the table marks, from the same verdicts); this
//! module adds what a reader asks last — "so which is best overall, and how sure is that?" —
//! and gathers both for `--format json` and the HTML.
//!
//! Built from the table's own rows ([`Matrix::build_main`]) and their verdicts (Welch and
//! TOST against the best, Holm over the row; a RAM reference left out unless ranked).
//!
//! The composite is defined once, here, and every renderer (terminal, Markdown, HTML, JSON)
//! shows this one: [`fsbattery_stats::composite`] over the rows every ranked target measured,
//! grouped by workload so that a workload weighs once however many rows it has, with the
//! filesystem's lifecycle rows (mkfs, mount, unmount, space) left out unless a weight asks for
//! them (`--weights filesystem=1`). Its intervals come from the rounds as measured; a pairwise
//! test decides which targets it separates, and the ranking orders only those. An interrupted
//! run ranks nothing overall: it names the cells it lacks instead.

use crate::matrix::{Entry, Matrix, Quantity};
use crate::verdict_text::sentence;
use crate::Report;
use fsbattery_stats::composite::{composite, CompositeRow, PairMethod};
use fsbattery_stats::{Aggregate, Better, Outcome, DEFAULT_ALPHA};
use serde::Serialize;

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
    /// The composite ranking, best first (empty when no row has two ranked targets, or the
    /// run was interrupted).
    pub overall: Vec<Score>,
    /// Rows the composite score is taken over.
    pub overall_rows: usize,
    /// The workload groups the composite is taken over, with their weights.
    pub groups: Vec<Group>,
    /// Groups measured but left out of the composite (weight 0: the lifecycle rows by default).
    pub left_out: Vec<String>,
    /// Every pair of ranked targets as the composite's test saw it.
    pub pairs: Vec<PairAnswer>,
    /// Set when the run was interrupted: what it lacks.
    pub partial: Option<Partial>,
    /// What the numbers were measured on ([`crate::measured_on`]).
    pub measured_on: Option<String>,
    /// Cells whose repeats have an outlier or a trend ([`crate::repeat_flags`]).
    pub flagged: usize,
    /// How the rows came out.
    pub counts: Counts,
    /// Rows decided in how much wall time, and the share of it measured.
    pub time: Option<fsbattery_record::composite::TimeToAnswer>,
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
    /// Weighted geometric mean of value relative to the best (1 = best in every row).
    pub score: f64,
    /// Its 95 % interval (bootstrap over whole rounds).
    pub ci95: (f64, f64),
    /// Its place: targets of one tier are not separated by the composite (0 = first).
    pub tier: usize,
}

/// A workload group of the composite.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// The workload.
    pub name: String,
    /// Its weight (1 unless `--weights` said otherwise).
    pub weight: f64,
    /// Its rows in the composite (averaged within the group).
    pub rows: usize,
}

/// Two ranked targets on the composite.
#[derive(Debug, Clone, Serialize)]
pub struct PairAnswer {
    /// The better-scored target.
    pub better: String,
    /// The other.
    pub worse: String,
    /// How many times worse `worse` is, as the test estimates it.
    pub ratio: f64,
    /// The ratio's 95 % interval.
    pub ci95: (f64, f64),
    /// p of "no difference", Holm-adjusted over every pair.
    pub p_holm: f64,
    /// Whether the composite separates them.
    pub separated: bool,
    /// Paired by round, or the bootstrap's paired draws.
    pub method: PairMethod,
}

/// What an interrupted run lacks.
#[derive(Debug, Clone, Serialize)]
pub struct Partial {
    /// "target · workload" of every planned cell not measured whole.
    pub missing: Vec<String>,
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

/// A row as the composite sees it: its group, and the ranked columns' samples in round order
/// (`None`: not measured there).
struct Judged {
    group: String,
    better: Better,
    cells: Vec<Option<Vec<f64>>>,
    agg: Aggregate,
}

/// The answer for `report`: the table's verdicts, the reference targets its matrix leaves
/// out, and the composite over the ranked ones.
pub fn for_report(report: &Report<'_>) -> Answer {
    let mut m = Matrix::build_main(report, Quantity::Value);
    // The suite's question: its rows, not every further metric of a workload it chose.
    m.rows.retain(|r| r.listed);
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
        groups: Vec::new(),
        left_out: Vec::new(),
        pairs: Vec::new(),
        partial: None,
        measured_on: crate::measured_on::line(report.record),
        flagged: crate::repeat_flags::count(report.record),
        counts: Counts::default(),
        time: None,
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
    let c = answer.counts;
    answer.time = crate::time_to_answer::of(report.record, c.decided(), c.rows);
    if report.record.interrupted {
        answer.partial = Some(Partial {
            missing: crate::partial::missing(report.record, &answer.ranked),
        });
        return answer;
    }
    let judged = judged_rows(report, &m, &cols);
    fill_composite(&mut answer, &judged, &crate::weights::of(report.record));
    answer
}

/// The ranked rows with two or more ranked targets measured, for the composite.
fn judged_rows(report: &Report<'_>, m: &Matrix, cols: &[usize]) -> Vec<Judged> {
    let rec = report.record;
    let mut out = Vec::new();
    for row in m
        .rows
        .iter()
        .filter(|r| r.verdict.outcome != Outcome::NoContest)
    {
        let cells: Vec<Option<Vec<f64>>> = cols
            .iter()
            .map(|&i| match &row.entries[i] {
                Entry::Measured(_) if !row.tool_bound[i] => rec
                    .cell(&m.columns[i], &row.workload, &row.metric)
                    .map(in_round_order),
                _ => None,
            })
            .collect();
        if cells.iter().flatten().count() < 2 {
            continue;
        }
        out.push(Judged {
            group: row.workload.clone(),
            better: row.better,
            cells,
            agg: row.aggregate_or(report.aggregate),
        });
    }
    out
}

/// A cell's values ordered by the round (repeat) that measured them.
fn in_round_order(c: &fsbattery_record::Cell) -> Vec<f64> {
    let mut s: Vec<(u32, f64)> = c.samples.iter().map(|s| (s.repeat, s.value)).collect();
    s.sort_by_key(|x| x.0);
    s.into_iter().map(|x| x.1).collect()
}

/// The composite over the rows every ranked target measured, into `answer`.
fn fill_composite(answer: &mut Answer, judged: &[Judged], weight: &dyn Fn(&str) -> f64) {
    let full: Vec<&Judged> = judged
        .iter()
        .filter(|j| j.cells.iter().all(Option::is_some))
        .collect();
    let mut names: Vec<String> = Vec::new();
    for j in &full {
        if !names.contains(&j.group) {
            names.push(j.group.clone());
        }
    }
    let weights: Vec<f64> = names.iter().map(|n| weight(n)).collect();
    let rows: Vec<CompositeRow<'_>> = full
        .iter()
        .map(|j| CompositeRow {
            group: names.iter().position(|n| *n == j.group).unwrap_or(0),
            better: j.better,
            agg: j.agg,
            cells: j.cells.iter().flatten().map(Vec::as_slice).collect(),
        })
        .collect();
    answer.left_out = names
        .iter()
        .zip(&weights)
        .filter(|(_, w)| **w <= 0.0)
        .map(|(n, _)| n.clone())
        .collect();
    let Some(c) = composite(&rows, &weights, answer.ranked.len(), answer.alpha) else {
        return;
    };
    answer.overall_rows = c.rows;
    answer.groups = names
        .iter()
        .zip(&weights)
        .filter(|(_, w)| **w > 0.0)
        .map(|(n, w)| Group {
            name: n.clone(),
            weight: *w,
            rows: full.iter().filter(|j| j.group == *n).count(),
        })
        .collect();
    let target = |t: usize| answer.ranked[t].clone();
    answer.overall = c
        .order
        .iter()
        .map(|&t| Score {
            target: target(t),
            score: c.scores[t],
            ci95: c.ci95[t],
            tier: c.tiers[t],
        })
        .collect();
    answer.pairs = c
        .pairs
        .iter()
        .map(|p| PairAnswer {
            better: target(p.better),
            worse: target(p.worse),
            ratio: p.ratio,
            ci95: p.ci95,
            p_holm: p.p_holm,
            separated: p.separated,
            method: p.method,
        })
        .collect();
}

impl Answer {
    /// The answer as the record keeps it ([`fsbattery_record::composite`]).
    pub fn to_record(&self) -> fsbattery_record::composite::Composite {
        use fsbattery_record::composite as c;
        c::Composite {
            scores: self
                .overall
                .iter()
                .map(|s| c::CompositeScore {
                    target: s.target.clone(),
                    score: s.score,
                    ci95: [s.ci95.0, s.ci95.1],
                    tier: s.tier,
                })
                .collect(),
            ranking: ranking(self),
            groups: self
                .groups
                .iter()
                .map(|g| c::CompositeGroup {
                    name: g.name.clone(),
                    weight: g.weight,
                    rows: g.rows,
                })
                .collect(),
            left_out: self.left_out.clone(),
            time_to_answer: self.time,
            pairs: self
                .pairs
                .iter()
                .map(|p| c::CompositePair {
                    better: p.better.clone(),
                    worse: p.worse.clone(),
                    ratio: p.ratio,
                    ci95: [p.ci95.0, p.ci95.1],
                    p_holm: p.p_holm,
                    separated: p.separated,
                    method: match p.method {
                        PairMethod::PairedRounds => "paired_rounds",
                        PairMethod::TooFewRounds => "too_few_rounds",
                    }
                    .into(),
                })
                .collect(),
            measured_on: self.measured_on.clone(),
            missing: self
                .partial
                .as_ref()
                .map(|p| p.missing.clone())
                .unwrap_or_default(),
        }
    }

    /// The pair of `a` and `b`, whichever order.
    pub fn pair(&self, a: &str, b: &str) -> Option<&PairAnswer> {
        self.pairs
            .iter()
            .find(|p| (p.better == a && p.worse == b) || (p.better == b && p.worse == a))
    }
}

/// The closing lines after the per-row verdicts: the composite ranking (ties said as ties),
/// its scores, and the count of decided rows; for an interrupted run, what it lacks instead
/// of a ranking. Nothing when no row reached a verdict (one repeat, one target), as
/// [`crate::closing`] says nothing then either.
pub fn lines(a: &Answer) -> Vec<String> {
    let mut out = Vec::new();
    let judged = |r: &RowAnswer| matches!(r.outcome, "winner" | "equivalent" | "undecided");
    if let Some(p) = &a.partial {
        out.push(partial_line(p));
    }
    if !a.rows.iter().any(judged) {
        out.extend(a.measured_on.clone());
        // No row had the runs a verdict needs, and the run still says what its time bought.
        out.extend(a.time.as_ref().map(crate::time_to_answer::line));
        return out;
    }
    if !a.overall.is_empty() {
        out.push(format!("Overall: {}.", ranking(a)));
        let scores: Vec<String> = a
            .overall
            .iter()
            .map(|s| {
                format!(
                    "{} {:.2} [{:.2}–{:.2}]",
                    s.target, s.score, s.ci95.0, s.ci95.1
                )
            })
            .collect();
        out.push(format!("  scores: {}", scores.join("   ")));
        out.push(format!("  ({})", definition(a)));
    }
    out.extend(a.measured_on.clone());
    if a.flagged > 0 {
        out.push(format!(
            "Repeats flagged: {} cell(s) have an outlier or a trend across their repeats (named \
             in the report's notes): a slow first repeat is often a warm-up, a trend a drifting \
             machine; their verdicts assume exchangeable repeats.",
            a.flagged
        ));
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
    out.extend(a.time.as_ref().map(crate::time_to_answer::line));
    out
}

/// "xfs and ext4 (not separated from xfs: 1.01× […], p …), then ext3 (1.12× xfs [1.08–1.16])":
/// tiers in order, a tie's members joined by "and" (not ≈, which the tables keep for shown
/// equivalent), each with its ratio to a member it is not separated from, each later tier with
/// its ratio to the previous tier's first.
pub fn ranking(a: &Answer) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut lead: Option<&Score> = None;
    // The current tier's members so far: a target joins a tier because some member is not
    // separated from it, which need not be the first (the first may be separated from it).
    let mut tier: Vec<&Score> = Vec::new();
    for s in &a.overall {
        let starts = lead.is_none_or(|l| l.tier != s.tier);
        if starts {
            tier.clear();
            let mut text = s.target.clone();
            if let (Some(prev), Some(p)) = (lead, lead.and_then(|l| a.pair(&l.target, &s.target))) {
                text.push_str(&format!(
                    " ({:.2}× {} [{:.2}–{:.2}], p {})",
                    p.ratio,
                    prev.target,
                    p.ci95.0,
                    p.ci95.1,
                    p_text(p.p_holm)
                ));
            }
            lead = Some(s);
            parts.push(text);
        } else if let (Some(l), Some(last)) = (joined_by(a, &tier, s).or(lead), parts.last_mut()) {
            let tie = a.pair(&l.target, &s.target).map_or(String::new(), |p| {
                // The joining target's ratio to the member it is not separated from.
                let (r, lo, hi) = match p.better == l.target {
                    true => (p.ratio, p.ci95.0, p.ci95.1),
                    false => (1.0 / p.ratio, 1.0 / p.ci95.1, 1.0 / p.ci95.0),
                };
                format!(
                    " (not separated from {}: {r:.2}× [{lo:.2}–{hi:.2}], p {})",
                    l.target,
                    p_text(p.p_holm)
                )
            });
            last.push_str(&format!(" and {}{tie}", s.target));
        }
        tier.push(s);
    }
    parts.join(", then ")
}

/// The first member of `tier` that `s` is not separated from (what holds `s` in the tier).
fn joined_by<'a>(a: &Answer, tier: &[&'a Score], s: &Score) -> Option<&'a Score> {
    tier.iter()
        .copied()
        .find(|m| a.pair(&m.target, &s.target).is_none_or(|p| !p.separated))
}

/// What the composite is, in one parenthesis.
fn definition(a: &Answer) -> String {
    let weighted = a.groups.iter().any(|g| g.weight != 1.0);
    let groups: Vec<String> = a
        .groups
        .iter()
        .map(|g| {
            if weighted {
                format!("{}×{}", g.name, g.weight)
            } else {
                g.name.clone()
            }
        })
        .collect();
    let mut text = format!(
        "composite: 1 = best in every row; {} workload(s) weigh {}, their {} row(s) averaged \
         within each: {}; 95 % intervals by resampling whole rounds; pairs tested per round, \
         Holm-adjusted",
        a.groups.len(),
        if weighted { "as weighted" } else { "once each" },
        a.overall_rows,
        groups.join(", ")
    );
    if !a.left_out.is_empty() {
        text.push_str(&format!(
            "; left out: {} (--weights {}=1 adds it)",
            a.left_out.join(", "),
            a.left_out[0]
        ));
    }
    text
}

/// A p-value as the summary prints it after "p": "< 0.001" or "= 0.042".
fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("= {p:.3}")
    }
}

/// The line an interrupted run ends with instead of a ranking.
fn partial_line(p: &Partial) -> String {
    const SHOWN: usize = 6;
    let mut names = p.missing[..p.missing.len().min(SHOWN)].join(", ");
    if p.missing.len() > SHOWN {
        names.push_str(&format!(" and {} more", p.missing.len() - SHOWN));
    }
    if p.missing.is_empty() {
        return "Interrupted: every planned cell was measured, but the run did not end; no \
                overall ranking."
            .into();
    }
    format!(
        "Interrupted: no overall ranking; {} planned cell(s) not measured whole: {names}.",
        p.missing.len()
    )
}

#[cfg(test)]
#[path = "answer_tests.rs"]
mod tests;

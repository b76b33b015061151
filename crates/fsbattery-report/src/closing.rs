//! The closing summary of a run: per workload, what was decided and what was not.
//!
//! Role: a run should end with an answer, not only tables (hyperfine's closing lines are the
//! model). Per workload it counts the ranked rows decided (a winner, or equivalent within the
//! margin) and undecided, then gives each ranked row's verdict in one sentence
//! ([`crate::verdict_text::sentence`]): who wins by how much with its CI, where targets are
//! equivalent, which target stayed too noisy and how many repeats would decide it.
//!
//! It closes with a composite: per target the geometric mean, over the ranked rows every
//! ranked target measured, of its mean scaled to the row's best (1.00 = best at every row),
//! with a 95 % interval from each mean's standard error (delta method on the logs; the rows
//! taken as independent and the best as fixed, so it is an indication of spread, not a test).
//!
//! Invariants: built from the same [`Matrix`] verdicts as the table marks, so the summary and
//! the marks never disagree; rows that are not ranked (CPU %, values describing a target,
//! nothing measured) are left out; empty when no row reached a verdict (a winner, equivalent
//! or undecided), e.g. a single-repeat run, where a list of "not enough samples" says nothing
//! the table's missing marks do not.

use crate::matrix::{Entry, Matrix};
use crate::verdict_text::sentence;
use fsbattery_stats::{Outcome, DEFAULT_ALPHA, DEFAULT_MARGIN_PCT};

/// The summary's lines (no trailing newlines): a heading, then per workload a count line and
/// one indented line per ranked row.
pub fn lines(m: &Matrix) -> Vec<String> {
    let ranked: Vec<_> = m
        .rows
        .iter()
        .filter(|r| r.verdict.outcome != Outcome::NoContest)
        .collect();
    let judged = |o: &Outcome| {
        matches!(
            o,
            Outcome::Winner(_) | Outcome::Equivalent | Outcome::Undecided
        )
    };
    if !ranked.iter().any(|r| judged(&r.verdict.outcome)) {
        return Vec::new();
    }
    let mut out = vec![format!(
        "Verdicts (α = {DEFAULT_ALPHA}, Holm-adjusted; equivalent = within ±{DEFAULT_MARGIN_PCT} % \
         by a TOST equivalence test):"
    )];
    let mut workloads: Vec<&str> = Vec::new();
    for r in &ranked {
        if !workloads.contains(&r.workload.as_str()) {
            workloads.push(&r.workload);
        }
    }
    let name = |c: usize| m.columns[c].clone();
    for w in workloads {
        let rows: Vec<_> = ranked.iter().filter(|r| r.workload == w).collect();
        let count = |f: fn(&Outcome) -> bool| rows.iter().filter(|r| f(&r.verdict.outcome)).count();
        let winners = count(|o| matches!(o, Outcome::Winner(_)));
        let equivalent = count(|o| *o == Outcome::Equivalent);
        let undecided = count(|o| *o == Outcome::Undecided);
        let other = rows.len() - winners - equivalent - undecided;
        let mut head = format!(
            "  {w}: {} of {} rows decided ({winners} winner{}, {equivalent} equivalent), \
             {undecided} undecided",
            winners + equivalent,
            rows.len(),
            if winners == 1 { "" } else { "s" }
        );
        if other > 0 {
            head.push_str(&format!(", {other} without a verdict"));
        }
        out.push(head);
        for r in rows {
            out.push(format!("    {}: {}", r.label, sentence(&r.verdict, &name)));
        }
    }
    out.extend(composite(m));
    out
}

/// The composite line (none with fewer than two ranked targets or no row they all measured).
fn composite(m: &Matrix) -> Option<String> {
    use fsbattery_stats::{Better, Standing};
    let ranked: Vec<_> = m
        .rows
        .iter()
        .filter(|r| r.verdict.outcome != Outcome::NoContest)
        .collect();
    let cols: Vec<usize> = (0..m.columns.len())
        .filter(|&c| {
            ranked
                .iter()
                .any(|r| r.verdict.standings.get(c) != Some(&Standing::Absent))
        })
        .collect();
    if cols.len() < 2 {
        return None;
    }
    // Per row and ranked column: (ln of mean / best mean, variance of that log).
    let mut sums = vec![(0.0_f64, 0.0_f64); cols.len()];
    let mut used = 0usize;
    for r in &ranked {
        let stats: Option<Vec<(f64, f64)>> = cols
            .iter()
            .map(|&c| match r.entries.get(c) {
                Some(Entry::Measured(s)) if s.mean > 0.0 => {
                    Some((s.mean, (s.stddev / s.mean).powi(2) / s.n as f64))
                }
                _ => None,
            })
            .collect();
        let Some(stats) = stats else { continue };
        let best = match r.better {
            Better::Lower => stats.iter().map(|s| s.0).fold(f64::INFINITY, f64::min),
            Better::Higher => stats.iter().map(|s| s.0).fold(0.0, f64::max),
        };
        for (k, (mean, var)) in stats.iter().enumerate() {
            let score = match r.better {
                Better::Lower => best / mean,
                Better::Higher => mean / best,
            };
            sums[k].0 += score.ln();
            sums[k].1 += var;
        }
        used += 1;
    }
    if used == 0 {
        return None;
    }
    let t = used as f64;
    let mut scored: Vec<(usize, f64, f64, f64)> = cols
        .iter()
        .zip(&sums)
        .map(|(&c, &(ln, var))| {
            let (centre, half) = (ln / t, 1.96 * var.sqrt() / t);
            (
                c,
                centre.exp(),
                (centre - half).exp(),
                (centre + half).exp(),
            )
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    let parts: Vec<String> = scored
        .iter()
        .map(|(c, s, lo, hi)| format!("{} {s:.2} ({lo:.2}–{hi:.2})", m.columns[*c]))
        .collect();
    Some(format!(
        "  composite: geometric mean over the {used} ranked rows every ranked target measured, \
         each scaled to its best (1.00 = best at every row), 95 % interval: {}",
        parts.join(", ")
    ))
}

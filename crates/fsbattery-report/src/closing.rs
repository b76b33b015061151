//! The closing summary of a run: per workload, what was decided and what was not.
//!
//! Role: a run should end with an answer, not only tables (hyperfine's closing lines are the
//! model). Per workload it counts the ranked rows decided (a winner, or equivalent within the
//! margin) and undecided, then gives each ranked row's verdict in one sentence
//! ([`crate::verdict_text::sentence`]): who wins by how much with its CI, where targets are
//! equivalent, which target stayed too noisy and how many repeats would decide it.
//!
//! The composite ranking and the count of decided rows follow it ([`crate::answer`]).
//!
//! Invariants: built from the same [`Matrix`] verdicts as the table marks, so the summary and
//! the marks never disagree; rows that are not ranked (CPU %, values describing a target,
//! nothing measured) are left out; empty when no row reached a verdict (a winner, equivalent
//! or undecided), e.g. a single-repeat run, where a list of "not enough samples" says nothing
//! the table's missing marks do not.

use crate::matrix::Matrix;
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
    // Every row of a run is judged with its run's margin.
    let margin = ranked
        .first()
        .map_or(DEFAULT_MARGIN_PCT, |r| r.verdict.margin_pct);
    let mut out = vec![format!(
        "Verdicts (α = {DEFAULT_ALPHA}, Holm-adjusted; equivalent = within ±{margin} % by a TOST \
         equivalence test):"
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
    out
}

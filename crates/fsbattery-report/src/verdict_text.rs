//! A row's verdict in words, the same sentence in the terminal, Markdown, HTML and JSON.
//!
//! Role: say each of the three outcomes plainly with the numbers behind it: a winner with its
//! ratio to the next best and that ratio's CI, an equivalence with its margin, an undecided
//! row naming the column that keeps it so, with its CI and the repeats that would decide it.
//! The p given is always the one the verdict rests on (Holm-adjusted), never the best against
//! the runner-up when the verdict came from another column.
//!
//! Invariants: pure; column names come from the caller, so the HTML can pass escaped,
//! swatched names and the terminal plain ones.

use fsbattery_stats::{Decision, RowVerdict, DEFAULT_ALPHA, MIN_SAMPLES};

/// "p=0.042", or "p<0.001" where three decimals would print a misleading zero.
pub fn p(p: f64) -> String {
    if p < 0.001 {
        "p<0.001".into()
    } else {
        format!("p={p:.3}")
    }
}

/// "1.23× (95 % CI 1.10–1.36)", or "1.23×" without an interval.
pub fn times(ratio: Option<f64>, ci: Option<(f64, f64)>) -> String {
    let level = ((1.0 - DEFAULT_ALPHA) * 100.0).round();
    match (ratio, ci) {
        // The interval is the difference's relative to the worse mean (it holds 1 exactly
        // when the test finds no difference); heavy noise can take its low end below 0,
        // which no ratio of two times or rates can reach: shown as 0.
        (Some(r), Some((lo, hi))) => {
            format!("{r:.2}× ({level} % CI {:.2}–{hi:.2})", lo.max(0.0))
        }
        (Some(r), None) => format!("{r:.2}×"),
        _ => "?×".into(),
    }
}

/// The verdict in one sentence, with `name` giving each column's name.
pub fn sentence(v: &RowVerdict, name: &dyn Fn(usize) -> String) -> String {
    let list = |cols: &[usize]| cols.iter().map(|&c| name(c)).collect::<Vec<_>>().join(", ");
    match &v.decision {
        Decision::NoContest => "not ranked".into(),
        Decision::Alone { .. } => "only one target measured".into(),
        Decision::NotEnoughSamples { column } => format!(
            "not enough samples: {} has fewer than {MIN_SAMPLES} runs",
            name(*column)
        ),
        Decision::Winner {
            column,
            next,
            ratio,
            ratio_ci,
            p: pv,
        } => format!(
            "{} wins, {} better than {} ({}, Holm)",
            name(*column),
            times(*ratio, *ratio_ci),
            name(*next),
            p(*pv)
        ),
        Decision::Equivalent {
            best,
            equivalent,
            worse,
            margin_pct,
            p: pv,
        } => {
            let mut s = format!(
                "equivalent within ±{margin_pct} %: {}, {} ({}, TOST, Holm)",
                name(*best),
                list(equivalent),
                p(*pv)
            );
            if !worse.is_empty() {
                s.push_str(&format!("; significantly worse: {}", list(worse)));
            }
            s
        }
        Decision::Undecided {
            best,
            column,
            undecided,
            ratio,
            ratio_ci,
            repeats,
            ..
        } => {
            let mut s = format!(
                "undecided: {} leads {} by {}, too noisy to tell",
                name(*best),
                name(*column),
                times(*ratio, *ratio_ci)
            );
            if undecided.len() > 1 {
                s.push_str(&format!("; also undecided: {}", list(&undecided[1..])));
            }
            match repeats {
                Some(n) => s.push_str(&format!(
                    "; about {n} repeats each would decide it at the observed noise"
                )),
                None => s.push_str("; more repeats than is practical would be needed"),
            }
            s
        }
    }
}

/// The verdict's kind as one word for machine-readable output: "winner", "equivalent",
/// "undecided", "not_enough_samples", "alone", "not_ranked".
pub fn kind(v: &RowVerdict) -> &'static str {
    match v.decision {
        Decision::NoContest => "not_ranked",
        Decision::Alone { .. } => "alone",
        Decision::NotEnoughSamples { .. } => "not_enough_samples",
        Decision::Winner { .. } => "winner",
        Decision::Equivalent { .. } => "equivalent",
        Decision::Undecided { .. } => "undecided",
    }
}

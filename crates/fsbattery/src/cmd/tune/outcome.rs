//! Each option's outcome as the answer shows it — matters, no effect beyond ±margin, or not
//! resolved with the repeats it would need — with the interval that decided it, in one row
//! the text, the JSON and the charts all read, so no two of them can show different numbers.
//!
//! The interval shown is the decisive one: for an option that matters, its headline level's
//! Holm-consistent interval (it excludes 0); for one shown negligible, the hull of its
//! levels' intervals (it lies inside ±margin exactly when each does); for one not resolved,
//! the hull too, which straddles what would decide it.

use super::search::FsSearch;
use fsbattery_stats::tune::{OptionEffect, Verdict};

/// One option's row.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The option's index in the space.
    pub factor: usize,
    /// Its verdict.
    pub verdict: Verdict,
    /// The level shown (the largest significant effect, else the largest), if any measured.
    pub level: Option<usize>,
    /// Its effect over the default, percent.
    pub effect: Option<f64>,
    /// The decisive interval, percent (see the module's header).
    pub ci: Option<(f64, f64)>,
    /// The lowest confidence level among the intervals behind `ci`.
    pub conf: Option<f64>,
    /// Holm-adjusted p of the level shown.
    pub p: Option<f64>,
    /// Share of the variance.
    pub importance: f64,
    /// For an unresolved option: repeats per configuration it would need (estimate).
    pub repeats_needed: Option<f64>,
}

impl Outcome {
    /// The verdict's name in the JSON.
    pub fn name(&self) -> &'static str {
        match self.verdict {
            Verdict::Matters => "matters",
            Verdict::Negligible => "negligible",
            Verdict::Unresolved { .. } => "unresolved",
        }
    }
}

/// The rows of every option searched (one level held by `--fix` has none), most important
/// first.
pub fn outcomes(s: &FsSearch, alpha: f64) -> Vec<Outcome> {
    let mut rows: Vec<Outcome> = s
        .verdicts
        .iter()
        .enumerate()
        .filter_map(|(j, v)| {
            let e = s.effects.as_ref().map(|fx| &fx[j]);
            Some(row(j, (*v)?, e, alpha, s.repeats_per_config()))
        })
        .collect();
    rows.sort_by(|a, b| b.importance.total_cmp(&a.importance));
    rows
}

fn row(
    factor: usize,
    verdict: Verdict,
    e: Option<&OptionEffect>,
    alpha: f64,
    reps: f64,
) -> Outcome {
    let head = e.and_then(|e| e.headline(alpha));
    let levels = e.map_or(&[][..], |e| &e.levels[..]);
    let ci = match verdict {
        Verdict::Matters => head.map(|h| h.ci),
        _ if levels.is_empty() => None,
        _ => Some(
            levels
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), l| {
                    (a.min(l.ci.0), b.max(l.ci.1))
                }),
        ),
    };
    let conf = match verdict {
        Verdict::Matters => head.map(|h| h.conf),
        _ => levels.iter().map(|l| l.conf).reduce(f64::min),
    };
    let repeats_needed = match verdict {
        Verdict::Unresolved { grow: Some(g) } => Some((g * reps).ceil()),
        _ => None,
    };
    Outcome {
        factor,
        verdict,
        level: head.map(|h| h.level),
        effect: head.map(|h| pct(h.effect)),
        ci: ci.map(|(a, b)| (pct(a), pct(b))),
        conf,
        p: head.map(|h| h.p_holm),
        importance: e.map_or(0.0, |e| e.importance),
        repeats_needed,
    }
}

/// An effect on the log as a percent change of the objective.
pub fn pct(x: f64) -> f64 {
    (x.exp() - 1.0) * 100.0
}

//! Each option's verdict: it matters, it makes no difference beyond a stated margin, or this
//! budget did not resolve it — and, then, how many more repeats would.
//!
//! Role: "not significant" is not "does not matter": with two noisy repeats nothing is
//! significant. An option is called negligible only by an equivalence test at a margin
//! (default ±[`crate::DEFAULT_MARGIN_PCT`] %), by interval inclusion: every non-default level's
//! interval lies inside `(ln(1 − margin), ln(1 + margin))` on the log response, i.e. its
//! effect is shown to be within ±margin of the default. The intervals are the effects'
//! Holm-consistent ones ([`super::estimate`]), two-sided at `1 − α/(m − k)` or narrower
//! steps, so inclusion is at least as strict as a TOST at `α/(m − k)` per level (a two-sided
//! `1 − a` interval inside the margin rejects both one-sided nulls at `a/2`); an option's
//! levels must all pass (intersection–union, no further adjustment needed), and the levels
//! not rejected are simultaneous across options. The interval that decides is the one shown.
//!
//! Invariants:
//! - `Matters` exactly when the option is significant (some level's interval excludes 0);
//! - `Negligible` only when every non-default level was measured and each interval lies
//!   strictly inside the margin; so an option with a level outside the margin, or an
//!   unmeasured level, is never negligible;
//! - otherwise `Unresolved`, with the factor by which the repeats per configuration must grow
//!   for the narrowest route to a decision (intervals shrink as `1/√n`; the quantile's change
//!   with the degrees of freedom is ignored, so it is an estimate), `None` when no number of
//!   repeats can decide it from the present estimates (a level never measured).

use super::design::Factor;
use super::effects::OptionEffect;

/// What the measurements say about one option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Some level differs significantly from the default (Holm).
    Matters,
    /// Every level shown within ±margin of the default.
    Negligible,
    /// Neither shown: `grow` is the estimated factor on the repeats that would decide it.
    Unresolved {
        /// Repeats per configuration × this (≥ 1) would be expected to resolve it.
        grow: Option<f64>,
    },
}

impl Verdict {
    /// Whether the option is decided either way.
    pub fn resolved(&self) -> bool {
        !matches!(self, Verdict::Unresolved { .. })
    }
}

/// The margin on the log response of `margin_pct` % either way.
pub fn log_margin(margin_pct: f64) -> (f64, f64) {
    let m = margin_pct / 100.0;
    ((1.0 - m).max(f64::MIN_POSITIVE).ln(), (1.0 + m).ln())
}

/// The verdict on option `e` of `factor` at `alpha` and margin ±`margin_pct` %.
pub fn judge(factor: &Factor, e: &OptionEffect, alpha: f64, margin_pct: f64) -> Verdict {
    if e.levels.iter().any(|l| l.p_holm < alpha) {
        return Verdict::Matters;
    }
    let (lo, hi) = log_margin(margin_pct);
    let all_measured = e.levels.len() + 1 >= factor.levels;
    let inside = |l: &super::LevelEffect| l.ci.0 > lo && l.ci.1 < hi;
    if all_measured && !e.levels.is_empty() && e.levels.iter().all(inside) {
        return Verdict::Negligible;
    }
    Verdict::Unresolved {
        grow: grow(e, all_measured, lo, hi),
    }
}

/// The smaller of the growth factors that would show the option matters (one level's
/// half-width below its |effect|) or is negligible (every level's half-width below its
/// distance to the margin).
fn grow(e: &OptionEffect, all_measured: bool, lo: f64, hi: f64) -> Option<f64> {
    if !all_measured || e.levels.is_empty() {
        return None;
    }
    let half = |l: &super::LevelEffect| (l.ci.1 - l.ci.0) / 2.0;
    let ratio = |h: f64, room: f64| {
        if room <= 0.0 {
            f64::INFINITY
        } else {
            (h / room).powi(2)
        }
    };
    let to_matter = e
        .levels
        .iter()
        .map(|l| ratio(half(l), l.effect.abs()))
        .fold(f64::INFINITY, f64::min);
    let to_negligible = e
        .levels
        .iter()
        .map(|l| ratio(half(l), (hi - l.effect).min(l.effect - lo)))
        .fold(0.0, f64::max);
    let g = to_matter.min(to_negligible);
    g.is_finite().then_some(g.max(1.0))
}

#[cfg(test)]
mod tests {
    use super::super::LevelEffect;
    use super::*;

    fn level(effect: f64, half: f64, p_holm: f64) -> LevelEffect {
        LevelEffect {
            level: 1,
            effect,
            ci: (effect - half, effect + half),
            conf: 0.95,
            se: half / 2.0,
            df: 10.0,
            p: p_holm,
            p_holm,
        }
    }

    fn option(levels: Vec<LevelEffect>) -> OptionEffect {
        OptionEffect {
            factor: 0,
            significant: levels.iter().any(|l| l.p_holm < 0.05),
            levels,
            importance: 0.0,
        }
    }

    const TWO: Factor = Factor {
        levels: 2,
        default: 0,
    };

    #[test]
    fn the_three_outcomes() {
        let f = TWO;
        assert_eq!(
            judge(&f, &option(vec![level(0.2, 0.05, 0.001)]), 0.05, 5.0),
            Verdict::Matters
        );
        assert_eq!(
            judge(&f, &option(vec![level(0.01, 0.02, 0.6)]), 0.05, 5.0),
            Verdict::Negligible
        );
        // Inside the margin on one side only: not shown either way.
        let v = judge(&f, &option(vec![level(0.03, 0.04, 0.3)]), 0.05, 5.0);
        let Verdict::Unresolved { grow: Some(g) } = v else {
            panic!("{v:?}")
        };
        assert!(g > 1.0 && g < 10.0, "{g}");
    }

    #[test]
    fn an_unmeasured_level_or_one_outside_the_margin_is_never_negligible() {
        let three = Factor {
            levels: 3,
            default: 0,
        };
        let v = judge(&three, &option(vec![level(0.0, 0.01, 0.9)]), 0.05, 5.0);
        assert_eq!(v, Verdict::Unresolved { grow: None });
        // A tight interval around +8 %, not significant only by construction here: it lies
        // outside the margin, so it is not negligible.
        let v = judge(&TWO, &option(vec![level(0.077, 0.01, 0.2)]), 0.05, 5.0);
        assert!(!v.resolved(), "{v:?}");
    }

    #[test]
    fn the_margin_is_symmetric_in_percent() {
        let (lo, hi) = log_margin(5.0);
        assert!((lo.exp() - 0.95).abs() < 1e-12 && (hi.exp() - 1.05).abs() < 1e-12);
    }
}

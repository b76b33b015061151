//! The decision between two columns: one significantly better, equivalent, or undecided.
//!
//! Role: the building block of a row's verdict and of `compare`-style questions. Two tests
//! are asked of the same samples: Welch's two-sided t-test (is there a difference?) and the
//! TOST equivalence test (is the difference within ±margin % of the better mean?). Exactly
//! one of four answers follows:
//! - a significant difference (Welch p < α) names the better side, even when the difference
//!   is also within the margin: a real 2 % difference is still a difference, and its ratio
//!   with its CI tells how small it is;
//! - otherwise equivalence (TOST p < α);
//! - otherwise undecided: too noisy to tell either way.
//!
//! Invariants:
//! - fewer than [`MIN_SAMPLES`] samples on a side (or a non-finite one) is
//!   [`PairOutcome::NotEnoughSamples`], never a decision;
//! - a sample set against itself is never significant, and is equivalent unless its noise is
//!   too large for its size;
//! - `ratio` and `ratio_ci` are `a` relative to `b`, with the CI at `1 - α` (95 %), which
//!   excludes 1 exactly when Welch's test rejects at α.

use serde::{Deserialize, Serialize};

use crate::equivalence::{relative, tost_relative};
use crate::welch_diff::WelchDiff;
use crate::{welch_t_test, Better, MIN_SAMPLES};

/// What two columns say about each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairOutcome {
    /// `a` is significantly better than `b`.
    ABetter,
    /// `b` is significantly better than `a`.
    BBetter,
    /// Shown equivalent within ±margin.
    Equivalent,
    /// Neither separated nor shown equivalent: too noisy to tell.
    Undecided,
    /// A side has fewer than [`MIN_SAMPLES`] usable samples.
    NotEnoughSamples,
}

/// The decision between `a` and `b` with the numbers behind it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// The decision.
    pub outcome: PairOutcome,
    /// Welch's two-sided p-value of a difference, when the test could run.
    pub p_diff: Option<f64>,
    /// TOST p-value of equivalence within ±`margin_pct`, when the test could run.
    pub p_equiv: Option<f64>,
    /// `mean_a / mean_b`.
    pub ratio: Option<f64>,
    /// The `1 - α` confidence interval of `ratio`.
    pub ratio_ci: Option<(f64, f64)>,
    /// The equivalence margin, in percent of the better mean.
    pub margin_pct: f64,
}

impl Pair {
    /// The p-value behind the outcome: Welch's for a difference, TOST's for equivalence, and
    /// for undecided the smaller of the two (the nearer of the two verdicts).
    pub fn p(&self) -> Option<f64> {
        match self.outcome {
            PairOutcome::ABetter | PairOutcome::BBetter => self.p_diff,
            PairOutcome::Equivalent => self.p_equiv,
            _ => match (self.p_diff, self.p_equiv) {
                (Some(d), Some(e)) => Some(d.min(e)),
                (d, e) => d.or(e),
            },
        }
    }
}

/// Decides between `a` and `b` for a metric whose direction is `better`, at significance
/// level `alpha`, with an equivalence margin of `margin_pct` % of the better mean.
pub fn pair(a: &[f64], b: &[f64], better: Better, alpha: f64, margin_pct: f64) -> Pair {
    let p_diff = welch_t_test(a, b).map(|t| t.p_value);
    let p_equiv = tost_relative(a, b, better, margin_pct, alpha).map(|t| t.p_value);
    let w = WelchDiff::new(a, b);
    let (ratio, ratio_ci) = w.map_or((None, None), |w| relative(&w, w.ci(1.0 - alpha)));
    let enough = a.len() >= MIN_SAMPLES && b.len() >= MIN_SAMPLES;
    let outcome = match (w, p_diff, p_equiv) {
        (Some(w), Some(pd), _) if enough && pd < alpha && w.diff != 0.0 => {
            if better.is_better(w.mean_a, w.mean_b) {
                PairOutcome::ABetter
            } else {
                PairOutcome::BBetter
            }
        }
        (Some(_), Some(_), Some(pe)) if enough && pe < alpha => PairOutcome::Equivalent,
        (Some(_), Some(_), _) if enough => PairOutcome::Undecided,
        _ => PairOutcome::NotEnoughSamples,
    };
    Pair {
        outcome,
        p_diff,
        p_equiv,
        ratio,
        ratio_ci,
        margin_pct,
    }
}

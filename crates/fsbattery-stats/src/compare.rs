//! Baseline-vs-new comparison of one metric, as shown by `fsbattery compare`.
//!
//! Role: turn two sample sets into a relative change and a verdict. The
//! verdict is decided by Welch's t-test so that a change is only called
//! better or worse when it stands out from run-to-run noise. Invariants:
//! - With fewer than [`MIN_SAMPLES`] samples on either side (or a non-finite
//!   sample) the verdict is [`Verdict::NotEnoughSamples`]: two or three runs
//!   give a t-test with almost no power, and claiming "no difference" from
//!   them would be misleading.
//! - `Better`/`Worse` are only returned when `p < alpha`, so comparing a
//!   sample set with itself can never produce either.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::moments::moments;
use crate::{welch_t_test, Better};

/// Minimum samples per side before a verdict other than
/// [`Verdict::NotEnoughSamples`] is given.
pub const MIN_SAMPLES: usize = 3;

/// Outcome of comparing a new sample set against a baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The new samples are significantly better than the baseline.
    Better,
    /// The new samples are significantly worse than the baseline.
    Worse,
    /// The difference is within noise at the chosen significance level.
    NoSignificantDifference,
    /// A side has fewer than [`MIN_SAMPLES`] usable samples.
    NotEnoughSamples,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::NoSignificantDifference => "no significant difference",
            Verdict::NotEnoughSamples => "not enough samples",
        })
    }
}

/// Relative change and verdict of `new` against `base`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// `new_mean / base_mean`; `None` if the base mean is 0 or a side is
    /// empty or non-finite.
    pub ratio: Option<f64>,
    /// `(new_mean - base_mean) / |base_mean| * 100`, i.e. `(ratio - 1) * 100`
    /// for a positive baseline; `None` whenever `ratio` is.
    pub change_pct: Option<f64>,
    /// Two-sided Welch p-value, when the test could be run (at least 2
    /// finite samples per side); reported even if the verdict is
    /// [`Verdict::NotEnoughSamples`] so the caller can show it.
    pub p_value: Option<f64>,
    /// Significance verdict, oriented by the metric's [`Better`].
    pub verdict: Verdict,
}

/// Compares `new` against `base` for a metric where `better` says which
/// direction is an improvement, at significance level `alpha` (e.g. `0.05`).
///
/// The verdict is [`Verdict::NotEnoughSamples`] when either side has fewer
/// than [`MIN_SAMPLES`] samples or any non-finite sample; otherwise
/// `Better`/`Worse` when Welch's p-value is below `alpha` (direction from the
/// means), else [`Verdict::NoSignificantDifference`]. A NaN `alpha` never
/// yields a significant verdict.
pub fn compare(base: &[f64], new: &[f64], better: Better, alpha: f64) -> Comparison {
    let means = moments(base)
        .zip(moments(new))
        .map(|(b, n)| (b.mean, n.mean));
    let (ratio, change_pct) = match means {
        Some((b, n)) if b != 0.0 => (Some(n / b), Some((n - b) / b.abs() * 100.0)),
        _ => (None, None),
    };
    let test = welch_t_test(base, new);
    let p_value = test.map(|t| t.p_value);
    let verdict = match (means, p_value) {
        _ if base.len() < MIN_SAMPLES || new.len() < MIN_SAMPLES => Verdict::NotEnoughSamples,
        (Some((b, n)), Some(p)) if p < alpha => {
            if better.is_better(n, b) {
                Verdict::Better
            } else if better.is_better(b, n) {
                Verdict::Worse
            } else {
                // Unreachable in practice (equal means give p = 1), but a
                // tie must not be reported as a change.
                Verdict::NoSignificantDifference
            }
        }
        (Some(_), Some(_)) => Verdict::NoSignificantDifference,
        // Enough samples but a non-finite value made the test impossible.
        _ => Verdict::NotEnoughSamples,
    };
    Comparison {
        ratio,
        change_pct,
        p_value,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn planted_latency_regression_is_worse() {
        let base = [100.0, 101.0, 99.0, 100.5, 99.5];
        let new = [120.0, 121.0, 119.0, 120.5, 119.5];
        let c = compare(&base, &new, Better::Lower, 0.05);
        assert_eq!(c.verdict, Verdict::Worse);
        assert!(close(c.ratio.unwrap(), 1.2, 1e-12));
        assert!(close(c.change_pct.unwrap(), 20.0, 1e-9));
        assert!(c.p_value.unwrap() < 1e-6);
    }

    #[test]
    fn same_change_is_better_for_throughput() {
        let base = [100.0, 101.0, 99.0, 100.5, 99.5];
        let new = [120.0, 121.0, 119.0, 120.5, 119.5];
        assert_eq!(
            compare(&base, &new, Better::Higher, 0.05).verdict,
            Verdict::Better
        );
        assert_eq!(
            compare(&new, &base, Better::Higher, 0.05).verdict,
            Verdict::Worse
        );
    }

    #[test]
    fn noisy_small_change_is_not_significant() {
        let base = [100.0, 110.0, 90.0, 105.0, 95.0];
        let new = [102.0, 112.0, 92.0, 107.0, 97.0];
        let c = compare(&base, &new, Better::Lower, 0.05);
        assert_eq!(c.verdict, Verdict::NoSignificantDifference);
        assert!(close(c.change_pct.unwrap(), 2.0, 1e-9));
    }

    #[test]
    fn too_few_samples() {
        let c = compare(&[1.0, 2.0], &[10.0, 11.0, 12.0], Better::Lower, 0.05);
        assert_eq!(c.verdict, Verdict::NotEnoughSamples);
        // The ratio and the test are still informative and reported.
        assert!(close(c.ratio.unwrap(), 11.0 / 1.5, 1e-12));
        assert!(c.p_value.is_some());
        let c = compare(&[], &[1.0, 2.0, 3.0], Better::Lower, 0.05);
        assert_eq!(
            (c.verdict, c.ratio, c.p_value),
            (Verdict::NotEnoughSamples, None, None)
        );
    }

    #[test]
    fn non_finite_sample_is_not_enough() {
        let c = compare(&[1.0, 2.0, f64::NAN], &[1.0, 2.0, 3.0], Better::Lower, 0.05);
        assert_eq!(c.verdict, Verdict::NotEnoughSamples);
        assert_eq!(c.ratio, None);
    }

    #[test]
    fn zero_base_mean_has_no_ratio() {
        let c = compare(&[-1.0, 0.0, 1.0], &[5.0, 6.0, 7.0], Better::Higher, 0.05);
        assert_eq!((c.ratio, c.change_pct), (None, None));
        assert_eq!(c.verdict, Verdict::Better);
    }

    #[test]
    fn constant_samples_are_decided_exactly() {
        let c = compare(&[5.0; 3], &[5.0; 3], Better::Lower, 0.05);
        assert_eq!(c.verdict, Verdict::NoSignificantDifference);
        let c = compare(&[5.0; 3], &[6.0; 3], Better::Lower, 0.05);
        assert_eq!(c.verdict, Verdict::Worse);
    }

    #[test]
    fn nan_alpha_is_never_significant() {
        let c = compare(&[1.0, 1.1, 0.9], &[9.0, 9.1, 8.9], Better::Lower, f64::NAN);
        assert_eq!(c.verdict, Verdict::NoSignificantDifference);
    }

    #[test]
    fn verdict_names() {
        assert_eq!(
            serde_json::to_string(&Verdict::NoSignificantDifference).unwrap(),
            "\"no_significant_difference\""
        );
        assert_eq!(
            serde_json::to_string(&Verdict::NotEnoughSamples).unwrap(),
            "\"not_enough_samples\""
        );
        assert_eq!(Verdict::Worse.to_string(), "worse");
        let c = compare(&[1.0, 2.0, 3.0], &[2.0, 3.0, 4.0], Better::Lower, 0.05);
        let back: Comparison = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
    }
}

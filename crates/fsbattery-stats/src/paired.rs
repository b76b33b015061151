//! The blocked comparison of two columns: per-round log-ratios, a paired t-test and a paired
//! TOST on them.
//!
//! Role: when a run measures every target in each round (interleaved rounds), the machine's
//! drift between rounds moves every target of a round together. The independent comparison
//! ([`crate::pair`]) counts that drift as noise in both columns; taking each round's ratio
//! cancels it, and what is left is the noise the two columns do not share. A round is a
//! block; the comparison uses the rounds both columns measured.
//!
//! On the log scale a ratio is a difference, so drift that scales a round's values (a slower
//! machine) cancels exactly. `d_r = ln(b_r / a_r)`; "a difference" is the one-sample t-test
//! of mean(d) against 0; "equivalent within ±m %" is TOST of mean(d) within ±ln(1 + m/100)
//! (the ratio between 1/(1 + m) and 1 + m, a bound symmetric on the log scale).
//!
//! Invariants:
//! - `None` (the caller falls back to the independent test) unless both sides hold
//!   [`MIN_SAMPLES`] or more common rounds, every value is finite and positive (a ratio needs
//!   both), and each side names the round of each of its samples;
//! - a round measured twice on one side is a round not known: `None` too;
//! - zero spread of the log-ratios is exact: different (p = 0) unless the mean is 0, and
//!   equivalent exactly when |mean| < the margin;
//! - the confidence interval of level `L` holds 0 exactly when the two-sided test at `1 − L`
//!   does not reject (the same standard error and quantile).

use crate::student_t::{student_t_cdf, student_t_quantile, student_t_sf};
use crate::{MAX_REPEATS, MIN_SAMPLES};

/// The per-round log-ratios `ln(b_r / a_r)` of two columns over their common rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PairedDiff {
    /// Mean log-ratio (b over a).
    pub mean: f64,
    /// Sample standard deviation of the log-ratios.
    pub sd: f64,
    /// Common rounds.
    pub n: usize,
    /// Standard error of `mean`.
    pub se: f64,
}

impl PairedDiff {
    /// `b` against `a`, each with the round of each sample.
    pub fn new(a: &[f64], a_rounds: &[u32], b: &[f64], b_rounds: &[u32]) -> Option<PairedDiff> {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        let d = same_rounds(a, a_rounds, b, b_rounds)?
            .into_iter()
            .map(|(x, y)| (ok(x) && ok(y)).then(|| (y / x).ln()))
            .collect::<Option<Vec<f64>>>()?;
        Self::from_log_ratios(&d)
    }

    /// `b` against `a` where the samples are logarithms already (the tune's log objective):
    /// the per-round differences `b_r − a_r`. The same `None` cases as [`Self::new`], less the
    /// positivity a ratio needs.
    pub fn of_logs(a: &[f64], a_rounds: &[u32], b: &[f64], b_rounds: &[u32]) -> Option<PairedDiff> {
        let d: Vec<f64> = same_rounds(a, a_rounds, b, b_rounds)?
            .into_iter()
            .map(|(x, y)| y - x)
            .collect();
        Self::from_log_ratios(&d)
    }

    /// From the log-ratios themselves; `None` with fewer than [`MIN_SAMPLES`].
    pub fn from_log_ratios(d: &[f64]) -> Option<PairedDiff> {
        let n = d.len();
        if n < MIN_SAMPLES || d.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mean = d.iter().sum::<f64>() / n as f64;
        let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        Some(PairedDiff {
            mean,
            sd,
            n,
            se: sd / (n as f64).sqrt(),
        })
    }

    fn df(&self) -> f64 {
        (self.n - 1) as f64
    }

    /// Two-sided p of "no difference".
    pub fn p_diff(&self) -> f64 {
        if self.se == 0.0 {
            return if self.mean == 0.0 { 1.0 } else { 0.0 };
        }
        (2.0 * student_t_sf((self.mean / self.se).abs(), self.df())).min(1.0)
    }

    /// TOST p of "equivalent within ±`margin_pct` %" (the larger one-sided p).
    pub fn p_equiv(&self, margin_pct: f64) -> f64 {
        let m = log_margin(margin_pct);
        if !(m.is_finite() && m > 0.0) {
            return 1.0;
        }
        if self.se == 0.0 {
            return if self.mean.abs() < m { 0.0 } else { 1.0 };
        }
        let lower = student_t_sf((self.mean + m) / self.se, self.df());
        let upper = student_t_cdf((self.mean - m) / self.se, self.df());
        lower.max(upper)
    }

    /// The two-sided interval of the mean log-ratio at `level`.
    pub fn ci(&self, level: f64) -> (f64, f64) {
        let half = if self.se == 0.0 {
            0.0
        } else {
            student_t_quantile(0.5 + level / 2.0, self.df()) * self.se
        };
        (self.mean - half, self.mean + half)
    }

    /// Rounds that would decide the pair at level `alpha`, taking the observed mean and
    /// spread as the truth (a point estimate, as [`crate::verdict`]'s for the independent
    /// test); `None` when not within [`MAX_REPEATS`].
    pub fn repeats_to_decide(&self, alpha: f64, margin_pct: f64) -> Option<usize> {
        let m = log_margin(margin_pct);
        let d = self.mean.abs();
        let decides = |n: usize| {
            if self.sd == 0.0 {
                return d > 0.0 || d < m;
            }
            let se = self.sd / (n as f64).sqrt();
            let df = (n - 1) as f64;
            d / se > student_t_quantile(1.0 - alpha / 2.0, df)
                || (m - d) / se > student_t_quantile(1.0 - alpha, df)
        };
        if !decides(MAX_REPEATS) {
            return None;
        }
        let (mut lo, mut hi) = ((self.n + 1).min(MAX_REPEATS), MAX_REPEATS);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if decides(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }
}

/// ±`margin_pct` % as a bound on the log-ratio: ln(1 + m).
fn log_margin(margin_pct: f64) -> f64 {
    (margin_pct / 100.0).ln_1p()
}

/// The (a, b) pairs of the rounds both measured, in `a`'s order; `None` when a sample has no
/// round or a round is measured twice on one side (then the rounds are not blocks).
fn same_rounds(
    a: &[f64],
    a_rounds: &[u32],
    b: &[f64],
    b_rounds: &[u32],
) -> Option<Vec<(f64, f64)>> {
    let unique = |r: &[u32]| {
        let mut s = r.to_vec();
        s.sort_unstable();
        s.windows(2).all(|w| w[0] != w[1])
    };
    if a.len() != a_rounds.len() || b.len() != b_rounds.len() {
        return None;
    }
    if !unique(a_rounds) || !unique(b_rounds) {
        return None;
    }
    Some(
        a_rounds
            .iter()
            .zip(a)
            .filter_map(|(r, &x)| Some((x, b[b_rounds.iter().position(|y| y == r)?])))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_one_sample_t_test_of_the_log_ratios() {
        // d = ln([1.1, 1.2, 1.15, 1.05]): mean 0.116546, sd 0.057467, t = 4.05613 on 3 df;
        // the t(3) CDF in closed form, 1/2 + (x/(1 + x²) + atan x)/π with x = t/√3, gives the
        // two-sided p = 0.027004 (as scipy.stats.ttest_1samp(d, 0) does).
        let a = [100.0, 200.0, 100.0, 50.0];
        let b = [110.0, 240.0, 115.0, 52.5];
        let p = PairedDiff::new(&a, &[0, 1, 2, 3], &b, &[0, 1, 2, 3]).unwrap();
        assert!((p.mean - 0.116_546).abs() < 1e-5, "{p:?}");
        assert!((p.sd - 0.057_467).abs() < 1e-5, "{p:?}");
        assert!((p.p_diff() - 0.027_004).abs() < 1e-5, "{}", p.p_diff());
        // Not within ±5 %: TOST cannot show equivalence.
        assert!(p.p_equiv(5.0) > 0.5);
    }

    #[test]
    fn drift_common_to_a_round_cancels() {
        // The same 1 % difference under rounds 30 % apart: exact on the log scale.
        let a = [100.0, 130.0, 70.0, 100.0];
        let b: Vec<f64> = a.iter().map(|x| x * 1.01).collect();
        let p = PairedDiff::new(&a, &[0, 1, 2, 3], &b, &[0, 1, 2, 3]).unwrap();
        assert!(
            p.se < 1e-12 && p.p_diff() == 0.0 && p.p_equiv(5.0) == 0.0,
            "{p:?}"
        );
    }

    #[test]
    fn only_common_rounds_pair_and_bad_inputs_fall_back() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [1.1, 2.2, 3.3];
        let p = PairedDiff::new(&a, &[0, 1, 2, 3], &b, &[1, 2, 3]).unwrap();
        assert_eq!(p.n, 3);
        assert!(PairedDiff::new(&a, &[0, 1, 2, 3], &b, &[4, 5, 6]).is_none());
        assert!(PairedDiff::new(&a, &[0, 0, 2, 3], &b, &[0, 2, 3]).is_none());
        assert!(PairedDiff::new(&[0.0, 1.0, 2.0], &[0, 1, 2], &b, &[0, 1, 2]).is_none());
        assert!(PairedDiff::new(&a, &[0, 1], &b, &[0, 1, 2]).is_none());
    }

    #[test]
    fn the_estimate_grows_with_noise_and_is_past_the_current_count() {
        let quiet = PairedDiff::from_log_ratios(&[0.04, 0.06, 0.05, 0.03]).unwrap();
        let noisy = PairedDiff::from_log_ratios(&[0.14, -0.06, 0.15, -0.03]).unwrap();
        let (q, n) = (
            quiet.repeats_to_decide(0.05, 5.0),
            noisy.repeats_to_decide(0.05, 5.0),
        );
        assert!(
            q.is_some_and(|q| q >= 5) && n.is_some_and(|n| n > q.unwrap()),
            "{q:?} {n:?}"
        );
    }
}

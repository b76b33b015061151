//! How many repeats would decide an undecided pair, estimated from the observed variance.
//!
//! Role: "undecided: too noisy" is only useful with what would change it. Taking the observed
//! difference and variances as if they were the truth, this finds the smallest number of
//! samples per column at which either Welch's test would separate the two or TOST would show
//! them equivalent. It is a point estimate (about even odds, not a power calculation): the
//! next samples move the mean and the variance, so the run may need more or fewer.
//!
//! Invariants:
//! - the answer is at least the larger current sample count plus one, and `None` when even
//!   [`MAX_REPEATS`] would not do (noise far larger than both the difference and the margin);
//! - both conditions only get easier as `n` grows (the standard error and the t quantile
//!   both shrink), so a binary search over `n` finds the smallest.

use crate::student_t::student_t_quantile;
use crate::welch_diff::{se_df, WelchDiff};

/// The largest estimate given; beyond it the answer is "no" rather than a number.
pub const MAX_REPEATS: usize = 1000;

/// Samples per column that would decide `w` at level `alpha` with an absolute margin.
pub(crate) fn repeats_to_decide(w: &WelchDiff, alpha: f64, margin: f64) -> Option<usize> {
    let decides = |n: usize| {
        let nf = n as f64;
        let (se, df) = se_df(w.var_a, nf, w.var_b, nf);
        let d = w.diff.abs();
        if se == 0.0 {
            return d > 0.0 || d < margin;
        }
        let separated = d / se > student_t_quantile(1.0 - alpha / 2.0, df);
        let equivalent = (margin - d) / se > student_t_quantile(1.0 - alpha, df);
        separated || equivalent
    };
    let lo = w.n_a.max(w.n_b) + 1;
    if !decides(MAX_REPEATS) {
        return None;
    }
    let (mut lo, mut hi) = (lo.min(MAX_REPEATS), MAX_REPEATS);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_n_that_decides() {
        // a = [98, 100, 102], b = [101, 103, 105]: difference 3, variances 4, margin 5.
        // With scipy: the smallest n with 3 / sqrt(8 / n) > t.ppf(0.975, 2n - 2) or
        // (5 - 3) / sqrt(8 / n) > t.ppf(0.95, 2n - 2) is n = 5 (separated).
        let w = WelchDiff::new(&[98.0, 100.0, 102.0], &[101.0, 103.0, 105.0]).unwrap();
        assert_eq!(repeats_to_decide(&w, 0.05, 5.0), Some(5));
        // Difference 1, variances 10,000, margin 5: equivalence needs n > 20000 (1.645 / 4)^2
        // ≈ 3,382 and separation n > 20000 (1.96 / 1)^2 ≈ 76,832, both beyond the cap.
        let w = WelchDiff::new(&[0.0, 100.0, 200.0], &[1.0, 101.0, 201.0]).unwrap();
        assert_eq!(repeats_to_decide(&w, 0.05, 5.0), None);
    }
}

//! The difference of two sample means with its Welch standard error and degrees of freedom.
//!
//! Role: the common core of the equivalence test ([`tost`](crate::tost)), the pairwise
//! decision ([`pair`](crate::pair)) and the repeats estimate, so the three agree exactly on
//! the difference, its standard error and its confidence interval. [`welch_t_test`]
//! (crate::welch_t_test) keeps its own code because its degenerate cases are part of its
//! published contract.
//!
//! Invariants:
//! - built only from at least 2 finite samples per side, so every field is finite;
//! - when both variances are zero the standard error is 0 and the Welch–Satterthwaite degrees
//!   of freedom (0/0) are reported as `n_a + n_b - 2`, as [`welch_t_test`](crate::welch_t_test)
//!   does; intervals then collapse onto the difference;
//! - a confidence interval of level `L` holds 0 exactly when the two-sided Welch test at
//!   `1 - L` does not reject, because both use the same standard error and quantile.

use crate::moments::moments;
use crate::student_t::student_t_quantile;

/// `mean_a - mean_b` with what is needed to test and bound it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WelchDiff {
    pub mean_a: f64,
    pub mean_b: f64,
    /// Sample variances (`n - 1` denominator).
    pub var_a: f64,
    pub var_b: f64,
    pub n_a: usize,
    pub n_b: usize,
    /// `mean_a - mean_b`.
    pub diff: f64,
    /// `sqrt(var_a / n_a + var_b / n_b)`.
    pub se: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
}

impl WelchDiff {
    /// `None` with fewer than 2 samples on a side or any non-finite sample.
    pub fn new(a: &[f64], b: &[f64]) -> Option<WelchDiff> {
        let (ma, mb) = (moments(a)?, moments(b)?);
        if ma.n < 2 || mb.n < 2 {
            return None;
        }
        let (se, df) = se_df(ma.variance, ma.n as f64, mb.variance, mb.n as f64);
        Some(WelchDiff {
            mean_a: ma.mean,
            mean_b: mb.mean,
            var_a: ma.variance,
            var_b: mb.variance,
            n_a: ma.n,
            n_b: mb.n,
            diff: ma.mean - mb.mean,
            se,
            df,
        })
    }

    /// Two-sided confidence interval of the difference at `level` (e.g. 0.95).
    pub fn ci(&self, level: f64) -> (f64, f64) {
        let half = if self.se == 0.0 {
            0.0
        } else {
            student_t_quantile(0.5 + level / 2.0, self.df) * self.se
        };
        (self.diff - half, self.diff + half)
    }
}

/// Welch standard error and degrees of freedom for variances `va`, `vb` over `na`, `nb`
/// samples; shared with the repeats estimate, which asks the same for larger `n`.
pub(crate) fn se_df(va: f64, na: f64, vb: f64, nb: f64) -> (f64, f64) {
    let (ea, eb) = (va / na, vb / nb);
    let se2 = ea + eb;
    if se2 == 0.0 {
        return (0.0, na + nb - 2.0);
    }
    // Written with weights in [0, 1] so tiny variances cannot underflow to 0/0.
    let (wa, wb) = (ea / se2, eb / se2);
    (
        se2.sqrt(),
        1.0 / (wa * wa / (na - 1.0) + wb * wb / (nb - 1.0)),
    )
}

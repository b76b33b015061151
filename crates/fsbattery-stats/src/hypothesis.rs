//! Two-sample significance tests: Welch's t-test and the Mann–Whitney U test.
//!
//! Role: decide whether two sets of benchmark samples plausibly come from the
//! same distribution. Welch's test compares means without assuming equal
//! variances (two runs on different kernels rarely have equal noise);
//! Mann–Whitney is the rank-based cross-check that is robust to outliers.
//! Invariants:
//! - Both return `None` when a side is too small for the test or contains a
//!   non-finite sample; otherwise every p-value is in `[0, 1]`.
//! - p-values are two-sided.
//! - Degenerate inputs have fixed answers instead of NaN (see each function).

use serde::{Deserialize, Serialize};

use crate::moments::moments;
use crate::special::normal_sf;
use crate::student_t::student_t_sf;

/// Result of Welch's unequal-variance t-test of `a` against `b`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TTest {
    /// t statistic `(mean_a - mean_b) / sqrt(s_a^2/n_a + s_b^2/n_b)`.
    /// Positive when `a` has the larger mean. It is `±inf` when both samples
    /// are constant with different values (serde_json writes that as `null`).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom (real-valued). When both
    /// variances are zero the formula is 0/0; `n_a + n_b - 2` is reported.
    pub df: f64,
    /// Two-sided p-value `P(|T| >= |t|)`.
    pub p_value: f64,
}

/// Welch's two-sample t-test (two-sided).
///
/// Returns `None` when either side has fewer than 2 samples or contains a
/// non-finite value. If both sides have zero variance the t distribution is
/// undefined; the answer is then exact: `p = 1` for equal means, `p = 0`
/// otherwise.
pub fn welch_t_test(a: &[f64], b: &[f64]) -> Option<TTest> {
    let ma = moments(a)?;
    let mb = moments(b)?;
    if ma.n < 2 || mb.n < 2 {
        return None;
    }
    let (na, nb) = (ma.n as f64, mb.n as f64);
    let va = ma.variance / na;
    let vb = mb.variance / nb;
    let se2 = va + vb;
    let diff = ma.mean - mb.mean;
    if se2 == 0.0 {
        let (t, p_value) = if diff == 0.0 {
            (0.0, 1.0)
        } else {
            (f64::INFINITY.copysign(diff), 0.0)
        };
        return Some(TTest {
            t,
            df: na + nb - 2.0,
            p_value,
        });
    }
    let t = diff / se2.sqrt();
    // Satterthwaite: se2^2 / sum(v_i^2 / (n_i - 1)), written with the weights
    // v_i / se2 in [0, 1] so tiny variances cannot underflow to 0/0.
    let (wa, wb) = (va / se2, vb / se2);
    let df = 1.0 / (wa * wa / (na - 1.0) + wb * wb / (nb - 1.0));
    // 2 * P(T > |t|) is at most 1 by construction; min() guards rounding.
    let p_value = (2.0 * student_t_sf(t.abs(), df)).min(1.0);
    Some(TTest { t, df, p_value })
}

/// Result of the Mann–Whitney U test of `a` against `b`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U statistic for `a`: the number of pairs `(a_i, b_j)` with
    /// `a_i > b_j`, ties counting one half. Ranges over `0..=n_a * n_b`.
    pub u: f64,
    /// Two-sided p-value from the normal approximation with tie and
    /// continuity corrections (matches `scipy.stats.mannwhitneyu(...,
    /// method="asymptotic")`).
    pub p_value: f64,
}

/// Mann–Whitney U test (two-sided, normal approximation).
///
/// Returns `None` when either side is empty or contains a non-finite value.
/// When every observation is tied the variance of U is zero and there is no
/// evidence of a difference, so `p = 1`.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    let (rank_sum_a, tie_term) = rank_sum_first(a, b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let n = na + nb;
    let u = rank_sum_a - na * (na + 1.0) / 2.0;
    let mean_u = na * nb / 2.0;
    // Var(U) with the tie correction sum(t^3 - t) over tie groups.
    let var_u = na * nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    let p_value = if var_u <= 0.0 {
        1.0
    } else {
        // Continuity correction shrinks |U - E[U]| by 1/2 toward zero.
        let z = ((u - mean_u).abs() - 0.5) / var_u.sqrt();
        (2.0 * normal_sf(z)).clamp(0.0, 1.0)
    };
    Some(MannWhitney { u, p_value })
}

/// Ranks the pooled samples (average ranks for ties, 1-based) and returns the
/// rank sum of `a` together with the tie term `sum(t^3 - t)` over tie groups.
fn rank_sum_first(a: &[f64], b: &[f64]) -> (f64, f64) {
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut start = 0;
    while start < pooled.len() {
        let mut end = start + 1;
        // `==` rather than total_cmp so -0.0 and 0.0 tie, as they should.
        while end < pooled.len() && pooled[end].0 == pooled[start].0 {
            end += 1;
        }
        // Positions start..end hold ranks start+1..=end; their average:
        let avg_rank = (start + end + 1) as f64 / 2.0;
        let from_a = pooled[start..end].iter().filter(|p| p.1).count();
        rank_sum_a += avg_rank * from_a as f64;
        let t = (end - start) as f64;
        tie_term += t * t * t - t;
        start = end;
    }
    (rank_sum_a, tie_term)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn welch_matches_scipy() {
        // scipy.stats.ttest_ind(a, b, equal_var=False)
        let a = [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0];
        let b = [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7];
        let r = welch_t_test(&a, &b).unwrap();
        assert!(close(r.t, -2.074_014_626_678_365_2, 1e-10), "{r:?}");
        assert!(close(r.df, 10.209_185_368_660_295, 1e-10), "{r:?}");
        assert!(close(r.p_value, 0.064_279_997_724_584_65, 1e-8), "{r:?}");
    }

    #[test]
    fn welch_small_hand_checked() {
        // a: mean 2, var 1; b: mean 5, var 1; se2 = 1/3 + 1/3.
        // t = -3 / sqrt(2/3) = -3.674234614; df = (2/3)^2 / (2 * (1/9) / 2) = 4.
        let r = welch_t_test(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert!(close(r.t, -3.674_234_614_174_767, 1e-12));
        assert!(close(r.df, 4.0, 1e-12));
        // 2 * t.sf(3.674234614, 4) = 0.021311641128756713
        assert!(close(r.p_value, 0.021_311_641_128_756_713, 1e-9), "{r:?}");
    }

    #[test]
    fn welch_zero_variance_cases() {
        let same = welch_t_test(&[3.0, 3.0], &[3.0, 3.0, 3.0]).unwrap();
        assert_eq!((same.t, same.p_value, same.df), (0.0, 1.0, 3.0));
        let differ = welch_t_test(&[3.0, 3.0], &[4.0, 4.0]).unwrap();
        assert_eq!((differ.t, differ.p_value), (f64::NEG_INFINITY, 0.0));
        // Only one side constant: df collapses to the other side's n - 1.
        let one = welch_t_test(&[3.0, 3.0, 3.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(close(one.df, 3.0, 1e-12));
    }

    #[test]
    fn welch_needs_two_finite_per_side() {
        assert!(welch_t_test(&[1.0], &[1.0, 2.0]).is_none());
        assert!(welch_t_test(&[1.0, 2.0], &[]).is_none());
        assert!(welch_t_test(&[1.0, f64::NAN], &[1.0, 2.0]).is_none());
    }

    #[test]
    fn mann_whitney_matches_scipy_without_ties() {
        // scipy.stats.mannwhitneyu(a, b, method="asymptotic"): U = 2.0,
        // p = 0.0367138563627041
        let r = mann_whitney_u(&[1.0, 2.0, 3.0, 4.0, 5.0], &[3.5, 6.0, 7.0, 8.0, 9.0]).unwrap();
        assert_eq!(r.u, 2.0);
        assert!(close(r.p_value, 0.036_713_856_362_704_1, 1e-10), "{r:?}");
    }

    #[test]
    fn mann_whitney_matches_scipy_with_ties() {
        let a = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0];
        let b = [3.0, 4.0, 4.0, 5.0];
        // scipy: U = 1.5, p = 0.026826219079541514
        let r = mann_whitney_u(&a, &b).unwrap();
        assert_eq!(r.u, 1.5);
        assert!(close(r.p_value, 0.026_826_219_079_541_514, 1e-10), "{r:?}");
    }

    #[test]
    fn mann_whitney_degenerate_cases() {
        assert!(mann_whitney_u(&[], &[1.0]).is_none());
        assert!(mann_whitney_u(&[1.0], &[f64::INFINITY]).is_none());
        let all_tied = mann_whitney_u(&[2.0, 2.0], &[2.0, 2.0, 2.0]).unwrap();
        assert_eq!((all_tied.u, all_tied.p_value), (3.0, 1.0));
        // Identical samples: U at its mean, p clipped to 1.
        let same = mann_whitney_u(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!((same.u, same.p_value), (4.5, 1.0));
    }
}

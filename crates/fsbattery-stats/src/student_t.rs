//! Student's t distribution: CDF, upper tail and inverse CDF (quantile).
//!
//! Role: supplies the critical values for confidence intervals and the
//! p-values for Welch's test. Invariants:
//! - `df` is real-valued (Welch–Satterthwaite degrees of freedom are rarely
//!   integers) and must be `> 0`; invalid `df` or a NaN argument yields NaN.
//! - Tails are computed directly, never as `1 - cdf`, so tiny p-values keep
//!   relative precision: via the regularized incomplete beta,
//!   `P(T > t) = I_{df/(df+t^2)}(df/2, 1/2) / 2`, up to `df = 1e5`, and via
//!   Hill's normalising transformation above (where the beta continued
//!   fraction loses accuracy); infinite `df` is the standard normal.
//! - The quantile is found by bracketing and bisection on that tail. This is
//!   slower than a series approximation but cannot diverge and is exact to a
//!   few ulps of the CDF for every `df`, including the heavy-tailed `df = 1`.

use crate::special::{normal_sf, reg_inc_beta_logs};

/// Above this many degrees of freedom the tail is computed with Hill's
/// normalising transformation instead of the incomplete beta. The beta
/// continued fraction loses about `eps * df / t^2` relative accuracy (its
/// early terms cancel when `a = df/2` is huge), while Hill's expansion is
/// accurate to ~1e-13 relative for every `t` once `df >= 1e4`.
const DF_ASYMPTOTIC: f64 = 1e5;

/// Upper tail probability `P(T > t)` of Student's t with `df` degrees of
/// freedom (`df > 0`, real-valued).
///
/// Returns NaN if `t` or `df` is NaN or `df <= 0`.
pub fn student_t_sf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    let tail = abs_tail(t.abs(), df);
    if t >= 0.0 {
        tail
    } else {
        1.0 - tail
    }
}

/// Cumulative distribution function `P(T <= t)` of Student's t with `df`
/// degrees of freedom (`df > 0`, real-valued).
///
/// Returns NaN if `t` or `df` is NaN or `df <= 0`.
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    // By symmetry P(T <= t) = P(T > -t); reusing the tail keeps the lower
    // tail as precise as the upper one.
    student_t_sf(-t, df)
}

/// `P(T > t)` for `t >= 0`, choosing the method that is accurate for `df`.
fn abs_tail(t: f64, df: f64) -> f64 {
    if t.is_infinite() {
        0.0
    } else if df.is_infinite() {
        normal_sf(t)
    } else if df > DF_ASYMPTOTIC {
        hill_tail(t, df)
    } else {
        beta_tail(t, df)
    }
}

/// Exact tail `P(T > t) = I_x(df/2, 1/2) / 2` with `x = df / (df + t^2)`.
///
/// `x`, `1 - x` and their logs are formed from the ratio that is `<= 1`, so
/// nothing cancels, and `t^2` is never formed where it could overflow.
fn beta_tail(t: f64, df: f64) -> f64 {
    let (x, y, ln_x, ln_y) = if t > df.sqrt() {
        // r = df / t^2 < 1; for huge t, r underflows, so take ln r from logs.
        let r = (df / t) / t;
        let ln_r = if r > 1e-300 {
            r.ln()
        } else {
            df.ln() - 2.0 * t.ln()
        };
        let ln_1pr = r.ln_1p();
        (r / (1.0 + r), 1.0 / (1.0 + r), ln_r - ln_1pr, -ln_1pr)
    } else {
        // r = t^2 / df <= 1.
        let r = (t / df) * t;
        let ln_1pr = r.ln_1p();
        (1.0 / (1.0 + r), r / (1.0 + r), -ln_1pr, r.ln() - ln_1pr)
    };
    0.5 * reg_inc_beta_logs(0.5 * df, 0.5, x, y, ln_x, ln_y)
}

/// Tail for large `df` via Hill (1970, CACM Algorithm 395): the normal
/// deviate `z ~ sqrt((df - 1/2) ln(1 + t^2/df))` with correction terms in
/// `1 / (48 (df - 1/2)^2)`, then `P(T > t) = P(Z > z)`.
fn hill_tail(t: f64, df: f64) -> f64 {
    let a = df - 0.5;
    let b = 48.0 * a * a;
    let y = a * ((t / df) * t).ln_1p();
    let z = (((((-0.4 * y - 3.3) * y - 24.0) * y - 85.5) / (0.8 * y * y + 100.0 + b) + y + 3.0)
        / b
        + 1.0)
        * y.sqrt();
    normal_sf(z)
}

/// Inverse CDF: the `t` with `P(T <= t) = p`, for `df > 0` (real-valued).
///
/// Returns `-inf` for `p == 0`, `+inf` for `p == 1`, and NaN if `p` is outside
/// `[0, 1]`, either argument is NaN, or `df <= 0`. For a two-sided 95%
/// interval use `student_t_quantile(0.975, df)`.
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    if p.is_nan() || df.is_nan() || df <= 0.0 || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    // Solve on the smaller tail: 1 - p is exact for p >= 0.5 (Sterbenz), and
    // searching the small tail keeps relative precision for extreme p.
    let (q, sign) = if p > 0.5 { (1.0 - p, 1.0) } else { (p, -1.0) };
    sign * solve_tail(q, |t| student_t_sf(t, df))
}

/// Finds `t >= 0` with `tail(t) = q` for a decreasing `tail` with
/// `tail(0) = 1/2` and `0 < q < 1/2`.
///
/// Doubling brackets the root in O(log t) steps; bisection then halves the
/// bracket until it is a few ulps wide (at most ~60 more steps once the
/// bracket is [2^k, 2^(k+1)]).
fn solve_tail(q: f64, tail: impl Fn(f64) -> f64) -> f64 {
    let mut lo = 0.0_f64;
    let mut hi = 1.0_f64;
    while tail(hi) > q {
        lo = hi;
        hi *= 2.0;
        if hi.is_infinite() {
            return f64::INFINITY;
        }
    }
    // Bounded for safety; the width test normally ends the loop far sooner
    // (subnormal roots near t = 0 need at most ~1100 halvings).
    for _ in 0..2_000 {
        let mid = lo + 0.5 * (hi - lo);
        if mid <= lo || mid >= hi || hi - lo <= 4.0 * f64::EPSILON * hi {
            break;
        }
        if tail(mid) > q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo + 0.5 * (hi - lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel_close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn quantile_matches_printed_tables() {
        // Two-sided 95% critical values from standard t tables.
        let table = [
            (1.0, 12.7062),
            (2.0, 4.3027),
            (4.0, 2.7764),
            (9.0, 2.2622),
            (30.0, 2.0423),
            (100.0, 1.9840),
            (1e12, 1.9600),
            (f64::INFINITY, 1.9600),
        ];
        for (df, expected) in table {
            let q = student_t_quantile(0.975, df);
            assert!(
                rel_close(q, expected, 1e-3),
                "df={df}: got {q}, want {expected}"
            );
        }
    }

    #[test]
    fn quantile_matches_high_precision_references() {
        // Values from scipy.stats.t.ppf (double precision).
        let refs = [
            (0.975, 1.0, 12.706_204_736_174_694),
            (0.975, 4.0, 2.776_445_105_197_793_4),
            (0.975, 2.5, 3.574_654_842_003_681_7),
            (0.995, 7.3, 3.451_031_655_622_185),
            (0.05, 3.0, -2.353_363_434_801_824),
            (0.999_999, 1.0, 318_309.886_173_590_26),
            (0.975, 1e6, 1.959_966_356_814_107),
        ];
        for (p, df, expected) in refs {
            let q = student_t_quantile(p, df);
            assert!(
                rel_close(q, expected, 1e-10),
                "p={p} df={df}: {q} vs {expected}"
            );
        }
    }

    #[test]
    fn closed_forms_for_one_and_two_df() {
        // df = 1 is Cauchy: F(t) = 1/2 + atan(t)/pi.
        // df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
        for &t in &[-50.0, -3.0, -0.7, 0.0, 0.2, 1.0, 4.5, 1e6] {
            let cauchy = 0.5 + f64::atan(t) / std::f64::consts::PI;
            assert!((student_t_cdf(t, 1.0) - cauchy).abs() < 1e-14, "t={t}");
            let two = 0.5 + t / (2.0 * (2.0 + t * t).sqrt());
            assert!((student_t_cdf(t, 2.0) - two).abs() < 1e-14, "t={t}");
        }
        // Quantile for df = 1 is tan(pi (p - 1/2)).
        for &p in &[0.01, 0.3, 0.9, 0.999] {
            let exact = (std::f64::consts::PI * (p - 0.5)).tan();
            assert!(rel_close(student_t_quantile(p, 1.0), exact, 1e-12), "p={p}");
        }
    }

    #[test]
    fn cdf_known_values_and_tails() {
        // scipy.stats.t.cdf(2.0, 5) = 0.9490302605850708
        assert!(rel_close(
            student_t_cdf(2.0, 5.0),
            0.949_030_260_585_070_8,
            1e-12
        ));
        // Lower tail computed directly: t.cdf(-10, 3) = 0.0010641995292070751
        assert!(rel_close(
            student_t_cdf(-10.0, 3.0),
            0.001_064_199_529_207_075_1,
            1e-11
        ));
        // Far tail keeps relative precision: t.sf(40, 10) = 1.1404288715428768e-12
        assert!(rel_close(
            student_t_sf(40.0, 10.0),
            1.140_428_871_542_876_8e-12,
            1e-9
        ));
        assert_eq!(student_t_cdf(0.0, 7.0), 0.5);
        assert_eq!(student_t_cdf(f64::INFINITY, 3.0), 1.0);
        assert_eq!(student_t_cdf(f64::NEG_INFINITY, 3.0), 0.0);
        // Huge df uses the normal limit.
        assert!(rel_close(
            student_t_cdf(1.959_963_984_540_054, 1e15),
            0.975,
            1e-12
        ));
    }

    #[test]
    fn large_df_on_both_sides_of_method_switch() {
        // scipy.stats.t.sf / t.ppf references around DF_ASYMPTOTIC = 1e5.
        let refs = [
            (10.0, 5e4, 8.017_966_905_351_69e-24),
            (1.5, 99_999.0, 0.066_808_779_777_200_34),
            (1.5, 100_001.0, 0.066_808_779_745_630_56),
            (3.0, 1e6, 0.001_349_931_270_710_9),
            (25.0, 3e7, 3.066_694_883_883_97e-138),
        ];
        for (t, df, expected) in refs {
            let got = student_t_sf(t, df);
            assert!(
                rel_close(got, expected, 1e-10),
                "t={t} df={df}: {got} vs {expected}"
            );
        }
        let q = student_t_quantile(1e-12, 2e5);
        assert!(rel_close(q, -7.034_927_759_960_158, 1e-10), "{q}");
        // Infinite df is exactly the normal distribution.
        assert!(rel_close(
            student_t_quantile(0.975, f64::INFINITY),
            1.959_963_984_540_054,
            1e-12
        ));
    }

    #[test]
    fn extreme_t_keeps_tail_precision() {
        // Cauchy tail: P(T > t) = atan(1/t)/pi ~ 1/(pi t) for t = 1e200,
        // where t^2 and df/t^2 are not representable.
        let expected = 1.0 / (std::f64::consts::PI * 1e200);
        assert!(rel_close(student_t_sf(1e200, 1.0), expected, 1e-12));
        assert!(rel_close(
            student_t_quantile(1.0 - 1e-12, 1.0),
            1.0 / (std::f64::consts::PI * 1e-12),
            1e-3
        ));
        // The true quantile overflows f64 for df = 0.5 at p = 1e-300.
        assert_eq!(student_t_quantile(1e-300, 0.5), f64::NEG_INFINITY);
    }

    #[test]
    fn invalid_inputs_yield_nan_or_infinities() {
        assert!(student_t_cdf(f64::NAN, 3.0).is_nan());
        assert!(student_t_cdf(1.0, 0.0).is_nan());
        assert!(student_t_cdf(1.0, -2.0).is_nan());
        assert!(student_t_quantile(1.5, 3.0).is_nan());
        assert!(student_t_quantile(-0.1, 3.0).is_nan());
        assert!(student_t_quantile(0.5, f64::NAN).is_nan());
        assert_eq!(student_t_quantile(0.0, 3.0), f64::NEG_INFINITY);
        assert_eq!(student_t_quantile(1.0, 3.0), f64::INFINITY);
        assert_eq!(student_t_quantile(0.5, 3.0), 0.0);
    }

    #[test]
    fn fractional_df_lies_between_neighbours() {
        let lo = student_t_quantile(0.975, 3.0);
        let mid = student_t_quantile(0.975, 3.5);
        let hi = student_t_quantile(0.975, 4.0);
        assert!(hi < mid && mid < lo);
    }
}

//! Kendall's rank correlation τ-b with ties, and its two-sided p-value.
//!
//! Role: then and now (issue 25) asks whether a seed's ranking of filesystems still holds;
//! τ-b between the ranks then and now answers it. Tables have one ranking per row, so
//! [`kendall_tau_b_pooled`] counts pairs within each row only and pools the rows (the
//! stratified form: S and its null variance are sums over the strata); [`kendall_tau_b`] is
//! the one-stratum case.
//!
//! Written here rather than taken from a crate because the pooled form is needed and the
//! inputs are a handful of filesystems (O(n²) pair counting is the clearest way); the
//! single-stratum case is tested against scipy's `kendalltau(method="asymptotic")`.
//!
//! The p-value is the normal approximation with Kendall's tie-corrected variance of S (as
//! scipy's asymptotic method): z = S / sqrt(Var S), p = 2 P(Z > |z|), no continuity correction.

use crate::special::normal_sf;

/// τ-b, its p-value and what they were computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KendallTau {
    /// τ-b in [-1, 1].
    pub tau: f64,
    /// Two-sided p-value against no association (`None` when Var S is zero).
    pub p: Option<f64>,
    /// S: concordant minus discordant pairs.
    pub s: f64,
    /// Pairs compared (within strata).
    pub pairs: u64,
}

/// Per-stratum sums the pooled statistic is built from.
#[derive(Default)]
struct Counts {
    s: f64,
    n0: f64,
    ties_x: f64,
    ties_y: f64,
    var: f64,
    pairs: u64,
}

/// τ-b of one pair of equally long samples; `None` with fewer than two pairs or a sample
/// that is constant (τ-b undefined).
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<KendallTau> {
    kendall_tau_b_pooled(&[(x, y)])
}

/// τ-b pooled over strata: pairs are formed within each `(x, y)` stratum only; S, the tie
/// terms and Var S are summed. `None` when no pair is untied in both samples.
pub fn kendall_tau_b_pooled(strata: &[(&[f64], &[f64])]) -> Option<KendallTau> {
    let mut total = Counts::default();
    for (x, y) in strata {
        let c = stratum(x, y);
        total.s += c.s;
        total.n0 += c.n0;
        total.ties_x += c.ties_x;
        total.ties_y += c.ties_y;
        total.var += c.var;
        total.pairs += c.pairs;
    }
    let denom = ((total.n0 - total.ties_x) * (total.n0 - total.ties_y)).sqrt();
    if denom.is_nan() || denom <= 0.0 {
        return None;
    }
    let p = (total.var > 0.0).then(|| {
        let z = total.s / total.var.sqrt();
        (2.0 * normal_sf(z.abs())).clamp(0.0, 1.0)
    });
    Some(KendallTau {
        tau: (total.s / denom).clamp(-1.0, 1.0),
        p,
        s: total.s,
        pairs: total.pairs,
    })
}

/// S, the pair counts and Var S of one stratum (pairs with a non-finite value are left out
/// by leaving the value's position out).
fn stratum(x: &[f64], y: &[f64]) -> Counts {
    let pts: Vec<(f64, f64)> = x
        .iter()
        .zip(y)
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .map(|(a, b)| (*a, *b))
        .collect();
    let n = pts.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let dx = (pts[i].0 - pts[j].0).signum() * f64::from(pts[i].0 != pts[j].0);
            let dy = (pts[i].1 - pts[j].1).signum() * f64::from(pts[i].1 != pts[j].1);
            s += dx * dy;
        }
    }
    let tx = tie_groups(pts.iter().map(|p| p.0));
    let ty = tie_groups(pts.iter().map(|p| p.1));
    let nf = n as f64;
    let sum = |g: &[f64], f: fn(f64) -> f64| g.iter().map(|&t| f(t)).sum::<f64>();
    let pair = |t: f64| t * (t - 1.0) / 2.0;
    let v = |t: f64| t * (t - 1.0) * (2.0 * t + 5.0);
    let t1 = |t: f64| t * (t - 1.0);
    let t2 = |t: f64| t * (t - 1.0) * (t - 2.0);
    let mut var = (v(nf) - sum(&tx, v) - sum(&ty, v)) / 18.0;
    if n > 1 {
        var += sum(&tx, t1) * sum(&ty, t1) / (2.0 * nf * (nf - 1.0));
    }
    if n > 2 {
        var += sum(&tx, t2) * sum(&ty, t2) / (9.0 * nf * (nf - 1.0) * (nf - 2.0));
    }
    Counts {
        s,
        n0: pair(nf),
        ties_x: sum(&tx, pair),
        ties_y: sum(&ty, pair),
        var,
        pairs: (n * n.saturating_sub(1) / 2) as u64,
    }
}

/// Sizes of the groups of equal values (groups of one included; they add nothing).
fn tie_groups(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let j = v[i..].iter().take_while(|&&w| w == v[i]).count();
        out.push(j as f64);
        i += j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scipy 1.17.1, `scipy.stats.kendalltau(x, y, method="asymptotic")`, run offline on
    /// these inputs (the first is scipy's own documentation example).
    const SCIPY: &[(&[f64], &[f64], f64, f64)] = &[
        (
            &[12., 2., 1., 12., 2.],
            &[1., 4., 7., 1., 0.],
            -0.4714045207910316,
            0.28274545993277467,
        ),
        (
            &[1., 2., 3., 4., 5., 6., 7., 8., 9., 10.],
            &[2., 1., 4., 3., 6., 5., 8., 7., 10., 9.],
            0.7777777777777777,
            0.001745118699528905,
        ),
        (
            &[1., 1., 2., 2., 3., 3., 4., 5.],
            &[1., 2., 1., 3., 3., 4., 5., 5.],
            0.8,
            0.009612953546634601,
        ),
        (
            &[3., 1., 4., 1., 5., 9., 2., 6., 5., 3., 5.],
            &[2., 7., 1., 8., 2., 8., 1., 8., 2., 8., 4.],
            0.14757295747452434,
            0.5636090510696283,
        ),
    ];

    #[test]
    fn agrees_with_scipy() {
        for (x, y, tau, p) in SCIPY {
            let k = kendall_tau_b(x, y).unwrap();
            assert!((k.tau - tau).abs() < 1e-12, "{x:?}: {} vs {tau}", k.tau);
            let got = k.p.unwrap();
            assert!((got - p).abs() < 1e-9 * p.max(1e-3), "{x:?}: {got} vs {p}");
        }
    }

    #[test]
    fn perfect_orders_are_one_and_minus_one() {
        let x = [1., 2., 3., 4.];
        assert_eq!(kendall_tau_b(&x, &[10., 20., 30., 40.]).unwrap().tau, 1.0);
        assert_eq!(kendall_tau_b(&x, &[4., 3., 2., 1.]).unwrap().tau, -1.0);
    }

    #[test]
    fn pooling_one_stratum_is_the_plain_statistic_and_strata_do_not_cross() {
        let (x, y) = SCIPY[3].0.split_at(5);
        let (u, v) = SCIPY[3].1.split_at(5);
        let one = kendall_tau_b(x, u).unwrap();
        assert_eq!(kendall_tau_b_pooled(&[(x, u)]).unwrap(), one);
        let pooled = kendall_tau_b_pooled(&[(x, u), (y, v)]).unwrap();
        let s = one.s + kendall_tau_b(y, v).unwrap().s;
        assert_eq!(pooled.s, s);
        assert_eq!(pooled.pairs, 10 + 15);
        // Two strata each perfectly concordant are perfectly concordant pooled, though
        // across strata the values disagree.
        let p = kendall_tau_b_pooled(&[(&[1., 2.], &[5., 6.]), (&[1., 2.], &[9., 1.0e6])]);
        assert_eq!(p.unwrap().tau, 1.0);
    }

    #[test]
    fn constant_or_too_short_samples_have_no_tau() {
        assert!(kendall_tau_b(&[1., 1., 1.], &[1., 2., 3.]).is_none());
        assert!(kendall_tau_b(&[1.], &[1.]).is_none());
        assert!(kendall_tau_b(&[], &[]).is_none());
    }
}

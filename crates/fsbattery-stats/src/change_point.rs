//! Change points in a series of measurements: E-divisive means with a Student t-test at each
//! candidate split, deterministic (no permutation test), as Apache Otava (formerly Hunter;
//! Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance
//! Regressions", ICPE 2023) does it:
//!
//! 1. Split: slide a window of [`WINDOW`] points by half its length; in each window, take the
//!    E-divisive candidate ([`crate::energy`]) of each interval between the change points
//!    found so far, keep the one with the largest q̂ while its t-test p ≤ a relaxed level
//!    (10 × p below 0.05, as Otava's first pass), and stop at the first that is not.
//! 2. Merge: re-test every weak change point against its neighbours' segments; repeatedly
//!    drop the one with the largest p while it is ≥ p, re-testing its two neighbours.
//!
//! Three deliberate differences from Otava: the t-test's p is multiplied by the number of
//! splits its stretch allowed (Bonferroni), because the split tested is the best of them —
//! uncorrected, 9 of 100 series of pure noise reported a change at p = 0.01, corrected 1
//! (tests/change_points.rs); the t-test uses the sample standard deviation
//! (n − 1), where Otava passes numpy's population deviation (n) to scipy, which shrinks the
//! variance and over-reports small series; and after dropping a point the merge re-tests the
//! neighbours on both sides (Otava re-tests the right neighbour and the one after it).
//!
//! A fourth: a series of positive values (times, rates: every benchmark series) is tested on
//! its logarithms, so a change is a ratio, as a regression is one. On the raw values a
//! switch to `mount=sync` (0.0025 s → 0.095–0.38 s, 2026-11-29) went unfound: the noisy
//! slow segment's variance hid a 90-fold change from the t-test. The change and its interval
//! are then the ratio of the segments' geometric means (in percent); the segments' means
//! stay arithmetic, as the series shows them.

use crate::energy::Distances;
use crate::student_t::{student_t_quantile, student_t_sf};

/// Window of the split step (Otava's default).
pub const WINDOW: usize = 50;

/// A significant change in the level of a series: the segments either side of `index`
/// (each up to the neighbouring change point) differ by Student's t-test.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangePoint {
    /// First point after the change.
    pub index: usize,
    /// Two-sided p-value of the pooled Student t-test between the two segments, times the
    /// number of splits the stretch allowed (Bonferroni; at most 1).
    pub p: f64,
    /// Mean of the segment before.
    pub mean_before: f64,
    /// Mean of the segment after.
    pub mean_after: f64,
    /// Points in the segment before and after.
    pub n_before: usize,
    /// Points in the segment after.
    pub n_after: usize,
    /// (after / before − 1) × 100 — of the geometric means when the series is all positive
    /// (tested on logarithms), else of the means; `None` when the mean before is 0.
    pub change_pct: Option<f64>,
    /// 95 % interval of that change (the Student interval of the difference of the tested
    /// values' means, as a change in percent); `None` with fewer than three points in all.
    pub ci95_pct: Option<(f64, f64)>,
}

/// The change points of `series` at significance level `p` (in (0, 1)), in index order.
/// Deterministic: the same series always gives the same answer.
pub fn change_points(series: &[f64], p: f64) -> Vec<ChangePoint> {
    if series.len() < 3 || series.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let first_pass = if p < 0.05 {
        p * 10.0
    } else if p < 0.5 {
        p * 2.0
    } else {
        p
    };
    let logs: Option<Vec<f64>> = series
        .iter()
        .all(|v| *v > 0.0)
        .then(|| series.iter().map(|v| v.ln()).collect());
    let on = Scale {
        tested: logs.as_deref().unwrap_or(series),
        raw: series,
        log: logs.is_some(),
    };
    let weak = split(on.tested, first_pass);
    merge(&on, weak, p)
}

/// The values a series is tested on (its logarithms when all are positive) and the raw ones.
struct Scale<'a> {
    tested: &'a [f64],
    raw: &'a [f64],
    log: bool,
}

/// Otava's split step: weak change points (their indexes) from overlapping windows.
fn split(series: &[f64], p: f64) -> Vec<usize> {
    let step = WINDOW / 2;
    let mut found: Vec<usize> = Vec::new();
    let mut start = 0;
    while start < series.len() {
        let end = (start + WINDOW).min(series.len());
        let local = detect(&series[start..end], p);
        let last = local.last().map(|i| i + start).unwrap_or(0);
        for i in local {
            if !found.contains(&(i + start)) {
                found.push(i + start);
            }
        }
        start = last.max(start + step);
    }
    found.sort_unstable();
    found
}

/// Otava's `ChangePointDetector` on one window: add the largest-q̂ candidate while it passes.
fn detect(x: &[f64], p: f64) -> Vec<usize> {
    let dist = Distances::new(x);
    let mut points: Vec<usize> = Vec::new();
    loop {
        let bounds = bounds(&points, x.len());
        let best = bounds
            .windows(2)
            .filter_map(|w| dist.candidate(w[0], w[1]))
            .fold(None, |best: Option<(usize, f64)>, c| match best {
                Some(b) if b.1 >= c.1 => Some(b),
                _ => Some(c),
            });
        let Some((tau, _)) = best else { break };
        let at = bounds.partition_point(|&b| b < tau);
        let (lo, hi) = (bounds[at - 1], bounds[at]);
        if p_value(x, lo, tau, hi) > p {
            break;
        }
        points.insert(points.partition_point(|&q| q < tau), tau);
    }
    points
}

/// 0, the change points, then `len`.
fn bounds(points: &[usize], len: usize) -> Vec<usize> {
    let mut b = Vec::with_capacity(points.len() + 2);
    b.push(0);
    b.extend_from_slice(points);
    b.push(len);
    b
}

/// Otava's merge step with min_magnitude 0: drop the weakest point until all pass.
fn merge(on: &Scale<'_>, mut points: Vec<usize>, p: f64) -> Vec<ChangePoint> {
    let stats = |points: &[usize], i: usize| {
        let b = bounds(points, on.raw.len());
        test(on, b[i], b[i + 1], b[i + 2])
    };
    let mut tested: Vec<ChangePoint> = (0..points.len()).map(|i| stats(&points, i)).collect();
    loop {
        let weakest =
            tested
                .iter()
                .enumerate()
                .fold(None, |w: Option<(usize, f64)>, (i, c)| match w {
                    Some((_, wp)) if wp >= c.p => w,
                    _ => Some((i, c.p)),
                });
        let Some((i, wp)) = weakest else { break };
        if wp < p {
            break;
        }
        points.remove(i);
        tested.remove(i);
        for j in [i.wrapping_sub(1), i] {
            if j < points.len() {
                tested[j] = stats(&points, j);
            }
        }
    }
    tested
}

/// The Bonferroni-corrected p of [`test`] on a plain slice (the split step's question).
fn p_value(x: &[f64], lo: usize, at: usize, hi: usize) -> f64 {
    let on = Scale {
        tested: x,
        raw: x,
        log: false,
    };
    test(&on, lo, at, hi).p
}

/// Student's pooled two-sample t-test of x[lo..at] against x[at..hi], as a change point.
fn test(on: &Scale<'_>, lo: usize, at: usize, hi: usize) -> ChangePoint {
    let x = on.tested;
    let (a, b) = (&x[lo..at], &x[at..hi]);
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let df = na + nb - 2.0;
    let diff = mb - ma;
    let (p, half) = if df < 1.0 {
        (1.0, None)
    } else {
        let pooled = ((na - 1.0) * va + (nb - 1.0) * vb) / df;
        let se = (pooled * (1.0 / na + 1.0 / nb)).sqrt();
        // The split was chosen as the best of the hi − lo − 1 this stretch allows, so its
        // t-test p is the smallest of that many: Bonferroni over them keeps the level true.
        let splits = (hi - lo - 1) as f64;
        let p = if se > 0.0 {
            (2.0 * student_t_sf((diff / se).abs(), df) * splits).min(1.0)
        } else if diff == 0.0 {
            1.0
        } else {
            0.0
        };
        (p, Some(student_t_quantile(0.975, df) * se))
    };
    // On logarithms a difference d is the ratio e^d of the geometric means.
    let pct = |v: f64| match on.log {
        true => Some(v.exp_m1() * 100.0),
        false => (ma != 0.0).then(|| v / ma.abs() * 100.0),
    };
    let raw_mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    ChangePoint {
        index: at,
        p,
        mean_before: raw_mean(&on.raw[lo..at]),
        mean_after: raw_mean(&on.raw[at..hi]),
        n_before: a.len(),
        n_after: b.len(),
        change_pct: pct(diff),
        ci95_pct: half.and_then(|h| pct(diff - h).zip(pct(diff + h))),
    }
}

/// Mean and sample variance (0 for one value).
fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var)
}

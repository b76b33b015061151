//! The composite ranking of a run: one score per target over weighted groups of rows, its
//! uncertainty from the rounds as measured, and a pairwise test that says which targets the
//! composite separates and which it does not.
//!
//! Role: a run's rows are grouped by workload; a group weighs once, whatever its number of
//! rows (its rows' log-relative values are averaged within it), and groups are combined by a
//! weighted geometric mean. A row whose table shows the mean enters with the geometric mean
//! of its samples (see `shown`), so the scores and the pair tests measure the same thing. A target's score is 1 when it is the best in every row and 1.2
//! when it is on average 1.2 times worse.
//!
//! Rounds are interleaved: round r measures every target under the same machine state, so the
//! uncertainty is taken by round. Per-target intervals come from a bootstrap that draws whole
//! rounds (the same round indices for every cell, so drift shared by a round moves every
//! target together). A pair of targets is compared on its composite log-ratio per round (the
//! rows' round-r values only): a paired t-test over the rounds both targets have in every row,
//! Holm-adjusted over all pairs. A cell with more rounds than another contributes its first
//! rounds only (the ones every cell has); with fewer than three such rounds nothing is tested
//! and the pair stays unseparated, saying why.
//!
//! Invariants:
//! - the ranking never orders two targets that the test does not separate: targets are cut into
//!   tiers only where every target above the cut is separated from every target below it, in
//!   the direction of the scores;
//! - deterministic: the bootstrap's seed is fixed, so one input always gives one answer;
//! - rows whose values are not all finite and positive are left out (a ratio needs both);
//!   groups with weight 0 or no usable row are left out and the weights renormalised.

use crate::{holm, student_t_quantile, student_t_sf, Aggregate, Better, Summary};
use serde::{Deserialize, Serialize};

/// Bootstrap resamples behind the per-target intervals (and the spread shown for a pair with
/// too few rounds to test).
pub const RESAMPLES: usize = 2000;
/// The bootstrap's seed: fixed, so the same record gives the same intervals.
const SEED: u64 = 0x5eed_f5ba;
/// Rounds a paired t-test needs (two degrees of freedom).
const MIN_PAIRED_ROUNDS: usize = 3;

/// One row of the composite: every target's samples, in round order (sample i was measured
/// in round i).
#[derive(Debug, Clone)]
pub struct CompositeRow<'a> {
    /// Index of its group in [`composite`]'s `weights`.
    pub group: usize,
    /// Which direction wins.
    pub better: Better,
    /// The statistic the row shows (mean, best, …).
    pub agg: Aggregate,
    /// Per target, its samples (every target must have at least one).
    pub cells: Vec<&'a [f64]>,
}

/// How a pair was tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairMethod {
    /// Paired t-test of the per-round composite log-ratio.
    PairedRounds,
    /// Not tested: some cell has fewer than three repeats, too few to tell anything from noise.
    TooFewRounds,
}

/// The test of one pair of targets on the composite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompositePair {
    /// The target with the better (lower) score.
    pub better: usize,
    /// The other one.
    pub worse: usize,
    /// How many times worse `worse` is than `better` (≥ 1 when the test agrees with the scores).
    pub ratio: f64,
    /// The ratio's 95 % interval, from the same test.
    pub ci95: (f64, f64),
    /// Two-sided p of "no difference".
    pub p: f64,
    /// `p` Holm-adjusted over every pair.
    pub p_holm: f64,
    /// Whether the composite separates the two (`p_holm` below α and the ratio above 1).
    pub separated: bool,
    /// How it was tested.
    pub method: PairMethod,
    /// Rounds the test used (the rounds every row has for both).
    pub rounds: usize,
}

/// The composite ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompositeScores {
    /// Per target (input order): the score, 1 = best in every row.
    pub scores: Vec<f64>,
    /// Per target: its score's 95 % interval (bootstrap over rounds).
    pub ci95: Vec<(f64, f64)>,
    /// Targets best first (by score).
    pub order: Vec<usize>,
    /// Per target: its tier, 0 for the first; targets of one tier are not separated.
    pub tiers: Vec<usize>,
    /// Every pair, in order of `order` (the better-scored target first).
    pub pairs: Vec<CompositePair>,
    /// Rows the composite is taken over.
    pub rows: usize,
    /// Groups the composite is taken over (weight above 0 and a usable row).
    pub groups: usize,
}

impl CompositeScores {
    /// The test of targets `a` and `b`, whichever order.
    pub fn pair(&self, a: usize, b: usize) -> Option<&CompositePair> {
        self.pairs
            .iter()
            .find(|p| (p.better, p.worse) == (a, b) || (p.better, p.worse) == (b, a))
    }
}

/// The composite of `rows` over `targets` targets with the given group `weights`, at level
/// `alpha`. `None` when fewer than two targets or no usable row.
pub fn composite(
    rows: &[CompositeRow<'_>],
    weights: &[f64],
    targets: usize,
    alpha: f64,
) -> Option<CompositeScores> {
    composite_with(rows, weights, targets, alpha, RESAMPLES)
}

/// [`composite`] with `resamples` bootstrap draws (the tests' planted-rate loops use fewer:
/// with three or more rounds the pair tests do not depend on them).
fn composite_with(
    rows: &[CompositeRow<'_>],
    weights: &[f64],
    targets: usize,
    alpha: f64,
    resamples: usize,
) -> Option<CompositeScores> {
    let rows: Vec<&CompositeRow<'_>> = rows
        .iter()
        .filter(|r| usable(r, weights, targets))
        .collect();
    if targets < 2 || rows.is_empty() {
        return None;
    }
    let w = row_weights(&rows, weights);
    let shown: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| r.cells.iter().map(|c| shown(c, r.agg, r.better)).collect())
        .collect();
    let scores = scores(&rows, &shown, &w);
    let draws = bootstrap(&rows, &w, targets, resamples.max(1));
    let ci95 = (0..targets)
        .map(|t| percentile_ci(draws.iter().map(|d| d[t]).collect()))
        .collect();
    let mut order: Vec<usize> = (0..targets).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let mut pairs = Vec::new();
    for (i, &a) in order.iter().enumerate() {
        for &b in &order[i + 1..] {
            pairs.push(test_pair(&rows, &w, &draws, &scores, (a, b)));
        }
    }
    let adjusted = holm(&pairs.iter().map(|p| p.p).collect::<Vec<_>>());
    for (p, adj) in pairs.iter_mut().zip(adjusted) {
        p.p_holm = adj;
        p.separated = adj < alpha && p.ratio > 1.0 && p.ci95.0 > 1.0;
    }
    let mut out = CompositeScores {
        groups: distinct_groups(&rows),
        rows: rows.len(),
        scores,
        ci95,
        tiers: vec![0; targets],
        order,
        pairs,
    };
    out.tiers = tiers(&out);
    Some(out)
}

/// A row counts when its group weighs, it has every target, and every sample is positive.
fn usable(r: &CompositeRow<'_>, weights: &[f64], targets: usize) -> bool {
    weights
        .get(r.group)
        .is_some_and(|w| *w > 0.0 && w.is_finite())
        && r.cells.len() == targets
        && r.cells
            .iter()
            .all(|c| !c.is_empty() && c.iter().all(|v| v.is_finite() && *v > 0.0))
}

fn distinct_groups(rows: &[&CompositeRow<'_>]) -> usize {
    let mut g: Vec<usize> = rows.iter().map(|r| r.group).collect();
    g.sort_unstable();
    g.dedup();
    g.len()
}

/// Each row's weight: its group's weight shared among the group's rows, normalised to sum 1.
fn row_weights(rows: &[&CompositeRow<'_>], weights: &[f64]) -> Vec<f64> {
    let in_group = |g: usize| rows.iter().filter(|r| r.group == g).count() as f64;
    let raw: Vec<f64> = rows
        .iter()
        .map(|r| weights[r.group] / in_group(r.group))
        .collect();
    let total: f64 = raw.iter().sum();
    raw.iter().map(|w| w / total).collect()
}

/// The statistic a row contributes of `samples`: its own aggregate, except that a mean is
/// taken geometrically, so that the ratio of two targets' scores is exactly the mean over
/// rounds of their per-round log-ratios that the pair test uses (with equal repeat counts) —
/// an arithmetic mean let one slow round order two targets against what their rounds say.
/// Best, min, max and median are kept as the row shows them (the studies' own statistics).
fn shown(samples: &[f64], agg: Aggregate, better: Better) -> f64 {
    if agg == Aggregate::Mean {
        let logs: f64 = samples.iter().map(|v| v.ln()).sum();
        return (logs / samples.len() as f64).exp();
    }
    Summary::from_samples(samples, better).map_or(f64::NAN, |s| s.aggregate(agg))
}

/// `x` relative to `best`, oriented so that 1 is the best and larger is worse.
fn relative(x: f64, best: f64, better: Better) -> f64 {
    match better {
        Better::Lower => x / best,
        Better::Higher => best / x,
    }
}

/// Per target, the weighted geometric mean over `rows` of its value relative to the row's best.
fn scores(rows: &[&CompositeRow<'_>], values: &[Vec<f64>], w: &[f64]) -> Vec<f64> {
    let targets = values.first().map_or(0, Vec::len);
    let mut logs = vec![0.0; targets];
    for ((r, v), wr) in rows.iter().zip(values).zip(w) {
        let best = match r.better {
            Better::Lower => v.iter().copied().fold(f64::INFINITY, f64::min),
            Better::Higher => v.iter().copied().fold(0.0, f64::max),
        };
        for (t, x) in v.iter().enumerate() {
            logs[t] += wr * relative(*x, best, r.better).ln();
        }
    }
    logs.iter().map(|l| l.exp()).collect()
}

/// Per draw, every target's score when whole rounds are drawn with replacement: the same
/// round indices for every cell (a cell with fewer rounds takes them modulo its count).
fn bootstrap(
    rows: &[&CompositeRow<'_>],
    w: &[f64],
    targets: usize,
    resamples: usize,
) -> Vec<Vec<f64>> {
    let rounds = rows
        .iter()
        .flat_map(|r| r.cells.iter().map(|c| c.len()))
        .max()
        .unwrap_or(1);
    let mut rng = fastrand::Rng::with_seed(SEED);
    let mut pick = Vec::new();
    let mut idx = vec![0usize; rounds];
    (0..resamples)
        .map(|_| {
            idx.iter_mut().for_each(|i| *i = rng.usize(..rounds));
            let values: Vec<Vec<f64>> = rows
                .iter()
                .map(|r| {
                    (0..targets)
                        .map(|t| {
                            let c = r.cells[t];
                            pick.clear();
                            pick.extend(idx[..c.len()].iter().map(|&i| c[i % c.len()]));
                            shown(&pick, r.agg, r.better)
                        })
                        .collect()
                })
                .collect();
            scores(rows, &values, w)
        })
        .collect()
}

/// The 2.5 % and 97.5 % points of `draws`.
fn percentile_ci(mut draws: Vec<f64>) -> (f64, f64) {
    draws.sort_by(f64::total_cmp);
    let at = |q: f64| draws[((draws.len() - 1) as f64 * q).round() as usize];
    (at(0.025), at(0.975))
}

/// Test `a` (the better-scored) against `b`.
fn test_pair(
    rows: &[&CompositeRow<'_>],
    w: &[f64],
    draws: &[Vec<f64>],
    scores: &[f64],
    (a, b): (usize, usize),
) -> CompositePair {
    let common = rows
        .iter()
        .map(|r| r.cells[a].len().min(r.cells[b].len()))
        .min()
        .unwrap_or(0);
    let base = CompositePair {
        better: a,
        worse: b,
        ratio: 1.0,
        ci95: (1.0, 1.0),
        p: 1.0,
        p_holm: 1.0,
        separated: false,
        method: PairMethod::PairedRounds,
        rounds: common,
    };
    if common >= MIN_PAIRED_ROUNDS {
        // Per round, log(score_b / score_a) from that round's values alone: the row's best
        // cancels, so only the two targets' own values enter.
        let d: Vec<f64> = (0..common)
            .map(|i| {
                rows.iter()
                    .zip(w)
                    .map(|(r, wr)| wr * relative(r.cells[b][i], r.cells[a][i], r.better).ln())
                    .sum()
            })
            .collect();
        if let Some((ratio, ci95, p)) = paired_t(&d) {
            return CompositePair {
                ratio,
                ci95,
                p,
                ..base
            };
        }
    }
    // Too few rounds to tell anything from noise: the bootstrap's spread is shown, as a
    // description, and the pair is left unseparated.
    let (lo, hi) = percentile_ci(draws.iter().map(|s| s[b] / s[a]).collect());
    CompositePair {
        method: PairMethod::TooFewRounds,
        ratio: scores[b] / scores[a],
        ci95: (lo, hi),
        ..base
    }
}

/// A one-sample t-test of `d` (log-ratios) against 0: the ratio exp(mean), its 95 %
/// interval and the two-sided p. `None` when `d` is too short.
fn paired_t(d: &[f64]) -> Option<(f64, (f64, f64), f64)> {
    let n = d.len();
    if n < 2 {
        return None;
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let se = (var / n as f64).sqrt();
    let df = (n - 1) as f64;
    if se == 0.0 || !se.is_finite() {
        // Every round gave the same log-ratio: exact, decided unless it is zero.
        let p = if mean == 0.0 { 1.0 } else { 0.0 };
        return Some((mean.exp(), (mean.exp(), mean.exp()), p));
    }
    let p = (2.0 * student_t_sf((mean / se).abs(), df)).min(1.0);
    let q = student_t_quantile(0.975, df);
    Some((
        mean.exp(),
        ((mean - q * se).exp(), (mean + q * se).exp()),
        p,
    ))
}

/// Each target's tier: a cut between positions k−1 and k of the order is made only when every
/// target above it is separated from every target below it.
fn tiers(c: &CompositeScores) -> Vec<usize> {
    let mut tiers = vec![0; c.order.len()];
    let mut tier = 0;
    for k in 1..c.order.len() {
        let cut = c.order[..k].iter().all(|&a| {
            c.order[k..]
                .iter()
                .all(|&b| c.pair(a, b).is_some_and(|p| p.separated && p.better == a))
        });
        tier += usize::from(cut);
        tiers[c.order[k]] = tier;
    }
    tiers
}

#[cfg(test)]
#[path = "composite_tests.rs"]
mod tests;

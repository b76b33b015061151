//! The race among the screen's best configurations: repeats in rounds, dropping a candidate
//! as soon as it is significantly worse than the leader.
//!
//! Role: the screen's estimates come from few samples per configuration; the race spends the
//! rest of the budget where it decides something. Each round every surviving candidate gets
//! more samples (the caller measures them); then [`survivors`] compares each candidate with
//! the round's leader by the pairwise decision every table uses ([`crate::pair`]: Welch's
//! test), the p-values of one round adjusted together by Holm, and drops those the leader
//! beats. Successive halving on evidence rather than on rank: a candidate that only looks
//! worse keeps its place until the samples say so, so noise cannot drop the true best.
//!
//! Invariants: the leader (highest mean among survivors) always survives; a candidate with
//! fewer than [`crate::MIN_SAMPLES`] samples is never dropped.

use crate::{holm, pair, Better, PairOutcome};

/// Index of the highest mean among `alive` candidates with at least one sample.
pub fn leader(samples: &[Vec<f64>], alive: &[bool]) -> Option<usize> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    (0..samples.len())
        .filter(|&i| alive[i] && !samples[i].is_empty())
        .max_by(|&a, &b| mean(&samples[a]).total_cmp(&mean(&samples[b])))
}

/// Which candidates stay in the race after this round's samples (higher is better).
pub fn survivors(samples: &[Vec<f64>], alive: &[bool], alpha: f64, margin_pct: f64) -> Vec<bool> {
    let Some(lead) = leader(samples, alive) else {
        return alive.to_vec();
    };
    let others: Vec<usize> = (0..samples.len())
        .filter(|&i| alive[i] && i != lead)
        .collect();
    let pairs: Vec<_> = others
        .iter()
        .map(|&i| {
            pair(
                &samples[lead],
                &samples[i],
                Better::Higher,
                alpha,
                margin_pct,
            )
        })
        .collect();
    let p: Vec<f64> = pairs.iter().map(|p| p.p_diff.unwrap_or(1.0)).collect();
    let adjusted = holm(&p);
    let mut out = alive.to_vec();
    for ((&i, pr), p_holm) in others.iter().zip(&pairs).zip(adjusted) {
        if pr.outcome == PairOutcome::ABetter && p_holm < alpha {
            out[i] = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Box–Muller normal noise from a seeded generator.
    fn normal(rng: &mut fastrand::Rng) -> f64 {
        let (u, v) = (rng.f64().max(1e-300), rng.f64());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    #[test]
    fn keeps_the_true_best_and_drops_the_clearly_worse() {
        // Eight candidates, the true best (index 5) 4 % above the next, noise 3 %.
        let means = [1.00, 0.97, 0.90, 0.95, 0.99, 1.04, 0.80, 0.98];
        let mut kept_best = 0;
        for seed in 0..100 {
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut samples = vec![Vec::new(); means.len()];
            let mut alive = vec![true; means.len()];
            for _round in 0..8 {
                for (i, m) in means.iter().enumerate() {
                    if alive[i] {
                        for _ in 0..2 {
                            samples[i].push(m * (1.0 + 0.03 * normal(&mut rng)));
                        }
                    }
                }
                alive = survivors(&samples, &alive, 0.05, 2.0);
            }
            assert!(!alive[6], "seed {seed}: 20 % worse must be dropped");
            if alive[5] {
                kept_best += 1;
            }
        }
        assert!(
            kept_best >= 95,
            "the true best survived {kept_best} of 100 races"
        );
    }

    #[test]
    fn too_few_samples_drop_nothing() {
        let samples = vec![vec![10.0], vec![1.0]];
        assert_eq!(
            survivors(&samples, &[true, true], 0.05, 2.0),
            vec![true, true]
        );
    }
}

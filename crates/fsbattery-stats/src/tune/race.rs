//! The race among the screen's best configurations: repeats in rounds, dropping a candidate
//! as soon as it is significantly worse than the leader, and ending the race once no further
//! round can drop anyone.
//!
//! Role: the screen's estimates come from few samples per configuration; the race spends the
//! rest of the budget where it decides something. Each round every surviving candidate gets
//! more samples (the caller measures them); then [`survivors_blocked`] compares each
//! candidate with the round's leader, the p-values of one round adjusted together by Holm,
//! and drops those the leader beats. Successive halving on evidence rather than on rank: a
//! candidate that only looks worse keeps its place until the samples say so, so noise cannot
//! drop the true best.
//!
//! Blocked: the candidates of a race round are measured in the same interleaved rounds of one
//! run, so a round is a block. When the leader and a candidate share [`crate::MIN_SAMPLES`] or
//! more rounds, they are compared round by round (the paired t-test of the per-round
//! differences of their log objective, as [`crate::decide_row`] pairs a run's rows): drift
//! that moves a whole round cancels instead of counting as noise. Otherwise Welch's test
//! ([`crate::pair`]), as before.
//!
//! Futility ([`race_futile`]): once every surviving non-leader holds [`JUDGED_AFTER`] samples
//! shared with the leader and would need more than [`HOPE_FACTOR`] × the affordable samples
//! to be separated from or shown equivalent to it (the observed difference and spread taken
//! as the truth), further rounds are very unlikely to change the race, and it ends; that drops
//! nobody and decides nothing, it only gives the time to the phases after it.
//!
//! Invariants: the leader (highest mean among survivors) always survives; a candidate with
//! fewer than [`crate::MIN_SAMPLES`] samples is never dropped; without rounds the decisions are
//! exactly the independent ones.

use crate::paired::PairedDiff;
use crate::welch_diff::WelchDiff;
use crate::{holm, pair, Better, PairOutcome, HOPE_FACTOR, JUDGED_AFTER};

/// One candidate of a race: its samples (log objective, higher is better) and, when they were
/// measured in blocked rounds, the round (block) of each.
#[derive(Debug, Clone, Copy)]
pub struct Entrant<'a> {
    /// Samples, higher is better.
    pub samples: &'a [f64],
    /// The block of each sample; `None`: independent samples.
    pub rounds: Option<&'a [u32]>,
}

/// Index of the highest mean among `alive` candidates with at least one sample.
pub fn leader(samples: &[Vec<f64>], alive: &[bool]) -> Option<usize> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    (0..samples.len())
        .filter(|&i| alive[i] && !samples[i].is_empty())
        .max_by(|&a, &b| mean(&samples[a]).total_cmp(&mean(&samples[b])))
}

/// [`survivors_blocked`] on independent samples.
pub fn survivors(samples: &[Vec<f64>], alive: &[bool], alpha: f64, margin_pct: f64) -> Vec<bool> {
    let entrants: Vec<Entrant<'_>> = samples
        .iter()
        .map(|s| Entrant {
            samples: s,
            rounds: None,
        })
        .collect();
    survivors_blocked(&entrants, alive, alpha, margin_pct)
}

/// The leader of `entrants` among the `alive` ones.
fn lead_of(entrants: &[Entrant<'_>], alive: &[bool]) -> Option<usize> {
    let s: Vec<Vec<f64>> = entrants.iter().map(|e| e.samples.to_vec()).collect();
    leader(&s, alive)
}

/// `c` against the leader round by round, when both name their rounds and share enough.
fn paired(lead: &Entrant<'_>, c: &Entrant<'_>) -> Option<PairedDiff> {
    PairedDiff::of_logs(lead.samples, lead.rounds?, c.samples, c.rounds?)
}

/// Which candidates stay in the race after this round's samples (higher is better): those
/// the leader does not beat at `alpha` (Holm over the round's comparisons), paired by round
/// where the candidates were measured in shared rounds.
pub fn survivors_blocked(
    entrants: &[Entrant<'_>],
    alive: &[bool],
    alpha: f64,
    margin_pct: f64,
) -> Vec<bool> {
    let Some(lead) = lead_of(entrants, alive) else {
        return alive.to_vec();
    };
    let others: Vec<usize> = (0..entrants.len())
        .filter(|&i| alive[i] && i != lead)
        .collect();
    // (p of a difference, whether the leader is the better one).
    let tests: Vec<(f64, bool)> = others
        .iter()
        .map(|&i| match paired(&entrants[lead], &entrants[i]) {
            Some(d) => (d.p_diff(), d.mean < 0.0),
            None => {
                let (a, b) = (entrants[lead].samples, entrants[i].samples);
                let p = pair(a, b, Better::Higher, alpha, margin_pct);
                (p.p_diff.unwrap_or(1.0), p.outcome == PairOutcome::ABetter)
            }
        })
        .collect();
    let p: Vec<f64> = tests.iter().map(|t| t.0).collect();
    let adjusted = holm(&p);
    let mut out = alive.to_vec();
    for ((&i, &(_, lead_better)), p_holm) in others.iter().zip(&tests).zip(adjusted) {
        let enough = entrants[i].samples.len() >= crate::MIN_SAMPLES
            && entrants[lead].samples.len() >= crate::MIN_SAMPLES;
        if enough && lead_better && p_holm < alpha {
            out[i] = false;
        }
    }
    out
}

/// Whether the race can end: every surviving candidate but the leader is judged (at least
/// [`JUDGED_AFTER`] samples on both sides) and would need more than [`HOPE_FACTOR`] ×
/// `affordable` samples to be decided against the leader (separated, or equivalent within
/// ±`margin_pct` %, at Holm's first-step level α / family), by the test
/// [`survivors_blocked`] uses. False while fewer than two candidates survive (the race is over
/// anyway) or while any candidate has hope.
pub fn race_futile(
    entrants: &[Entrant<'_>],
    alive: &[bool],
    alpha: f64,
    margin_pct: f64,
    affordable: usize,
) -> bool {
    let Some(lead) = lead_of(entrants, alive) else {
        return false;
    };
    let others: Vec<usize> = (0..entrants.len())
        .filter(|&i| alive[i] && i != lead)
        .collect();
    if others.is_empty() {
        return false;
    }
    let level = alpha / others.len() as f64;
    let limit = affordable.saturating_mul(HOPE_FACTOR);
    let log_margin = (margin_pct / 100.0).ln_1p();
    others.iter().all(|&i| {
        let (a, b) = (&entrants[lead], &entrants[i]);
        if a.samples.len() < JUDGED_AFTER || b.samples.len() < JUDGED_AFTER {
            return false;
        }
        let needed = match paired(a, b) {
            Some(d) if d.n >= JUDGED_AFTER => d.repeats_to_decide(level, margin_pct),
            Some(_) => return false,
            None => WelchDiff::new(a.samples, b.samples)
                .and_then(|w| crate::repeats::repeats_to_decide(&w, level, log_margin)),
        };
        needed.is_none_or(|n| n > limit)
    })
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

    /// Rounds of a race of `means` (log objective) under a drift shared by each round
    /// (±`drift`, uniform) and noise of each candidate's own (`noise`), two samples per
    /// candidate per round; blocked or not, the round after which candidate `worse` was
    /// dropped (None: never, within `rounds`), and whether the true best survived.
    fn race(
        means: &[f64],
        drift: f64,
        noise: f64,
        rounds: u32,
        blocked: bool,
        seed: u64,
    ) -> (Vec<Option<u32>>, bool) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut samples = vec![Vec::new(); means.len()];
        let mut blocks = vec![Vec::new(); means.len()];
        let mut alive = vec![true; means.len()];
        let mut dropped = vec![None; means.len()];
        for round in 0..rounds {
            for rep in 0..2 {
                let shared = drift * (2.0 * rng.f64() - 1.0);
                for (i, m) in means.iter().enumerate() {
                    if alive[i] {
                        samples[i].push(m + shared + noise * normal(&mut rng));
                        blocks[i].push(2 * round + rep);
                    }
                }
            }
            let entrants: Vec<Entrant<'_>> = samples
                .iter()
                .zip(&blocks)
                .map(|(s, b)| Entrant {
                    samples: s,
                    rounds: blocked.then_some(b.as_slice()),
                })
                .collect();
            let next = survivors_blocked(&entrants, &alive, 0.05, 2.0);
            for (i, (was, now)) in alive.iter().zip(&next).enumerate() {
                if *was && !*now {
                    dropped[i] = Some(round);
                }
            }
            alive = next;
        }
        let best = (0..means.len())
            .max_by(|&a, &b| means[a].total_cmp(&means[b]))
            .unwrap();
        (dropped, alive[best])
    }

    #[test]
    fn rounds_as_blocks_drop_a_worse_candidate_sooner_under_drift() {
        // Planted: three candidates, the second 3 % and the third 6 % below the best (log
        // scale), ±10 % drift shared by each round, 1.5 % noise of their own. Blocked, the
        // drift cancels and both are dropped within a few rounds; independent, the drift is
        // noise and they mostly survive the eight rounds. The true best always survives.
        let means = [0.0, -0.03, -0.06];
        let (mut paired_rounds, mut welch_rounds) = (0, 0);
        for seed in 0..40 {
            let (d, kept) = race(&means, 0.10, 0.015, 8, true, seed);
            assert!(kept, "seed {seed}: blocked race dropped the true best");
            paired_rounds += d[1].map_or(8, |r| r + 1);
            let (d, kept) = race(&means, 0.10, 0.015, 8, false, seed);
            assert!(kept, "seed {seed}: independent race dropped the true best");
            welch_rounds += d[1].map_or(8, |r| r + 1);
        }
        eprintln!("rounds to drop the 3 % worse: blocked {paired_rounds}/40, independent {welch_rounds}/40");
        assert!(
            paired_rounds * 2 < welch_rounds,
            "{paired_rounds} {welch_rounds}"
        );
    }

    #[test]
    fn the_true_best_survives_a_blocked_race_under_drift() {
        // Planted: the best 2 % above three others, ±10 % drift shared by each round, 2 %
        // noise of their own, 10 rounds looked at after each: the blocked race drops the
        // true best in at most 5 % of races. (Equal candidates are another matter: the race
        // looks after every round at α, so one of several equal ones is dropped in about a
        // third of such races, as with independent samples; dropping one of equals costs
        // the answer nothing.)
        let mut lost = 0;
        for seed in 0..200 {
            let (_, kept) = race(&[0.02, 0.0, 0.0, 0.0], 0.10, 0.02, 10, true, 1000 + seed);
            lost += usize::from(!kept);
        }
        eprintln!("the true best dropped in {lost} of 200 blocked races");
        assert!(lost <= 10, "{lost}");
    }

    #[test]
    fn a_race_no_round_can_change_is_futile() {
        // Planted, blocked: the leader and a candidate 2 % apart (the margin itself) with
        // ±8 % noise each, 12 rounds: neither separated nor equivalent within hundreds of
        // rounds, so with 10 rounds affordable the race ends. A candidate 10 % behind with
        // the same noise is a few rounds from being dropped: not futile.
        let mut rng = fastrand::Rng::with_seed(5);
        let blocks: Vec<u32> = (0..12).collect();
        let draw = |m: f64, rng: &mut fastrand::Rng| -> Vec<f64> {
            (0..12).map(|_| m + 0.08 * normal(rng)).collect()
        };
        let (lead, near, far) = (
            draw(0.0, &mut rng),
            draw(-0.02, &mut rng),
            draw(-0.10, &mut rng),
        );
        let e = |s| Entrant {
            samples: s,
            rounds: Some(blocks.as_slice()),
        };
        let near_race = [e(&lead), e(&near)];
        assert_eq!(
            survivors_blocked(&near_race, &[true; 2], 0.05, 2.0),
            [true; 2]
        );
        assert!(race_futile(&near_race, &[true; 2], 0.05, 2.0, 10));
        let far_race = [e(&lead), e(&near), e(&far)];
        let alive = survivors_blocked(&far_race, &[true; 3], 0.05, 2.0);
        if alive[2] {
            assert!(!race_futile(&far_race, &alive, 0.05, 2.0, 10));
        }
        // Too few samples: never futile.
        let short = [&lead, &near].map(|s| Entrant {
            samples: &s[..6],
            rounds: Some(&blocks[..6]),
        });
        assert!(!race_futile(&short, &[true; 2], 0.05, 2.0, 1));
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

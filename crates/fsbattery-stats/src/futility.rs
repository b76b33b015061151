//! Futility: the undecided columns of a row that no affordable number of repeats is likely to
//! decide, so the adaptive repeats can spend their budget on rows that more repeats would.
//!
//! Role: stopping for futility never makes a verdict — a stopped column stays "undecided" and
//! every verdict still needs its Holm-adjusted test below α — so it cannot raise the error
//! rate; it only gives up power on a row that was very unlikely to be decided in the time
//! left. The estimate is [`crate::verdict`]'s: the observed difference and variances taken
//! as the truth (about even odds), paired over rounds when the row is (see [`crate::verdict`]).
//! Two guards keep it from giving up on a row too early:
//! - no judgement before both sides hold [`JUDGED_AFTER`] samples (an estimate from three
//!   samples is mostly noise);
//! - a column is given up only when its estimate exceeds [`HOPE_FACTOR`] times what can still
//!   be afforded (or exceeds [`crate::MAX_REPEATS`]).
//!
//! Invariants: only a row that is [`Decision::Undecided`] has hopeless columns; a hopeless
//! column is one whose standing is undecided; the best column is hopeless exactly when every
//! undecided column is.

use crate::verdict::{decide_row, pair_estimate, Decision, Standing};
use crate::{Better, Contestant};

/// Samples both sides must hold before a column can be judged hopeless.
pub const JUDGED_AFTER: usize = 10;

/// A column is hopeless when its estimate is more than this many times the affordable count.
pub const HOPE_FACTOR: usize = 2;

/// Per column of the row `cells` (as [`decide_row`] takes them): whether it is undecided and
/// would need more than [`HOPE_FACTOR`] × `affordable` samples to be decided.
pub fn hopeless(
    cells: &[Option<Contestant<'_>>],
    better: Better,
    alpha: f64,
    margin_pct: f64,
    affordable: usize,
) -> Vec<bool> {
    let row = decide_row(cells, better, alpha, margin_pct);
    let mut out = vec![false; cells.len()];
    let (
        Decision::Undecided {
            best, undecided, ..
        },
        Some(b),
    ) = (&row.decision, row.best)
    else {
        return out;
    };
    let samples = |i: usize| cells[i].map(|c| c.samples).unwrap_or_default();
    let family = row
        .standings
        .iter()
        .filter(|s| !matches!(s, Standing::Absent | Standing::Best))
        .count();
    let limit = affordable.saturating_mul(HOPE_FACTOR);
    for &i in undecided {
        let judged = samples(*best).len() >= JUDGED_AFTER && samples(i).len() >= JUDGED_AFTER;
        out[i] = judged
            && pair_estimate(cells, b, i, better, alpha, family, margin_pct)
                .is_none_or(|n| n > limit);
    }
    out[b] = undecided.iter().all(|&i| out[i]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cols: &[Vec<f64>]) -> Vec<Option<Contestant<'_>>> {
        cols.iter()
            .map(|v| {
                Some(Contestant {
                    value: v.iter().sum::<f64>() / v.len() as f64,
                    samples: v,
                    rounds: None,
                })
            })
            .collect()
    }

    /// `n` samples around `mean` with a spread of ±`spread` (a fixed zig-zag, sd ≈ spread).
    fn planted(mean: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| {
                mean + if i % 2 == 0 { spread } else { -spread } * (1.0 + (i % 3) as f64 * 0.1)
            })
            .collect()
    }

    #[test]
    fn a_difference_at_the_margin_under_heavy_noise_is_hopeless() {
        // Planted: 5 % apart (exactly the margin) with a 25 % spread: neither separation
        // nor equivalence comes within hundreds of repeats.
        let cols = [planted(100.0, 25.0, 12), planted(105.0, 25.0, 12)];
        let r = row(&cols);
        assert!(matches!(
            decide_row(&r, Better::Lower, 0.05, 5.0).decision,
            Decision::Undecided { .. }
        ));
        assert_eq!(hopeless(&r, Better::Lower, 0.05, 5.0, 30), [true, true]);
    }

    #[test]
    fn a_clear_difference_a_few_repeats_away_is_not_given_up() {
        // Planted: 10 % apart with a 12 % spread: undecided at 10, decided well within 30.
        let cols = [planted(100.0, 12.0, 10), planted(110.0, 12.0, 10)];
        let r = row(&cols);
        let d = decide_row(&r, Better::Lower, 0.05, 5.0).decision;
        let Decision::Undecided { repeats, .. } = d else {
            panic!("{d:?}");
        };
        assert!(repeats.is_some_and(|n| n <= 30), "{repeats:?}");
        assert_eq!(hopeless(&r, Better::Lower, 0.05, 5.0, 30), [false, false]);
        // The same row with only 10 repeats affordable in all: still within twice that.
        let n = repeats.unwrap();
        assert_eq!(
            hopeless(&r, Better::Lower, 0.05, 5.0, n.div_ceil(2)),
            [false, false]
        );
        assert_eq!(
            hopeless(&r, Better::Lower, 0.05, 5.0, n / 2 - 1),
            [true, true]
        );
    }

    #[test]
    fn too_few_samples_or_a_decided_row_are_never_hopeless() {
        let few = [planted(100.0, 25.0, 5), planted(105.0, 25.0, 5)];
        assert_eq!(
            hopeless(&row(&few), Better::Lower, 0.05, 5.0, 3),
            [false, false]
        );
        let clear = [planted(100.0, 1.0, 12), planted(150.0, 1.0, 12)];
        assert_eq!(
            hopeless(&row(&clear), Better::Lower, 0.05, 5.0, 3),
            [false, false]
        );
    }

    #[test]
    fn the_best_waits_while_any_undecided_column_has_hope() {
        // Column 1 is hopeless (at the margin, noisy); column 2 is 12 % behind, a few
        // repeats from separation: the best keeps repeating for column 2's sake.
        let cols = [
            planted(100.0, 20.0, 12),
            planted(105.0, 25.0, 12),
            planted(112.0, 12.0, 12),
        ];
        let r = row(&cols);
        let d = decide_row(&r, Better::Lower, 0.05, 5.0);
        assert!(matches!(d.decision, Decision::Undecided { .. }), "{d:?}");
        assert_eq!(
            hopeless(&r, Better::Lower, 0.05, 5.0, 40),
            [false, true, false]
        );
    }

    #[test]
    fn drift_shared_by_the_rounds_is_not_noise_when_the_row_is_blocked() {
        // Planted: 12 rounds under ±20 % drift common to both targets; b is 3 % slower with
        // ±6 % of its own noise. As independent samples the drift swamps 3 % (hopeless); per
        // round it cancels, and about 22 rounds would decide it: not given up at 30.
        let mut rng = fastrand::Rng::with_seed(3);
        let drift: Vec<f64> = (0..12).map(|_| 1.0 + 0.4 * (rng.f64() - 0.5)).collect();
        let a: Vec<f64> = drift.iter().map(|d| 100.0 * d).collect();
        let own = |i: usize| if i.is_multiple_of(2) { 1.06 } else { 0.94 };
        let b: Vec<f64> = drift
            .iter()
            .enumerate()
            .map(|(i, d)| 103.0 * d * own(i))
            .collect();
        let rounds: Vec<u32> = (0..12).collect();
        let cells = |blocked: bool| {
            [&a, &b].map(|v| {
                Some(Contestant {
                    value: v.iter().sum::<f64>() / v.len() as f64,
                    samples: v,
                    rounds: blocked.then_some(rounds.as_slice()),
                })
            })
        };
        for blocked in [true, false] {
            let d = decide_row(&cells(blocked), Better::Lower, 0.05, 5.0).decision;
            assert!(matches!(d, Decision::Undecided { .. }), "{blocked}: {d:?}");
        }
        assert_eq!(
            hopeless(&cells(true), Better::Lower, 0.05, 5.0, 30),
            [false, false]
        );
        assert_eq!(
            hopeless(&cells(false), Better::Lower, 0.05, 5.0, 30),
            [true, true]
        );
    }
}

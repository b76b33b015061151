//! The composite against known answers: planted equal targets under shared round drift must
//! almost never be ordered, a planted difference must be separated, weights and groups must
//! count as documented, and the tiers must never order two unseparated targets.

use super::*;

/// A normal deviate (Box–Muller) from `rng`.
fn normal(rng: &mut fastrand::Rng) -> f64 {
    let u = rng.f64().max(1e-12);
    let v = rng.f64();
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// A planted run: `rows` rows in `groups` groups, `rounds` rounds, one factor per target
/// (1.0 = as good as the base), per-round drift shared by every cell of the round (sd
/// `drift`), per-sample noise (sd `noise`), all multiplicative. Times: lower is better.
fn planted(
    seed: u64,
    factors: &[f64],
    rows: usize,
    groups: usize,
    rounds: usize,
    drift: f64,
    noise: f64,
) -> Vec<(usize, Vec<Vec<f64>>)> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let round_drift: Vec<f64> = (0..rounds).map(|_| drift * normal(&mut rng)).collect();
    (0..rows)
        .map(|r| {
            let base = 1.0 + r as f64;
            let cells = factors
                .iter()
                .map(|f| {
                    (0..rounds)
                        .map(|i| base * f * (round_drift[i] + noise * normal(&mut rng)).exp())
                        .collect()
                })
                .collect();
            (r % groups, cells)
        })
        .collect()
}

fn run(data: &[(usize, Vec<Vec<f64>>)], weights: &[f64]) -> Option<CompositeScores> {
    run_with(data, weights, RESAMPLES)
}

/// [`run`] with few bootstrap draws, for the loops over hundreds of planted runs.
fn quick(data: &[(usize, Vec<Vec<f64>>)], weights: &[f64]) -> Option<CompositeScores> {
    run_with(data, weights, 20)
}

fn run_with(
    data: &[(usize, Vec<Vec<f64>>)],
    weights: &[f64],
    resamples: usize,
) -> Option<CompositeScores> {
    let rows: Vec<CompositeRow<'_>> = data
        .iter()
        .map(|(g, cells)| CompositeRow {
            group: *g,
            better: Better::Lower,
            agg: Aggregate::Mean,
            cells: cells.iter().map(Vec::as_slice).collect(),
        })
        .collect();
    let targets = data.first().map_or(0, |d| d.1.len());
    composite_with(&rows, weights, targets, 0.05, resamples)
}

/// Whether the ranking puts any two targets in different tiers.
fn ordered_any(c: &CompositeScores) -> bool {
    c.tiers.iter().any(|t| *t > 0)
}

#[test]
fn equal_targets_under_round_drift_are_rarely_ordered() {
    // Four equal targets, 5 rounds, ±10 % drift shared by the round, 3 % noise: the family-wise
    // false-order rate must stay near α (Holm over 6 pairs keeps it at or below 5 %).
    let trials = 300;
    let ordered = (0..trials)
        .filter(|&s| {
            let d = planted(s, &[1.0, 1.0, 1.0, 1.0], 12, 4, 5, 0.10, 0.03);
            ordered_any(&quick(&d, &[1.0; 4]).unwrap())
        })
        .count();
    let rate = ordered as f64 / trials as f64;
    assert!(rate <= 0.07, "false orders in {ordered} of {trials}");
}

#[test]
fn a_planted_five_percent_difference_is_separated_despite_drift() {
    // Drift of ±10 % per round would swamp a 5 % difference between independent samples; paired
    // by round it cancels and the difference is found nearly always.
    let trials = 100;
    let found = (0..trials)
        .filter(|&s| {
            let d = planted(s, &[1.0, 1.05], 12, 4, 5, 0.10, 0.03);
            let c = quick(&d, &[1.0; 4]).unwrap();
            c.order == vec![0, 1] && c.tiers == vec![0, 1]
        })
        .count();
    assert!(found >= 90, "separated in {found} of {trials}");
}

#[test]
fn the_pair_ratio_estimates_the_planted_factor() {
    let d = planted(7, &[1.0, 1.2, 1.2], 9, 3, 8, 0.05, 0.02);
    let c = run(&d, &[1.0; 3]).unwrap();
    let p = c.pair(0, 1).unwrap();
    assert!(p.ci95.0 < 1.2 && 1.2 < p.ci95.1, "{p:?}");
    assert_eq!(p.method, PairMethod::PairedRounds);
    assert_eq!(p.rounds, 8);
    // The two planted-equal targets share a tier below the best.
    assert_eq!(c.tiers[0], 0);
    assert_eq!(c.tiers[1], c.tiers[2]);
    assert!(c.tiers[1] > 0);
    assert!(!c.pair(1, 2).unwrap().separated);
}

#[test]
fn a_group_weighs_once_whatever_its_rows() {
    // Group 0: one row where target 1 is twice as slow; group 1: nine rows where it is equal.
    // By group, target 1 scores sqrt(2) (each group weighs ½); by row it would be 2^(1/10).
    let mut data = vec![(0, vec![vec![1.0; 3], vec![2.0; 3]])];
    for _ in 0..9 {
        data.push((1, vec![vec![1.0; 3], vec![1.0; 3]]));
    }
    let c = run(&data, &[1.0, 1.0]).unwrap();
    assert!((c.scores[1] - 2f64.sqrt()).abs() < 1e-9, "{:?}", c.scores);
    assert_eq!(c.groups, 2);
    // Weight 3 on group 0: 2^(3/4).
    let c = run(&data, &[3.0, 1.0]).unwrap();
    assert!(
        (c.scores[1] - 2f64.powf(0.75)).abs() < 1e-9,
        "{:?}",
        c.scores
    );
    // Weight 0 leaves the group out: equal everywhere else.
    let c = run(&data, &[0.0, 1.0]).unwrap();
    assert!((c.scores[1] - 1.0).abs() < 1e-9, "{:?}", c.scores);
    assert_eq!((c.groups, c.rows), (1, 9));
}

#[test]
fn higher_is_better_rows_are_oriented() {
    let rows = [CompositeRow {
        group: 0,
        better: Better::Higher,
        agg: Aggregate::Mean,
        cells: vec![&[100.0, 100.0, 100.0][..], &[50.0, 50.0, 50.0][..]],
    }];
    let c = composite(&rows, &[1.0], 2, 0.05).unwrap();
    assert!((c.scores[0] - 1.0).abs() < 1e-12 && (c.scores[1] - 2.0).abs() < 1e-12);
    assert_eq!(c.order, vec![0, 1]);
    // Every round gives exactly 2: decided without variance.
    assert!(c.pair(0, 1).unwrap().separated);
}

#[test]
fn tiers_never_order_an_unseparated_pair() {
    for s in 0..200 {
        let d = planted(s, &[1.0, 1.03, 1.06, 1.09, 1.12], 8, 4, 4, 0.05, 0.04);
        let c = quick(&d, &[1.0; 4]).unwrap();
        for p in &c.pairs {
            if c.tiers[p.better] != c.tiers[p.worse] {
                assert!(p.separated, "seed {s}: {p:?} in tiers {:?}", c.tiers);
            }
        }
    }
}

#[test]
fn one_round_decides_nothing_and_says_why() {
    let d = planted(3, &[1.0, 1.3], 6, 3, 1, 0.0, 0.05);
    let c = run(&d, &[1.0; 3]).unwrap();
    let p = c.pair(0, 1).unwrap();
    assert_eq!(p.method, PairMethod::TooFewRounds);
    assert!(!p.separated);
    assert_eq!(c.tiers, vec![0, 0]);
}

#[test]
fn degenerate_inputs_have_no_composite() {
    assert!(run(&[], &[1.0]).is_none());
    let one = vec![(0, vec![vec![1.0, 1.1]])];
    assert!(run(&one, &[1.0]).is_none());
    // A zero sample makes the row unusable.
    let zero = vec![(0, vec![vec![0.0, 1.0], vec![1.0, 1.0]])];
    assert!(run(&zero, &[1.0]).is_none());
}

#[test]
fn score_ratios_are_the_pair_ratios_with_equal_rounds() {
    // One slow round skews an arithmetic mean; the composite's geometric mean of the samples
    // keeps the score order and the pair test's estimate one and the same.
    let d = planted(5, &[1.0, 1.1, 0.95], 10, 5, 6, 0.2, 0.3);
    let c = run(&d, &[1.0; 5]).unwrap();
    for p in &c.pairs {
        let ratio = c.scores[p.worse] / c.scores[p.better];
        assert!((ratio - p.ratio).abs() < 1e-9 * ratio, "{p:?} vs {ratio}");
        assert!(p.ratio >= 1.0, "{p:?}");
    }
}

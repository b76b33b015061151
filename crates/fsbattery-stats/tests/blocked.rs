//! The blocked (paired over rounds) row verdict under planted round drift: its error rate on
//! equal targets and its speed on a real difference, measured like the sequential rule's
//! (looks after every round from 3 to 30, Haybittle–Peto levels, a seeded generator).
//!
//! The drift is the issue's: every round scales all targets' values by the same factor,
//! uniform in ±10 %, on top of each value's own log-normal noise.

use fsbattery_stats::{decide_row, decided, look_alpha, Better, Contestant, Decision, RowTest};

const MAX: usize = 30;
const ROUNDS: [u32; MAX] = {
    let mut r = [0u32; MAX];
    let mut i = 0;
    while i < MAX {
        r[i] = i as u32;
        i += 1;
    }
    r
};

/// A normal deviate (Box–Muller).
fn normal(rng: &mut fastrand::Rng) -> f64 {
    let (u, v) = (rng.f64().max(f64::EPSILON), rng.f64());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// `MAX` rounds of targets with true values `means`: round r's drift (±10 %) is shared by
/// every target, the noise `sigma` is each value's own.
fn planted(rng: &mut fastrand::Rng, means: &[f64], sigma: f64) -> Vec<Vec<f64>> {
    let drift: Vec<f64> = (0..MAX).map(|_| 1.0 + 0.2 * (rng.f64() - 0.5)).collect();
    means
        .iter()
        .map(|m| {
            drift
                .iter()
                .map(|d| m * d * (sigma * normal(rng)).exp())
                .collect()
        })
        .collect()
}

fn row(cols: &[Vec<f64>], n: usize, blocked: bool) -> Vec<Option<Contestant<'_>>> {
    cols.iter()
        .map(|v| {
            Some(Contestant {
                value: v[..n].iter().sum::<f64>() / n as f64,
                samples: &v[..n],
                rounds: blocked.then_some(&ROUNDS[..n]),
            })
        })
        .collect()
}

/// Looks after rounds 3..=MAX as the adaptive repeats make them; the round the row was
/// decided at and its decision (`None`: undecided at the maximum).
fn sequential(cols: &[Vec<f64>], blocked: bool) -> Option<(usize, Decision)> {
    for n in 3..=MAX {
        let alpha = look_alpha(0.05, n == MAX);
        let cells = row(cols, n, blocked);
        if decided(&cells, Better::Lower, alpha, 5.0)
            .iter()
            .all(|&d| d)
        {
            let r = decide_row(&cells, Better::Lower, alpha, 5.0);
            if blocked {
                assert!(matches!(r.test, RowTest::PairedRounds { rounds } if rounds == n));
            } else {
                assert_eq!(r.test, RowTest::Independent);
            }
            return Some((n, r.decision));
        }
    }
    None
}

fn winner(d: &Option<(usize, Decision)>) -> bool {
    matches!(d, Some((_, Decision::Winner { .. })))
}

#[test]
fn equal_targets_under_round_drift_give_at_most_five_percent_false_winners() {
    for (targets, sigma) in [(2, 0.05), (3, 0.02), (5, 0.05)] {
        let mut rng = fastrand::Rng::with_seed(44);
        let trials = 300;
        let (mut seq, mut fixed) = (0, 0);
        for _ in 0..trials {
            let cols = planted(&mut rng, &vec![100.0; targets], sigma);
            seq += usize::from(winner(&sequential(&cols, true)));
            // One look at α after 10 rounds, as a fixed --repeat 10 run is judged.
            let r = decide_row(&row(&cols, 10, true), Better::Lower, 0.05, 5.0);
            fixed += usize::from(matches!(r.decision, Decision::Winner { .. }));
        }
        let rate = |x: usize| x as f64 / trials as f64;
        eprintln!(
            "{targets} equal targets, noise {sigma}, drift ±10 %: false winners {} blocked \
             sequential, {} at one look after 10 rounds",
            rate(seq),
            rate(fixed)
        );
        assert!(rate(seq) <= 0.05, "sequential {}", rate(seq));
        assert!(rate(fixed) <= 0.05, "fixed {}", rate(fixed));
    }
}

#[test]
fn a_five_percent_difference_under_drift_is_decided_in_fewer_rounds_blocked() {
    let mut rng = fastrand::Rng::with_seed(4405);
    let trials = 120;
    let (mut blocked, mut indep) = (Vec::new(), Vec::new());
    let (mut wrong, mut won) = (0, 0);
    for _ in 0..trials {
        // Target 0 is 5 % faster (lower is better) than targets 1 and 2.
        let cols = planted(&mut rng, &[100.0, 105.0, 105.0], 0.02);
        let rounds = |d: &Option<(usize, Decision)>| d.as_ref().map_or(MAX + 1, |x| x.0);
        let b = sequential(&cols, true);
        if let Some((_, Decision::Winner { column, .. })) = &b {
            won += 1;
            wrong += usize::from(*column != 0);
        }
        blocked.push(rounds(&b));
        indep.push(rounds(&sequential(&cols, false)));
    }
    let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len() as f64;
    let (mb, mi) = (mean(&blocked), mean(&indep));
    eprintln!(
        "5 % apart, noise 2 %, drift ±10 %: mean rounds to decide {mb:.1} blocked, {mi:.1} \
         independent ({} = undecided at {MAX}); blocked winners {won} of {trials}, {wrong} wrong",
        MAX + 1
    );
    assert!(mb < mi, "blocked {mb} vs independent {mi}");
    assert!(mb <= 15.0, "blocked {mb}");
    assert!(
        won as f64 >= 0.9 * trials as f64 && wrong == 0,
        "{won} {wrong}"
    );
}

#[test]
fn rows_without_rounds_or_with_too_few_in_common_are_independent() {
    let a = [100.0, 101.0, 99.0, 100.5];
    let b = [110.0, 111.0, 109.0, 110.5];
    let mk = |ra: Option<&'static [u32]>, rb: Option<&'static [u32]>| {
        decide_row(
            &[
                Some(Contestant {
                    value: 100.0,
                    samples: &a,
                    rounds: ra,
                }),
                Some(Contestant {
                    value: 110.0,
                    samples: &b,
                    rounds: rb,
                }),
            ],
            Better::Lower,
            0.05,
            5.0,
        )
        .test
    };
    assert_eq!(mk(None, Some(&[0, 1, 2, 3])), RowTest::Independent);
    assert_eq!(
        mk(Some(&[0, 1, 2, 3]), Some(&[2, 3, 4, 5])),
        RowTest::Independent
    );
    assert_eq!(
        mk(Some(&[0, 1, 2, 3]), Some(&[1, 2, 3, 4])),
        RowTest::PairedRounds { rounds: 3 }
    );
}

//! Property tests for fsbattery-stats.
//!
//! Role: check the invariants promised in the module headers on random
//! inputs, complementing the hand-checked values in the unit tests.
//! Invariant of the tests themselves: sample values stay in a realistic range
//! for benchmark results (|x| <= 1e6) so tolerances can be tight.

use fsbattery_stats::{
    compare, mann_whitney_u, student_t_cdf, student_t_quantile, student_t_sf, welch_t_test, Better,
    Summary, Verdict,
};
use proptest::prelude::*;

fn samples(min_len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1e6..1e6_f64, min_len..40)
}

fn better() -> impl Strategy<Value = Better> {
    prop_oneof![Just(Better::Higher), Just(Better::Lower)]
}

/// Degrees of freedom spread log-uniformly over 1..1e7, covering both the
/// incomplete-beta and the large-df (Hill) code paths.
fn dof() -> impl Strategy<Value = f64> {
    (0.0..7.0_f64).prop_map(|e| 10f64.powf(e))
}

proptest! {
    #[test]
    fn summary_orders_and_best(xs in samples(1), b in better()) {
        let s = Summary::from_samples(&xs, b).unwrap();
        prop_assert_eq!(s.n, xs.len());
        prop_assert!(s.min <= s.median && s.median <= s.max);
        prop_assert!(s.min <= s.mean && s.mean <= s.max);
        prop_assert!(s.stddev >= 0.0);
        let expected_best = match b {
            Better::Higher => s.max,
            Better::Lower => s.min,
        };
        prop_assert_eq!(s.best, expected_best);
        prop_assert_eq!(s.ci95_half_width.is_some(), xs.len() >= 2);
        if let Some((lo, hi)) = s.ci95() {
            prop_assert!(lo <= s.mean && s.mean <= hi);
        }
    }

    #[test]
    fn ci95_shrinks_when_samples_duplicated(xs in samples(2)) {
        let once = Summary::from_samples(&xs, Better::Lower).unwrap();
        let doubled: Vec<f64> = xs.iter().chain(&xs).copied().collect();
        let twice = Summary::from_samples(&doubled, Better::Lower).unwrap();
        let (h1, h2) = (once.ci95_half_width.unwrap(), twice.ci95_half_width.unwrap());
        prop_assert!(h2 <= h1 * (1.0 + 1e-12), "h1={} h2={}", h1, h2);
    }

    #[test]
    fn quantile_then_cdf_round_trips(p in 1e-10..(1.0 - 1e-10_f64), df in dof()) {
        let t = student_t_quantile(p, df);
        prop_assert!(t.is_finite());
        // Compare on the smaller tail, where relative precision is meaningful.
        if p < 0.5 {
            let back = student_t_cdf(t, df);
            prop_assert!((back - p).abs() <= 1e-9 * p, "p={} back={}", p, back);
        } else {
            let back = student_t_sf(t, df);
            prop_assert!((back - (1.0 - p)).abs() <= 1e-9 * (1.0 - p) + 1e-16, "p={} back={}", p, back);
        }
    }

    #[test]
    fn cdf_then_quantile_round_trips(t in -30.0..0.0_f64, df in dof()) {
        let p = student_t_cdf(t, df);
        prop_assume!(p > 1e-300);
        let back = student_t_quantile(p, df);
        prop_assert!((back - t).abs() <= 1e-8 * t.abs().max(1.0), "t={} back={}", t, back);
    }

    #[test]
    fn cdf_is_monotone_and_symmetric(t in -50.0..50.0_f64, dt in 0.0..5.0_f64, df in dof()) {
        prop_assert!(student_t_cdf(t, df) <= student_t_cdf(t + dt, df));
        let sum = student_t_cdf(t, df) + student_t_cdf(-t, df);
        prop_assert!((sum - 1.0).abs() <= 1e-14);
    }

    #[test]
    fn comparing_with_itself_is_never_significant(
        xs in samples(0),
        b in better(),
        alpha in 0.0001..0.5_f64,
    ) {
        let c = compare(&xs, &xs, b, alpha);
        prop_assert!(!matches!(c.verdict, Verdict::Better | Verdict::Worse), "{:?}", c);
    }

    #[test]
    fn planted_20pct_regression_is_flagged(
        level in 1.0..1e6_f64,
        noise in prop::collection::vec(-0.01..0.01_f64, 10),
    ) {
        // Five runs each, within ±1% noise; the new runs take 20% longer.
        let base: Vec<f64> = noise[..5].iter().map(|e| level * (1.0 + e)).collect();
        let new: Vec<f64> = noise[5..].iter().map(|e| level * 1.2 * (1.0 + e)).collect();
        let lat = compare(&base, &new, Better::Lower, 0.05);
        prop_assert_eq!(lat.verdict, Verdict::Worse);
        prop_assert!((lat.change_pct.unwrap() - 20.0).abs() < 2.5);
        // The same numbers as throughput are an improvement.
        prop_assert_eq!(compare(&base, &new, Better::Higher, 0.05).verdict, Verdict::Better);
    }

    #[test]
    fn welch_is_antisymmetric_with_valid_p(a in samples(2), b in samples(2)) {
        let ab = welch_t_test(&a, &b).unwrap();
        let ba = welch_t_test(&b, &a).unwrap();
        prop_assert!((0.0..=1.0).contains(&ab.p_value));
        prop_assert_eq!(ab.t, -ba.t);
        prop_assert_eq!(ab.p_value, ba.p_value);
        prop_assert!(ab.df >= 1.0 - 1e-9);
    }

    #[test]
    fn mann_whitney_u_is_complementary(a in samples(1), b in samples(1)) {
        let ab = mann_whitney_u(&a, &b).unwrap();
        let ba = mann_whitney_u(&b, &a).unwrap();
        prop_assert!((0.0..=1.0).contains(&ab.p_value));
        prop_assert_eq!(ab.u + ba.u, (a.len() * b.len()) as f64);
        prop_assert!((ab.p_value - ba.p_value).abs() <= 1e-12);
    }
}

fn contestants(cols: &[Vec<f64>]) -> Vec<Option<fsbattery_stats::Contestant<'_>>> {
    cols.iter()
        .map(|s| {
            Some(fsbattery_stats::Contestant {
                value: s.iter().sum::<f64>() / s.len() as f64,
                samples: s,
                rounds: None,
            })
        })
        .collect()
}

proptest! {
    #[test]
    fn rank_exact_ties_never_win(xs in samples(1), copies in 2..5usize, b in better()) {
        let cols = vec![xs; copies];
        let v = fsbattery_stats::rank_row(&contestants(&cols), b, 0.05);
        prop_assert_eq!(v.winner(), None);
        prop_assert!(!v.marks.contains(&fsbattery_stats::Mark::Winner));
    }

    #[test]
    fn rank_marks_are_consistent(
        cols in prop::collection::vec(samples(1), 1..6),
        b in better(),
        alpha in 0.001..0.2_f64,
    ) {
        use fsbattery_stats::{Mark, Outcome};
        let v = fsbattery_stats::rank_row(&contestants(&cols), b, alpha);
        let winners = v.marks.iter().filter(|m| **m == Mark::Winner).count();
        let marked = v.marks.iter().filter(|m| **m != Mark::None).count();
        let equivalent = v.marks.iter().filter(|m| **m == Mark::Equivalent).count();
        prop_assert!(winners <= 1);
        prop_assert!(winners == 0 || marked == 1);
        match v.outcome {
            Outcome::Winner(i) => prop_assert_eq!(v.marks[i], Mark::Winner),
            // The best and at least one column shown equivalent to it; nothing undecided.
            Outcome::Equivalent => {
                prop_assert!(equivalent >= 2);
                prop_assert_eq!(v.marks[v.best.unwrap()], Mark::Equivalent);
                prop_assert!(!v.marks.contains(&Mark::Undecided));
            }
            Outcome::Undecided => {
                prop_assert_eq!(v.marks[v.best.unwrap()], Mark::Undecided);
                prop_assert!(v.marks.iter().filter(|m| **m == Mark::Undecided).count() >= 2);
            }
            _ => prop_assert_eq!(marked, 0),
        }
        // Fewer than three samples on the best or the runner-up: no verdict.
        if let (Some(bi), Some(ri)) = (v.best, v.runner_up) {
            if cols[bi].len() < 3 || cols[ri].len() < 3 {
                prop_assert_eq!(v.outcome, Outcome::NotEnoughSamples);
            }
        }
    }

    #[test]
    fn rank_clearly_separated_wins(
        base in prop::collection::vec(99.0..101.0_f64, 3..10),
        other in prop::collection::vec(199.0..201.0_f64, 3..10),
    ) {
        let cols = vec![other, base];
        let v = fsbattery_stats::rank_row(&contestants(&cols), Better::Lower, 0.05);
        prop_assert_eq!(v.outcome, fsbattery_stats::Outcome::Winner(1));
    }

    #[test]
    fn rank_overlapping_samples_tie(xs in prop::collection::vec(-100.0..100.0_f64, 3..20)) {
        // The same samples in another order (and a shuffled copy) cannot be told apart.
        let mut ys = xs.clone();
        ys.reverse();
        let cols = vec![xs, ys];
        let v = fsbattery_stats::rank_row(&contestants(&cols), Better::Lower, 0.05);
        prop_assert_eq!(v.winner(), None);
    }
}

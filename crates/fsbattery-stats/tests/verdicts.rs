//! The equivalence test, Holm's adjustment, the pairwise decision and the row verdict
//! against known answers: planted effects, and p-values from a second implementation.
//!
//! Reference values come from scipy 1.17.1 and statsmodels 0.15.0:
//! `scipy.stats.ttest_ind(a, b, equal_var=False).pvalue` (Welch),
//! `statsmodels.stats.weightstats.ttost_ind(a, b, -m, m, usevar="unequal")[0]` (TOST, with
//! `m = 0.05 * the better mean`), `CompareMeans(DescrStatsW(a), DescrStatsW(b))
//! .tconfint_diff(alpha=0.10, usevar="unequal")` (the 90 % CI), and
//! `multipletests(p, method="holm")[1]` (Holm). The inputs are the arrays below verbatim.

use fsbattery_stats::{
    decide_row, decided, holm, pair, tost, tost_relative, Better, Contestant, Decision,
    PairOutcome, Standing,
};

const A: [f64; 6] = [100.2, 99.1, 101.3, 100.7, 98.9, 100.4];
const B: [f64; 6] = [101.0, 102.4, 100.1, 101.9, 100.8, 101.5];
const C: [f64; 6] = [80.0, 130.0, 95.0, 120.0, 70.0, 105.0];
const D: [f64; 6] = [120.1, 119.3, 121.0, 120.6, 118.8, 120.2];

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs()
}

fn mean(s: &[f64]) -> f64 {
    s.iter().sum::<f64>() / s.len() as f64
}

fn row<'a>(cols: &[&'a [f64]]) -> Vec<Option<Contestant<'a>>> {
    cols.iter()
        .map(|s| {
            Some(Contestant {
                value: mean(s),
                samples: s,
                rounds: None,
            })
        })
        .collect()
}

/// Deterministic noise in [-1, 1): a fixed linear congruential sequence, so planted-effect
/// tests need no random crate and never flake.
fn noisy(centre: f64, spread: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            centre + spread * (2.0 * u - 1.0)
        })
        .collect()
}

#[test]
fn tost_matches_statsmodels() {
    // A − B, margin 5 % of the better (lower) mean 100.1 = 5.005:
    // ttost_ind p = 1.085123652797659e-05; 90 % CI (-2.104672804807251, -0.2619938618594231).
    let t = tost_relative(&A, &B, Better::Lower, 5.0, 0.05).unwrap();
    assert!(close(t.margin, 5.005, 1e-12), "{t:?}");
    assert!(close(t.p_value, 1.085_123_652_797_659e-5, 1e-7), "{t:?}");
    assert!(close(t.diff_ci.0, -2.104_672_804_807_251, 1e-9), "{t:?}");
    assert!(close(t.diff_ci.1, -0.261_993_861_859_423_1, 1e-9), "{t:?}");
    // Margin 1 % (1.001): p = 0.6365014607424531, not equivalent.
    let t = tost(&A, &B, 1.001, 0.05).unwrap();
    assert!(close(t.p_value, 0.636_501_460_742_453_1, 1e-9), "{t:?}");
    // The noisy C − A, margin 5.0 (5 % of C's mean 100.0): p = 0.31229304304863864.
    let t = tost_relative(&C, &A, Better::Lower, 5.0, 0.05).unwrap();
    assert!(close(t.p_value, 0.312_293_043_048_638_64, 1e-9), "{t:?}");
    // B − A where higher is better: margin 5 % of 101.28333 = 5.064166666666668,
    // p = 9.518400035991928e-06.
    let t = tost_relative(&B, &A, Better::Higher, 5.0, 0.05).unwrap();
    assert!(close(t.margin, 5.064_166_666_666_668, 1e-12), "{t:?}");
    assert!(close(t.p_value, 9.518_400_035_991_928e-6, 1e-7), "{t:?}");
}

#[test]
fn tost_ratio_and_degenerate_cases() {
    let t = tost(&B, &A, 5.0, 0.05).unwrap();
    assert!(close(t.ratio.unwrap(), mean(&B) / mean(&A), 1e-12));
    let (lo, hi) = t.ratio_ci.unwrap();
    assert!(lo < t.ratio.unwrap() && t.ratio.unwrap() < hi);
    // Constant samples: exact answers.
    assert_eq!(tost(&[5.0; 3], &[5.1; 3], 0.5, 0.05).unwrap().p_value, 0.0);
    assert_eq!(tost(&[5.0; 3], &[6.0; 3], 0.5, 0.05).unwrap().p_value, 1.0);
    // No margin, too few or broken samples: no test.
    assert!(tost(&A, &B, 0.0, 0.05).is_none());
    assert!(tost(&A, &[1.0], 1.0, 0.05).is_none());
    assert!(tost(&A, &[1.0, f64::NAN], 1.0, 0.05).is_none());
}

#[test]
fn holm_matches_statsmodels() {
    // multipletests([0.042312706740065785, 3.814700698627874e-12], method="holm")[1]
    // = [0.042312706740065785, 7.629401397255748e-12]
    let got = holm(&[0.042_312_706_740_065_785, 3.814_700_698_627_874e-12]);
    assert!(close(got[0], 0.042_312_706_740_065_785, 1e-12), "{got:?}");
    assert!(close(got[1], 7.629_401_397_255_748e-12, 1e-12), "{got:?}");
}

#[test]
fn pair_prefers_a_real_difference_over_equivalence() {
    // Welch p = 0.042312706740065785 < 0.05 and TOST p = 1.09e-5: both hold; the
    // difference (A lower) is the answer, with its ratio CI excluding 1.
    let p = pair(&A, &B, Better::Lower, 0.05, 5.0);
    assert_eq!(p.outcome, PairOutcome::ABetter);
    assert!(close(p.p_diff.unwrap(), 0.042_312_706_740_065_785, 1e-9));
    assert_eq!(p.p(), p.p_diff);
    let (lo, hi) = p.ratio_ci.unwrap();
    assert!(hi < 1.0 && lo < hi, "{p:?}");
    assert_eq!(
        pair(&A, &B, Better::Higher, 0.05, 5.0).outcome,
        PairOutcome::BBetter
    );
    // At α = 0.01 the difference is not significant but equivalence within 5 % is shown.
    let p = pair(&A, &B, Better::Lower, 0.01, 5.0);
    assert_eq!(p.outcome, PairOutcome::Equivalent);
    assert_eq!(p.p(), p.p_equiv);
    // Noise ±25 %: neither.
    assert_eq!(
        pair(&C, &A, Better::Lower, 0.05, 5.0).outcome,
        PairOutcome::Undecided
    );
    assert_eq!(
        pair(&A[..2], &B, Better::Lower, 0.05, 5.0).outcome,
        PairOutcome::NotEnoughSamples
    );
}

#[test]
fn planted_twenty_percent_difference_wins() {
    let fast = noisy(100.0, 1.0, 5, 1);
    let slow = noisy(120.0, 1.2, 5, 2);
    let slower = noisy(150.0, 1.5, 5, 3);
    let cells = row(&[&slow, &fast, &slower]);
    let r = decide_row(&cells, Better::Lower, 0.05, 5.0);
    let Decision::Winner {
        column,
        next,
        ratio,
        ratio_ci,
        p,
    } = r.decision
    else {
        panic!("{r:?}");
    };
    assert_eq!((column, next), (1, 0));
    assert!(close(ratio.unwrap(), mean(&slow) / mean(&fast), 1e-12));
    let (lo, hi) = ratio_ci.unwrap();
    assert!(1.15 < lo && hi < 1.25, "{lo} {hi}");
    assert!(p < 1e-4);
    assert_eq!(decided(&cells, Better::Lower, 0.05, 5.0), [true; 3]);
}

#[test]
fn planted_identical_tight_distributions_are_equivalent() {
    let a = noisy(100.0, 0.5, 8, 4);
    let b = noisy(100.0, 0.5, 8, 5);
    let worse = noisy(130.0, 0.5, 8, 6);
    let cells = row(&[&a, &b, &worse]);
    let r = decide_row(&cells, Better::Lower, 0.05, 5.0);
    let Decision::Equivalent {
        best,
        equivalent,
        worse: w,
        margin_pct,
        p,
    } = &r.decision
    else {
        panic!("{r:?}");
    };
    assert_eq!(equivalent.len(), 1);
    assert_eq!(*best + equivalent[0], 1, "a and b are the equivalent pair");
    assert_eq!((w.as_slice(), *margin_pct), ([2usize].as_slice(), 5.0));
    assert!(*p < 1e-6, "{p}");
    assert!(matches!(r.standings[2], Standing::Worse { .. }));
    assert_eq!(decided(&cells, Better::Lower, 0.05, 5.0), [true; 3]);
}

#[test]
fn planted_huge_noise_is_undecided_naming_the_noisy_column() {
    let a = noisy(100.0, 0.5, 5, 7);
    let b = noisy(102.0, 0.5, 5, 8);
    let wild = [40.0, 180.0, 90.0, 150.0, 110.0];
    let cells = row(&[&a, &b, &wild]);
    let r = decide_row(&cells, Better::Lower, 0.05, 5.0);
    let Decision::Undecided {
        best,
        column,
        undecided,
        ratio_ci,
        repeats,
        ..
    } = &r.decision
    else {
        panic!("{r:?}");
    };
    assert_eq!((*best, *column), (0, 2));
    assert_eq!(undecided, &[2]);
    let (lo, hi) = ratio_ci.unwrap();
    assert!(
        lo < 1.0 && hi > 1.2,
        "the CI spans both verdicts: {lo} {hi}"
    );
    assert!(repeats.unwrap() > 5, "{repeats:?}");
    // b is settled against a, the noisy column and the best are not.
    assert_eq!(
        decided(&cells, Better::Lower, 0.05, 5.0),
        [false, true, false]
    );
}

#[test]
fn holm_changes_the_row_as_statsmodels_does() {
    // Row [A, B, D], lower better: best A; raw Welch p (A,B) = 0.042312706740065785,
    // (A,D) = 3.814700698627874e-12; Holm keeps B's at 0.0423 (< 0.05): a winner by
    // B / A = 1.011821511821512, 95 % CI (1.0005005363742387, 1.0231424872687849).
    let cells = row(&[&A, &B, &D]);
    let r = decide_row(&cells, Better::Lower, 0.05, 5.0);
    let Decision::Winner {
        column,
        next,
        ratio,
        ratio_ci,
        p,
    } = r.decision
    else {
        panic!("{r:?}");
    };
    assert_eq!((column, next), (0, 1));
    assert!(close(p, 0.042_312_706_740_065_785, 1e-9), "{p}");
    assert!(close(ratio.unwrap(), 1.011_821_511_821_512, 1e-12));
    let (lo, hi) = ratio_ci.unwrap();
    assert!(close(lo, 1.000_500_536_374_238_7, 1e-9), "{lo}");
    assert!(close(hi, 1.023_142_487_268_784_9, 1e-9), "{hi}");
    // Row [A, B, C]: best C (mean 100.0); Holm-adjusted Welch p = [1.0, 1.0] and TOST p =
    // [0.6245860860972773, 0.6245860860972773]: undecided, naming A (the wider SE with C).
    let cells = row(&[&A, &B, &C]);
    let r = decide_row(&cells, Better::Lower, 0.05, 5.0);
    let Decision::Undecided {
        best,
        column,
        p_diff,
        p_equiv,
        ..
    } = r.decision
    else {
        panic!("{r:?}");
    };
    assert_eq!((best, column), (2, 0));
    assert_eq!(p_diff, 1.0);
    assert!(close(p_equiv, 0.624_586_086_097_277_3, 1e-9), "{p_equiv}");
}

#[test]
fn small_and_empty_rows() {
    let r = decide_row(&row(&[&A]), Better::Lower, 0.05, 5.0);
    assert_eq!(r.decision, Decision::Alone { column: 0 });
    let r = decide_row(&[None, None], Better::Lower, 0.05, 5.0);
    assert_eq!(r.decision, Decision::NoContest);
    let short = [1.0, 2.0];
    let cells = row(&[&A, &B, &short]);
    let r = decide_row(&cells, Better::Lower, 0.05, 5.0);
    assert_eq!(r.decision, Decision::NotEnoughSamples { column: 2 });
    assert_eq!(
        decided(&cells, Better::Lower, 0.05, 5.0),
        [false, false, false]
    );
    // A column without a cell takes no part and waits for nothing.
    let mut cells = row(&[&A, &D]);
    cells.push(None);
    assert_eq!(decided(&cells, Better::Lower, 0.05, 5.0), [true; 3]);
}

#[test]
fn exact_ties_are_equivalent_never_winners() {
    let cells = row(&[&A, &A]);
    let r = decide_row(&cells, Better::Lower, 0.05, 5.0);
    assert!(matches!(r.decision, Decision::Equivalent { .. }), "{r:?}");
}

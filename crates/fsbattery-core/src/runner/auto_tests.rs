//! The two stopping rules of `--repeat auto`, cell by cell, with planted values: the alone
//! rule's precision, and the compared rule's separated / equivalent / undecided rows, the
//! headline filter and the budget.

use super::*;

fn sample(value: f64) -> Sample {
    Sample {
        repeat: 0,
        value,
        elapsed_s: 0.0,
        user_s: 0.0,
        sys_s: 0.0,
        cpu_pct: 0.0,
        ..Default::default()
    }
}

fn spec() -> AutoRepeat {
    AutoRepeat::new(3, 6)
}

fn rate(name: &str) -> Headline {
    Headline {
        name: name.into(),
        better: Better::Higher,
        time: false,
    }
}

/// Feed `values` to one target alone, a repeat at a time; the repeat at which it stopped and
/// the decision.
fn alone(values: &[f64]) -> Option<(u32, Convergence)> {
    let mut a = AutoRun::new(spec(), vec![vec![rate("touch")]], vec![true], false);
    for (r, v) in values.iter().enumerate() {
        a.record(0, 0, "touch", &sample(*v));
        if let Some(c) = a.after_step(0, 0, "metadata") {
            assert!(a.stopped(0, 0) && a.after_step(0, 0, "metadata").is_none());
            return Some((r as u32, c));
        }
    }
    None
}

#[test]
fn alone_a_quiet_metric_stops_at_the_minimum_and_says_why() {
    let (at, c) = alone(&[100.0, 100.5, 99.8, 100.1, 100.0, 99.9]).unwrap();
    assert_eq!((at, c.repeats, c.reached), (2, 3, true));
    assert_eq!(c.stop, Some(StopReason::Precise));
    assert_eq!(c.widest_metric, "touch");
    assert!(c.widest_half_width_pct.unwrap() < 3.0, "{c:?}");
}

#[test]
fn alone_a_noisy_metric_goes_on_to_the_maximum() {
    let (at, c) = alone(&[50.0, 150.0, 80.0, 130.0, 60.0, 140.0, 100.0]).unwrap();
    assert_eq!((at, c.repeats, c.reached), (5, 6, false));
    assert_eq!(c.stop, Some(StopReason::Maximum));
    assert!(c.describe().contains("not converged"), "{}", c.describe());
}

/// Run rounds of two (or more) ranked targets, `values[t][r]` for repeat r of target t; the
/// decisions in the order made, with the round they came after.
fn compared(values: &[&[f64]], heads: Vec<Headline>) -> Vec<(usize, usize, Convergence)> {
    compared_with(spec(), values, heads)
}

/// [`compared`] under the bounds `spec`.
fn compared_with(
    spec: AutoRepeat,
    values: &[&[f64]],
    heads: Vec<Headline>,
) -> Vec<(usize, usize, Convergence)> {
    let targets = values.len();
    let mut a = AutoRun::new(spec, vec![heads], vec![true; targets], false);
    let mut out = Vec::new();
    for r in 0..spec.max as usize {
        assert!(a.round_fits());
        for (t, v) in values.iter().enumerate() {
            if a.stopped(t, 0) {
                continue;
            }
            a.record(t, 0, "rate", &sample(v[r % v.len()]));
            a.record(t, 0, "max_lat", &sample(v[r % v.len()] * (1.0 + r as f64)));
            assert!(a.after_step(t, 0, "w").is_none(), "decided after the round");
        }
        for (t, c) in a.after_round(&[0], &["w"], 0.05) {
            out.push((r, t, c));
        }
    }
    out
}

#[test]
fn separated_targets_stop_at_the_minimum() {
    // 20 % apart with ±0.5 % noise: decided after the third round, both.
    let out = compared(
        &[&[100.0, 100.5, 99.6], &[80.0, 80.3, 79.7]],
        vec![rate("rate")],
    );
    assert_eq!(out.len(), 2, "{out:?}");
    for (r, _, c) in &out {
        assert_eq!((*r, c.repeats, c.stop), (2, 3, Some(StopReason::Decided)));
        assert!(c.reached && c.describe().starts_with("3 repeats, decided"));
    }
}

#[test]
fn equivalent_targets_stop_once_shown_equivalent() {
    // 0.2 % apart with ±0.3 % noise: equivalent within ±5 % well before the maximum.
    let out = compared(
        &[&[100.0, 100.3, 99.7, 100.1], &[100.2, 99.9, 100.4, 100.0]],
        vec![rate("rate")],
    );
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out
        .iter()
        .all(|(_, _, c)| c.stop == Some(StopReason::Decided) && c.repeats < 6));
}

#[test]
fn a_noisy_target_stays_undecided_to_the_maximum() {
    // Means 2 % apart, one target's noise ±50 %: neither separated nor equivalent.
    let out = compared(
        &[
            &[100.0, 100.2, 99.8],
            &[50.0, 150.0, 60.0, 140.0, 102.0, 100.0],
        ],
        vec![rate("rate")],
    );
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(
        out.iter()
            .all(|(r, _, c)| *r == 5 && c.stop == Some(StopReason::Maximum) && !c.reached),
        "{out:?}"
    );
}

#[test]
fn only_headline_metrics_hold_a_cell() {
    // A wild maximum latency beside a clearly separated rate: the rate decides alone.
    let spec = |name: &str, unit: &str, stat: Option<Stat>| {
        let mut m = MetricSpec::rate(name, unit, "x");
        m.meta = Some(fsbattery_record::meta::MetricMeta {
            kind: if stat.is_some() {
                MetricKind::Latency
            } else {
                MetricKind::Rate
            },
            stat,
            of: None,
            dims: Vec::new(),
        });
        m
    };
    let metrics = vec![
        spec("rate", "MB/s", None),
        spec("lat_max", "ms", Some(Stat::Max)),
        spec("lat_p99", "ms", Some(Stat::Percentile(99.0))),
        spec("lat_p50", "ms", Some(Stat::Percentile(50.0))),
        spec("lat_mean", "ms", Some(Stat::Mean)),
        MetricSpec::rate("space", "MiB", "x").not_comparable(),
    ];
    let names: Vec<String> = headlines(&metrics, &[])
        .into_iter()
        .map(|h| h.name)
        .collect();
    assert_eq!(names, ["rate", "lat_p50", "lat_mean"]);
    // A table that shows only some rows: only those.
    let shown: Vec<String> = headlines(&metrics, &["lat_mean", "lat_max"])
        .into_iter()
        .map(|h| h.name)
        .collect();
    assert_eq!(shown, ["lat_mean"]);
    let out = compared(
        &[&[100.0, 100.5, 99.6], &[80.0, 80.3, 79.7]],
        vec![rate("rate")],
    );
    assert!(out.iter().all(|(r, _, _)| *r == 2));
}

#[test]
fn tiny_timings_never_hold_a_cell() {
    let tiny = Headline {
        name: "rate".into(),
        better: Better::Lower,
        time: true,
    };
    // 2 ms timings, wildly noisy: not judged, the cells stop at the minimum as decided.
    let out = compared(
        &[&[0.002, 0.004, 0.001], &[0.003, 0.001, 0.002]],
        vec![tiny],
    );
    assert!(
        out.iter()
            .all(|(r, _, c)| *r == 2 && c.stop == Some(StopReason::Decided)),
        "{out:?}"
    );
}

#[test]
fn a_reference_target_is_decided_alone_and_one_ranked_target_is_alone() {
    let mut a = AutoRun::new(spec(), vec![vec![rate("rate")]], vec![true, false], false);
    for r in 0..3 {
        a.record(0, 0, "rate", &sample(100.0 + f64::from(r)));
        assert!(a.after_step(0, 0, "w").is_none() || r == 2);
        a.record(1, 0, "rate", &sample(500.0));
        let c = a.after_step(1, 0, "w");
        assert_eq!(
            c.is_some(),
            r == 2,
            "the reference is precise at the minimum"
        );
    }
}

#[test]
fn the_budget_stops_every_undecided_cell() {
    let mut spec = spec();
    spec.budget_secs = Some(0.0);
    let mut a = AutoRun::new(spec, vec![vec![rate("rate")]], vec![true, true], false);
    assert!(
        a.round_fits(),
        "the first round always fits a zero budget's clock"
    );
    a.record(0, 0, "rate", &sample(1.0));
    a.after_step(0, 0, "w");
    std::thread::sleep(std::time::Duration::from_millis(5));
    assert!(!a.round_fits());
    let out = a.stop_all(&["w"], StopReason::Budget, 0.05);
    // Only the cell that made a repeat has something to say.
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1.stop, Some(StopReason::Budget));
    assert!(
        out[0].1.describe().contains("budget"),
        "{}",
        out[0].1.describe()
    );
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// `n` planted values around `mean`, zig-zagging by about ±`spread`.
fn zigzag(mean: f64, spread: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            mean + sign * spread * (1.0 + (i % 3) as f64 * 0.1)
        })
        .collect()
}

#[test]
fn a_hopeless_row_is_given_up_once_judged_and_says_so() {
    // Planted: 5 % apart (the margin itself) under ±25 % noise; hundreds of repeats would
    // not decide it, far beyond the maximum of 15: both stop as hopeless after the tenth
    // round, not at the fifteenth.
    let (a, b) = (zigzag(100.0, 25.0, 15), zigzag(105.0, 25.0, 15));
    let out = compared_with(AutoRepeat::new(3, 15), &[&a, &b], vec![rate("rate")]);
    assert_eq!(out.len(), 2, "{out:?}");
    for (r, _, c) in &out {
        assert_eq!((*r, c.repeats), (9, 10), "{c:?}");
        assert_eq!(c.stop, Some(StopReason::Hopeless));
        assert!(
            !c.reached && c.describe().contains("given up"),
            "{}",
            c.describe()
        );
    }
}

#[test]
fn an_interim_look_needs_haybittle_petos_level_and_the_final_look_alpha() {
    // Planted: 10 % apart under ±5 % noise: p < 0.05 within a few rounds, p < 0.001 later.
    // The cells stop only once the interim level is reached — or at the maximum, as decided,
    // when the final look at α decides the row.
    let (a, b) = (zigzag(110.0, 5.0, 40), zigzag(100.0, 5.0, 40));
    let at = |alpha: f64| {
        (3..=40)
            .find(|&n| {
                let (x, y) = (&a[..n], &b[..n]);
                let c = |v| {
                    Some(Contestant {
                        value: mean(v),
                        samples: v,
                        rounds: None,
                    })
                };
                fsbattery_stats::decided(&[c(x), c(y)], Better::Higher, alpha, 5.0)
                    .iter()
                    .all(|&d| d)
            })
            .unwrap()
    };
    let (first_at_alpha, first_interim) = (at(0.05), at(fsbattery_stats::INTERIM_ALPHA));
    let first_interim = u32::try_from(first_interim).unwrap();
    assert!(
        (first_at_alpha as u32) < first_interim,
        "{first_at_alpha} {first_interim}"
    );
    let out = compared_with(AutoRepeat::new(3, 40), &[&a, &b], vec![rate("rate")]);
    for (_, _, c) in &out {
        assert_eq!(
            (c.repeats, c.stop),
            (first_interim, Some(StopReason::Decided))
        );
    }
    // With a maximum before the interim level is reached, the final look at α decides it.
    let out = compared_with(
        AutoRepeat::new(3, first_interim - 1),
        &[&a, &b],
        vec![rate("rate")],
    );
    for (_, _, c) in &out {
        assert_eq!(
            (c.repeats, c.stop),
            (first_interim - 1, Some(StopReason::Decided))
        );
    }
}

#[test]
fn a_row_more_repeats_can_decide_is_not_given_up() {
    // Planted: 10 % apart under ±12 % noise: undecided at ten repeats, separated by forty
    // (at the interim looks' p < 0.001, or at the final look's α); the cells keep repeating
    // until it is decided, not given up as hopeless.
    let (a, b) = (zigzag(110.0, 12.0, 40), zigzag(100.0, 12.0, 40));
    let out = compared_with(AutoRepeat::new(3, 40), &[&a, &b], vec![rate("rate")]);
    assert_eq!(out.len(), 2, "{out:?}");
    for (r, _, c) in &out {
        assert_eq!(c.stop, Some(StopReason::Decided), "{c:?}");
        assert!(*r >= 9 && *r <= 39, "{r}");
    }
}

/// Two quiet targets far apart and a noisy one near the best: the far one is decided after
/// the third round, the other two go on to the maximum. With equal counts (a best-of row)
/// all three stop together at the maximum, the far one too.
#[test]
fn equal_counts_stop_a_workload_on_every_target_together() {
    let values: [&[f64]; 3] = [
        &[100.0, 100.5, 99.6],
        &[50.0, 50.2, 49.9],
        &[60.0, 140.0, 70.0, 130.0, 102.0, 98.0],
    ];
    let unequal = compared(&values, vec![rate("rate")]);
    let repeats = |out: &[(usize, usize, Convergence)], t: usize| {
        out.iter()
            .find(|(_, x, _)| *x == t)
            .map(|(_, _, c)| c.repeats)
    };
    assert_eq!(repeats(&unequal, 1), Some(3), "{unequal:?}");
    assert_eq!(repeats(&unequal, 0), Some(6), "{unequal:?}");
    let mut spec = spec();
    spec.equal_counts = true;
    let equal = compared_with(spec, &values, vec![rate("rate")]);
    assert_eq!(equal.len(), 3, "{equal:?}");
    for (r, _, c) in &equal {
        assert_eq!((*r, c.repeats), (5, 6), "{equal:?}");
    }
    // Each keeps its own reason: the far one was decided, the others reached the maximum.
    let far = equal.iter().find(|(_, t, _)| *t == 1).unwrap();
    assert_eq!(far.2.stop, Some(StopReason::Decided));
}

/// A sample of repeat (round) `r`.
fn sample_at(value: f64, r: usize) -> Sample {
    Sample {
        repeat: r as u32,
        ..sample(value)
    }
}

/// Rounds of two ranked targets and one reference (`values[t][r]`), every sample with its
/// round; per target, the round after which it stopped and why.
fn with_reference(spec: AutoRepeat, values: [&[f64]; 3]) -> Vec<Option<(usize, Convergence)>> {
    let heads = vec![vec![rate("rate")]];
    let mut a = AutoRun::new(spec, heads, vec![true, true, false], false);
    let mut out = vec![None, None, None];
    for r in 0..spec.max as usize {
        for (t, v) in values.iter().enumerate() {
            if a.stopped(t, 0) {
                continue;
            }
            a.record(t, 0, "rate", &sample_at(v[r % v.len()], r));
            if let Some(c) = a.after_step(t, 0, "w") {
                out[t] = Some((r, c));
            }
        }
        for (t, c) in a.after_round(&[0], &["w"], 0.05) {
            out[t] = Some((r, c));
        }
    }
    out
}

#[test]
fn a_reference_in_a_compared_run_gets_its_tables_repeats_not_the_maximum() {
    // The reference is very noisy (±50 %): the precision rule would run it to the maximum.
    // The ranked pair is 5 % apart under ±10 % drift shared by the round.
    let drift = [1.0, 1.1, 0.9, 1.05, 0.92, 1.08, 0.95, 1.02];
    let fast: Vec<f64> = drift.iter().map(|d| 100.0 * d).collect();
    let slow: Vec<f64> = drift.iter().map(|d| 95.0 * d).collect();
    let noisy = [50.0, 150.0, 80.0, 130.0, 60.0, 140.0];
    let mut spec = AutoRepeat::new(3, 8);
    let out = with_reference(spec, [&fast, &slow, &noisy]);
    let (at, c) = out[2].clone().expect("the reference stopped");
    assert_eq!((at, c.repeats, c.stop), (2, 3, Some(StopReason::Reference)));
    assert!(c.reached && c.describe().contains("reference"), "{c:?}");
    // Blocked: the drift cancels in the per-round ratio, so the 5 % difference is decided at
    // the minimum although the drift alone would hide it from an independent test.
    for ranked in &out[..2] {
        let (at, c) = ranked.clone().expect("decided");
        assert_eq!((at, c.stop), (2, Some(StopReason::Decided)), "{c:?}");
    }
    // With --precision stated, the reference repeats to it (here: to the maximum).
    spec.precision_stated = true;
    let out = with_reference(spec, [&fast, &slow, &noisy]);
    let (_, c) = out[2].clone().expect("the reference stopped");
    assert_eq!((c.repeats, c.stop), (8, Some(StopReason::Maximum)));
}

#[test]
fn without_rounds_the_same_drift_keeps_the_pair_undecided() {
    // The run above under --fresh once (no interleaved rounds): independent samples, the
    // drift is noise, and 8 repeats do not separate 5 %.
    let drift = [1.0, 1.1, 0.9, 1.05, 0.92, 1.08, 0.95, 1.02];
    let fast: Vec<f64> = drift.iter().map(|d| 100.0 * d).collect();
    let slow: Vec<f64> = drift.iter().map(|d| 95.0 * d).collect();
    let mut a = AutoRun::new(
        AutoRepeat::new(3, 8),
        vec![vec![rate("rate")]],
        vec![true; 2],
        true,
    );
    for r in 0..8 {
        for (t, v) in [&fast, &slow].iter().enumerate() {
            a.record(t, 0, "rate", &sample_at(v[r], r));
            a.after_step(t, 0, "w");
        }
    }
    let places = a.places(0, 0.05, 0.05);
    assert!(places.iter().all(|p| *p == Place::Open), "{places:?}");
}

/// Rounds of ranked targets on one workload whose headlines are `heads`: `values[t][h][r]` is
/// repeat r of target t in headline h (independent samples: no rounds recorded); per target,
/// the round after which it stopped and the decision.
fn rounds_of(
    spec: AutoRepeat,
    heads: &[Headline],
    values: &[Vec<Vec<f64>>],
) -> Vec<Option<(usize, Convergence)>> {
    let mut a = AutoRun::new(spec, vec![heads.to_vec()], vec![true; values.len()], false);
    let mut out = vec![None; values.len()];
    for r in 0..spec.max as usize {
        for (t, rows) in values.iter().enumerate() {
            if a.stopped(t, 0) {
                continue;
            }
            for (h, v) in heads.iter().zip(rows) {
                a.record(t, 0, &h.name, &sample(v[r % v.len()]));
            }
            assert!(a.after_step(t, 0, "w").is_none(), "decided after the round");
        }
        for (t, c) in a.after_round(&[0], &["w"], 0.05) {
            assert!(out[t].is_none(), "a cell is decided at most once");
            out[t] = Some((r, c));
        }
    }
    out
}

/// A time headline (lower is better) long enough to be judged.
fn secs(name: &str) -> Headline {
    Headline {
        name: name.into(),
        better: Better::Lower,
        time: true,
    }
}

#[test]
fn a_hopeless_target_stops_counting_while_the_others_go_on() {
    // Planted (as fsbattery-stats' futility test): the best at 100 s ±20 %, target 1 at
    // the margin (105 s) under ±25 % noise, hopeless; target 2 12 % behind at ±12 %, a few
    // repeats from separation. Target 1 stops as hopeless once judged (after the tenth
    // round) and no longer holds anything; target 2 goes on until it is decided, and the best
    // is not given up while target 2 still waits on it.
    let values = vec![
        vec![zigzag(100.0, 20.0, 40)],
        vec![zigzag(105.0, 25.0, 40)],
        vec![zigzag(112.0, 12.0, 40)],
    ];
    let out = rounds_of(AutoRepeat::new(3, 40), &[secs("t")], &values);
    let stop = |t: usize| {
        out[t]
            .clone()
            .unwrap_or_else(|| panic!("{t} stopped: {out:?}"))
    };
    let (r1, c1) = stop(1);
    assert_eq!(
        (r1, c1.repeats, c1.stop),
        (9, 10, Some(StopReason::Hopeless))
    );
    let (r2, c2) = stop(2);
    assert_eq!(c2.stop, Some(StopReason::Decided), "{c2:?}");
    assert!(r2 > r1, "target 2 went on after target 1 stopped: {out:?}");
    let (r0, c0) = stop(0);
    assert_ne!(c0.stop, Some(StopReason::Decided), "{c0:?}");
    assert!(r0 >= r2, "the best stopped before target 2: {out:?}");
}

#[test]
fn a_cell_stops_once_each_of_its_rows_is_decided_or_hopeless() {
    // Two headline rows of one workload. Row "a" is separated at once (20 % apart, ±0.5 %);
    // row "b" is the hopeless pair at the margin under ±25 % noise. The cells do not stop
    // at the third round (row b is open), and stop as hopeless after the tenth, not at the
    // maximum of 30.
    let heads = [secs("a"), secs("b")];
    let quiet = |m: f64| vec![m, m * 1.005, m * 0.996];
    let values = vec![
        vec![quiet(80.0), zigzag(100.0, 25.0, 30)],
        vec![quiet(100.0), zigzag(105.0, 25.0, 30)],
    ];
    let out = rounds_of(AutoRepeat::new(3, 30), &heads, &values);
    for o in &out {
        let (r, c) = o.clone().expect("stopped");
        assert_eq!((r, c.repeats, c.stop), (9, 10, Some(StopReason::Hopeless)));
    }
    // Row b 10 % apart at ±12 % instead: more repeats can decide it, so the cells go on
    // past the tenth round and stop once it is decided.
    let values = vec![
        vec![quiet(80.0), zigzag(100.0, 12.0, 30)],
        vec![quiet(100.0), zigzag(110.0, 12.0, 30)],
    ];
    let out = rounds_of(AutoRepeat::new(3, 30), &heads, &values);
    for o in &out {
        let (r, c) = o.clone().expect("stopped");
        assert_eq!(c.stop, Some(StopReason::Decided), "{c:?}");
        assert!(r >= 9, "{r}");
    }
}

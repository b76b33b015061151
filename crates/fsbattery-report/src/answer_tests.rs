//! The answer against planted effects: a 20 % winner, two equivalent targets, a noisy one
//! left undecided, a reference left unranked, a composite score whose interval holds the
//! planted ratio and does not move between two renderings; lifecycle rows left out unless
//! weighted, a workload weighing once, a tie said as a tie, an interrupted run unranked.

use super::*;
use crate::compare::tests::record;
use fsbattery_record::RunRecord;

/// A record with one row (metadata touch_files, seconds) and one cell per (target, samples).
fn row(cols: &[(&str, &[f64])]) -> RunRecord {
    let cells: Vec<(&str, &str, &str, &[f64])> = cols
        .iter()
        .map(|(t, v)| (*t, "metadata", "touch_files", *v))
        .collect();
    cells_of(&cells)
}

/// A record with one cell per (target, workload, metric, samples), all in seconds.
fn cells_of(cols: &[(&str, &str, &str, &[f64])]) -> RunRecord {
    let base = record(&[1.0]);
    let mut rec = base.clone();
    rec.cells.clear();
    for (target, workload, metric, values) in cols {
        let mut c = base.cells[0].clone();
        c.target = target.to_string();
        c.workload = workload.to_string();
        c.metric = metric.to_string();
        c.samples = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut s = base.cells[0].samples[0].clone();
                s.repeat = i as u32;
                s.value = *v;
                s
            })
            .collect();
        rec.cells.push(c);
    }
    rec
}

/// The answer of `rec`, with `in_ram` targets recorded as tmpfs (references).
fn answer_of(rec: &RunRecord, in_ram: &[&str]) -> Answer {
    let mut rec = rec.clone();
    for t in in_ram {
        rec.targets.push(fsbattery_record::TargetRecord {
            label: t.to_string(),
            spec: "tmpfs".into(),
            fs_type: "tmpfs".into(),
            ..Default::default()
        });
    }
    for_report(&Report::new(&rec, Aggregate::Mean))
}

const EXT4: &[f64] = &[1.00, 1.01, 0.99, 1.02, 0.98];
const XFS: &[f64] = &[1.20, 1.21, 1.19, 1.22, 1.18];

#[test]
fn a_planted_twenty_percent_difference_has_a_winner_with_its_ratio() {
    let a = answer_of(&row(&[("ext4", EXT4), ("xfs", XFS)]), &[]);
    let r = &a.rows[0];
    assert_eq!((r.outcome, r.best.as_deref()), ("winner", Some("ext4")));
    assert!(r.text.starts_with("ext4 wins, 1.20×"), "{}", r.text);
    assert_eq!(
        a.counts,
        Counts {
            rows: 1,
            winners: 1,
            equivalent: 0,
            undecided: 0
        }
    );
    // Composite: ext4 is the best in the only row; xfs is 1.2 times worse (ratio of the
    // samples' geometric means: 1.2 to within the rounding of the planted values).
    assert_eq!(a.overall[0].target, "ext4");
    assert!((a.overall[0].score - 1.0).abs() < 1e-12);
    let xfs = &a.overall[1];
    assert!((xfs.score - 1.2).abs() < 1e-3, "{xfs:?}");
    assert!(
        xfs.ci95.0 <= 1.2 && 1.2 <= xfs.ci95.1 && xfs.ci95.1 < 1.3,
        "{xfs:?}"
    );
    let text = lines(&a).join("\n");
    assert!(
        text.contains("Decided: 1 of 1 ranked rows (1 with a winner, 0 equivalent); 0 undecided."),
        "{text}"
    );
    assert!(
        text.contains("Overall: ext4, then xfs (1.20× ext4 ["),
        "{text}"
    );
    assert!(
        text.contains("scores: ext4 1.00 [1.00–1.00]   xfs 1.20"),
        "{text}"
    );
}

#[test]
fn near_identical_targets_are_equivalent_and_a_slow_one_is_named_worse() {
    let same = [1.001, 1.011, 0.991, 1.021, 0.981];
    let a = answer_of(&row(&[("ext4", EXT4), ("ext3", &same), ("xfs", XFS)]), &[]);
    let r = &a.rows[0];
    assert_eq!(r.outcome, "equivalent", "{}", r.text);
    assert_eq!(r.best.as_deref(), Some("ext4"));
    assert!(r.text.contains("ext3"), "{}", r.text);
    assert_eq!(a.counts.decided(), 1);
}

#[test]
fn a_noisy_target_is_undecided_named_with_what_would_decide_it() {
    let noisy = [0.6, 1.5, 0.9, 1.4, 0.7];
    let a = answer_of(&row(&[("ext4", EXT4), ("btrfs", &noisy)]), &[]);
    let r = &a.rows[0];
    assert_eq!(r.outcome, "undecided");
    assert!(r.text.contains("btrfs"), "{}", r.text);
    assert_eq!(a.counts.undecided, 1);
}

#[test]
fn a_reference_target_is_shown_but_not_ranked() {
    let ram = [0.01, 0.011, 0.009, 0.010, 0.012];
    let a = answer_of(
        &row(&[("ext4", EXT4), ("xfs", XFS), ("tmpfs", &ram)]),
        &["tmpfs"],
    );
    assert_eq!(a.unranked, ["tmpfs"]);
    assert_eq!(a.rows[0].best.as_deref(), Some("ext4"));
    assert_eq!(a.ranked, ["ext4", "xfs"]);
    assert!(a.overall.iter().all(|s| s.target != "tmpfs"));
}

#[test]
fn fewer_than_three_samples_say_how_to_decide() {
    let a = answer_of(&row(&[("ext4", &[1.0, 1.1]), ("xfs", XFS)]), &[]);
    let r = &a.rows[0];
    assert_eq!(r.outcome, "not_enough_samples");
    assert!(r.text.contains("ext4"), "{}", r.text);
}

#[test]
fn the_composite_interval_is_the_same_every_time() {
    let rec = row(&[("ext4", EXT4), ("xfs", XFS)]);
    let one = answer_of(&rec, &[]);
    let two = answer_of(&rec, &[]);
    assert_eq!(one.overall[1].ci95, two.overall[1].ci95);
}

#[test]
fn one_target_gives_no_answer() {
    assert!(lines(&answer_of(&row(&[("ext4", EXT4)]), &[])).is_empty());
}

/// Samples around `mean` with the same small per-round wobble for every target (a shared drift).
fn around(mean: f64) -> Vec<f64> {
    [1.0, 1.01, 0.99, 1.02, 0.98]
        .iter()
        .map(|w| mean * w)
        .collect()
}

#[test]
fn lifecycle_rows_are_left_out_unless_weighted() {
    // xfs is faster at mkfs (filesystem) and slower at the workload: by default only the
    // workload counts and ext4 leads; weighted in, mkfs's 4-fold difference turns the order.
    let (fast, slow) = (around(1.0), around(4.0));
    let (w1, w2) = (around(1.0), around(1.2));
    let mut rec = cells_of(&[
        ("ext4", "filesystem", "mkfs", &slow),
        ("xfs", "filesystem", "mkfs", &fast),
        ("ext4", "metadata", "touch_files", &w1),
        ("xfs", "metadata", "touch_files", &w2),
    ]);
    let a = answer_of(&rec, &[]);
    assert_eq!(a.overall[0].target, "ext4");
    assert_eq!(a.left_out, ["filesystem"]);
    assert_eq!(a.overall_rows, 1);
    let text = lines(&a).join("\n");
    assert!(
        text.contains("left out: filesystem (--weights filesystem=1"),
        "{text}"
    );
    rec.plan.weights.insert("filesystem".into(), 1.0);
    let a = answer_of(&rec, &[]);
    assert_eq!(a.overall[0].target, "xfs");
    assert!(a.left_out.is_empty());
    assert_eq!(a.overall_rows, 2);
}

#[test]
fn a_workload_weighs_once_however_many_rows_it_has() {
    // metadata: three rows where xfs is 1.5 times slower; tree: one row where ext4 is 1.5
    // times slower. By row ext4 would lead; by workload the two are level.
    let (one, slow) = (around(1.0), around(1.5));
    let mut cols: Vec<(&str, &str, &str, &[f64])> = Vec::new();
    for m in ["touch_files", "find_files", "remove_files"] {
        cols.push(("ext4", "metadata", m, &one));
        cols.push(("xfs", "metadata", m, &slow));
    }
    cols.push(("ext4", "tree", "untar", &slow));
    cols.push(("xfs", "tree", "untar", &one));
    let a = answer_of(&cells_of(&cols), &[]);
    let ext4 = a.overall.iter().find(|s| s.target == "ext4").unwrap();
    let xfs = a.overall.iter().find(|s| s.target == "xfs").unwrap();
    assert!((ext4.score - xfs.score).abs() < 1e-9, "{:?}", a.overall);
    assert_eq!(a.groups.len(), 2);
    // Equal scores are not separated: no order is printed between them.
    assert_eq!(ext4.tier, xfs.tier);
    let text = lines(&a).join("\n");
    assert!(
        text.contains(" and ") && text.contains("not separated") && !text.contains('≈'),
        "{text}"
    );
    assert!(!text.contains(", then "), "{text}");
}

#[test]
fn noisy_near_equal_targets_are_a_tie_not_a_ranking() {
    let a = answer_of(
        &row(&[
            ("ext4", &[1.00, 1.30, 0.80, 1.10, 0.95]),
            ("xfs", &[1.05, 0.90, 1.25, 0.85, 1.10]),
            ("btrfs", &[3.0, 3.1, 2.9, 3.05, 2.95]),
        ]),
        &[],
    );
    let text = lines(&a).join("\n");
    let tie = a.overall[0].tier == a.overall[1].tier;
    assert!(tie, "{:?}", a.overall);
    assert!(a.overall[2].tier > a.overall[1].tier, "{:?}", a.overall);
    assert!(
        text.contains(" (not separated from ") && text.contains(", then btrfs"),
        "{text}"
    );
}

/// A tie held together by a middle target: a and c are separated, b from neither. c's tie is
/// said against b, the member it is not separated from, not against a (which it is).
#[test]
fn a_tie_names_the_member_a_target_is_not_separated_from() {
    let a = answer_of(
        &row(&[
            ("a", &[1.00, 1.01, 0.99, 1.00, 1.01]),
            ("b", &[1.00, 1.60, 1.10, 1.50, 1.05]),
            ("c", &[1.60, 1.61, 1.59, 1.60, 1.62]),
        ]),
        &[],
    );
    let sep = |x: &str, y: &str| a.pair(x, y).unwrap().separated;
    assert!(
        sep("a", "c") && !sep("a", "b") && !sep("b", "c"),
        "{:?}",
        a.pairs
    );
    assert!(a.overall.iter().all(|s| s.tier == 0), "{:?}", a.overall);
    let text = ranking(&a);
    assert!(
        text.starts_with("a and b (not separated from a: ")
            && text.contains(" and c (not separated from b: "),
        "{text}"
    );
    assert!(!text.contains("not separated from a: 1.6"), "{text}");
}

#[test]
fn an_interrupted_run_ranks_nothing_and_names_what_it_lacks() {
    let mut rec = row(&[("ext4", EXT4), ("xfs", XFS)]);
    rec.interrupted = true;
    for w in ["metadata", "tree"] {
        rec.plan.workloads.push(fsbattery_record::WorkloadPlan {
            name: w.into(),
            params: Default::default(),
            param_units: Default::default(),
            metrics: vec![],
        });
    }
    let a = answer_of(&rec, &[]);
    assert!(a.overall.is_empty());
    let missing = &a.partial.as_ref().unwrap().missing;
    assert_eq!(missing, &["ext4 · tree", "xfs · tree"]);
    let text = lines(&a).join("\n");
    assert!(
        text.starts_with("Interrupted: no overall ranking; 2 planned cell(s)"),
        "{text}"
    );
    assert!(!text.contains("Overall"), "{text}");
}

/// A run that ended before any row had the runs a verdict needs still says what its time
/// bought: "0 of N rows decided in T".
#[test]
fn a_run_without_a_verdict_still_says_its_time() {
    let mut rec = row(&[("ext4", &[1.0]), ("xfs", &[1.2])]);
    rec.started = "2026-11-29T00:48:35Z".into();
    rec.finished = Some("2026-11-29T00:59:03Z".into());
    let out = lines(&answer_of(&rec, &[]));
    let last = out.last().expect("lines");
    assert!(
        last.starts_with("0 of 1 rows decided in 10 min 28 s"),
        "{out:?}"
    );
}

//! The answer against planted effects: a 20 % winner, two equivalent targets, a noisy one
//! left undecided, a reference left unranked, and a composite score whose interval holds the
//! planted ratio and does not move between two renderings.

use super::*;
use crate::compare::tests::record;
use fsbattery_record::RunRecord;

/// A record with one row (metadata touch_files, seconds) and one cell per (target, samples).
fn row(cols: &[(&str, &[f64])]) -> RunRecord {
    let base = record(&[1.0]);
    let mut rec = base.clone();
    rec.cells.clear();
    for (target, values) in cols {
        let mut c = base.cells[0].clone();
        c.target = target.to_string();
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
    // Composite: ext4 is the best in the only row; xfs is 1.2 times worse.
    assert_eq!(a.overall[0].target, "ext4");
    assert!((a.overall[0].score - 1.0).abs() < 1e-12);
    let xfs = &a.overall[1];
    assert!((xfs.score - 1.2).abs() < 1e-9, "{xfs:?}");
    assert!(
        xfs.ci95.0 <= 1.2 && 1.2 <= xfs.ci95.1 && xfs.ci95.1 < 1.3,
        "{xfs:?}"
    );
    let text = lines(&a).join("\n");
    assert!(
        text.contains("Decided: 1 of 1 ranked rows (1 with a winner, 0 equivalent); 0 undecided."),
        "{text}"
    );
    assert!(text.contains("1. ext4 1.00"), "{text}");
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

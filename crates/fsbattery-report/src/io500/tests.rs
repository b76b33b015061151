//! The app's rules and format against the app's own example output, and each validity rule
//! on a record made to break it.

use super::*;
use fsbattery_record::{Cell, WorkloadPlan};

/// The io500 repository's example summary (contrib/s3/README.md), verbatim.
const S3: &str =
    include_str!("../../../fsbattery-core/src/import/testdata/io500-result_summary.txt");

/// `S3` as `fsbattery import` makes it a record.
fn imported() -> RunRecord {
    import_text(S3)
}

/// An app summary as `fsbattery import` makes it a record.
fn import_text(text: &str) -> RunRecord {
    use fsbattery_core::import;
    let p = import::parse("s3", text.as_bytes(), None).unwrap();
    let labels = import::Labels {
        label: "s3",
        target: None,
        imported_at: "2026-11-26T00:00:00+00:00",
    };
    import::build_record(&[("s3".into(), p)], &labels).unwrap()
}

#[test]
fn the_apps_example_comes_back_line_for_line_with_its_invalid_marks_and_scores() {
    let rec = imported();
    let all = runs(&rec);
    assert_eq!(all.len(), 1);
    let ours = result_summary(&all[0], "io500-isc22_v1");
    // The app's lines but its unscored timestamp line, which fsbattery does not write.
    let theirs: Vec<&str> = S3.lines().filter(|l| !l.starts_with("[      ]")).collect();
    assert_eq!(ours.lines().collect::<Vec<_>>(), theirs);
    assert!(notes(&rec)[0].contains("INVALID"), "{:?}", notes(&rec));
}

/// A native io500 record: every phase `value` over `secs`, the stonewall as given.
fn native(stonewall: &str, value: f64, secs: f64) -> RunRecord {
    let mut rec = crate::compare::tests::record(&[1.0]);
    let base = rec.cells[0].clone();
    rec.targets = vec![fsbattery_record::TargetRecord {
        label: "ext4".into(),
        ..Default::default()
    }];
    rec.plan.workloads = vec![WorkloadPlan {
        name: "io500".into(),
        params: [("stonewall_s".to_string(), stonewall.to_string())].into(),
        param_units: Default::default(),
        metrics: Vec::new(),
    }];
    rec.cells = PHASES
        .iter()
        .map(|m| {
            let mut c: Cell = base.clone();
            c.workload = "io500".into();
            c.metric = m.to_string();
            c.samples[0].value = value;
            c.samples[0].elapsed_s = secs;
            c
        })
        .collect();
    rec
}

fn cell<'a>(rec: &'a mut RunRecord, metric: &str) -> &'a mut Cell {
    rec.cells.iter_mut().find(|c| c.metric == metric).unwrap()
}

#[test]
fn a_run_by_the_rules_is_valid_and_its_summary_says_nothing_against_it() {
    let rec = native("300", 2.0, 301.0);
    let r = &runs(&rec)[0];
    assert!(r.valid(), "{:?}", r.reasons());
    assert_eq!((r.bw, r.md), (2.0, 2.0));
    assert!(!result_summary(r, "x").contains("INVALID"));
    assert!(notes(&rec)[0].contains("valid by the io500 app's rules"));
}

#[test]
fn a_stonewall_other_than_300_s_invalidates_the_run_not_its_phases() {
    let rec = native("1", 2.0, 301.0);
    let r = &runs(&rec)[0];
    assert_eq!(r.reasons(), vec!["stonewall-time 1s != 300s".to_string()]);
    let text = result_summary(r, "x");
    assert_eq!(text.matches("[INVALID]").count(), 1, "{text}");
    assert!(text.lines().last().unwrap().ends_with("[INVALID]"));
}

#[test]
fn a_write_phase_shorter_than_the_stonewall_is_invalid_and_a_read_phase_is_not() {
    let mut rec = native("300", 2.0, 301.0);
    cell(&mut rec, "mdtest_hard_write").samples[0].elapsed_s = 250.0;
    cell(&mut rec, "ior_easy_read").samples[0].elapsed_s = 10.0;
    let r = &runs(&rec)[0];
    assert_eq!(r.reasons().len(), 1, "{:?}", r.reasons());
    assert!(r.reasons()[0].starts_with("mdtest-hard-write: write phase needed 250.000s"));
    assert!(result_summary(r, "x")
        .contains("mdtest-hard-write        2.000000 kIOPS : time 250.000 seconds [INVALID]"));
}

#[test]
fn a_failed_phase_or_one_scoring_0_invalidates_and_is_left_out_of_its_group() {
    let mut rec = native("300", 2.0, 301.0);
    cell(&mut rec, "ior_hard_read").samples[0].value = 0.0;
    let f = cell(&mut rec, "find");
    f.status = CellStatus::Failed {
        reason: "find matched 3 files".into(),
    };
    f.samples.clear();
    cell(&mut rec, "mdtest_easy_stat").samples[0].value = 8.0;
    let r = &runs(&rec)[0];
    let reasons = r.reasons();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons
        .iter()
        .any(|x| x.starts_with("ior-hard-read: resulting score")));
    assert!(reasons
        .iter()
        .any(|x| x == "find: error: find matched 3 files"));
    // bandwidth: the three other ior phases (2 each); metadata: six 2s and one 8, find out.
    assert!((r.bw - 2.0).abs() < 1e-12);
    let md = (2f64.powi(6) * 8.0).powf(1.0 / 7.0);
    assert!((r.md - md).abs() < 1e-12, "{}", r.md);
    assert!(notes(&rec)[0].contains("INVALID by the io500 app's rules"));
}

#[test]
fn a_group_of_phases_all_at_0_scores_0() {
    assert_eq!(group_score(&[0.0, -1.0]), 0.0);
    assert!((group_score(&[1.0, 0.0, 4.0]) - 2.0).abs() < 1e-12);
}

#[test]
fn an_imported_phase_the_app_marked_invalid_stays_invalid() {
    let text = S3.replace(
        "ior-easy-read        0.010056 GiB/s : time 66.307 seconds",
        "ior-easy-read        0.010056 GiB/s : time 66.307 seconds [INVALID]",
    );
    let rec = import_text(&text);
    let r = &runs(&rec)[0];
    let marked: Vec<&str> = r
        .phases
        .iter()
        .filter(|p| p.invalid.is_some())
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(marked, ["find", "ior-easy-read"]);
}

//! `fsbattery list workloads NAME`: one workload, with a family of metrics (`test@value`,
//! iozone's 13 tests × record sizes) listed once with its values, not once per value.

mod common;
use common::*;

#[test]
fn one_workload_lists_its_metric_families_once() {
    let o = bin()
        .args(["list", "workloads", "iozone"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("iozone") && !out.contains("\n  metadata\n"),
        "{out}"
    );
    assert_eq!(out.matches(" write@…").count(), 1, "{out}");
    assert!(!out.contains("write@8192"), "{out}");
    assert!(out.contains("for each of 8 values: 8192 16384"), "{out}");
    assert!(out.lines().count() < 60, "{} lines", out.lines().count());
}

#[test]
fn an_unknown_workload_or_a_name_after_suites_is_one_line_and_exit_2() {
    for args in [&["list", "workloads", "nope"][..], &["list", "suites", "x"]] {
        let o = bin().args(args).output().unwrap();
        assert_eq!(code(&o), 2, "{args:?}");
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
}

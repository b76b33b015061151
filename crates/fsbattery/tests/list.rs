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

/// `list suites NAME` says what the seed published for it (issue 25 §1).
#[test]
fn one_suite_says_what_its_seed_published() {
    let o = bin().args(["list", "suites", "classic"]).output().unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("piszcz2006\n"), "{out}");
    assert!(
        out.contains("Published:\n  S1 (2006, Justin Piszcz)"),
        "{out}"
    );
    assert!(out.contains("CPU Pentium III 500MHZ"), "{out}");
    assert!(
        out.contains("File Benchmark II Data: Seconds Elapsed: 21 rows x EXT2 EXT3 JFS REISERv3 REISERv4 XFS (s), ranked then and now"),
        "{out}"
    );
    let o = bin().args(["list", "suites", "io500"]).output().unwrap();
    assert!(
        stdout(&o).contains("published: no numbers"),
        "{}",
        stdout(&o)
    );
}

/// `report --then SUITE` shows the seed's tables alone, ranks per row; an unknown one is one
/// line and exit 2.
#[test]
fn report_then_shows_the_seeds_tables_alone() {
    let o = bin()
        .args(["report", "--then", "zfs2007"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("S4 (2007, Jeffrey Baker)"), "{out}");
    assert!(out.contains("bonnie read MB/s"), "{out}");
    assert!(out.contains("129 #8"), "{out}");
    let o = bin().args(["report", "--then", "io500"]).output().unwrap();
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    let o = bin()
        .args(["report", "--then", "classic", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["table"][0]["row"][8]["values"][5], "40.81");
}

/// `run --help` names the filesystems `list targets` names for `loop:` (both built from the
/// kinds table): a kind added to the table cannot be missing from one of them.
#[test]
fn run_help_names_the_loop_filesystems_list_targets_names() {
    let list = stdout(&bin().args(["list", "targets"]).output().unwrap());
    let fstypes = list
        .split("FSTYPE: ")
        .nth(1)
        .and_then(|rest| rest.split(". ").next())
        .expect("list targets gives the loop: FSTYPE sentence");
    let o = bin()
        .args(["run", "--help"])
        .env("COLUMNS", "300")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let help = stdout(&o);
    assert!(
        help.contains(fstypes),
        "run --help lacks {fstypes:?}:\n{help}"
    );
    for fs in ["ext4", "xfs", "btrfs", "zfs", "fuse2fs"] {
        assert!(fstypes.contains(fs), "{fstypes}");
    }
}

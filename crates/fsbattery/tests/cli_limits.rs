//! The command line sized for a person: `fsbattery list` is an index of at most 40 lines (one
//! per section, with counts); `list workloads` one line per workload naming what it measures
//! and the tool it follows; `list workloads NAME` its parameters; `run -h` at most 40 lines
//! with the common flags, `run --help` every flag under its group.

mod common;
use common::*;

/// stdout of `fsbattery ARGS`, which must succeed.
fn out(args: &[&str]) -> String {
    let o = bin().args(args).env("COLUMNS", "100").output().unwrap();
    assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn list_is_an_index_of_sections_with_counts() {
    let text = out(&["list"]);
    assert!(
        text.lines().count() <= 40,
        "{} lines:\n{text}",
        text.lines().count()
    );
    for section in ["workloads", "suites", "targets", "options", "fio-options"] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{section} ")))
            .unwrap_or_else(|| panic!("no {section} line:\n{text}"));
        assert!(line.chars().any(|c| c.is_ascii_digit()), "no count: {line}");
    }
}

#[test]
fn list_workloads_is_one_line_each_and_a_name_gives_its_parameters() {
    let text = out(&["list", "workloads"]);
    let rows: Vec<&str> = text.lines().skip(1).collect();
    for name in ["metadata", "bonnie", "io500", "postmark"] {
        let mine: Vec<&&str> = rows
            .iter()
            .filter(|l| l.split_whitespace().next() == Some(name))
            .collect();
        assert_eq!(mine.len(), 1, "{name}:\n{text}");
    }
    let bonnie = rows
        .iter()
        .find(|l| l.trim_start().starts_with("bonnie "))
        .unwrap();
    assert!(bonnie.ends_with("— bonnie++"), "{bonnie}");
    assert!(!text.contains("parameters (quick"), "{text}");
    let one = out(&["list", "workloads", "metadata"]);
    assert!(
        one.contains("parameters (quick / standard / full)") && one.contains("files"),
        "{one}"
    );
    let suites = out(&["list", "suites"]);
    assert!(
        suites
            .lines()
            .any(|l| l.trim_start().starts_with("piszcz2006 ")),
        "{suites}"
    );
    assert!(suites.lines().count() <= 20, "{suites}");
}

#[test]
fn run_short_help_fits_40_lines_and_long_help_groups_every_flag() {
    let short = out(&["run", "-h"]);
    assert!(
        short.lines().count() <= 40,
        "{} lines:\n{short}",
        short.lines().count()
    );
    assert!(
        short.contains("--target") && short.contains("--dry-run"),
        "{short}"
    );
    assert!(!short.contains("--fuse-timeout"), "{short}");
    let long = out(&["run", "--help"]);
    for heading in [
        "Targets:",
        "Workloads:",
        "Repeats and verdicts:",
        "Conditions:",
        "Output:",
    ] {
        assert!(long.lines().any(|l| l == heading), "{heading}\n{long}");
    }
    for flag in [
        "--fuse-timeout",
        "--memory",
        "--export",
        "--no-store",
        "--weights",
    ] {
        assert!(long.contains(flag), "{flag}");
    }
}

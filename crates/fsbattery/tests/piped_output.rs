//! What a person reads of a run that is piped (a log, `| less`): in the first round one
//! progress line per target with each workload's headline, then one line per round (2 to 5,
//! then every 5th and the last), not one per phase; the summary without the CPU %
//! table and the per-cell repeat notes (the report files keep them); every line but the
//! tables' within the width (COLUMNS, else 100). `--verbose` brings the per-phase lines and
//! the CPU % table back; `--quiet` prints the same lines as a pipe.

mod common;
use common::*;

/// A small real run (a directory and a tmpfs, two workloads, three repeats unless `extra`
/// says) with `extra`
/// flags, piped, COLUMNS unset: its stdout and stderr.
fn small_run(extra: &[&str]) -> (String, String) {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let mut args = vec![
        "run",
        "--target",
        &spec,
        "--target",
        "tmpfs",
        "--workload",
        "metadata,stream",
        "--set",
        "metadata.files=100",
        "--set",
        "stream.size=4MiB",
        "--no-ceiling",
        "--out",
        "r",
    ];
    // tmpfs needs root; without it the run says so and uses the directory alone.
    if !root() {
        args.drain(3..5);
    }
    args.extend(extra);
    if !extra.contains(&"--repeat") {
        args.extend(["--repeat", "3"]);
    }
    let o = bin()
        .current_dir(cwd.path())
        .args(&args)
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    (stdout(&o), stderr(&o))
}

/// Lines of a phase's sample in the verbose log: "    touch_files = 0.0012 s (cpu 95%)".
fn phase_lines(err: &str) -> usize {
    err.lines().filter(|l| l.contains(" (cpu ")).count()
}

/// The progress lines: "[STEP/TOTAL] TARGET · run 1: ..." and "[STEP/TOTAL] run R (s): ...".
fn cell_lines(err: &str) -> Vec<&str> {
    err.lines()
        .filter(|l| l.starts_with('[') && l.contains("run ") && l.contains(": "))
        .collect()
}

#[test]
fn a_piped_run_prints_a_line_per_target_then_per_round_within_100_columns() {
    let targets = if root() { 2 } else { 1 };
    let (out, err) = small_run(&[]);
    let cells = cell_lines(&err);
    // Round 1: a line per target with each workload's first value; rounds 2 and 3: one each.
    assert_eq!(cells.len(), targets + 2, "{err}");
    for c in &cells[..targets] {
        assert!(
            c.contains(" · run 1: metadata ") && c.contains(" · stream "),
            "{c}"
        );
    }
    for (i, c) in cells[targets..].iter().enumerate() {
        assert!(c.contains(&format!("] run {} (s): ", i + 2)), "{c}");
    }
    assert_eq!(phase_lines(&err), 0, "{err}");
    assert!(!out.contains("CPU %"), "{out}");
    // The closing lines name paths whole (the store's here is long), so they may run over.
    let paths = |l: &&str| {
        ["results:", "report:", "stored as run"]
            .iter()
            .any(|p| l.starts_with(p))
    };
    for l in out.lines().chain(err.lines()).filter(|l| !paths(l)) {
        assert!(l.chars().count() <= 100, "{} wide: {l}", l.chars().count());
    }
    // The whole output of this run, measured 2026-11-28 (45 lines as root): the tables, the
    // legend as a paragraph, the answer; well under the 150 lines a default run may print.
    let total = out.lines().count() + err.lines().count();
    assert!(total <= 60, "{total} lines:\n{err}{out}");

    let (qout, qerr) = small_run(&["--quiet"]);
    assert_eq!(cell_lines(&qerr).len(), targets + 2, "{qerr}");
    assert_eq!(phase_lines(&qerr), 0, "{qerr}");
    assert!(!qout.contains("CPU %"), "{qout}");
}

#[test]
fn a_long_run_prints_rounds_two_to_five_then_every_fifth_and_the_last() {
    let targets = if root() { 2 } else { 1 };
    let (_, err) = small_run(&["--repeat", "12"]);
    let rounds: Vec<&str> = cell_lines(&err).into_iter().skip(targets).collect();
    let shown: Vec<String> = rounds
        .iter()
        .map(|l| {
            l.split("] run ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .into()
        })
        .collect();
    assert_eq!(shown, ["2", "3", "4", "5", "10", "12"], "{err}");
    assert!(rounds[3].ends_with("(then every 5th run)"), "{err}");
}

#[test]
fn verbose_brings_back_the_phase_lines_and_the_cpu_table() {
    let targets = if root() { 2 } else { 1 };
    let (out, err) = small_run(&["--verbose"]);
    // metadata has six phases, stream five: a line each per target and repeat.
    assert!(phase_lines(&err) >= targets * 3 * 11, "{err}");
    assert!(out.contains("CPU % ((user+sys)/elapsed)"), "{out}");
    assert!(cell_lines(&err).is_empty(), "{err}");
}

/// tmpfs targets need root.
fn root() -> bool {
    nix::unistd::geteuid().is_root()
}

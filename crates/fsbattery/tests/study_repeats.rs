//! A preset repeats as its study did, whatever the number of targets (issue 38 §6): S1 the
//! mean of 3, S2 the best of 5, S3 and S4 one run. A study's repeats adapt only when asked
//! (`--repeat auto`), and then a best, min or max gets equal counts on every target; a
//! question's preset (`adapt = true`) adapts by default, as a run without --suite does.

mod common;
use common::*;

/// The plan line of a dry run of `suite` on `targets` directory targets, with `extra` args.
fn plan_line(suite: &str, targets: usize, extra: &[&str]) -> String {
    let cwd = tempfile::tempdir().unwrap();
    let dirs: Vec<String> = (0..targets)
        .map(|i| {
            let d = cwd.path().join(format!("t{i}"));
            std::fs::create_dir(&d).unwrap();
            format!("dir:{}", d.display())
        })
        .collect();
    let mut args = vec!["run", "--suite", suite, "--dry-run"];
    for d in &dirs {
        args.extend(["--target", d.as_str()]);
    }
    args.extend_from_slice(extra);
    let o = run_in(cwd.path(), &args);
    assert_eq!(code(&o), 0, "{suite}: {}", stderr(&o));
    stdout(&o).lines().next().unwrap_or_default().to_string()
}

#[test]
fn every_preset_repeats_as_its_study_with_one_target_or_three() {
    let studies = [
        ("piszcz2006", "3 repeat(s), aggregate mean"),
        ("classic", "3 repeat(s), aggregate mean"),
        ("prolinux2013", "5 repeat(s), aggregate best"),
        ("zfs2007", "1 repeat(s), aggregate mean"),
        ("iozone2016", "1 repeat(s), aggregate mean"),
        ("postmark", "1 repeat(s), aggregate mean"),
    ];
    for (suite, policy) in studies {
        for targets in [1, 3] {
            let line = plan_line(suite, targets, &[]);
            assert!(line.ends_with(policy), "{suite} x{targets}: {line}");
            assert!(!line.contains("auto"), "{suite} x{targets}: {line}");
        }
    }
    // Without --suite, two targets still adapt by default.
    let cwd = tempfile::tempdir().unwrap();
    let (a, b) = (cwd.path().join("a"), cwd.path().join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let (a, b) = (
        format!("dir:{}", a.display()),
        format!("dir:{}", b.display()),
    );
    let o = run_in(
        cwd.path(),
        &[
            "run",
            "--workload",
            "metadata",
            "--target",
            &a,
            "--target",
            &b,
            "--dry-run",
        ],
    );
    assert!(stdout(&o).starts_with("plan: no suite"), "{}", stdout(&o));
    assert!(stdout(&o)
        .lines()
        .next()
        .unwrap()
        .contains("3..30 repeats (auto"));
}

#[test]
fn auto_when_asked_gives_a_best_of_equal_counts_and_refuses_what_cannot() {
    let line = plan_line("prolinux2013", 2, &["--repeat", "auto"]);
    assert!(
        line.contains("equal counts per workload, as best/min/max need"),
        "{line}"
    );
    // A mean needs no equal counts.
    let line = plan_line("piszcz2006", 2, &["--repeat", "auto"]);
    assert!(
        line.contains("(auto") && !line.contains("equal counts"),
        "{line}"
    );
    // --fresh once repeats each target alone: refused under a best, one clear line.
    let cwd = tempfile::tempdir().unwrap();
    let (a, b) = (cwd.path().join("a"), cwd.path().join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let (a, b) = (
        format!("dir:{}", a.display()),
        format!("dir:{}", b.display()),
    );
    let args = [
        "run",
        "--suite",
        "prolinux2013",
        "--target",
        &a,
        "--target",
        &b,
        "--repeat",
        "auto",
        "--fresh",
        "once",
        "--dry-run",
    ];
    let o = run_in(cwd.path(), &args);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("the best of unequal counts"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Auto's conditions with a preset's own count are refused, saying how to get auto.
    let o = run_in(
        cwd.path(),
        &[
            "run",
            "--suite",
            "prolinux2013",
            "--target",
            &a,
            "--target",
            &b,
            "--budget",
            "5m",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("add --repeat auto"), "{}", stderr(&o));
}

/// S2's policy run for real on two targets: exactly 5 repeats of every cell, and the row's
/// value is the best of them (the highest rate, the lowest time).
#[test]
fn prolinux2013_on_two_targets_takes_the_best_of_exactly_five() {
    let cwd = tempfile::tempdir().unwrap();
    let (a, b) = (cwd.path().join("a"), cwd.path().join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let (ta, tb) = (
        format!("dir:{}", a.display()),
        format!("dir:{}", b.display()),
    );
    let args = [
        "run",
        "--suite",
        "prolinux2013",
        "--workload",
        "bigfile",
        "--set",
        "bigfile.size=1MiB",
        "--target",
        &ta,
        "--target",
        &tb,
        "--out",
        "out",
        "--quiet",
    ];
    let o = run_in(cwd.path(), &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = results(&cwd.path().join("out"));
    assert_eq!(rec["plan"]["repeat"], 5);
    assert_eq!(rec["plan"]["aggregate"], "best");
    assert!(rec["plan"].get("repeat_auto").is_none(), "{}", rec["plan"]);
    let cells = rec["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8, "bigfile's 4 metrics on 2 targets");
    for c in cells {
        assert_eq!(c["samples"].as_array().unwrap().len(), 5, "{c}");
    }
    // The terminal's write row of each target shows the highest of its five rates (a table
    // fitted to 100 columns when piped: the row's cells in target order after label and unit).
    let out = stdout(&o);
    let row = out
        .lines()
        .find(|l| l.starts_with("│ Datei 1MiB schreiben"))
        .unwrap_or_else(|| panic!("no write row in:\n{out}"));
    let cells_shown: Vec<&str> = row.split('┆').map(str::trim).collect();
    for (i, target) in [&ta, &tb].into_iter().enumerate() {
        let write = cells
            .iter()
            .find(|c| c["target"] == target.trim_start_matches("dir:") && c["metric"] == "write")
            .unwrap_or_else(|| panic!("{target}: no write cell"));
        let best = write["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["value"].as_f64().unwrap())
            .fold(f64::MIN, f64::max);
        let shown = fsbattery_report::format::num(best);
        assert!(
            cells_shown[i + 2].starts_with(&format!("{shown} ")),
            "{target}: {shown} not in {row}\n{out}"
        );
    }
}

/// A question's preset (`adapt = true`: the use cases and fio job presets) adapts its repeats
/// with two targets, as a run without --suite does, and keeps its fixed count with one target
/// or with `--repeat N`.
#[test]
fn question_presets_adapt_with_two_targets() {
    for suite in [
        "database",
        "mailserver",
        "fileserver",
        "build",
        "fio-oltp",
        "fio-wal",
        "fio-vm-image",
    ] {
        let two = plan_line(suite, 2, &[]);
        assert!(two.contains("3..30 repeats (auto"), "{suite} x2: {two}");
        let one = plan_line(suite, 1, &[]);
        assert!(
            one.contains("3 repeat(s)") && !one.contains("auto"),
            "{suite} x1: {one}"
        );
        let fixed = plan_line(suite, 2, &["--repeat", "4"]);
        assert!(fixed.contains("4 repeat(s)"), "{suite} --repeat 4: {fixed}");
    }
}

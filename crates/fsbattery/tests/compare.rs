//! `fsbattery compare` on real runs: prints ratios with verdicts, and gates on a planted
//! regression with `--fail-if-worse`.

mod common;
use common::*;

#[test]
fn compare_flags_a_planted_regression_and_not_a_rerun_of_itself() {
    let target = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let o = run_in(
        work.path(),
        &[
            "run",
            "--target",
            &spec,
            "--workload",
            "metadata",
            "--repeat",
            "5",
        ]
        .iter()
        .chain(&["--set", "metadata.files=100", "--out", "base", "--quiet"])
        .copied()
        .collect::<Vec<_>>(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    // The same run compared with itself: never significant.
    let same = run_in(
        work.path(),
        &["compare", "base", "base", "--fail-if-worse", "5"],
    );
    assert_eq!(code(&same), 0, "{}", stderr(&same));
    assert!(
        stdout(&same).contains("no significant difference"),
        "{}",
        stdout(&same)
    );
    assert!(
        stdout(&same).contains("1.000"),
        "ratio shown: {}",
        stdout(&same)
    );

    // Plant a 20% slowdown: replace the measured samples by a steady base (1.0 ± 1%) and a
    // copy 20% slower, so the verdict depends on the planted change, not on this machine's noise.
    let mut rec = results(&work.path().join("base"));
    let jitter = [1.00, 1.01, 0.99, 1.02, 0.98];
    let mut slow = rec.clone();
    for (r, factor) in [(&mut rec, 1.0), (&mut slow, 1.2)] {
        for c in r["cells"].as_array_mut().unwrap() {
            for (s, j) in c["samples"].as_array_mut().unwrap().iter_mut().zip(jitter) {
                s["value"] = serde_json::json!(j * factor);
            }
        }
    }
    std::fs::write(work.path().join("base/results.json"), rec.to_string()).unwrap();
    std::fs::create_dir(work.path().join("slow")).unwrap();
    std::fs::write(work.path().join("slow/results.json"), slow.to_string()).unwrap();
    let slow = run_in(
        work.path(),
        &["compare", "base", "slow", "--fail-if-worse", "10"],
    );
    assert_eq!(
        code(&slow),
        4,
        "stdout {} stderr {}",
        stdout(&slow),
        stderr(&slow)
    );
    assert!(stdout(&slow).contains("+20.0%"), "{}", stdout(&slow));
    assert!(stderr(&slow).contains("regression"), "{}", stderr(&slow));
}

#[test]
fn compare_refuses_runs_with_different_parameters_naming_each_difference() {
    let work = tempfile::tempdir().unwrap();
    metadata_run(work.path(), "base", 40, 3);
    metadata_run(work.path(), "new", 20, 3);
    let o = run_in(
        work.path(),
        &["compare", "base", "new", "--fail-if-worse", "5"],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "nothing compared: {}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("metadata.files: 40 vs 20"), "{err}");
    assert!(err.contains("--allow-different"), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.contains("error")).count(),
        1,
        "{err}"
    );

    // Allowed: every row is marked, and a planted 50% regression in them never trips the gate.
    let mut rec = results(&work.path().join("new"));
    for c in rec["cells"].as_array_mut().unwrap() {
        for s in c["samples"].as_array_mut().unwrap() {
            s["value"] = serde_json::json!(s["value"].as_f64().unwrap() * 100.0);
        }
    }
    std::fs::write(work.path().join("new/results.json"), rec.to_string()).unwrap();
    let args = [
        "compare",
        "base",
        "new",
        "--allow-different",
        "--fail-if-worse",
        "5",
    ];
    let o = run_in(work.path(), &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().filter(|l| l.contains("Files")).collect();
    assert!(!rows.is_empty(), "{out}");
    for l in rows {
        assert!(l.contains("≠ metadata.files differ"), "{l}");
    }
    assert!(!stderr(&o).contains("regression"), "{}", stderr(&o));
}

#[test]
fn compare_lists_rows_only_in_base_and_honours_every_format() {
    let work = tempfile::tempdir().unwrap();
    metadata_run(work.path(), "base", 20, 3);
    let mut rec = results(&work.path().join("base"));
    let cells = rec["cells"].as_array_mut().unwrap();
    let dropped = cells.remove(0);
    std::fs::create_dir(work.path().join("new")).unwrap();
    std::fs::write(work.path().join("new/results.json"), rec.to_string()).unwrap();
    let metric = dropped["metric"].as_str().unwrap();

    let table = run_in(work.path(), &["compare", "base", "new"]);
    assert_eq!(code(&table), 0, "{}", stderr(&table));
    assert!(
        stdout(&table).contains("only in BASE"),
        "{}",
        stdout(&table)
    );
    let md = run_in(
        work.path(),
        &["compare", "base", "new", "--format", "markdown"],
    );
    assert!(stdout(&md).contains("**only in BASE"), "{}", stdout(&md));
    assert!(stdout(&md).contains("| test | target |"), "{}", stdout(&md));

    let csv = run_in(work.path(), &["compare", "base", "new", "--format", "csv"]);
    assert_eq!(code(&csv), 0, "{}", stderr(&csv));
    let text = stdout(&csv);
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let only_base: Vec<&str> = text.lines().filter(|l| l.contains("base_only")).collect();
    assert_eq!(only_base.len(), 1, "{text}");
    assert_eq!(only_base[0].split(',').nth(col("metric")), Some(metric));

    let json = run_in(work.path(), &["compare", "base", "new", "--format", "json"]);
    assert_eq!(code(&json), 0, "{}", stderr(&json));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    let rows = v[0]["rows"].as_array().unwrap();
    let base_only: Vec<_> = rows
        .iter()
        .filter(|r| r["presence"] == "base_only")
        .collect();
    assert_eq!(base_only.len(), 1);
    assert_eq!(base_only[0]["metric"], metric);
    assert_eq!(v[0]["differences"], serde_json::json!([]));
}

#[test]
fn compare_refuses_a_gate_that_can_never_fire() {
    let work = tempfile::tempdir().unwrap();
    metadata_run(work.path(), "base", 20, 3);
    for bad in [
        &["--fail-if-worse", "nan"][..],
        &["--fail-if-worse", "inf"],
        &["--fail-if-worse", "-1"],
        &["--alpha", "nan"],
        &["--alpha", "1"],
    ] {
        let mut args = vec!["compare", "base", "base"];
        args.extend_from_slice(bad);
        let o = run_in(work.path(), &args);
        assert_eq!(code(&o), 2, "{bad:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn compare_refuses_targets_made_with_different_options() {
    if !nix::unistd::geteuid().is_root() {
        if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
            panic!("privileged test needs root (FSBATTERY_REQUIRE_PRIVILEGED=1)");
        }
        eprintln!("skipped: privileged test needs root");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    for (name, spec) in [
        ("base", "tmpfs:size=64M"),
        ("new", "tmpfs:size=64M,mount=noatime"),
    ] {
        let args = [
            "run",
            "--target",
            spec,
            "--workload",
            "metadata",
            "--repeat",
            "1",
            "--set",
            "metadata.files=20",
            "--out",
            name,
            "--workdir",
            "w",
            "--quiet",
        ];
        let o = run_in(work.path(), &args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    assert_eq!(
        results(&work.path().join("new"))["targets"][0]["options"]["mount"],
        "noatime"
    );
    let o = run_in(work.path(), &["compare", "base", "new"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("target tmpfs mount: '' vs noatime"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("target tmpfs mount options in effect"),
        "{}",
        stderr(&o)
    );
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    let w = work.path().to_string_lossy().to_string();
    assert!(!mounts.contains(&w), "left mounted: {mounts}");
}

//! End-to-end: `fsbattery run` on a dir: target, the record it writes, and `report` on it.

mod common;
use common::*;

#[test]
fn quick_run_on_a_directory_records_every_metric_twice_and_cleans_up() {
    let target = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let spec = format!("dir:{}", target.path().display());
    let o = run_in(
        work.path(),
        &[
            "run",
            "--target",
            &spec,
            "--scale",
            "quick",
            "--repeat",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 0, "stderr: {}", stderr(&o));
    assert!(
        stdout(&o).contains("Touch 2,000 Files"),
        "table printed: {}",
        stdout(&o)
    );

    let rec = results(&out);
    assert_every_metric_twice(&rec);
    let t = &rec["targets"][0];
    assert!(!t["fs_type"].as_str().unwrap().is_empty());
    assert!(!t["mount_options"].as_str().unwrap().is_empty());
    assert!(
        entries(target.path()).is_empty(),
        "left behind: {:?}",
        entries(target.path())
    );
    assert_outputs(&out, &rec);
    assert_reports(work.path(), &out);
}

/// 26 metrics, each with two positive samples and a CPU % within the cores' reach.
fn assert_every_metric_twice(rec: &serde_json::Value) {
    assert_eq!(rec["schema_version"], 1);
    assert!(rec["host"]["cores"].as_u64().unwrap() >= 1);
    let cores = rec["host"]["cores"].as_f64().unwrap();
    let cells = rec["cells"].as_array().unwrap();
    // metadata 6 + tree 8 + stream 7 + split 5 metrics, one target.
    assert_eq!(cells.len(), 26, "{cells:#?}");
    for w in ["metadata", "tree", "stream", "split"] {
        assert!(cells.iter().any(|c| c["workload"] == w), "no cells for {w}");
    }
    for c in cells {
        assert_eq!(c["status"]["state"], "ok", "{c}");
        let samples = c["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 2, "{c}");
        for s in samples {
            assert!(s["value"].as_f64().unwrap() > 0.0, "{c}");
            assert!(s["elapsed_s"].as_f64().unwrap() > 0.0, "{c}");
            let cpu = s["cpu_pct"].as_f64().unwrap();
            assert!(
                (0.0..=100.0 * cores + 1e-9).contains(&cpu),
                "cpu {cpu} in {c}"
            );
        }
    }
}

/// The files of a run directory, and what the record says of its rows and dataset.
fn assert_outputs(out: &std::path::Path, rec: &serde_json::Value) {
    for f in [
        "journal.jsonl",
        "results.json",
        "results.csv",
        "results.md",
        "report.html",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(md.contains("**"), "best value in bold");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 26 * 2,
        "header + one row per sample"
    );
    let ds = &rec["plan"]["datasets"][0];
    assert_eq!(
        ds["content_hash"].as_str().unwrap().len(),
        64,
        "dataset hash recorded: {ds}"
    );
    // No --suite: every one of the 26 metrics has a labelled row (S1's 21 and the five S1
    // had no row for), none pending. (Before no-suite runs became native this was S1's 21.)
    let rows = rec["plan"]["rows"].as_array().unwrap();
    let tests: Vec<_> = rows
        .iter()
        .filter(|r| r["workload"] != "filesystem")
        .collect();
    assert_eq!(tests.len(), 26, "{tests:?}");
    assert!(
        tests.iter().all(|r| r.get("pending").is_none()),
        "{tests:?}"
    );
    assert!(csv.lines().next().unwrap().contains("cpu_pct"));
}

/// `report` renders the run in every format.
fn assert_reports(work: &std::path::Path, out: &std::path::Path) {
    for (fmt, needle) in [
        ("table", "Touch 2,000 Files"),
        ("markdown", "| test |"),
        ("csv", "elapsed_s"),
        ("json", "schema_version"),
    ] {
        let r = run_in(work, &["report", out.to_str().unwrap(), "--format", fmt]);
        assert_eq!(code(&r), 0, "{}", stderr(&r));
        assert!(
            stdout(&r).contains(needle),
            "report --format {fmt}: {}",
            stdout(&r)
        );
    }
}

#[test]
fn without_root_the_default_target_is_a_fresh_directory_that_is_removed() {
    use std::os::unix::fs::PermissionsExt;
    let work = tempfile::tempdir().unwrap();
    // Sticky like /tmp: writable by the unprivileged user, yet an acceptable work directory.
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let args = [
        "run",
        "--workload",
        "metadata",
        "--repeat",
        "1",
        "--set",
        "metadata.files=50",
    ];
    let o = unprivileged()
        .current_dir(work.path())
        .args(args)
        .args(["--out", "r"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("using a fresh directory"),
        "{}",
        stderr(&o)
    );
    assert!(
        !work.path().join("fsbattery-work").exists(),
        "default workdir removed"
    );
    let rec = results(&work.path().join("r"));
    assert_eq!(rec["cells"].as_array().unwrap().len(), 6);
    assert_eq!(rec["targets"][0]["label"], "dir");
}

#[test]
fn report_writes_html_and_xlsx_for_several_labelled_runs() {
    let target = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    for out in ["a", "b"] {
        let args = [
            "run",
            "--target",
            &spec,
            "--workload",
            "split",
            "--repeat",
            "1",
            "--quiet",
        ];
        let o = run_in(work.path(), &[&args[..], &["--out", out]].concat());
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let args = [
        "report", "a", "b", "--label", "round 1", "--label", "round 2",
    ];
    let o = run_in(
        work.path(),
        &[&args[..], &["--html", "r.html", "--xlsx", "r.xlsx"]].concat(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let html = std::fs::read_to_string(work.path().join("r.html")).unwrap();
    assert!(
        html.contains("round 1") && html.contains("round 2"),
        "labels in the page"
    );
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "self-contained"
    );
    let xlsx = std::fs::read(work.path().join("r.xlsx")).unwrap();
    assert_eq!(&xlsx[..2], b"PK", "a zip container");
    let bad = run_in(
        work.path(),
        &[
            "report", "a", "b", "--label", "only one", "--html", "x.html",
        ],
    );
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
}

#[test]
fn report_rebuilds_from_the_journal_alone() {
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
            "split",
            "--repeat",
            "1",
            "--out",
            "r",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::remove_file(work.path().join("r/results.json")).unwrap();
    let r = run_in(work.path(), &["report", "r", "--format", "json"]);
    assert_eq!(code(&r), 0, "{}", stderr(&r));
    let rec: serde_json::Value = serde_json::from_str(&stdout(&r)).unwrap();
    assert_eq!(rec["cells"].as_array().unwrap().len(), 5);
}

#[test]
fn command_mode_produces_the_same_rows_as_native() {
    // The seeds' commands include cpio, which a fresh machine lacks (`fsbattery setup
    // --method commands` installs it): skip with the reason, or fail in CI.
    if let Some(p) = fsbattery_core::workload::command::missing_program(&["cpio", "tar"]) {
        assert!(
            std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() != Ok("1"),
            "`{p}` is not on PATH and FSBATTERY_REQUIRE_PRIVILEGED=1"
        );
        eprintln!("skipped: `{p}` is not on PATH (fsbattery setup --method commands)");
        return;
    }
    let target = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let mut metrics = Vec::new();
    for method in ["native", "commands"] {
        let o = run_in(
            work.path(),
            &[
                "run", "--target", &spec, "--repeat", "1", "--method", method, "--out", method,
            ]
            .iter()
            .chain(&[
                "--set",
                "metadata.files=40",
                "--set",
                "stream.size=4MiB",
                "--quiet",
            ])
            .copied()
            .collect::<Vec<_>>(),
        );
        assert_eq!(code(&o), 0, "{method}: {}", stderr(&o));
        let rec = results(&work.path().join(method));
        assert_eq!(rec["plan"]["method"], method);
        let mut keys: Vec<String> = rec["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                assert_eq!(c["method"], method);
                assert_eq!(c["status"]["state"], "ok", "{c}");
                assert!(c["samples"][0]["value"].as_f64().unwrap() > 0.0, "{c}");
                format!("{}/{}", c["workload"], c["metric"])
            })
            .collect();
        keys.sort();
        metrics.push(keys);
    }
    assert_eq!(metrics[0], metrics[1]);
    assert_eq!(
        metrics[0].len(),
        26,
        "S1's 21 rows plus cpio, the durable variants and the fsyncs alone"
    );
    assert!(
        entries(target.path()).is_empty(),
        "left behind: {:?}",
        entries(target.path())
    );
}

#[test]
fn a_truncated_results_json_is_rebuilt_from_the_journal_and_left_as_it_is() {
    let work = tempfile::tempdir().unwrap();
    metadata_run(work.path(), "r", 20, 1);
    let path = work.path().join("r/results.json");
    let whole = results(&work.path().join("r"));
    let text = std::fs::read(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    let r = run_in(work.path(), &["report", "r", "--format", "json"]);
    assert_eq!(code(&r), 0, "{}", stderr(&r));
    let rebuilt: serde_json::Value = serde_json::from_str(&stdout(&r)).unwrap();
    assert_eq!(rebuilt["cells"], whole["cells"]);
    let err = stderr(&r);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("rebuilt from") && err.contains("journal.jsonl"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        &text[..text.len() / 2],
        "evidence kept"
    );
}

#[test]
fn a_run_directory_with_neither_file_readable_is_one_line_and_exit_2() {
    let work = tempfile::tempdir().unwrap();
    metadata_run(work.path(), "r", 20, 1);
    std::fs::write(work.path().join("r/results.json"), "{\"schema_ver").unwrap();
    std::fs::write(work.path().join("r/journal.jsonl"), "garbage\n{}\n").unwrap();
    for cmd in [&["report", "r"][..], &["compare", "r", "r"]] {
        let r = run_in(work.path(), cmd);
        assert_eq!(code(&r), 2, "{}", stderr(&r));
        assert_eq!(stderr(&r).lines().count(), 1, "{}", stderr(&r));
        assert!(stderr(&r).contains("nothing to rebuild"), "{}", stderr(&r));
    }
}

#[test]
fn an_unknown_schema_version_is_refused_naming_the_versions_read() {
    let work = tempfile::tempdir().unwrap();
    metadata_run(work.path(), "r", 20, 1);
    let mut rec = results(&work.path().join("r"));
    rec["schema_version"] = serde_json::json!(99);
    std::fs::write(work.path().join("r/results.json"), rec.to_string()).unwrap();
    // The journal of a future version too: with results.json gone it is refused the same way.
    std::fs::create_dir(work.path().join("j")).unwrap();
    let journal = std::fs::read_to_string(work.path().join("r/journal.jsonl")).unwrap();
    let journal = journal.replacen("\"schema_version\":1", "\"schema_version\":99", 1);
    std::fs::write(work.path().join("j/journal.jsonl"), journal).unwrap();
    for (cmd, file) in [
        (&["report", "r"][..], "r/results.json"),
        (&["compare", "r", "r"], "r/results.json"),
        (&["report", "j"], "j/journal.jsonl"),
    ] {
        let r = run_in(work.path(), cmd);
        assert_eq!(code(&r), 2, "{cmd:?}: {}", stderr(&r));
        let err = stderr(&r);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!(
                "{file}: schema version 99 is not supported (this build reads 1)"
            )),
            "{err}"
        );
        assert!(stdout(&r).is_empty(), "{}", stdout(&r));
    }
}

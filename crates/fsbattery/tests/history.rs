//! `fsbattery history` over real runs: a loop ext4 measured five times as made, then five
//! times mounted `sync` (every file creation waits for the disk, about 28 times as slow). By
//! options, the one series has exactly one large change point, before the first `sync` run, a
//! regression, and `--fail-on-regression` exits 4; by time, each option set is a series of its
//! own with no large change, and `--fail-on-regression` above the noise exits 0.
//!
//! "Large" is more than [`LARGE`] %: these are real timings of 1 ms phases, and a run that
//! comes out 20 % faster than the four before it is a real, significant change on this
//! machine (a CI run found one at p = 0.005, 2026-11-27), not a fault of `history`. The
//! planted change is +2,500 % or more.
//!
//! Needs root, loop devices and mkfs.ext4 (skipped with the reason otherwise, a failure under
//! FSBATTERY_REQUIRE_PRIVILEGED=1). Runs take about two minutes in all.

mod common;

use common::{bin, code, stderr, stdout};
use std::path::Path;

const PER_SIDE: usize = 5;

/// A change larger than this (in %, either way) is not timing noise here.
const LARGE: f64 = 100.0;

/// The change points `history` printed, as (line, size in %).
fn changes(text: &str) -> Vec<(&str, f64)> {
    text.lines()
        .filter(|l| l.contains("change before run"))
        .map(|l| {
            let pct = l
                .split(": ")
                .nth(1)
                .and_then(|r| r.split(" %").next())
                .and_then(|n| n.trim_start_matches('+').parse::<f64>().ok())
                .unwrap_or_else(|| panic!("no size in {l:?}"));
            (l, pct)
        })
        .collect()
}

fn run(work: &Path, db: &Path, i: usize, mount: &str) {
    let spec = format!("loop:ext4,size=32MiB{mount}");
    let out = format!("r{i:02}");
    let o = bin()
        .current_dir(work)
        .args(["run", "--target", &spec, "--workload", "metadata"])
        .args([
            "--set",
            "metadata.files=100",
            "--repeat",
            "3",
            "--quiet",
            "--no-ceiling",
        ])
        .args(["--out", &out, "--store"])
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

fn history(db: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .args(["history", "--metric", "touch_files", "--store"])
        .arg(db)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_mount_option_switched_mid_series_is_the_one_change_point() {
    if !common::loop_ext4_available() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("results.db");
    for i in 0..PER_SIDE {
        run(work.path(), &db, i, "");
    }
    for i in PER_SIDE..2 * PER_SIDE {
        run(work.path(), &db, i, ",mount=sync");
    }

    let o = history(&db, &["--by", "options"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    eprintln!("{text}");
    let found = changes(&text);
    let by_options = found.len();
    let large: Vec<&str> = found
        .into_iter()
        .filter(|(_, pct)| pct.abs() > LARGE)
        .map(|(l, _)| l)
        .collect();
    assert_eq!(large.len(), 1, "exactly one large change point:\n{text}");
    let first_sync = PER_SIDE + 1;
    assert!(
        large[0].contains(&format!("change before run {first_sync}:"))
            && large[0].contains("a regression"),
        "{}",
        large[0]
    );
    assert!(
        text.contains("either side:") && text.contains("r04") && text.contains("r05"),
        "{text}"
    );

    let o = history(
        &db,
        &[
            "--by",
            "options",
            "--fail-on-regression",
            "--threshold",
            "50",
        ],
    );
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    assert!(stderr(&o).contains("regression"), "{}", stderr(&o));

    // By time, the two option sets are two series, neither with a large change.
    let o = history(
        &db,
        &["--fail-on-regression", "--threshold", &LARGE.to_string()],
    );
    assert_eq!(code(&o), 0, "{}\n{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.matches("same in every run").count(), 2, "{text}");
    assert!(
        changes(&text).iter().all(|(_, pct)| pct.abs() <= LARGE),
        "{text}"
    );

    // The HTML charts: one SVG per series, the change marked.
    let html = work.path().join("h.html");
    let o = history(&db, &["--by", "options", "--html", html.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<svg class=\"trend\"").count(), 1);
    // Every change point the text showed is marked, the planted one among them.
    assert_eq!(page.matches("class=\"change\"").count(), by_options);
}

/// Copies of one real run whose kernel and touch_files samples are rewritten: three runs on
/// kernel A, three on kernel B with every sample doubled, and one on A run on another
/// machine. By kernel the series has one change point, before the first B run; the other
/// machine's run is in no series of its own (a series needs two runs); by time there is
/// nothing to compare across kernels.
#[test]
fn by_kernel_a_series_spans_kernels_and_never_machines() {
    let work = tempfile::tempdir().unwrap();
    common::metadata_run(work.path(), "base", 50, 3);
    let base: serde_json::Value = common::results(&work.path().join("base"));
    let db = work.path().join("results.db");
    let mut dirs = Vec::new();
    for i in 0..7 {
        let mut rec = base.clone();
        let kernel = if (3..6).contains(&i) {
            "6.99.0-b"
        } else {
            "6.98.0-a"
        };
        rec["host"]["kernel"] = kernel.into();
        rec["started"] = format!("2026-01-0{}T00:00:00Z", i + 1).into();
        if i == 6 {
            rec["host"]["cpu_model"] = "another machine".into();
        }
        for cell in rec["cells"].as_array_mut().unwrap() {
            if cell["metric"] != "touch_files" {
                continue;
            }
            for (j, s) in cell["samples"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .enumerate()
            {
                let level = if (3..6).contains(&i) { 2.0 } else { 1.0 };
                s["value"] = (level + 0.01 * ((i + j) % 3) as f64).into();
            }
        }
        let name = if i == 6 {
            "other-machine-run".to_string()
        } else {
            format!("k{i}")
        };
        let dir = work.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("results.json"), rec.to_string()).unwrap();
        dirs.push(dir);
    }
    let o = bin()
        .args(["store", "add", "--store"])
        .arg(&db)
        .args(&dirs)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    let o = history(&db, &["--by", "kernel", "--fail-on-regression"]);
    let text = stdout(&o);
    assert_eq!(code(&o), 4, "{text}\n{}", stderr(&o));
    assert_eq!(text.matches("touch_files [").count(), 1, "{text}");
    assert!(text.contains("change before run 4: +99.0 %"), "{text}");
    assert!(!text.contains("other-machine-run"), "{text}");

    let o = history(&db, &["--fail-on-regression"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

//! `run --resume DIR` through the real binary: a run stopped by SIGINT, by SIGTERM, or killed
//! with SIGKILL (then `fsbattery cleanup`) is continued to the end, every step measured exactly
//! once and the record saying it was made in parts; a plan or machine that differs is refused
//! in one line; the store and `history` hold the resumed run once, and leave an interrupted
//! run out unless `--include-partial`.

mod common;
use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const REPEAT: usize = 6;

/// A run on two directory targets under `work`, started in `work` with `--out out`.
fn start(work: &Path, out: &str, extra: &[&str]) -> Child {
    for t in ["a", "b"] {
        std::fs::create_dir_all(work.join(t)).unwrap();
    }
    let repeat = REPEAT.to_string();
    let mut c = bin();
    c.current_dir(work)
        .args(["run", "--target", "dir:a", "--target", "dir:b"])
        .args(["--workload", "metadata", "--set", "metadata.files=200"])
        .args(["--pause", "0.05", "--no-ceiling"]);
    if !extra.contains(&"--repeat") {
        c.args(["--repeat", &repeat]);
    }
    c.args(["--workdir", "w", "--out", out])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until the journal holds at least `n` samples, then send `sig`; the child's status.
fn stop_after(child: Child, journal: &Path, n: usize, sig: Signal) -> std::process::Output {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(journal).unwrap_or_default();
        if text.matches("\"event\":\"sample\"").count() >= n {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no samples");
        std::thread::sleep(Duration::from_millis(10));
    }
    kill(Pid::from_raw(child.id() as i32), sig).unwrap();
    child.wait_with_output().unwrap()
}

/// Every cell is ok and holds each repeat exactly once.
fn assert_each_step_once(rec: &Value) {
    let cells = rec["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2 * 6, "two targets × six metadata metrics");
    for c in cells {
        assert_eq!(c["status"]["state"], "ok", "{}", c["metric"]);
        let repeats: Vec<u64> = c["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["repeat"].as_u64().unwrap())
            .collect();
        assert_eq!(repeats, (0..REPEAT as u64).collect::<Vec<_>>(), "{c}");
    }
}

fn resume(work: &Path, out: &str) -> std::process::Output {
    // From another directory: the run's own working directory is restored.
    bin()
        .current_dir("/")
        .args(["run", "--resume"])
        .arg(work.join(out))
        .output()
        .unwrap()
}

/// Stop a run with `sig` once it measured something, continue it, and check the record.
fn stopped_and_resumed(sig: Signal) -> (tempfile::TempDir, PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let child = start(work.path(), "out", &["--no-store"]);
    let out = work.path().join("out");
    let o = stop_after(child, &out.join("journal.jsonl"), 9, sig);
    if sig == Signal::SIGKILL {
        assert!(o.status.code().is_none(), "killed");
        let c = run_in(work.path(), &["cleanup", "--workdir", "w"]);
        assert!(matches!(code(&c), 0 | 6), "{}", stderr(&c));
    } else {
        assert_eq!(code(&o), 130, "{}", stderr(&o));
    }
    // A new run given the same --out is told that --resume continues it.
    let again = start(work.path(), "out", &["--no-store"])
        .wait_with_output()
        .unwrap();
    assert_eq!(code(&again), 2);
    let err = stderr(&again);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("run --resume"), "{err}");

    let o = resume(work.path(), "out");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("made in 2 parts"), "{}", stderr(&o));
    let rec = results(&out);
    assert_each_step_once(&rec);
    assert_eq!(rec["interrupted"], false);
    assert!(rec["finished"].is_string());
    let parts = rec["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0]["interrupted"], true);
    assert_eq!(parts[1]["interrupted"], false);
    for p in parts {
        assert!(p["kernel"].as_str().is_some_and(|k| !k.is_empty()));
        assert!(p["boot_id"].is_string());
    }
    // Every step is listed under exactly one part.
    let steps: usize = parts
        .iter()
        .map(|p| p["steps"].as_array().unwrap().len())
        .sum();
    assert_eq!(steps, 2 * REPEAT);
    assert!(!parts[0]["steps"].as_array().unwrap().is_empty());
    // Nothing of the targets is left behind (but what a killed workload left in a directory
    // the user gave: fsbattery never removes files there it cannot prove its own), and a
    // finished run is not resumed again.
    if sig != Signal::SIGKILL {
        for t in ["a", "b"] {
            assert!(entries(&work.path().join(t)).is_empty(), "{t} left behind");
        }
    }
    let o = resume(work.path(), "out");
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("nothing to continue"), "{}", stderr(&o));
    // `report` marks it.
    let o = run_in(work.path(), &["report", "out"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("resumed: made in 2 parts"),
        "{}",
        stderr(&o)
    );
    (work, out)
}

#[test]
fn a_run_stopped_by_sigint_is_continued_to_the_end() {
    stopped_and_resumed(Signal::SIGINT);
}

#[test]
fn a_run_stopped_by_sigterm_is_continued_to_the_end() {
    stopped_and_resumed(Signal::SIGTERM);
}

#[test]
fn a_run_killed_outright_is_cleaned_up_and_continued_to_the_end() {
    stopped_and_resumed(Signal::SIGKILL);
}

#[test]
fn a_different_plan_or_machine_is_refused_in_one_line_naming_it() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let child = start(work.path(), "out", &["--no-store"]);
    let o = stop_after(child, &out.join("journal.jsonl"), 3, Signal::SIGINT);
    assert_eq!(code(&o), 130, "{}", stderr(&o));
    let journal_before = std::fs::read(out.join("journal.jsonl")).unwrap();

    // The parameters: the kept command line asks for other files.
    let cmd_path = out.join("command.json");
    let kept = std::fs::read_to_string(&cmd_path).unwrap();
    std::fs::write(
        &cmd_path,
        kept.replace("metadata.files=200", "metadata.files=300"),
    )
    .unwrap();
    let o = resume(work.path(), "out");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("parameters differ") && err.contains("files"),
        "{err}"
    );
    std::fs::write(&cmd_path, &kept).unwrap();

    // The machine: the journal says the run had another number of CPUs.
    let text = String::from_utf8(journal_before.clone()).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut start: Value = serde_json::from_str(&lines[0]).unwrap();
    start["host"]["cores"] = Value::from(977);
    lines[0] = start.to_string();
    std::fs::write(out.join("journal.jsonl"), lines.join("\n") + "\n").unwrap();
    let o = resume(work.path(), "out");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("machine differs") && err.contains("977"),
        "{err}"
    );

    // The binary: another release wrote it.
    let mut start: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    start["tool"]["version"] = Value::from("0.0.1");
    lines[0] = start.to_string();
    std::fs::write(out.join("journal.jsonl"), lines.join("\n") + "\n").unwrap();
    let o = resume(work.path(), "out");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("binary differs") && stderr(&o).contains("0.0.1"),
        "{}",
        stderr(&o)
    );

    // Refusals wrote nothing: the journal continues as it was.
    std::fs::write(out.join("journal.jsonl"), &journal_before).unwrap();
    let o = resume(work.path(), "out");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_each_step_once(&results(&out));
}

#[test]
fn auto_repeats_continue_where_they_stopped() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let child = start(work.path(), "out", &["--no-store", "--repeat", "auto:3..6"]);
    let o = stop_after(child, &out.join("journal.jsonl"), 20, Signal::SIGINT);
    assert_eq!(code(&o), 130, "{}", stderr(&o));
    let o = resume(work.path(), "out");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = results(&out);
    for t in rec["targets"].as_array().unwrap() {
        let conv = t["convergence"].as_array().unwrap();
        assert_eq!(
            conv.len(),
            1,
            "one decision per target × workload: {conv:?}"
        );
        let made = conv[0]["repeats"].as_u64().unwrap();
        for c in rec["cells"].as_array().unwrap() {
            if c["target"] != t["label"] {
                continue;
            }
            assert_eq!(c["status"]["state"], "ok");
            let repeats: Vec<u64> = c["samples"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["repeat"].as_u64().unwrap())
                .collect();
            assert_eq!(repeats, (0..made).collect::<Vec<_>>(), "{c}");
        }
    }
}

#[test]
fn history_holds_finished_work_and_a_resumed_run_once() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("store.db");
    let db_arg = db.to_str().unwrap().to_string();
    for name in ["r1", "r2"] {
        let o = start(work.path(), name, &["--store", &db_arg])
            .wait_with_output()
            .unwrap();
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let child = start(work.path(), "r3", &["--store", &db_arg]);
    let o = stop_after(
        child,
        &work.path().join("r3/journal.jsonl"),
        9,
        Signal::SIGINT,
    );
    assert_eq!(code(&o), 130, "{}", stderr(&o));
    let history = |extra: &[&str]| {
        let o = bin()
            .args(["history", "--store", &db_arg, "--workload", "metadata"])
            .args(["--metric", "touch_files"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        stdout(&o)
    };
    let rows = |text: &str| {
        text.lines()
            .filter(|l| l.trim_start().starts_with(char::is_numeric))
            .count()
    };
    let plain = history(&[]);
    // One series per target (a, b), a row per run in each.
    assert_eq!(
        rows(&plain),
        2 * 2,
        "the interrupted run is left out:\n{plain}"
    );
    assert!(!plain.contains("interrupted"), "{plain}");
    let all = history(&["--include-partial"]);
    assert_eq!(rows(&all), 2 * 3, "{all}");
    assert!(all.contains("(interrupted)"), "{all}");

    let o = resume(work.path(), "r3");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let after = history(&[]);
    assert_eq!(rows(&after), 2 * 3, "the resumed run is one run:\n{after}");
    assert!(after.contains("(resumed)"), "{after}");
    let store = fsbattery_store::Store::open(&db).unwrap();
    assert_eq!(store.runs().unwrap().len(), 3);
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

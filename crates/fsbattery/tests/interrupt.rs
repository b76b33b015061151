//! SIGINT during a run: no further cell starts, the workload's files are removed, the journal
//! keeps every finished cell and parses, exit status 130.

mod common;
use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::time::{Duration, Instant};

#[test]
fn sigint_stops_the_run_keeps_the_journal_and_cleans_up() {
    let target = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let spec = format!("dir:{}", target.path().display());
    // Enough work that the signal lands mid-run: many repeats with a pause between tests.
    let child = bin()
        .current_dir(work.path())
        .args([
            "run",
            "--target",
            &spec,
            "--workload",
            "metadata",
            "--repeat",
            "50",
        ])
        .args([
            "--set",
            "metadata.files=300",
            "--pause",
            "0.05",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let journal = out.join("journal.jsonl");
    let start = Instant::now();
    // Wait until at least one sample is journaled, so there is something to keep.
    while std::fs::read_to_string(&journal)
        .map(|j| !j.contains("\"sample\""))
        .unwrap_or(true)
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "run never produced a sample"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 130, "stderr: {}", stderr(&o));

    let text = std::fs::read_to_string(&journal).unwrap();
    let mut samples = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("every journal line parses");
        if v["event"] == "sample" {
            samples += 1;
        }
    }
    assert!(samples >= 1);
    assert!(samples < 50 * 6, "the run stopped early");
    let rec = results(&out);
    assert_eq!(rec["interrupted"], true);
    assert!(
        entries(target.path()).is_empty(),
        "left behind: {:?}",
        entries(target.path())
    );
}

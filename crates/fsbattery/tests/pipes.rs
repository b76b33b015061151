//! A reader that goes away (`fsbattery list | head -1`): the command ends quietly — no panic,
//! no error line — and a `run` still tears everything down and keeps its results on disk.
//! stdout is closed before the child writes, so EPIPE is certain, not a race with a pipe buffer.

mod common;
use common::*;
use std::process::{Command, Output, Stdio};

/// Run `cmd` with its stdout closed from the start.
fn closed_stdout(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fsbattery");
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

fn assert_quiet(o: &Output, what: &str) {
    let err = stderr(o);
    assert_eq!(code(o), 0, "{what}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("error"),
        "{what}: {err}"
    );
}

#[test]
fn list_into_a_closed_pipe_ends_quietly() {
    let mut c = bin();
    c.arg("list");
    assert_quiet(&closed_stdout(c), "list");
}

#[test]
fn report_and_compare_into_a_closed_pipe_end_quietly() {
    let work = tempfile::tempdir().unwrap();
    metadata_run(work.path(), "r", 20, 1);
    for args in [
        &["report", "r", "--format", "json"][..],
        &["report", "r"],
        &["compare", "r", "r", "--format", "csv"],
    ] {
        let mut c = bin();
        c.current_dir(work.path()).args(args);
        assert_quiet(&closed_stdout(c), &format!("{args:?}"));
    }
}

/// Whether a tmpfs can be mounted here; panics instead of skipping when CI requires it.
fn root() -> bool {
    if nix::unistd::geteuid().is_root() {
        return true;
    }
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("privileged test needs root (FSBATTERY_REQUIRE_PRIVILEGED=1)");
    }
    eprintln!("skipped: privileged test needs root");
    false
}

#[test]
fn run_into_a_closed_pipe_keeps_its_results_and_leaves_nothing_mounted() {
    let work = tempfile::tempdir().unwrap();
    let dir_target = tempfile::tempdir().unwrap();
    let mut specs = vec![format!("dir:{}", dir_target.path().display())];
    if root() {
        specs.push("tmpfs:size=64M".into());
    }
    let mut c = bin();
    c.current_dir(work.path())
        .args(["run", "--workload", "metadata", "--repeat", "1"]);
    for s in &specs {
        c.args(["--target", s]);
    }
    c.args(["--set", "metadata.files=20", "--out", "r", "--workdir", "w"]);
    let o = closed_stdout(c);
    let err = stderr(&o);
    assert_eq!(code(&o), 0, "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("error:"),
        "{err}"
    );
    let rec = results(&work.path().join("r"));
    assert_eq!(rec["targets"].as_array().unwrap().len(), specs.len());
    let w = work.path().to_string_lossy().to_string();
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    let left: Vec<&str> = mounts.lines().filter(|l| l.contains(&w)).collect();
    assert!(left.is_empty(), "still mounted: {left:?}");
    assert!(
        entries(&work.path().join("w")).is_empty(),
        "{:?}",
        entries(&work.path().join("w"))
    );
}

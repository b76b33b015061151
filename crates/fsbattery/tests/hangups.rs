//! The ordinary ways a run is cut short — the terminal or SSH session goes away (SIGHUP),
//! Ctrl-\ (SIGQUIT), SIGTERM, and a progress output whose reader went away (the SIGPIPE case)
//! — at several moments: during a mkfs, mid-phase, and during the teardown the first signal
//! started (a second signal lands there), on loop and FUSE targets. Each must end with exit
//! status 130, a journal whose every line parses, `interrupted` in the record, the cause named
//! on stderr, and no loop device, mount, daemon or state file left. Root-only; skipped without
//! the tools unless FSBATTERY_REQUIRE_PRIVILEGED=1 (CI), where a missing one fails.

mod common;
use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// When the signal lands.
#[derive(Debug, Clone, Copy)]
enum Moment {
    /// While a `mkfs.*` child of the run is alive.
    Mkfs,
    /// After the first sample is journaled, inside the following phases.
    MidPhase,
    /// A second signal shortly after the first, while its teardown runs.
    Teardown,
}

const LOOP: &[&str] = &["--target", "loop:ext4", "--target", "loop:xfs"];
// 256M: split keeps every piece size until it ends (131 MiB at its default size).
const FUSE: &[&str] = &["--target", "loop:ntfs,size=256M"];

fn start(work: &Path, targets: &[&str], repeat: &str) -> Child {
    bin()
        .current_dir(work)
        .arg("run")
        .args(targets)
        .args(["--workload", "metadata,split", "--repeat", repeat])
        .args(["--set", "metadata.files=300", "--out", "r"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Whether a child of `pid` is running a mkfs.
fn mkfs_child(pid: u32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // pid (comm) state ppid ...; comm may hold spaces, so split after the last ')'.
        let Some((head, tail)) = stat.rsplit_once(')') else {
            return false;
        };
        let comm = head.split_once('(').map_or("", |(_, c)| c);
        let ppid = tail.split_whitespace().nth(1).unwrap_or("");
        comm.starts_with("mkfs") && ppid == pid.to_string()
    })
}

/// Whether the run's journal holds a sample yet.
fn sampled(work: &Path) -> bool {
    std::fs::read_to_string(work.join("r/journal.jsonl")).is_ok_and(|j| j.contains("\"sample\""))
}

/// Poll `ready` until it holds; false when the run ended (or 120 s passed) first.
fn wait_for(child: &mut Child, every: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        if ready() {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(every);
    }
    false
}

/// Everything a cut-short run must leave: status 130, the cause said, a readable journal
/// that records the interruption, no state file, nothing mounted or running.
fn assert_ended_cleanly(work: &Path, status: i32, stderr: &str, cause: &str, what: &str) {
    assert_eq!(status, 130, "{what}: stderr: {stderr}");
    if !cause.is_empty() {
        assert!(
            stderr.contains(&format!("interrupted by {cause}")),
            "{what}: cause not named: {stderr}"
        );
    }
    let journal = std::fs::read_to_string(work.join("r/journal.jsonl"))
        .unwrap_or_else(|e| panic!("{what}: no journal: {e}"));
    for line in journal.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("{what}: bad journal line {line}: {e}"));
    }
    assert_eq!(results(&work.join("r"))["interrupted"], true, "{what}");
    assert_clean(work);
    let state: Vec<_> = entries(&work.join("fsbattery-work"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "state"))
        .collect();
    assert!(state.is_empty(), "{what}: state files left: {state:?}");
}

fn drill(targets: &[&str], sig: Signal, moment: Moment) {
    let what = format!("{sig} {moment:?} on {}", targets.join(" "));
    let work = tempfile::tempdir_in("/var/tmp").unwrap();
    // More repeats for the mkfs moment: more mkfs calls to land in.
    let mut child = start(work.path(), targets, "4");
    let pid = child.id();
    // stderr is drained as it comes, so the run never blocks on a full pipe.
    let err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(err)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
            .join("\n")
    });
    let landed = match moment {
        Moment::Mkfs => wait_for(&mut child, Duration::from_millis(2), || mkfs_child(pid)),
        Moment::MidPhase | Moment::Teardown => {
            wait_for(&mut child, Duration::from_millis(10), || {
                sampled(work.path())
            })
        }
    };
    assert!(landed, "{what}: the run ended before the moment came");
    if matches!(moment, Moment::MidPhase) {
        std::thread::sleep(Duration::from_millis(40));
    }
    kill(Pid::from_raw(pid as i32), sig).unwrap();
    if matches!(moment, Moment::Teardown) {
        for after in [30, 150] {
            std::thread::sleep(Duration::from_millis(after));
            let _ = kill(Pid::from_raw(pid as i32), sig);
        }
    }
    let o = child.wait_with_output().unwrap();
    let stderr = reader.join().unwrap();
    assert_ended_cleanly(work.path(), code(&o), &stderr, sig.as_ref(), &what);
}

const SIGNALS: [Signal; 3] = [Signal::SIGHUP, Signal::SIGQUIT, Signal::SIGTERM];
const MOMENTS: [Moment; 3] = [Moment::Mkfs, Moment::MidPhase, Moment::Teardown];

#[test]
fn every_hang_up_signal_at_every_moment_tears_down_loop_targets() {
    if !privileged() {
        return;
    }
    for sig in SIGNALS {
        for moment in MOMENTS {
            drill(LOOP, sig, moment);
        }
    }
}

#[test]
fn every_hang_up_signal_at_every_moment_tears_down_a_fuse_target() {
    if !privileged() || !tools_available("FUSE hang-up drill", &["mkfs.ntfs", "ntfs-3g"], true) {
        return;
    }
    for sig in SIGNALS {
        for moment in MOMENTS {
            drill(FUSE, sig, moment);
        }
    }
}

#[test]
fn a_closed_progress_output_stops_the_run_and_tears_down() {
    if !privileged() {
        return;
    }
    let work = tempfile::tempdir_in("/var/tmp").unwrap();
    let mut child = start(work.path(), LOOP, "4");
    // Read the progress until the first step has started, then go away as `| head` does.
    let err = child.stderr.take().unwrap();
    let mut lines = BufReader::new(err).lines();
    let seen = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|l| l.starts_with("[2/"));
    assert!(seen, "no progress line before the run ended");
    drop(lines);
    let o = child.wait_with_output().unwrap();
    // stderr is gone, so the cause cannot be read there; the record and status say it.
    assert_ended_cleanly(work.path(), code(&o), "", "", "closed progress output");
}

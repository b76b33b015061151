//! Faults underneath a run, injected while it goes on: I/O errors under a loop image (its
//! backing file on a small tmpfs that fills up), a FUSE daemon killed or stopped mid-phase,
//! a results directory that fills up or turns read-only, and two runs at once in one work
//! directory (and into one `--out`). Each must end as the README's Safety section says — a
//! failed cell with the tool's or kernel's message (exit 3), or one line and exit 1 when the
//! results cannot be written — within a bounded time, with a journal whose every line
//! parses, and with no loop device, mount, daemon or state file left. Root-only; skipped
//! without the tools unless FSBATTERY_REQUIRE_PRIVILEGED=1 (CI), where a missing one fails.
//!
//! The mounts the tests make themselves (the small tmpfs, the results filesystem) are
//! guards that unmount on drop, so a failed assertion leaves nothing behind either.

mod common;
use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A mount this test made (tmpfs, or a filesystem on a loop image), removed on drop.
struct TestMount {
    point: PathBuf,
    device: Option<String>,
}

impl TestMount {
    /// A private tmpfs of `size` at `point`.
    fn tmpfs(point: &Path, size: &str) -> TestMount {
        std::fs::create_dir_all(point).unwrap();
        sh(
            "mount",
            &[
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "fsbattery-faults",
            ],
            point,
        );
        TestMount {
            point: point.into(),
            device: None,
        }
    }

    /// ext4 on a loop image `image` of `size`, mounted at `point` with errors=remount-ro.
    fn ext4(image: &Path, size: u64, point: &Path) -> TestMount {
        std::fs::File::create(image).unwrap().set_len(size).unwrap();
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(image)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "losetup: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let device = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let m = TestMount {
            point: point.into(),
            device: Some(device.clone()),
        };
        let mkfs = Command::new("mkfs.ext4")
            .args(["-q", "-F", &device])
            .output()
            .unwrap();
        assert!(
            mkfs.status.success(),
            "mkfs.ext4: {}",
            String::from_utf8_lossy(&mkfs.stderr)
        );
        std::fs::create_dir_all(point).unwrap();
        sh("mount", &["-o", "errors=remount-ro", &device], point);
        m
    }

    /// The filesystem hits an error now (ext4's own trigger): with errors=remount-ro the
    /// kernel turns it read-only under every open file, as a failing disk would.
    fn fail_ext4(&self) {
        let dev = self.device.as_deref().unwrap();
        let name = dev.trim_start_matches("/dev/");
        std::fs::write(
            format!("/sys/fs/ext4/{name}/trigger_fs_error"),
            "fsbattery faults test",
        )
        .unwrap();
    }
}

impl Drop for TestMount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.point).status();
        if self.device.is_some() && is_mounted(&self.point) {
            let _ = Command::new("umount").arg("-l").arg(&self.point).status();
        }
        if let Some(dev) = &self.device {
            let _ = Command::new("losetup").args(["-d", dev]).status();
        }
    }
}

fn is_mounted(point: &Path) -> bool {
    let p = point.to_string_lossy();
    std::fs::read_to_string("/proc/mounts")
        .unwrap()
        .lines()
        .any(|l| l.split(' ').nth(1) == Some(&p))
}

/// `program ARGS... DIR`, which must succeed.
fn sh(program: &str, args: &[&str], dir: &Path) {
    let o = Command::new(program).args(args).arg(dir).output().unwrap();
    assert!(
        o.status.success(),
        "{program} {args:?} {}: {}",
        dir.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Fill the filesystem holding `dir` with one file until it refuses more.
fn fill(dir: &Path) {
    let mut f = std::fs::File::create(dir.join("filler")).unwrap();
    let chunk = vec![0xa5u8; 1 << 16];
    while f.write_all(&chunk).is_ok() {}
    let _ = f.sync_all();
}

/// A run started in `cwd`, its stderr drained by a thread (so it never blocks on a pipe).
struct Run {
    child: Child,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Run {
    fn start(cwd: &Path, args: &[&str]) -> Run {
        let mut child = bin()
            .current_dir(cwd)
            .arg("run")
            .args(["--repeat", "1", "--no-ceiling", "--quiet"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            BufReader::new(err)
                .lines()
                .map_while(Result::ok)
                .collect::<Vec<_>>()
                .join("\n")
        });
        Run {
            child,
            stderr: Some(stderr),
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Poll `ready` until it holds; false when the run ended (or 60 s passed) first.
    fn wait_for(&mut self, mut ready: impl FnMut() -> bool) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if ready() {
                return true;
            }
            if self.child.try_wait().unwrap().is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// Wait for the end, at most `limit`; a run still going then is killed, `on_hang` undoes
    /// what the test did to it (a stopped daemon), `cleanup` removes what it left, and the
    /// test fails: a hang is the fault under test.
    fn finish(mut self, limit: Duration, workdir: &Path, on_hang: impl FnOnce()) -> (i32, String) {
        let start = Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            if start.elapsed() > limit {
                on_hang();
                let _ = self.child.kill();
                let _ = self.child.wait();
                let _ = bin().args(["cleanup", "--workdir"]).arg(workdir).output();
                panic!("the run did not end within {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let status = self.child.wait().unwrap();
        let stderr = self.stderr.take().unwrap().join().unwrap();
        let code = status
            .code()
            .unwrap_or_else(|| panic!("killed by a signal: {stderr}"));
        (code, stderr)
    }
}

/// Whether the journal in `out` holds `needle` yet.
fn journal_has(out: &Path, needle: &str) -> bool {
    std::fs::read_to_string(out.join("journal.jsonl")).is_ok_and(|j| j.contains(needle))
}

/// Every line of the journal in `out` parses; returns how many there are.
fn journal_lines(out: &Path) -> usize {
    let text = std::fs::read_to_string(out.join("journal.jsonl")).expect("journal");
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("bad journal line {line}: {e}"));
    }
    text.lines().count()
}

/// Reasons of the failed cells in `out`'s results.json.
fn failures(out: &Path) -> Vec<String> {
    results(out)["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"]["state"] == "failed")
        .map(|c| c["status"]["reason"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Nothing of the run is left: no loop device, mount or process naming `workdir`, no state
/// file in it.
fn assert_nothing_left(workdir: &Path) {
    assert_clean(workdir);
    let state: Vec<_> = entries(workdir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "state"))
        .collect();
    assert!(state.is_empty(), "state files left: {state:?}");
}

/// The FUSE daemon of a run in `workdir` (its argv names our mount point there).
fn fuse_daemon(workdir: &Path) -> Option<i32> {
    let w = workdir.to_string_lossy().to_string();
    std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
        let pid: i32 = e.file_name().to_str()?.parse().ok()?;
        let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        (cmd.starts_with("/usr/bin/ntfs-3g ") || cmd.starts_with("ntfs-3g "))
            .then_some(())
            .filter(|()| cmd.contains(&w))
            .map(|()| pid)
    })
}

const SMALL: &[&str] = &["--set", "metadata.files=300", "--set", "stream.size=16M"];

#[test]
fn io_errors_under_a_loop_image_fail_the_cells_and_tear_down() {
    if !privileged() {
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    // The image's backing file on a tmpfs with room for what mkfs writes and little more:
    // sparse, so it fits at first, and the filler below takes the rest mid-run.
    let backing = TestMount::tmpfs(&tmp.path().join("fs"), "200M");
    let workdir = backing.point.join("work");
    let w = workdir.to_str().unwrap();
    let mut run = Run::start(
        tmp.path(),
        &[
            "--workdir",
            w,
            "--target",
            "loop:ext4,size=160M",
            "--workload",
            "metadata,stream",
            "--set",
            "metadata.files=1000",
            "--set",
            "stream.size=64M",
            "--out",
            "r",
        ],
    );
    let out = tmp.path().join("r");
    assert!(
        run.wait_for(|| journal_has(&out, "\"target\"")),
        "the run ended before its filesystem was made"
    );
    fill(&backing.point);
    let (code, stderr) = run.finish(Duration::from_secs(120), &workdir, || {});
    assert_eq!(code, 3, "{stderr}");
    journal_lines(&out);
    let failed = failures(&out);
    assert!(!failed.is_empty(), "no cell failed: {stderr}");
    // The errno the tool met, as the kernel reported it to the workload.
    let kernel = [
        "Read-only file system",
        "Input/output error",
        "No space left",
    ];
    assert!(
        failed.iter().any(|r| kernel.iter().any(|k| r.contains(k))),
        "{failed:#?}"
    );
    // ... and the cause underneath, from the kernel's log of our loop device.
    assert!(failed.iter().any(|r| r.contains("kernel: ")), "{failed:#?}");
    // A tool that failed once per file says so once, with a count.
    assert!(failed.iter().all(|r| r.lines().count() <= 4), "{failed:#?}");
    assert_nothing_left(&workdir);
    drop(backing);
}

#[test]
fn a_killed_fuse_daemon_fails_the_cells_and_tears_down() {
    if !privileged() || !tools_available("FUSE fault drill", &["mkfs.ntfs", "ntfs-3g"], true) {
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let workdir = tmp.path().join("work");
    let w = workdir.to_str().unwrap();
    let mut args = vec!["--workdir", w, "--target", "loop:ntfs,size=128M"];
    args.extend(["--workload", "metadata,stream", "--out", "r"]);
    args.extend(SMALL);
    let mut run = Run::start(tmp.path(), &args);
    let out = tmp.path().join("r");
    assert!(
        run.wait_for(|| journal_has(&out, "\"sample\"")),
        "ended early"
    );
    let daemon = fuse_daemon(&workdir).expect("the run's ntfs-3g");
    kill(Pid::from_raw(daemon), Signal::SIGKILL).unwrap();
    let (code, stderr) = run.finish(Duration::from_secs(60), &workdir, || {});
    assert_eq!(code, 3, "{stderr}");
    journal_lines(&out);
    let failed = failures(&out);
    assert!(
        failed
            .iter()
            .any(|r| r.contains("not connected") || r.contains("connection abort")),
        "{failed:#?}"
    );
    assert_nothing_left(&workdir);
}

#[test]
fn a_stopped_fuse_daemon_is_aborted_after_the_timeout_and_torn_down() {
    if !privileged() || !tools_available("FUSE fault drill", &["mkfs.ntfs", "ntfs-3g"], true) {
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let workdir = tmp.path().join("work");
    let w = workdir.to_str().unwrap();
    let mut args = vec!["--workdir", w, "--target", "loop:ntfs,size=128M"];
    args.extend([
        "--workload",
        "metadata,stream",
        "--out",
        "r",
        "--fuse-timeout",
        "2",
    ]);
    args.extend(SMALL);
    let mut run = Run::start(tmp.path(), &args);
    let out = tmp.path().join("r");
    assert!(
        run.wait_for(|| journal_has(&out, "\"sample\"")),
        "ended early"
    );
    let daemon = Pid::from_raw(fuse_daemon(&workdir).expect("the run's ntfs-3g"));
    kill(daemon, Signal::SIGSTOP).unwrap();
    let started = Instant::now();
    // Were the watchdog to fail, the run would wait forever: continue the daemon we stopped
    // so the test leaves nothing hung behind.
    let (code, stderr) = run.finish(Duration::from_secs(90), &workdir, || {
        let _ = kill(daemon, Signal::SIGCONT);
    });
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("answered nothing"), "{stderr}");
    assert!(stderr.contains("sending SIGCONT"), "{stderr}");
    journal_lines(&out);
    let failed = failures(&out);
    assert!(
        failed
            .iter()
            .any(|r| r.contains("not connected") || r.contains("connection abort")),
        "{failed:#?}"
    );
    assert!(
        failed.iter().any(|r| r.contains("answered nothing")),
        "{failed:#?}"
    );
    // After the abort nothing may be measured on the bare mount point underneath.
    let ok_after: Vec<_> = results(&out)["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["workload"] == "stream" && c["status"]["state"] == "ok")
        .map(|c| c["metric"].clone())
        .collect();
    assert!(
        ok_after.is_empty(),
        "measured after the abort: {ok_after:?}"
    );
    assert_nothing_left(&workdir);
}

/// One `error:` line on stderr, saying the journal write failed and the run stopped.
fn assert_stopped_in_one_line(stderr: &str, errnos: &[&str]) {
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("journal.jsonl"), "{stderr}");
    assert!(errnos.iter().any(|e| errors[0].contains(e)), "{stderr}");
    assert!(
        errors[0].contains("the run stopped and tore down"),
        "{stderr}"
    );
}

/// The results directory keeps a valid journal (and the command line to resume it with) and
/// no results.json, whole or half, nor a temporary file of one.
fn assert_results_kept(out: &Path) {
    assert!(journal_lines(out) > 1);
    let mut names: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // The command line `run --resume` continues the run with, kept when the run began.
    assert_eq!(names, ["command.json", "journal.jsonl"], "{names:?}");
}

#[test]
fn a_full_results_directory_stops_the_run_in_one_line() {
    if !privileged() {
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let results_fs = TestMount::tmpfs(&tmp.path().join("o"), "1M");
    let workdir = tmp.path().join("work");
    let out = results_fs.point.join("r");
    let mut args = vec![
        "--workdir",
        workdir.to_str().unwrap(),
        "--target",
        "loop:ext4,size=64M",
    ];
    args.extend([
        "--workload",
        "metadata,stream",
        "--out",
        out.to_str().unwrap(),
    ]);
    args.extend(SMALL);
    let mut run = Run::start(tmp.path(), &args);
    assert!(
        run.wait_for(|| journal_has(&out, "\"sample\"")),
        "ended early"
    );
    fill(&results_fs.point);
    let (code, stderr) = run.finish(Duration::from_secs(60), &workdir, || {});
    assert_eq!(code, 1, "{stderr}");
    assert_stopped_in_one_line(&stderr, &["No space left on device"]);
    std::fs::remove_file(results_fs.point.join("filler")).unwrap();
    assert_results_kept(&out);
    assert_nothing_left(&workdir);
}

#[test]
fn a_results_directory_turned_read_only_stops_the_run_in_one_line() {
    if !privileged() {
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let results_fs = TestMount::ext4(
        &tmp.path().join("results.img"),
        32 << 20,
        &tmp.path().join("o"),
    );
    let workdir = tmp.path().join("work");
    let out = results_fs.point.join("r");
    let mut args = vec![
        "--workdir",
        workdir.to_str().unwrap(),
        "--target",
        "loop:ext4,size=64M",
    ];
    args.extend([
        "--workload",
        "metadata,stream",
        "--out",
        out.to_str().unwrap(),
    ]);
    args.extend(SMALL);
    let mut run = Run::start(tmp.path(), &args);
    assert!(
        run.wait_for(|| journal_has(&out, "\"sample\"")),
        "ended early"
    );
    results_fs.fail_ext4();
    let (code, stderr) = run.finish(Duration::from_secs(60), &workdir, || {});
    assert_eq!(code, 1, "{stderr}");
    // ext4 aborts its journal on the error: a write then fails with EROFS, or with EIO
    // when the data reached the page cache but could not be synced.
    assert_stopped_in_one_line(&stderr, &["Read-only file system", "Input/output error"]);
    assert_results_kept(&out);
    assert_nothing_left(&workdir);
}

#[test]
fn two_runs_in_one_work_directory_both_finish_apart() {
    if !privileged() {
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let workdir = tmp.path().join("work");
    let w = workdir.to_str().unwrap();
    let runs: Vec<Run> = ["a", "b"]
        .iter()
        .map(|out| {
            let mut args = vec!["--workdir", w, "--target", "loop:ext4,size=64M"];
            args.extend(["--workload", "metadata", "--out", out]);
            args.extend(["--set", "metadata.files=300"]);
            Run::start(tmp.path(), &args)
        })
        .collect();
    for run in runs {
        let (code, stderr) = run.finish(Duration::from_secs(120), &workdir, || {});
        assert_eq!(code, 0, "{stderr}");
    }
    for out in ["a", "b"] {
        let r = results(&tmp.path().join(out));
        assert_eq!(r["interrupted"], false);
        assert!(failures(&tmp.path().join(out)).is_empty());
    }
    assert_nothing_left(&workdir);
}

#[test]
fn two_runs_into_one_out_directory_one_refuses_in_one_line() {
    if !privileged() {
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let workdir = tmp.path().join("work");
    let w = workdir.to_str().unwrap();
    let runs: Vec<Run> = (0..2)
        .map(|_| {
            let mut args = vec!["--workdir", w, "--target", "loop:ext4,size=64M"];
            args.extend(["--workload", "metadata", "--out", "same"]);
            args.extend(["--set", "metadata.files=300"]);
            Run::start(tmp.path(), &args)
        })
        .collect();
    let pids: Vec<u32> = runs.iter().map(Run::pid).collect();
    let mut ends: Vec<(i32, String)> = runs
        .into_iter()
        .map(|r| r.finish(Duration::from_secs(120), &workdir, || {}))
        .collect();
    ends.sort();
    // The run that went on: had it failed, its cells' reasons say why.
    let why = || std::panic::catch_unwind(|| failures(&tmp.path().join("same")));
    assert_eq!(
        ends[0].0,
        0,
        "pids {pids:?}: {ends:?}; failed cells: {:?}",
        why()
    );
    let (code, refusal) = &ends[1];
    assert_eq!(*code, 2, "{refusal}");
    assert_eq!(refusal.lines().count(), 1, "{refusal}");
    assert!(refusal.contains("already holds a run"), "{refusal}");
    journal_lines(&tmp.path().join("same"));
    assert_eq!(results(&tmp.path().join("same"))["interrupted"], false);
    assert_nothing_left(&workdir);
}

//! Whole-workload tests of ffsb, postmark and the personalities through the registry: a full
//! 16 MiB ext4 on a loop device fails each cell with "target full after …" and leaves the
//! filesystem empty and unmountable as usual; SIGINT in mid-workload leaves nothing behind.
//!
//! The loop test needs root, /dev/loop-control and mkfs.ext4; it SKIPs with the reason, or
//! FAILS under FSBATTERY_REQUIRE_PRIVILEGED=1 (CI). The interrupt test re-runs this test binary
//! as a child (the interruption flag is process-wide, so it cannot be raised in here).

use crate::error::WorkloadError;
use crate::model::Sample;
use crate::params::Scale;
use crate::targets::{self, Target, TargetOptions};
use crate::{find, Method, WorkloadCtx};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Run `name` in `root` with its values at quick scale and `over` (as on the command line).
fn run(name: &str, root: &Path, over: &[(&str, &str)]) -> Result<(), WorkloadError> {
    let w = find(name).unwrap_or_else(|| panic!("{name} is registered"));
    let o: BTreeMap<String, String> = over
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let p = crate::settings::resolve(name, w.params(), Scale::Quick, 0, &o).unwrap();
    let mut on = |_: &str, _: Sample| {};
    let mut ctx = WorkloadCtx::new(root, 0, Method::Native, Duration::ZERO, &mut on);
    w.run(&mut ctx, &p)
}

/// Whether `what` holds; otherwise SKIP, or panic under FSBATTERY_REQUIRE_PRIVILEGED=1.
fn require(what: &str, ok: bool) -> bool {
    if !ok {
        if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
            panic!("missing prerequisite (FSBATTERY_REQUIRE_PRIVILEGED=1): {what}");
        }
        eprintln!("SKIP: {what}");
    }
    ok
}

fn has_program(name: &str) -> bool {
    crate::process::which(name).is_some()
}

/// A made and mounted target, torn down on drop (every exit path of the test); `finish`
/// tears it down and fails the test if that fails.
struct Mounted(Option<Box<dyn Target>>);

impl Mounted {
    fn root(&self) -> &Path {
        self.0.as_ref().expect("mounted").root()
    }

    fn finish(mut self) {
        let mut t = self.0.take().expect("mounted");
        t.teardown()
            .unwrap_or_else(|e| panic!("teardown failed: {e}"));
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(mut t) = self.0.take() {
            if let Err(e) = t.teardown() {
                eprintln!("teardown failed: {e}");
            }
        }
    }
}

/// Each workload, asked for far more than 16 MiB, at a point of its flow that fills it.
const FULL_CASES: [(&str, &[(&str, &str)]); 6] = [
    // The pool layout.
    (
        "ffsb",
        &[("files", "4"), ("file_size", "8MiB"), ("threads", "2")],
    ),
    // Pool creation over 100 subdirectories (inodes or blocks, whichever runs out first).
    (
        "postmark-100",
        &[("files", "20000"), ("transactions", "10")],
    ),
    // The preallocated set, four threads.
    (
        "fileserver",
        &[("files", "2000"), ("mean_size", "128KiB"), ("threads", "4")],
    ),
    (
        "varmail",
        &[("files", "4000"), ("mean_size", "16KiB"), ("threads", "1")],
    ),
    // The timed phase: the shared log grows until the filesystem is full.
    (
        "webserver",
        &[
            ("files", "100"),
            ("mean_size", "4KiB"),
            ("threads", "2"),
            ("runtime", "60"),
        ],
    ),
    // The timed phase of postmark: every transaction creates (table of 2 x 1500 files).
    (
        "postmark-1",
        &[
            ("files", "1500"),
            ("transactions", "20000"),
            ("bias_create", "10"),
            ("size_low", "5000"),
        ],
    ),
];

#[test]
fn a_full_16_mib_ext4_fails_each_cell_with_target_full() {
    let ok = require("running as root", nix::unistd::geteuid().is_root())
        && require(
            "/dev/loop-control exists",
            Path::new("/dev/loop-control").exists(),
        )
        && require(
            "mkfs.ext4 is installed (e2fsprogs)",
            has_program("mkfs.ext4"),
        );
    if !ok {
        return;
    }
    let work = tempfile::Builder::new()
        .prefix("fsb-full-")
        .tempdir()
        .unwrap();
    let opts = TargetOptions {
        workdir: work.path().to_path_buf(),
        destroy_data: false,
        image_size: None,
        loop_dio: false,
        ..TargetOptions::default()
    };
    let mut t = targets::parse("loop:ext4,size=16M", &opts).unwrap();
    t.setup(0).unwrap();
    let fs = Mounted(Some(t));
    let root = fs.root().to_path_buf();
    for (name, over) in FULL_CASES {
        let t0 = Instant::now();
        let e = run(name, &root, over).expect_err("16 MiB cannot hold it");
        let msg = e.to_string();
        eprintln!("{name} ({:.2}s): {msg}", t0.elapsed().as_secs_f64());
        assert!(msg.starts_with("target full after "), "{name}: {msg}");
        let ours: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("fsbattery-"))
            .collect();
        assert!(ours.is_empty(), "{name} left {ours:?}");
    }
    fs.finish();
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    let w = work.path().to_string_lossy().into_owned();
    assert!(!mounts.contains(&w), "still mounted under {w}");
}

/// Parameters that keep each workload busy for a minute, so SIGINT lands mid-workload.
const LONG_CASES: [(&str, &[(&str, &str)]); 5] = [
    ("ffsb", &[("runtime", "60"), ("threads", "2")]),
    (
        "postmark-10",
        &[("files", "1000000"), ("transactions", "1000000")],
    ),
    ("fileserver", &[("runtime", "60"), ("threads", "2")]),
    ("varmail", &[("runtime", "60"), ("threads", "2")]),
    ("webserver", &[("runtime", "60"), ("threads", "2")]),
];

const CHILD_ENV: &str = "FSBATTERY_TEST_INTERRUPT_CHILD";
const TEST_NAME: &str = "shared::fileset::workload_tests::sigint_mid_workload_leaves_nothing";

#[test]
fn sigint_mid_workload_leaves_nothing() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        return child(&spec);
    }
    for (i, (name, _)) in LONG_CASES.iter().enumerate() {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", TEST_NAME, "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, format!("{i}:{}", tmp.path().display()))
            .spawn()
            .unwrap();
        // The scratch directory exists once the workload has started; give it a moment more
        // to be in the middle of its files.
        let t0 = Instant::now();
        while std::fs::read_dir(tmp.path()).unwrap().count() == 0 {
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "{name} never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(700));
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::SIGINT).unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "{name}: child failed: {status}");
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().collect();
        assert!(left.is_empty(), "{name} left {left:?}");
        eprintln!(
            "{name}: interrupted after {:.2}s, nothing left",
            t0.elapsed().as_secs_f64()
        );
    }
}

/// The child: run case `i` in the directory and expect to be interrupted.
fn child(spec: &str) {
    let (i, dir) = spec.split_once(':').unwrap();
    let (name, over) = LONG_CASES[i.parse::<usize>().unwrap()];
    crate::interrupt::install().unwrap();
    let t0 = Instant::now();
    let res = run(name, Path::new(dir), over);
    assert!(
        matches!(res, Err(WorkloadError::Interrupted)),
        "{name}: {res:?}"
    );
    // A signal is answered within the poll interval, not at the end of the runtime.
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "{name} took {:?}",
        t0.elapsed()
    );
}

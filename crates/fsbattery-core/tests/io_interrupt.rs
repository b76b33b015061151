//! Ctrl-C during the block-IO workloads (dd, randomio, bonnie): each returns `Interrupted`
//! soon after the flag is raised, mid-phase, and leaves nothing in its directory.
//!
//! The interruption flag is process-global and cannot be lowered again, so this file is its
//! own test binary with a single test: the three workloads run at once, each in its own temp
//! directory, with sizes and runtimes far beyond the moment the flag is raised.

use fsbattery_core::error::WorkloadError;
use fsbattery_core::params::{Params, Scale};
use fsbattery_core::workload::{self, Method, WorkloadCtx};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Resolve `name`'s quick defaults with `over` applied.
fn params(name: &str, over: &[(&str, &str)]) -> Params {
    let w = workload::find(name).unwrap();
    let o: BTreeMap<String, String> = over
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Params::resolve(name, w.params(), Scale::Quick, 0, &o).unwrap()
}

/// Run `name` in `dir`; returns its result and when it returned.
fn run(name: &str, p: &Params, dir: &Path) -> (Result<(), WorkloadError>, Instant) {
    let w = workload::find(name).unwrap();
    let mut on = |_: &str, _| {};
    let mut ctx = WorkloadCtx::new(dir, 0, Method::Native, Duration::ZERO, &mut on);
    let r = w.run(&mut ctx, p);
    (r, Instant::now())
}

fn assert_empty(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn interrupt_stops_every_block_io_workload_mid_phase_and_cleans_up() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    // O_DIRECT where the temp dir allows it, so no gigabytes of dirty cache make the
    // quiescing sync of the next phase slow; buffered otherwise.
    let big = [
        ("size", "8GiB"),
        ("direct", "1"),
        ("buffered_fallback", "1"),
    ];
    let cases = [
        ("dd", params("dd", &big)),
        (
            "randomio",
            params(
                "randomio",
                &[("size", "16MiB"), ("runtime", "120"), ("request", "4096")],
            ),
        ),
        (
            "bonnie",
            params("bonnie", &[&big[..], &[("chunk", "1MiB")]].concat()),
        ),
    ];
    let raised = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .zip(&dirs)
            .map(|((name, p), d)| s.spawn(move || (*name, run(name, p, d.path()))))
            .collect();
        std::thread::sleep(Duration::from_millis(1500));
        let raised = Instant::now();
        fsbattery_core::interrupt::request();
        for h in handles {
            let (name, (res, done)) = h.join().unwrap();
            let after = done.saturating_duration_since(raised);
            eprintln!("{name}: {res:?} {after:?} after the flag");
            assert!(
                matches!(res, Err(WorkloadError::Interrupted)),
                "{name}: {res:?}"
            );
            assert!(
                after < Duration::from_secs(3),
                "{name} took {after:?} to stop"
            );
        }
        raised
    });
    for d in &dirs {
        assert_empty(d.path());
    }
    // Once the flag is up, a workload stops before its first phase and leaves nothing.
    for (name, p) in &cases {
        let d = tempfile::tempdir().unwrap();
        let (res, _) = run(name, p, d.path());
        assert!(
            matches!(res, Err(WorkloadError::Interrupted)),
            "{name}: {res:?}"
        );
        assert_empty(d.path());
    }
    assert!(raised.elapsed() < Duration::from_secs(30));
}

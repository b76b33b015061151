//! fs_mark's figures under one set of names, shared by the workload and `import --from
//! fs_mark`, so a run and an import of fs_mark's output line up row for row.
//!
//! Names: `files_per_sec` (fs_mark's "Files/sec", the headline) and `app_overhead_us` ("App
//! Overhead", µs), each the mean over the loops (as the kernel test robot's fsmark reports
//! them); the averages of fs_mark's verbose table, µs per call, also means over loops:
//! `creat_us`, `write_us`, `close_us` always, `fsync_us` with a sync method that fsyncs (1..=6),
//! `sync_us` with one that calls sync() (2, 4, 6), `unlink_us` when files are removed after each
//! loop (no -k, -L or -F); a call fs_mark never makes is not a row (fs_mark prints 0). With 2 to
//! [`MAX_LOOP_ROWS`] loops, each loop's Files/sec and App Overhead are rows of their own
//! (`files_per_sec@loop2`): fs_mark prints a line per loop because later loops run on a fuller
//! filesystem.

use super::args::Config;
use super::run::Stats;
use crate::model::{Dim, MetricSpec};
use fsbattery_stats::Better;

/// Most loops shown one by one (more, or -F, only as means).
pub const MAX_LOOP_ROWS: u32 = 64;

/// A per-call average in µs (lower is better).
fn micros(name: &str, help: &str) -> MetricSpec {
    MetricSpec {
        better: Better::Lower,
        ..MetricSpec::rate(name, "us", help)
    }
}

/// The per-call rows `c` has: (name, help, value of a loop).
type Row = (&'static str, &'static str, fn(&Stats) -> f64);

fn calls(c: &Config) -> Vec<Row> {
    let mut v: Vec<Row> = vec![
        (
            "creat_us",
            "µs per open(O_CREAT) (fs_mark's CREAT Avg)",
            |s| s.creat as f64,
        ),
        (
            "write_us",
            "µs per write() (fs_mark's WRITE Avg: mean of each file's mean)",
            |s| s.write as f64,
        ),
    ];
    if c.fsyncs() {
        v.push((
            "fsync_us",
            "µs of fsync per file (fs_mark's FSYNC Avg; the post methods count open+fsync+close)",
            |s| s.fsync as f64,
        ));
    }
    if c.syncs() {
        v.push((
            "sync_us",
            "µs of the sync() after the write loop (fs_mark's SYNC Avg)",
            |s| s.sync as f64,
        ));
    }
    v.push(("close_us", "µs per close() (fs_mark's CLOSE Avg)", |s| {
        s.close as f64
    }));
    if !c.keep {
        v.push((
            "unlink_us",
            "µs per unlink() after the loop (fs_mark's UNLINK Avg)",
            |s| s.unlink as f64,
        ));
    }
    v
}

fn loop_rows(c: &Config) -> u32 {
    if c.fill || c.loops < 2 || c.loops > MAX_LOOP_ROWS {
        0
    } else {
        c.loops
    }
}

fn loop_dim(k: u32) -> Vec<Dim> {
    vec![Dim {
        name: "loop".into(),
        value: u64::from(k),
        unit: String::new(),
    }]
}

/// The metrics a run of `c` produces, in report order.
pub fn specs(c: &Config) -> Vec<MetricSpec> {
    let mut v = vec![
        MetricSpec::rate(
            "files_per_sec",
            "files/s",
            "files created per second of the write loop, summed over threads (fs_mark's \
             Files/sec; mean over loops)",
        ),
        micros(
            "app_overhead_us",
            "µs of the loop not in creat/write/fsync/sync/close, summed over threads (fs_mark's \
             App Overhead; mean over loops)",
        ),
    ];
    v.extend(calls(c).into_iter().map(|(n, h, _)| micros(n, h)));
    for k in 1..=loop_rows(c) {
        v.push(
            MetricSpec::rate(
                &format!("files_per_sec@loop{k}"),
                "files/s",
                &format!("fs_mark's Files/sec of loop {k}"),
            )
            .point("files_per_sec", loop_dim(k)),
        );
        v.push(
            micros(
                &format!("app_overhead_us@loop{k}"),
                &format!("fs_mark's App Overhead of loop {k}"),
            )
            .point("app_overhead_us", loop_dim(k)),
        );
    }
    v
}

/// The values of [`specs`] for the loops measured (names in the same order; none if no loop).
pub fn values(c: &Config, loops: &[Stats]) -> Vec<(String, f64)> {
    if loops.is_empty() {
        return Vec::new();
    }
    let mean = |f: &dyn Fn(&Stats) -> f64| loops.iter().map(f).sum::<f64>() / loops.len() as f64;
    let mut v = vec![
        ("files_per_sec".to_string(), mean(&|s| s.files_per_sec)),
        (
            "app_overhead_us".to_string(),
            mean(&|s| s.app_overhead as f64),
        ),
    ];
    for (n, _, f) in calls(c) {
        v.push((n.to_string(), mean(&f)));
    }
    for (k, s) in loops.iter().enumerate().take(loop_rows(c) as usize) {
        let k = k + 1;
        v.push((format!("files_per_sec@loop{k}"), s.files_per_sec));
        v.push((format!("app_overhead_us@loop{k}"), s.app_overhead as f64));
    }
    v
}

//! The lifecycle rows: mkfs time, mount time, unmount time and space after formatting, turned
//! into ordinary cells of a built-in `filesystem` workload so they are ranked, aggregated and
//! charted like every other test (S1's first three graphs, S2's first two rows).
//!
//! CPU of these rows is that of the whole setup (mkfs and mount are reaped children), over the
//! setup's wall time; their elapsed time is the tool's own.

use crate::measure::Timing;
use crate::model::{Lifecycle, MetricSpec, Sample};

/// Name of the built-in workload whose cells hold the lifecycle rows.
pub const WORKLOAD: &str = "filesystem";

/// The lifecycle metrics, in S1's order.
pub fn metrics() -> Vec<MetricSpec> {
    vec![
        MetricSpec::seconds("mkfs", "wall time of mkfs on the fresh device"),
        MetricSpec::seconds("mount", "wall time of mounting the fresh filesystem"),
        MetricSpec::rate(
            "avail_mib",
            "MiB",
            "space available to users right after formatting",
        ),
        MetricSpec::seconds("umount", "wall time of unmounting after the workloads"),
    ]
}

/// Samples recorded right after a setup that made a filesystem.
pub fn after_setup(lc: &Lifecycle, setup: &Timing, repeat: u32) -> Vec<(&'static str, Sample)> {
    let cpu = |elapsed_s: f64| Sample {
        repeat,
        value: elapsed_s,
        elapsed_s,
        user_s: setup.user_s,
        sys_s: setup.sys_s,
        cpu_pct: setup.cpu_pct(),
    };
    let avail = Sample {
        value: lc.avail_bytes as f64 / (1u64 << 20) as f64,
        ..cpu(setup.elapsed_s)
    };
    let mut out = Vec::new();
    // tmpfs has no mkfs: no row rather than a zero that would "win".
    if !lc.mkfs_command.is_empty() {
        out.push(("mkfs", cpu(lc.mkfs_secs)));
    }
    out.push(("mount", cpu(lc.mount_secs)));
    out.push(("avail_mib", avail));
    out
}

/// The unmount sample, when the teardown unmounted something.
pub fn after_teardown(umount: &Timing, secs: f64, repeat: u32) -> Sample {
    Sample {
        repeat,
        value: secs,
        elapsed_s: secs,
        user_s: umount.user_s,
        sys_s: umount.sys_s,
        cpu_pct: umount.cpu_pct(),
    }
}

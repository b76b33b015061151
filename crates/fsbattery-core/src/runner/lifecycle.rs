//! The lifecycle rows: mkfs time, mount time, unmount time and space after formatting, turned
//! into ordinary cells of a built-in `filesystem` workload so they are ranked, aggregated and
//! charted like every other test (S1's first three graphs, S2's first two rows).
//!
//! Each timed row's CPU is measured around its own command (mkfs and mount are reaped
//! children, timed one by one; the unmount around umount(2) alone), so CPU time never exceeds
//! elapsed time × cores. Space available is a property of the size the target was given, so
//! it is recorded but marked not comparable: it is never ranked or scored.

use crate::measure::Timing;
use crate::model::{CpuSecs, Lifecycle, MetricSpec, Sample};

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
        )
        // It follows the size each target was given (a tmpfs is half the RAM, an image
        // what --set loop.size says): a property of the target, not a ranking.
        .not_comparable(),
        MetricSpec::seconds("umount", "wall time of unmounting after the workloads"),
    ]
}

/// Samples recorded right after a setup that made a filesystem.
///
/// Each timed sample carries the CPU of its own phase (mkfs's for mkfs, the mount's for
/// mount), never the whole setup's: a mount must not inherit mkfs's CPU. The space row is a
/// statvfs reading, not a timed phase: its elapsed and CPU times are zero.
pub fn after_setup(lc: &Lifecycle, repeat: u32) -> Vec<(&'static str, Sample)> {
    let timed = |elapsed_s: f64, cpu: Option<CpuSecs>| {
        let cpu = cpu.unwrap_or_default();
        Timing {
            elapsed_s,
            user_s: cpu.user_s,
            sys_s: cpu.sys_s,
        }
        .sample(repeat, elapsed_s)
    };
    let avail = Sample {
        repeat,
        value: lc.avail_bytes as f64 / (1u64 << 20) as f64,
        elapsed_s: 0.0,
        user_s: 0.0,
        sys_s: 0.0,
        cpu_pct: 0.0,
    };
    let mut out = Vec::new();
    // tmpfs has no mkfs: no row rather than a zero that would "win".
    if !lc.mkfs_command.is_empty() {
        out.push(("mkfs", timed(lc.mkfs_secs, lc.mkfs_cpu)));
    }
    out.push(("mount", timed(lc.mount_secs, lc.mount_cpu)));
    out.push(("avail_mib", avail));
    out
}

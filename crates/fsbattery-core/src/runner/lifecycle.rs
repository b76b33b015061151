//! The lifecycle rows: mkfs time, mount time, unmount time and space after formatting, turned
//! into ordinary cells of a built-in `filesystem` workload so they are ranked, aggregated and
//! charted like every other test (S1's first three graphs, S2's first two rows).
//!
//! Each timed row's CPU is measured around its own command (mkfs and mount are reaped
//! children, timed one by one; the unmount around umount(2) alone), so CPU time never exceeds
//! elapsed time × cores. Space available is a property of the size the target was given, so
//! it is recorded but marked not comparable: it is never ranked or scored. The workload's
//! declaration (its name, metrics and the upgrade of older records) is the record's
//! (`fsbattery_record::lifecycle`), re-exported here.

use crate::measure::Timing;
use crate::model::{CpuSecs, Lifecycle, Sample};

pub use fsbattery_record::lifecycle::{builtin, metrics, upgrade, BuiltIn, FILESYSTEM, WORKLOAD};

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
            io: None,
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
        device_io: None,
        cache: None,
        ranks: Vec::new(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lifecycle() -> Lifecycle {
        let cpu = |u, s| {
            Some(CpuSecs {
                user_s: u,
                sys_s: s,
            })
        };
        Lifecycle {
            mkfs_command: "mkfs.ext4 /dev/loop0".into(),
            mkfs_secs: 0.5,
            mkfs_cpu: cpu(0.1, 0.2),
            mount_secs: 0.02,
            mount_cpu: cpu(0.001, 0.004),
            avail_bytes: 3 << 20,
            ..Default::default()
        }
    }

    #[test]
    fn each_sample_carries_its_own_phase_cpu() {
        let s = after_setup(&lifecycle(), 2);
        let get = |m: &str| s.iter().find(|x| x.0 == m).unwrap().1.clone();
        let (mkfs, mount, avail) = (get("mkfs"), get("mount"), get("avail_mib"));
        assert_eq!((mkfs.user_s, mkfs.sys_s, mkfs.elapsed_s), (0.1, 0.2, 0.5));
        assert_eq!(
            (mount.user_s, mount.sys_s, mount.elapsed_s),
            (0.001, 0.004, 0.02)
        );
        assert!((mount.cpu_pct - 25.0).abs() < 1e-9, "{mount:?}");
        assert_eq!(
            (avail.value, avail.user_s, avail.sys_s, avail.cpu_pct),
            (3.0, 0.0, 0.0, 0.0)
        );
        assert!(s.iter().all(|x| x.1.repeat == 2));
    }

    #[test]
    fn no_mkfs_no_mkfs_row() {
        let lc = Lifecycle {
            mkfs_command: String::new(),
            ..lifecycle()
        };
        assert!(after_setup(&lc, 0).iter().all(|x| x.0 != "mkfs"));
    }

    #[test]
    fn old_records_get_the_comparable_flag_from_the_specs() {
        let cell = |metric: &str| crate::model::Cell {
            target: "ext4".into(),
            workload: WORKLOAD.into(),
            metric: metric.into(),
            unit: "MiB".into(),
            better: fsbattery_stats::Better::Higher,
            comparable: true,
            method: "native".into(),
            status: crate::model::CellStatus::Ok,
            samples: Vec::new(),
            stats: None,
        };
        let json = serde_json::to_value(cell("avail_mib")).unwrap();
        assert!(
            json.get("comparable").is_none(),
            "comparable rows write no flag"
        );
        let mut rec: crate::model::RunRecord = serde_json::from_value(serde_json::json!({
            "schema_version": 1,
            "tool": {"name": "fsbattery", "version": "0"},
            "started": "2026-01-01T00:00:00Z",
            "finished": null,
            "host": {"hostname": "h", "kernel": "k", "os": "o", "cpu_model": "c", "cores": 2,
                     "ram_bytes": 1, "root": true},
            "plan": {"suite": "s", "scale": "quick", "repeat": 1, "aggregate": "mean",
                     "pause_secs": 0.0, "method": "native", "workloads": [], "rows": []},
            "targets": [],
            "cells": [json, serde_json::to_value(cell("mount")).unwrap()]
        }))
        .unwrap();
        assert!(rec.cells.iter().all(|c| c.comparable), "serde default");
        upgrade(&mut rec);
        assert!(!rec.cells[0].comparable && rec.cells[1].comparable);
    }
}

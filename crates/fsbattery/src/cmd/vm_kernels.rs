//! `fsbattery run` with `vm:` targets of several kernels: one guest per kernel, booted one
//! after the other (each in `RUN_DIR/guest-RELEASE/`), their records merged into one run whose
//! targets carry the machine they were measured on (kernel, guest, tool ceiling).
//!
//! Invariants: the guests differ in nothing but their kernel (accelerator, emulator, CPUs and
//! memory agree), or the records are not merged: ranking across them would compare machines,
//! not kernels. Rounds interleave only among one guest's targets; the conditions line says
//! so. A guest interrupted stops the run; the targets of guests that did not run keep their
//! cells, incomplete (interrupted) or failed (the guest could not run), so the gap shows.

use super::run::finish;
use super::vm_guest::{boot, outcome, Guest};
use crate::cli::RunArgs;
use crate::stderr::errln;
use fsbattery_core::model::{CellStatus, RunRecord, TargetRecord};
use fsbattery_core::targets::vm::groups::Group;
use fsbattery_record::guest::GuestInfo;
use std::path::Path;
use std::process::ExitCode;

/// Boot a guest per group, in order, and finish the merged run.
pub(super) fn run(
    args: &RunArgs,
    raw: &[String],
    groups: &[Group],
    out: &Path,
) -> anyhow::Result<ExitCode> {
    let total = groups.iter().map(|g| g.specs.len()).sum();
    let mut parts: Vec<RunRecord> = Vec::new();
    let mut why_not: Option<String> = None;
    for g in groups {
        let stopped =
            parts.last().is_some_and(|r| r.interrupted) || fsbattery_core::interrupt::requested();
        if stopped || why_not.is_some() {
            break;
        }
        let tag = g.tag();
        let guest = Guest {
            share: out.join(format!("guest-{tag}")),
            console: out.join(format!("guest-{tag}-console.log")),
        };
        match boot(args, raw, g, total, &guest) {
            Ok((record, _)) => parts.push(record),
            Err(e) if parts.is_empty() => return Err(e),
            Err(e) => {
                errln!("fsbattery: the guest of {tag} did not run: {e:#}");
                why_not = Some(format!("its guest ({tag}) did not run: {e:#}"));
            }
        }
    }
    let missing: Vec<&Group> = groups[parts.len()..].iter().collect();
    let record = merge(parts, &missing, why_not.as_deref())
        .map_err(|e| anyhow::anyhow!("{e}; each guest's own run is in {}", out.display()))?;
    finish(args, &outcome(record), out)
}

/// One record of the guests' records (in the order they ran; at least one), each target
/// carrying its guest's machine; the targets of `missing` groups keep their cells, failed
/// with `why_not` or (interrupted) incomplete.
fn merge(
    parts: Vec<RunRecord>,
    missing: &[&Group],
    why_not: Option<&str>,
) -> Result<RunRecord, String> {
    let guest = |r: &RunRecord| -> Result<GuestInfo, String> {
        r.host
            .guest
            .as_deref()
            .cloned()
            .ok_or("a guest's record names no guest".into())
    };
    let first = guest(&parts[0])?;
    for r in &parts[1..] {
        let g = guest(r)?;
        if !first.same_but_kernel(&g) {
            return Err(format!(
                "the guests differ in more than their kernel ({} / {}), so their targets are \
                 not ranked together",
                first.describe(),
                g.describe()
            ));
        }
    }
    let mut merged = parts[0].clone();
    merged.targets.clear();
    merged.cells.clear();
    // The conservative ceiling: a rate near the lower one is flagged tool-bound.
    merged.host.tool_ceiling = parts
        .iter()
        .filter_map(|r| r.host.tool_ceiling.clone())
        .min_by(|a, b| a.null_ops_per_s.total_cmp(&b.null_ops_per_s));
    for r in &parts {
        let host = Box::new(r.host.clone());
        merged
            .targets
            .extend(r.targets.iter().map(|t| TargetRecord {
                host: Some(host.clone()),
                ..t.clone()
            }));
        merged.cells.extend(r.cells.iter().cloned());
        merged.interrupted |= r.interrupted;
    }
    merged.finished = match parts.iter().all(|r| r.finished.is_some()) {
        true => parts.last().and_then(|r| r.finished.clone()),
        false => None,
    };
    not_run(&mut merged, missing, why_not);
    Ok(merged)
}

/// The targets of guests that did not run, with the cells the others have (by workload and
/// metric), failed with `why_not` or incomplete.
fn not_run(merged: &mut RunRecord, missing: &[&Group], why_not: Option<&str>) {
    let Some(template) = merged.targets.first().map(|t| t.label.clone()) else {
        return;
    };
    let cells: Vec<_> = merged
        .cells
        .iter()
        .filter(|c| c.target == template)
        .cloned()
        .collect();
    for spec in missing.iter().flat_map(|g| &g.specs) {
        merged.targets.push(TargetRecord {
            label: spec.label.clone(),
            spec: format!("vm:{}", spec.fs),
            error: why_not.map(str::to_string),
            ..TargetRecord::default()
        });
        merged.cells.extend(cells.iter().map(|c| {
            let mut c = c.clone();
            c.target = spec.label.clone();
            c.samples.clear();
            c.stats = None;
            c.status = match why_not {
                Some(w) => CellStatus::Failed { reason: w.into() },
                None => CellStatus::Incomplete,
            };
            c
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One guest's record: target `label` with one ok metadata cell, in a guest of `kernel`
    /// with `cpus` CPUs.
    fn part(label: &str, kernel: &str, cpus: u32) -> RunRecord {
        serde_json::from_value(json!({
            "schema_version": 1,
            "tool": {"name": "fsbattery", "version": "0"},
            "started": "2026-01-01T00:00:00Z",
            "finished": "2026-01-01T00:10:00Z",
            "host": {"hostname": "guest", "kernel": kernel, "os": "o", "cpu_model": "c",
                     "cores": cpus, "ram_bytes": 1, "root": true,
                     "guest": {"kernel_package": format!("linux-image-{kernel}"),
                               "kernel_version": "1", "emulator": "QEMU 7.2.22",
                               "accelerator": "TCG", "cpus": cpus, "memory_bytes": 1}},
            "plan": {"suite": "s", "scale": "quick", "repeat": 1, "aggregate": "mean",
                     "pause_secs": 0.0, "method": "native", "workloads": [], "rows": []},
            "targets": [{"label": label, "spec": "dev:/dev/vda", "path": "/m",
                "fs_type": "ext4", "mount_options": "rw", "device": "/dev/vda",
                "capabilities": {"needs_root": true, "drop_caches": true, "direct_io": true,
                                 "direct_io_bypasses_cache": false},
                "lifecycles": [], "error": null}],
            "cells": [{"target": label, "workload": "metadata", "metric": "touch_files",
                "unit": "s", "better": "lower", "method": "native",
                "status": {"state": "ok"},
                "samples": [{"repeat": 0, "value": 1.0, "elapsed_s": 1.0, "user_s": 0.0,
                             "sys_s": 0.0, "cpu_pct": 0.0}]}]
        }))
        .unwrap()
    }

    #[test]
    fn each_target_keeps_its_guests_machine() {
        let m = merge(
            vec![part("ext4@A", "A", 2), part("ext4@B", "B", 2)],
            &[],
            None,
        )
        .unwrap();
        let kernels: Vec<&str> = m
            .targets
            .iter()
            .map(|t| t.host(&m).kernel.as_str())
            .collect();
        assert_eq!(kernels, ["A", "B"]);
        assert_eq!(m.cells.len(), 2);
        assert_eq!(m.host.kernel, "A");
        assert!(!m.interrupted && m.finished.is_some());
    }

    #[test]
    fn guests_that_differ_in_more_than_the_kernel_are_not_merged() {
        let e = merge(vec![part("a", "A", 2), part("b", "B", 4)], &[], None).unwrap_err();
        assert!(e.contains("more than their kernel"), "{e}");
    }

    #[test]
    fn a_guest_that_did_not_run_leaves_its_targets_with_unmeasured_cells() {
        let spec = |w: &str| fsbattery_core::targets::vm::VmSpec::parse(w).unwrap();
        let mut late = spec("ext4,kernel=B");
        late.label = "ext4@B".into();
        let g = Group {
            kernel: Err("not fetched".into()),
            specs: vec![late],
            positions: vec![1],
        };
        let mut first = part("ext4@A", "A", 2);
        first.interrupted = true;
        let m = merge(vec![first.clone()], &[&g], None).unwrap();
        let c = m.cells.iter().find(|c| c.target == "ext4@B").unwrap();
        assert_eq!(c.status, CellStatus::Incomplete);
        assert!(m.interrupted);
        let m = merge(vec![part("ext4@A", "A", 2)], &[&g], Some("it hung")).unwrap();
        let c = m.cells.iter().find(|c| c.target == "ext4@B").unwrap();
        assert!(matches!(&c.status, CellStatus::Failed { reason } if reason == "it hung"));
        assert!(c.samples.is_empty());
    }
}

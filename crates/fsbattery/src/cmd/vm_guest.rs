//! One guest of a `vm:` run: its command line (the user's `run` arguments with each `vm:`
//! target replaced by the guest's `dev:` target, host paths and outputs left out), its boot,
//! and its run read back from the share as a record that names the guest. Used by `vm_run`
//! (one kernel) and `vm_kernels` (one guest per kernel); it uses neither.

use crate::cli::RunArgs;
use crate::stderr::errln;
use anyhow::Context;
use fsbattery_core::error::UsageError;
use fsbattery_core::model::{CellStatus, RunRecord};
use fsbattery_core::runner::Outcome;
use fsbattery_core::targets::vm::{self, job, qemu::End};
use std::path::PathBuf;

/// Options whose value names a host path or output the guest has no use for: left out of
/// the guest's command line (the host writes the outputs from the guest's record).
const DROPPED_WITH_VALUE: [&str; 5] = ["--out", "--workdir", "--store", "--json", "--format"];
/// Flags left out of the guest's command line.
const DROPPED_FLAGS: [&str; 2] = ["--no-store", "--dry-run"];
/// Options whose value is a host file the guest cannot see: refused.
const HOST_FILES: [&str; 3] = ["--source-dir", "--tree-tarball", "--export"];

/// Where one guest's run and console go.
pub(super) struct Guest {
    /// The directory shared with the guest; its run is written to `run/` in it.
    pub share: PathBuf,
    /// The guest's console log.
    pub console: PathBuf,
}

/// Boot one guest for `group` (of a run of `total` `vm:` targets) and read its run back: the
/// record names the guest; a hung guest's unfinished cells failed with the reason.
pub(super) fn boot(
    args: &RunArgs,
    raw: &[String],
    group: &vm::groups::Group,
    total: usize,
    guest: &Guest,
) -> anyhow::Result<(RunRecord, vm::Finished)> {
    let kernel = group
        .kernel
        .as_ref()
        .map_err(|e| UsageError::Invalid(e.clone()))?;
    let layout = vm::layout(&group.specs);
    let argv = guest_argv(raw, &slots(group, &layout, total)).map_err(UsageError::Invalid)?;
    std::fs::create_dir_all(&guest.share)
        .with_context(|| format!("creating the guest's directory {}", guest.share.display()))?;
    // Absolute: the emulator is given it as its share, whatever its working directory.
    let share = guest
        .share
        .canonicalize()
        .with_context(|| format!("resolving {}", guest.share.display()))?;
    errln!(
        "fsbattery: booting a guest ({}) for {} vm: target(s); its run goes to {}",
        kernel.package,
        group.specs.len(),
        share.display()
    );
    let req = vm::Request {
        kernel,
        specs: &group.specs,
        argv,
        workdir: &args.workdir,
        share: &share,
        console: &guest.console,
        workload_programs: workload_programs(),
    };
    let made = super::made_workdir::MadeWorkdir::note(&args.workdir);
    let finished = vm::run(&req).map_err(|e| anyhow::anyhow!("{e}"));
    drop(made);
    let finished = finished?;
    let run_dir = share.join("run");
    if !run_dir.join(fsbattery_core::journal::JOURNAL_FILE).exists() {
        anyhow::bail!(
            "the guest ended before its run started{}; its console is in {}",
            guest_said(&guest.console),
            guest.console.display()
        );
    }
    let loaded = fsbattery_record::load(&run_dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut record = loaded.record;
    record.host.guest = Some(Box::new(finished.guest.clone()));
    record.interrupted = match finished.end {
        End::Exited => record.interrupted,
        End::Interrupted => true,
        End::Hung(secs) => {
            fail_unfinished(&mut record, secs);
            false
        }
    };
    if let Some(b) = finished.guest.boot_secs {
        errln!(
            "fsbattery: the guest booted in {b:.1} s ({}, initramfs {})",
            finished.guest.describe(),
            fsbattery_core::units::format_bytes(finished.initramfs_bytes)
        );
    }
    Ok((record, finished))
}

/// A guest's (or the guests' merged) record as the runner's outcome.
pub(super) fn outcome(record: RunRecord) -> Outcome {
    let failed_cells = record
        .cells
        .iter()
        .filter(|c| matches!(c.status, CellStatus::Failed { .. }))
        .count();
    Outcome {
        interrupted: record.interrupted,
        record,
        failed_cells,
    }
}

/// Per `vm:` target of the run (in order): its guest spec when `group` runs it, else `None`
/// (another guest's).
pub(super) fn slots(
    group: &vm::groups::Group,
    layout: &vm::Layout,
    total: usize,
) -> Vec<Option<String>> {
    let mut out = vec![None; total];
    for (pos, spec) in group.positions.iter().zip(&layout.guest_specs) {
        out[*pos] = Some(spec.clone());
    }
    out
}

/// The guest init's own last complaint on its console, as ": REASON" (none: "").
fn guest_said(console: &std::path::Path) -> String {
    let text = std::fs::read_to_string(console).unwrap_or_default();
    text.lines()
        .rev()
        .filter_map(|l| l.strip_prefix("fsbattery guest: "))
        .find(|l| *l != "ready")
        .map(|l| format!(": {l}"))
        .unwrap_or_default()
}

/// A hung guest was killed: every cell it had not finished failed, with that reason.
fn fail_unfinished(record: &mut RunRecord, secs: u64) {
    for c in &mut record.cells {
        if c.status == CellStatus::Incomplete {
            c.status = CellStatus::Failed {
                reason: format!(
                    "the guest showed no progress for {secs} s and was killed (vm: timeout=)"
                ),
            };
        }
    }
    record.interrupted = false;
    if record.finished.is_none() {
        record.finished = Some(chrono::Local::now().to_rfc3339());
    }
}

/// What every registered workload runs (its commands and external programs), for the guest.
fn workload_programs() -> Vec<String> {
    fsbattery_core::workload::registry()
        .iter()
        .flat_map(|w| w.commands().iter().chain(w.programs()))
        .map(|s| s.to_string())
        .collect()
}

/// The guest's command line: the user's `run` arguments with each `vm:` target replaced by
/// its slot (in order: the guest spec, or nothing for another guest's target), host paths
/// and outputs left out, and the guest's own output and work directories added.
pub(super) fn guest_argv(raw: &[String], slots: &[Option<String>]) -> Result<Vec<String>, String> {
    let start = raw
        .iter()
        .position(|a| a == "run")
        .ok_or("no run subcommand")?;
    let mut out = vec!["run".to_string()];
    let mut slots = slots.iter();
    let mut it = raw[start + 1..].iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let value = |it: &mut std::slice::Iter<'_, String>| match &inline {
            Some(v) => Some(v.clone()),
            None => it.next().cloned(),
        };
        if flag == "--target" {
            value(&mut it);
            if let Some(spec) = slots.next().ok_or("more targets than specs")? {
                out.push("--target".into());
                out.push(spec.clone());
            }
        } else if HOST_FILES.contains(&flag) {
            return Err(format!(
                "{flag}: the guest sees no host files; leave it out for vm: targets"
            ));
        } else if DROPPED_WITH_VALUE.contains(&flag) {
            value(&mut it);
        } else if !DROPPED_FLAGS.contains(&flag) {
            out.push(a.clone());
        }
    }
    out.extend(
        [
            "--out",
            job::GUEST_OUT,
            "--workdir",
            "/tmp/fsbattery",
            "--no-store",
        ]
        .map(String::from),
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn targets_become_the_guests_and_host_paths_stay_out() {
        let raw = words(
            "fsbattery run --target vm:jfs --workload metadata --out /r --target=vm:ext4 --scale quick --workdir=/w --no-store",
        );
        let g = guest_argv(
            &raw,
            &[
                Some("dev:/dev/vda,fs=jfs".into()),
                Some("dev:/dev/vdb,fs=ext4".into()),
            ],
        )
        .unwrap();
        assert_eq!(
            g,
            words(
                "run --target dev:/dev/vda,fs=jfs --workload metadata --target dev:/dev/vdb,fs=ext4 \
                 --scale quick --out /share/run --workdir /tmp/fsbattery --no-store"
            )
        );
    }

    #[test]
    fn another_guests_targets_are_left_out() {
        let raw =
            words("fsbattery run --target vm:ext4,kernel=A --target vm:ext4,kernel=B --repeat 2");
        let g = guest_argv(
            &raw,
            &[None, Some("dev:/dev/vda,fs=ext4,label=ext4@B".into())],
        )
        .unwrap();
        assert_eq!(
            g,
            words(
                "run --target dev:/dev/vda,fs=ext4,label=ext4@B --repeat 2 \
                 --out /share/run --workdir /tmp/fsbattery --no-store"
            )
        );
    }

    #[test]
    fn host_files_are_refused() {
        let raw = words("fsbattery run --target vm:jfs --tree-tarball /t.tar");
        assert!(guest_argv(&raw, &[Some("dev:/dev/vda".into())])
            .unwrap_err()
            .contains("--tree-tarball"));
    }
}

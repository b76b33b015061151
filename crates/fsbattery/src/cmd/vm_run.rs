//! `fsbattery run` with `vm:` targets: the whole plan runs inside one guest per kernel (see
//! `fsbattery_core::targets::vm`; several kernels: `vm_kernels`). This edge refuses what a guest run cannot do, rewrites the
//! command line for the guest (its `vm:` targets become the guest's `dev:` targets; the host's
//! paths are left out), boots it, reads the guest's run back from the share and finishes it
//! as any run: the record gains the guest configuration, which the conditions line names.

use super::run::{finish, out_dir};
use crate::cli::RunArgs;
use crate::stderr::errln;
use anyhow::Context;
use fsbattery_core::error::UsageError;
use fsbattery_core::model::{CellStatus, RunRecord};
use fsbattery_core::runner::Outcome;
use fsbattery_core::targets::vm::{self, job, qemu::End};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Options whose value names a host path or output the guest has no use for: left out of
/// the guest's command line (the host writes the outputs from the guest's record).
const DROPPED_WITH_VALUE: [&str; 5] = ["--out", "--workdir", "--store", "--json", "--format"];
/// Flags left out of the guest's command line.
const DROPPED_FLAGS: [&str; 2] = ["--no-store", "--dry-run"];
/// Options whose value is a host file the guest cannot see: refused.
const HOST_FILES: [&str; 3] = ["--source-dir", "--tree-tarball", "--export"];

/// Whether the run names a `vm:` target.
pub fn wanted(args: &RunArgs) -> bool {
    args.targets.iter().any(|t| vm::is_vm(t))
}

/// Run the `vm:` targets: one guest per kernel they name, one after the other.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    if let Some(host) = args.targets.iter().find(|t| !vm::is_vm(t)) {
        return Err(UsageError::Invalid(format!(
            "--target {host}: vm: targets run in a guest and rank only against targets in the \
             same guest configuration, so a run cannot rank them across host targets; run the \
             host targets in a run of their own and `fsbattery compare` the two"
        ))
        .into());
    }
    let specs = vm::parse_all(&args.targets).map_err(UsageError::Invalid)?;
    let cache = Path::new(vm::kernel::CACHE_DIR);
    let groups =
        vm::groups::group(&specs, |w| vm::kernel::find(cache, w)).map_err(UsageError::Invalid)?;
    let raw: Vec<String> = std::env::args().collect();
    // Every guest's command line is checked before the first boots.
    for g in &groups {
        guest_argv(&raw, &slots(g, &vm::layout(&g.specs), specs.len()))
            .map_err(UsageError::Invalid)?;
    }
    if args.dry_run {
        return dry_run(&groups);
    }
    if let Some(Err(e)) = groups.iter().map(|g| &g.kernel).find(|k| k.is_err()) {
        return Err(UsageError::Invalid(e.clone()).into());
    }
    fsbattery_core::targets::check_workdir(&args.workdir)?;
    let out = out_dir(&args)?;
    if groups.len() > 1 {
        return super::vm_kernels::run(&args, &raw, &groups, &out);
    }
    let guest = Guest {
        share: out.join("guest"),
        console: out.join("guest-console.log"),
    };
    let (record, _) = boot(&args, &raw, &groups[0], specs.len(), &guest)?;
    finish(&args, &outcome(record), &out)
}

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
fn slots(group: &vm::groups::Group, layout: &vm::Layout, total: usize) -> Vec<Option<String>> {
    let mut out = vec![None; total];
    for (pos, spec) in group.positions.iter().zip(&layout.guest_specs) {
        out[*pos] = Some(spec.clone());
    }
    out
}

/// `fsbattery list kernels`: the guest kernels fetched, then those the distribution serves.
pub fn kernels() -> String {
    let cache = std::path::Path::new(vm::kernel::CACHE_DIR);
    let mut out = format!(
        "Guest kernels for vm: targets, fetched into {}:\n",
        cache.display()
    );
    let fetched = vm::kernel::cached(cache);
    if fetched.is_empty() {
        out.push_str(
            "  none: `fsbattery setup --target vm:FSTYPE` fetches the distribution's current one\n",
        );
    }
    for k in fetched {
        out.push_str(&format!(
            "  {} {} (kernel={})\n",
            k.package, k.version, k.release
        ));
    }
    match vm::kernel::served() {
        Ok(served) => {
            out.push_str("Served by the distribution (fetch one with `fsbattery setup --target vm:FSTYPE,kernel=PACKAGE`):\n");
            for (p, what) in served {
                out.push_str(&format!("  {p}  {what}\n"));
            }
        }
        Err(e) => out.push_str(&format!(
            "The distribution's kernels could not be listed: {e}\n"
        )),
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

/// What would run where, without booting anything.
fn dry_run(groups: &[vm::groups::Group]) -> anyhow::Result<ExitCode> {
    let mut text = match groups.len() {
        1 => String::from("vm: targets run in one guest:\n"),
        n => format!("vm: targets run in {n} guests, one per kernel, one after the other:\n"),
    };
    for g in groups {
        match &g.kernel {
            Ok(k) => text.push_str(&format!("  kernel: {} {}\n", k.package, k.version)),
            Err(e) => text.push_str(&format!("  kernel: {e}\n")),
        }
        let layout = vm::layout(&g.specs);
        for (s, spec) in g.specs.iter().zip(&layout.guest_specs) {
            text.push_str(&format!(
                "    vm:{} ({} disk(s) of {}) -> in the guest: {spec}\n",
                s.label,
                s.disks,
                fsbattery_core::units::format_bytes(s.size)
            ));
        }
    }
    crate::stdout::write(text)?;
    Ok(ExitCode::SUCCESS)
}

/// The guest's command line: the user's `run` arguments with each `vm:` target replaced by
/// its slot (in order: the guest spec, or nothing for another guest's target), host paths
/// and outputs left out, and the guest's own output and work directories added.
fn guest_argv(raw: &[String], slots: &[Option<String>]) -> Result<Vec<String>, String> {
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

//! `fsbattery run` with `vm:` targets: the whole plan runs inside one guest per kernel (see
//! `fsbattery_core::targets::vm`). This edge refuses what a guest run cannot do, checks every
//! guest's command line before the first boots, and hands one kernel's targets to
//! `vm_guest` (boot it, read its run back) and several kernels' to `vm_kernels`, then
//! finishes the run as any run: the record gains the guest configuration, which the
//! conditions line names.

use super::run::{finish, out_dir};
use super::vm_guest::{boot, guest_argv, outcome, slots, Guest};
use crate::cli::RunArgs;
use fsbattery_core::error::UsageError;
use fsbattery_core::targets::vm;
use std::path::Path;
use std::process::ExitCode;

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
    // The request's own mistakes (a parameter, --budget with a fixed --repeat) are refused
    // here, before a guest spends its boot on them.
    fsbattery_core::plan::check_target_free(&args.request(), specs.len())?;
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

//! `fsbattery setup`: install what the chosen targets, workloads and tests need.
//!
//! Three steps: gather the needs (targets' programs, command-mode programs, the tests'
//! tools — all data from the core crate), resolve them against this machine with the pure
//! [`packages::resolve`], then act: nothing when nothing is missing; apt-get as root on a
//! Debian-family system; otherwise print the exact command and exit 5. Every step says what
//! it does.

use crate::cli::SetupArgs;
use crate::stdout::outln;
use anyhow::Context;
use fsbattery_core::error::{UsageError, EXIT_SETUP_NEEDED};
use fsbattery_core::packages::{self, Family, Need, Resolution};
use fsbattery_core::targets;
use fsbattery_core::workload::{self, Method};
use std::process::{Command, ExitCode};

/// Programs the tests run themselves: reference tools, the browser, user and mount helpers,
/// the shells and groff that check the generated completions and man page.
const TEST_PROGRAMS: [&str; 19] = [
    "fio",
    "bonnie++",
    "postmark",
    "dbench",
    "fs_mark",
    "git",
    "make",
    "chromium",
    "setpriv",
    "unshare",
    "blkid",
    "wipefs",
    "losetup",
    "zsh",
    "fish",
    "groff",
    // The vm: target test boots a guest and makes jfs in it; the guest kernel fetched for
    // it gets its modules.dep from depmod.
    "qemu-system-x86_64",
    "mkfs.jfs",
    "depmod",
];

/// What building with `--features mpi` and running under mpirun needs.
fn mpi_needs() -> [Need; 3] {
    [
        Need::program("mpirun"),
        Need::program("mpicc"),
        Need::Library("libclang.so".into()),
    ]
}

/// Python modules the tests import (the spreadsheet is read back by openpyxl).
const TEST_MODULES: [&str; 1] = ["openpyxl"];

/// Install what is missing, or say that nothing is; then fetch the guest kernels, which
/// need a package (kmod's depmod) the install may just have brought.
pub fn setup(args: SetupArgs) -> anyhow::Result<ExitCode> {
    let (needs, notes) = needs(&args)?;
    for n in &notes {
        outln!("fsbattery setup: note: {n}")?;
    }
    let code = install(&needs, args.dry_run)?;
    if code == ExitCode::SUCCESS {
        guest_kernels(&args)?;
    } else if wants_guest_kernels(&args) {
        outln!(
            "fsbattery setup: the guest kernels are fetched once the packages above are installed"
        )?;
    }
    Ok(code)
}

/// Whether this setup fetches a guest kernel (the tests, or a `vm:` target).
fn wants_guest_kernels(args: &SetupArgs) -> bool {
    args.tests
        || args
            .targets
            .iter()
            .any(|t| fsbattery_core::targets::vm::is_vm(t))
}

/// Install the packages that provide what is missing from `needs` (or, in a dry run, say
/// which): success when nothing is missing after it or the dry run said what it would
/// install, exit 5 when the user must install.
fn install(needs: &[Need], dry_run: bool) -> anyhow::Result<ExitCode> {
    let r = packages::resolve(needs, packages::detect_family(), packages::present);
    if r.nothing_to_do() {
        outln!(
            "fsbattery setup: everything needed is installed ({} programs and modules checked); nothing to do",
            r.needs.len()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let missing: Vec<String> = r.missing.iter().map(|n| n.to_string()).collect();
    outln!("fsbattery setup: missing: {}", missing.join(", "))?;
    for u in &r.unprovided {
        outln!(
            "fsbattery setup: no {} package is known to provide {u}: install it yourself",
            r.family.manager()
        )?;
    }
    act(&r, dry_run)
}

/// `vm:` targets (and the tests, which boot a guest) need a distribution kernel: fetched
/// with `apt-get download` into fsbattery's cache and unpacked there, never installed.
fn guest_kernels(args: &SetupArgs) -> anyhow::Result<()> {
    use fsbattery_core::targets::vm;
    let mut wanted: Vec<Option<String>> = args
        .targets
        .iter()
        .filter(|t| vm::is_vm(t))
        .filter_map(|t| vm::VmSpec::parse(&t[vm::PREFIX.len()..]).ok())
        .map(|s| s.kernel)
        .collect();
    let cache = std::path::Path::new(vm::kernel::CACHE_DIR);
    if args.tests {
        wanted.push(None);
        // The kernels test runs two guests: a second, older kernel the distribution serves.
        if vm::kernel::cached(cache).len() < 2 {
            wanted.push(Some(
                vm::kernel::previous_package().map_err(anyhow::Error::msg)?,
            ));
        }
    }
    wanted.dedup();
    for want in wanted {
        let which = want.as_deref().unwrap_or(vm::kernel::META_PACKAGE);
        if let Ok(k) = vm::kernel::find(cache, want.as_deref()) {
            outln!(
                "fsbattery setup: guest kernel {} {} is in {}",
                k.package,
                k.version,
                k.dir.display()
            )?;
        } else if args.dry_run {
            outln!(
                "fsbattery setup: would fetch the guest kernel {which} into {}",
                cache.display()
            )?;
        } else {
            outln!("fsbattery setup: fetching the guest kernel {which} into {} (apt-get download, not installed)", cache.display())?;
            let (k, _) = vm::kernel::fetch(cache, want.as_deref()).map_err(anyhow::Error::msg)?;
            outln!(
                "fsbattery setup: guest kernel {} {} unpacked in {}",
                k.package,
                k.version,
                k.dir.display()
            )?;
        }
    }
    Ok(())
}

/// Dry run, install, or print the command for the user.
fn act(r: &Resolution, dry_run: bool) -> anyhow::Result<ExitCode> {
    let pkgs = r.packages.join(" ");
    let manual = ExitCode::from(EXIT_SETUP_NEEDED);
    if r.packages.is_empty() {
        return Ok(manual);
    }
    let root = packages::is_root();
    if dry_run {
        outln!(
            "fsbattery setup: would install {pkgs}: {}",
            r.command_line(!root)
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if r.family != Family::Apt || !root {
        let why = if root {
            format!(
                "fsbattery installs with apt-get only; on this {} system run",
                r.family.manager()
            )
        } else {
            "not root: run".to_string()
        };
        outln!("fsbattery setup: {why}: {}", r.command_line(!root))?;
        return Ok(manual);
    }
    outln!(
        "fsbattery setup: installing {pkgs}: {}",
        r.command_line(false)
    )?;
    for argv in r.commands() {
        let status = Command::new(&argv[0])
            .args(&argv[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .with_context(|| format!("running {}", argv.join(" ")))?;
        if !status.success() {
            anyhow::bail!("{} failed ({status})", argv.join(" "));
        }
    }
    let after = packages::resolve(&r.needs, r.family, packages::present);
    if !after.missing.is_empty() {
        let still: Vec<String> = after.missing.iter().map(|n| n.to_string()).collect();
        outln!(
            "fsbattery setup: still missing after install: {}",
            still.join(", ")
        )?;
        return Ok(manual);
    }
    outln!("fsbattery setup: done")?;
    Ok(ExitCode::SUCCESS)
}

/// Every need of the chosen targets, workloads and tests, and notes about defaults this
/// kernel cannot mount (no package fixes those; an explicit target of that kind is an error).
fn needs(args: &SetupArgs) -> Result<(Vec<Need>, Vec<String>), UsageError> {
    let mut needs = Vec::new();
    let mut notes = Vec::new();
    let explicit = !args.targets.is_empty();
    let mut specs: Vec<String> = if explicit {
        args.targets.clone()
    } else {
        targets::default_specs()
    };
    if args.tests {
        // The privileged FUSE tests make every FUSE kind beyond the defaults.
        specs.extend(targets::fuse_specs());
    }
    for (i, spec) in specs.iter().enumerate() {
        match targets::spec_needs(spec) {
            Ok(n) => needs.extend(n),
            Err(e) if !explicit || i >= args.targets.len() => notes.push(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    let method: Method = args.method.into();
    if method == Method::Commands || args.tests {
        let all = args.tests;
        for w in workload_names(args)?
            .iter()
            .filter_map(|n| workload::find(n))
        {
            needs.extend(w.commands().iter().map(|p| Need::program(p)));
        }
        if all {
            for w in workload::registry() {
                needs.extend(w.commands().iter().map(|p| Need::program(p)));
            }
        }
    }
    // Programs a workload runs whatever the method: applications (git, make) and servers
    // (pgbench's PostgreSQL).
    for w in workload_names(args)?
        .iter()
        .filter_map(|n| workload::find(n))
    {
        if w.always_commands() {
            needs.extend(w.commands().iter().map(|p| Need::program(p)));
        }
        needs.extend(w.programs().iter().map(|p| Need::program(p)));
    }
    if args.tests {
        for w in workload::registry() {
            needs.extend(w.programs().iter().map(|p| Need::program(p)));
        }
    }
    // A suite may run some workloads as commands itself (S1's touch and mkdir): their
    // programs are needed even without --method commands.
    if method == Method::Native {
        let s = fsbattery_core::plan::suite_of(args.suite.as_deref(), &args.workloads)?;
        for n in workload_names(args)? {
            let own = s.workload_settings.get(&n).and_then(|w| w.method);
            if let (Some(Method::Commands), Some(w)) = (own, workload::find(&n)) {
                needs.extend(w.commands().iter().map(|p| Need::program(p)));
            }
        }
    }
    if args.mpi || args.tests {
        needs.extend(mpi_needs());
    }
    if args.tests {
        needs.extend(TEST_PROGRAMS.iter().map(|p| Need::program(p)));
        needs.extend(
            TEST_MODULES
                .iter()
                .map(|m| Need::PythonModule(m.to_string())),
        );
    }
    Ok((needs, notes))
}

/// `--workload` names (validated) or the suite's.
fn workload_names(args: &SetupArgs) -> Result<Vec<String>, UsageError> {
    if args.workloads.is_empty() {
        let s = fsbattery_core::plan::suite_of(args.suite.as_deref(), &[])?;
        return Ok(s.workloads.into_iter().map(|(n, _)| n).collect());
    }
    for n in &args.workloads {
        workload::find_or_refuse(n)?;
    }
    Ok(args.workloads.clone())
}

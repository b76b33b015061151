//! `vm:` targets: filesystems made inside a small virtual machine booted from a distribution
//! kernel, for what the running kernel cannot make (jfs, reiserfs, nilfs2, md raid) and for
//! comparing kernels.
//!
//! Shape: the host does not make these filesystems itself. It fetches the kernel package once
//! (`kernel`, by `fsbattery setup`), builds an initramfs of its own binary and the tools the
//! guest needs (`initramfs`, `cpio`), gives every target its own sparse disk images, and
//! boots one guest per kernel (`qemu`) whose PID 1 is fsbattery (`guest`): it runs the same
//! plan as `fsbattery run` with each `vm:` target as a `dev:` target on its virtio disk (or
//! on the md array it assembles over its disks, see `job`), journaling into a 9p share on
//! the host, so a guest that dies loses no finished cell. The host then reads that run back.
//!
//! Invariants: the emulator, the images and the initramfs are guards of one session with a
//! state file (torn down on every signal, by `cleanup` after kill -9); the guest is given
//! nothing of the host's but those images, the kernel, the initramfs and the share directory;
//! the `vm:` targets of one guest share its configuration (kernel, accelerator, CPUs,
//! memory); a run naming several kernels boots one guest per kernel, one after the other
//! (`groups`), and its guests differ in nothing but the kernel.

pub mod cpio;
pub mod groups;
pub mod guest;
pub mod initramfs;
pub mod job;
pub mod kernel;
pub mod qemu;
pub mod spec;

use crate::guards::Session;
use crate::TargetError;
pub use spec::VmSpec;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The spec prefix.
pub const PREFIX: &str = "vm:";
/// Virtual CPUs of the guest.
pub const CPUS: u32 = 2;
/// Guest memory, MiB: enough for the quick and standard scales' datasets in the guest's
/// RAM-backed root, modest for TCG.
pub const MEM_MIB: u64 = 2048;

/// The grammar check of the target kinds table.
pub fn syntax(rest: &str) -> Result<(), String> {
    VmSpec::parse(rest).map(|_| ())
}

/// A `vm:` target is never made on the host: `fsbattery run` boots a guest for it (see
/// `fsbattery`'s `cmd/vm_run.rs`); every other command that makes targets refuses it here.
pub fn parse_refusal(
    spec: &str,
    rest: &str,
    _: &crate::TargetOptions,
) -> Result<Box<dyn crate::Target>, crate::error::UsageError> {
    let target = |message: String| crate::error::UsageError::Target {
        spec: spec.into(),
        message,
    };
    VmSpec::parse(rest).map_err(target)?;
    Err(target(
        "vm: targets run in a guest that `fsbattery run` boots; this command cannot make them"
            .into(),
    ))
}

/// Whether a `--target` spec is a `vm:` one.
pub fn is_vm(spec: &str) -> bool {
    spec.starts_with(PREFIX)
}

/// The guest's side of a run's `vm:` targets: the `dev:` specs its run gets (in order), the
/// md arrays it assembles first, and how many disks the host gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// One `dev:` spec per `vm:` target, in the given order.
    pub guest_specs: Vec<String>,
    /// Arrays to assemble.
    pub arrays: Vec<job::MdArray>,
    /// Per disk (in guest order): its size in bytes.
    pub disks: Vec<u64>,
}

/// Lay out the targets over disks: each target takes the next `disks` virtio disks, then
/// one more for an external journal.
pub fn layout(specs: &[VmSpec]) -> Layout {
    let mut l = Layout {
        guest_specs: Vec::new(),
        arrays: Vec::new(),
        disks: Vec::new(),
    };
    for s in specs {
        let first = l.disks.len();
        l.disks.extend((0..s.disks).map(|_| s.size));
        let members: Vec<String> = (first..l.disks.len()).map(spec::disk_name).collect();
        // The external journal's disk follows the data disks, outside any array.
        let journal = s.journal.map(|size| {
            l.disks.push(size);
            spec::disk_name(l.disks.len() - 1)
        });
        let device = match s.md_level {
            Some(level) => {
                let device = format!("/dev/md{}", l.arrays.len());
                l.arrays.push(job::MdArray {
                    device: device.clone(),
                    level,
                    members,
                });
                device
            }
            None => members[0].clone(),
        };
        l.guest_specs
            .push(s.guest_spec(&device, journal.as_deref()));
    }
    l
}

/// Parse every `vm:` spec (their grouping by kernel and final labels: [`groups::group`]).
pub fn parse_all(targets: &[String]) -> Result<Vec<VmSpec>, String> {
    targets
        .iter()
        .map(|t| {
            let rest = t.strip_prefix(PREFIX).unwrap_or(t);
            VmSpec::parse(rest).map_err(|e| format!("--target {t}: {e}"))
        })
        .collect()
}

/// The programs the guest gets, where the host has them: the targets' mkfs and mount tools,
/// mdadm for arrays, what `dev:` targets run, and `workload_programs` (what the workloads
/// run, given by the caller: targets sit below workloads and do not read their registry).
pub fn programs(specs: &[VmSpec], workload_programs: &[String]) -> Vec<String> {
    let mut p: Vec<String> = ["mount", "umount", "blkid", "wipefs", "sh", "mdadm", "sync"]
        .map(String::from)
        .to_vec();
    for s in specs {
        p.extend(fs_programs(s));
    }
    p.extend(workload_programs.iter().cloned());
    p.sort();
    p.dedup();
    p
}

/// The programs that make and mount a target's filesystem, with the one that prepares its
/// external journal device (ext4's `mke2fs -O journal_dev`), read from the argv builder.
fn fs_programs(s: &VmSpec) -> Vec<String> {
    let Ok(k) = crate::mkfs::FsKind::from_name(&s.fs) else {
        return Vec::new();
    };
    let mut p = k.programs();
    let prepare = k.entry().journal.and_then(|j| j.prepare);
    if let (Some(prepare), Some(_)) = (prepare, s.journal) {
        p.extend(prepare(Path::new("/dev/null"), &[]).into_iter().next());
    }
    p
}

/// What the host needs for a `vm:` spec (the part after `vm:`): the emulator, depmod for
/// the fetched kernel, and the programs the guest copies from the host to make this target
/// (the host's kernel need not support the filesystem: the guest's does).
pub fn needs(rest: &str) -> Result<Vec<crate::packages::Need>, String> {
    let s = VmSpec::parse(rest)?;
    let mut p = vec![
        crate::release::EMULATOR_PROGRAM.to_string(),
        "depmod".into(),
        "blkid".into(),
        "wipefs".into(),
    ];
    if s.md_level.is_some() {
        p.push("mdadm".into());
    }
    p.extend(fs_programs(&s));
    Ok(p.iter()
        .map(|p| crate::packages::Need::program(p))
        .collect())
}

/// A guest run to make.
pub struct Request<'a> {
    /// The kernel it boots.
    pub kernel: &'a kernel::Kernel,
    /// The `vm:` targets it runs.
    pub specs: &'a [VmSpec],
    /// fsbattery's arguments in the guest (from "run"), its targets already the layout's.
    pub argv: Vec<String>,
    /// Where the session (images, initramfs, state file) lives.
    pub workdir: &'a Path,
    /// The directory shared with the guest, which its run is written into (must exist).
    pub share: &'a Path,
    /// Where the guest's console is kept.
    pub console: &'a Path,
    /// The programs the workloads run (commands and external tools), for the initramfs.
    pub workload_programs: Vec<String>,
}

/// What became of a guest run.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How the emulator ended.
    pub end: qemu::End,
    /// The guest configuration, as the record keeps it.
    pub guest: fsbattery_record::guest::GuestInfo,
    /// Bytes of the initramfs.
    pub initramfs_bytes: u64,
}

/// Boot the guest, run the job, tear everything down (also on error and interruption).
pub fn run(req: &Request<'_>) -> Result<Finished, TargetError> {
    let kernel = req.kernel.clone();
    let emulator = crate::process::version(&[crate::release::EMULATOR_PROGRAM, "--version"])
        .ok_or_else(|| {
            TargetError(format!(
                "{} not found: install qemu-system-x86 (`fsbattery setup --target vm:FSTYPE`)",
                crate::release::EMULATOR_PROGRAM
            ))
        })?;
    let layout = layout(req.specs);
    let mut s = Session::begin(req.workdir, "vm")?;
    let mut disks = Vec::new();
    for (i, size) in layout.disks.iter().enumerate() {
        disks.push(s.make_file(&format!("disk{i}.img"), *size)?.0);
    }
    let mods: Vec<String> = req
        .specs
        .iter()
        .flat_map(|v| initramfs::modules_for(&v.fs, v.md_level))
        .collect();
    let contents = initramfs::gather(&kernel, &programs(req.specs, &req.workload_programs), &mods)
        .map_err(TargetError)?;
    let job = job::Job {
        modules: contents.modules.clone(),
        arrays: layout.arrays.clone(),
        argv: req.argv.clone(),
    };
    let (initrd, _) = s.make_file("initramfs.cpio", 0)?;
    let initramfs_bytes = initramfs::write(&initrd, &contents, &job).map_err(TargetError)?;
    let machine = qemu::Machine {
        accel: "tcg".into(),
        cpus: CPUS,
        mem_mib: MEM_MIB,
        kernel: kernel.vmlinuz(),
        initrd,
        disks,
        share: req.share.to_path_buf(),
        pidfile: s.dir().join("qemu.pid"),
    };
    let timeout = req
        .specs
        .iter()
        .map(|v| v.timeout)
        .max()
        .unwrap_or(spec::DEFAULT_TIMEOUT);
    let watch = req.share.join("run").join(crate::journal::JOURNAL_FILE);
    let ran = qemu::run(
        &mut s,
        &machine,
        req.console,
        &watch,
        Duration::from_secs(timeout),
    );
    // QEMU writes its pid file itself; it goes with the session directory.
    let _ = std::fs::remove_file(&machine.pidfile);
    s.close()?;
    let ran = ran?;
    Ok(Finished {
        end: ran.end,
        guest: fsbattery_record::guest::GuestInfo {
            kernel_package: kernel.package,
            kernel_version: kernel.version,
            emulator: emulator_name(&emulator),
            accelerator: machine.accel.to_uppercase(),
            cpus: machine.cpus,
            memory_bytes: machine.mem_mib << 20,
            boot_secs: ran.boot_secs,
        },
        initramfs_bytes,
    })
}

/// "QEMU emulator version 7.2.19 (Debian 1:7.2+dfsg-7+deb12u18)" → "QEMU 7.2.19".
fn emulator_name(version_line: &str) -> String {
    match version_line.split_once("version ") {
        Some((_, v)) => format!("QEMU {}", v.split_whitespace().next().unwrap_or(v)),
        None => version_line.to_string(),
    }
}

/// A path of the run's share as the host sees it, for messages.
pub fn share_run_dir(share: &Path) -> PathBuf {
    share.join("run")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_take_their_own_disks() {
        let specs = parse_all(&[
            "vm:jfs".into(),
            "vm:md-raid10:xfs,disks=4,size=1G,journal=external".into(),
            "vm:ext4".into(),
        ])
        .unwrap();
        let l = layout(&specs);
        assert_eq!(l.disks.len(), 7);
        assert_eq!(l.disks[5], spec::DEFAULT_JOURNAL);
        assert_eq!(l.guest_specs[0], "dev:/dev/vda,fs=jfs,label=jfs");
        assert_eq!(
            l.guest_specs[1],
            "dev:/dev/md0,fs=xfs,label=md-raid10-xfs-extlog,journal=/dev/vdf"
        );
        assert_eq!(l.guest_specs[2], "dev:/dev/vdg,fs=ext4,label=ext4");
        assert_eq!(
            l.arrays[0].members,
            ["/dev/vdb", "/dev/vdc", "/dev/vdd", "/dev/vde"]
        );
    }

    #[test]
    fn emulator_is_named_with_its_version() {
        assert_eq!(
            emulator_name("QEMU emulator version 7.2.19 (Debian 1:7.2+dfsg-7+deb12u18)"),
            "QEMU 7.2.19"
        );
    }
}

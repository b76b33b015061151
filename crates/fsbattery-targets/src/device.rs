//! `dev:/dev/NAME[,fs=FSTYPE]...` — a filesystem made on a block device the user names.
//!
//! Invariants: parsing only reads (stat, sysfs, /proc, `blkid -p`, an O_EXCL open that is
//! closed at once). A device in use — mounted (itself or a partition), swap, held by another
//! driver, or busy — is always refused. A partition, a partition table or any filesystem
//! signature is refused unless `destroy_data` is set. The signatures our mkfs writes are
//! wiped on teardown, so a device given blank is handed back blank.

use super::blockstat::sys_dir;
use super::guards::Session;
use super::made::{require_root, run_all, Made};
use super::mkfs::{mkfs_commands, mount_command, Devices, FsKind, MkfsOptions};
use super::release::Handle;
use super::spec::DevSpec;
use super::state::Resource;
use super::{TargetError, TargetOptions};
use crate::error::UsageError;
use std::collections::HashSet;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// Read and check a `dev:` spec (no side effects but an exclusive open, closed at once);
/// `fstarget` makes it a target.
pub(super) fn parse(spec: &str, rest: &str, opts: &TargetOptions) -> Result<DevSpec, UsageError> {
    let bad = |m: String| UsageError::Target {
        spec: spec.into(),
        message: m,
    };
    let mut d = DevSpec::parse(rest).map_err(bad)?;
    let fs = d.fs.name().to_string();
    super::fsdefaults::apply(&opts.fs_defaults, &fs, spec, &mut d.mkfs, &mut d.mount)
        .map_err(bad)?;
    d.fs.check_known().map_err(|e| bad(e.to_string()))?;
    require_root().map_err(bad)?;
    d.fs.check_available()
        .map_err(|e| bad(e.for_target(d.fs.name())))?;
    check_device(&d.device, opts.destroy_data).map_err(bad)?;
    check_size(&d.device, &d.fs).map_err(bad)?;
    if let Some(j) = &d.journal {
        check_device(j, opts.destroy_data).map_err(|e| bad(format!("journal={e}")))?;
    }
    Ok(d)
}

fn read_dev(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

/// "maj:min" of the device and of each of its partitions.
fn family(sys: &Path) -> HashSet<String> {
    let mut ids: HashSet<String> = read_dev(&sys.join("dev")).into_iter().collect();
    if let Ok(rd) = std::fs::read_dir(sys) {
        for e in rd.flatten() {
            if e.path().join("partition").exists() {
                ids.extend(read_dev(&e.path().join("dev")));
            }
        }
    }
    ids
}

/// "maj:min" of a path when it is a block device.
fn dev_id(path: &str) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    m.file_type()
        .is_block_device()
        .then(|| format!("{}:{}", libc::major(m.rdev()), libc::minor(m.rdev())))
}

/// Refuse a device that is in use, and (unless `destroy`) one that holds anything.
pub fn check_device(dev: &Path, destroy: bool) -> Result<(), String> {
    let shown = dev.display();
    let meta = std::fs::metadata(dev).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.file_type().is_block_device() {
        return Err(format!("{shown} is not a block device"));
    }
    let sys = sys_dir(meta.rdev());
    check_in_use(dev, &sys)?;
    if read_dev(&sys.join("size")).is_none_or(|s| s == "0") {
        return Err(format!("{shown} has no medium (size 0)"));
    }
    if read_dev(&sys.join("ro")).as_deref() == Some("1") {
        return Err(format!("{shown} is read-only"));
    }
    if destroy {
        return Ok(());
    }
    let keep = "fsbattery would destroy it; pass --destroy-data to allow that";
    if sys.join("partition").exists() {
        return Err(format!(
            "{shown} is a partition, not a whole device: {keep}"
        ));
    }
    if family(&sys).len() > 1 {
        return Err(format!("{shown} has partitions: {keep}"));
    }
    match probe_signature(dev)? {
        Some(what) => Err(format!("{shown} holds {what}: {keep}")),
        None => Ok(()),
    }
}

/// Refuse a device smaller than the filesystem's minimum (mkfs would fail later anyway).
fn check_size(dev: &Path, fs: &FsKind) -> Result<(), String> {
    std::fs::metadata(dev).map_err(|e| format!("{}: {e}", dev.display()))?;
    let bytes = geometry(dev).1.unwrap_or(0);
    if bytes < fs.min_size() {
        return Err(format!(
            "{} holds {} but {} needs at least {}",
            dev.display(),
            crate::units::format_bytes(bytes),
            fs.name(),
            crate::units::format_bytes(fs.min_size())
        ));
    }
    Ok(())
}

/// The device's logical block size (O_DIRECT's alignment) and its bytes, from sysfs; a
/// partition's block size is its disk's.
pub(super) fn geometry(dev: &Path) -> (Option<u64>, Option<u64>) {
    let Ok(meta) = std::fs::metadata(dev) else {
        return (None, None);
    };
    let sys = sys_dir(meta.rdev());
    let num = |p: &Path| read_dev(p).and_then(|s| s.parse::<u64>().ok());
    let lbs = ["queue", "../queue"]
        .iter()
        .find_map(|q| num(&sys.join(q).join("logical_block_size")));
    (lbs, num(&sys.join("size")).map(|s| s.saturating_mul(512)))
}

/// Mounted (itself, a partition, or an alias: see `alias`), swap, held by dm/md, or busy:
/// never usable.
fn check_in_use(dev: &Path, sys: &Path) -> Result<(), String> {
    let shown = dev.display();
    let mut ids = family(sys);
    let aliases = alias_names(sys);
    for name in &aliases {
        ids.extend(family(&Path::new("/sys/block").join(name)));
    }
    let via = |id: &str| match family(sys).contains(id) {
        true => String::new(),
        false => " (it shares its storage with that device)".to_string(),
    };
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    for m in super::fsinfo::parse_mounts(&mounts) {
        let id = Some(&m.device)
            .filter(|d| d.starts_with('/'))
            .and_then(|d| dev_id(d));
        if let Some(id) = id.filter(|id| ids.contains(id)) {
            return Err(format!(
                "{shown} is in use: {} is mounted on {}{}",
                m.device,
                m.mount_point,
                via(&id)
            ));
        }
    }
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    for l in swaps.lines().skip(1) {
        let path = l.split_whitespace().next().unwrap_or("");
        if let Some(id) = dev_id(path).filter(|id| ids.contains(id)) {
            return Err(format!("{shown} is in use as swap ({path}){}", via(&id)));
        }
    }
    let held = std::fs::read_dir(sys.join("holders"))
        .map(|mut r| r.next().is_some())
        .unwrap_or(false);
    if held {
        return Err(format!(
            "{shown} is in use: held by another driver (see {}/holders)",
            sys.display()
        ));
    }
    // `sys` is /sys/dev/block/MAJ:MIN, a link to the device's directory, named as the kernel
    // names it (and as other devices' `holders` list it).
    let own = sys
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    for name in &aliases {
        // A member the target itself holds (an md array's disks, as in a `vm:md-raid10:`
        // guest) is the target's own storage, not another use of it.
        if own.as_deref().is_some_and(|own| held_only_by(name, own)) {
            continue;
        }
        let alias = Path::new("/dev").join(name);
        exclusive_open(&alias)
            .map_err(|e| format!("{shown} shares its storage with {}: {e}", alias.display()))?;
    }
    exclusive_open(dev)
}

/// Whether block device `name`'s only holder is `holder` (sysfs `holders`).
fn held_only_by(name: &str, holder: &str) -> bool {
    let dir = Path::new("/sys/block").join(name).join("holders");
    let holders: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    holders == [holder]
}

/// Kernel names of the devices that share storage with the one at `sys`.
fn alias_names(sys: &Path) -> Vec<String> {
    let all = super::alias::snapshot();
    let Some(id) = read_dev(&sys.join("dev")) else {
        return Vec::new();
    };
    let Some(me) = all.iter().find(|b| b.id == id) else {
        return Vec::new();
    };
    let ids = super::alias::aliases(me, &all);
    all.iter()
        .filter(|b| ids.contains(&b.id))
        .map(|b| b.name.clone())
        .collect()
}

/// O_EXCL on a block device fails while anything has it claimed (mount, md, dm, mkfs).
fn exclusive_open(dev: &Path) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(dev)
        .map(drop)
        .map_err(|e| format!("{} is in use ({e})", dev.display()))
}

/// What `blkid -p` finds on the device ("ext4 filesystem", "gpt partition table"), if any.
fn probe_signature(dev: &Path) -> Result<Option<String>, String> {
    let argv: Vec<String> = vec![
        "blkid".into(),
        "-p".into(),
        "-o".into(),
        "export".into(),
        dev.display().to_string(),
    ];
    let (ran, code) = crate::process::run_status(&argv).map_err(|e| {
        let need = crate::packages::Need::program("blkid");
        format!(
            "cannot probe {} for data: {e} ({})",
            dev.display(),
            crate::packages::hint_here(&need)
        )
    })?;
    match code {
        Some(2) => Ok(None),
        Some(0) => {
            let field = |k: &str| {
                ran.output
                    .lines()
                    .find_map(|l| l.strip_prefix(k).map(str::to_string))
            };
            let what = match (field("TYPE="), field("PTTYPE=")) {
                (_, Some(pt)) => format!("a {pt} partition table"),
                (Some(t), None) => format!("a {t} signature"),
                (None, None) => "a signature blkid recognises".into(),
            };
            Ok(Some(what))
        }
        _ => Err(format!(
            "{} could not probe {}: {}",
            ran.command,
            dev.display(),
            ran.output.trim()
        )),
    }
}

/// The filesystem UUID `blkid -p` reads from `dev` right now, if any.
pub fn fs_uuid(dev: &Path) -> Option<String> {
    let argv: Vec<String> = vec![
        "blkid".into(),
        "-p".into(),
        "-o".into(),
        "value".into(),
        "-s".into(),
        "UUID".into(),
        dev.display().to_string(),
    ];
    match crate::process::run_status(&argv) {
        Ok((ran, Some(0))) => Some(ran.output.trim().to_string()).filter(|u| !u.is_empty()),
        _ => None,
    }
}

/// Make and mount the filesystem on the user's device.
pub(super) fn make(s: &mut Session, d: &DevSpec) -> Result<Made, TargetError> {
    let shown = d.device.display();
    exclusive_open(&d.device).map_err(TargetError)?;
    let mount_point = s.make_dir("mnt")?;
    let mut sig = Resource::Signature {
        device: d.device.clone(),
        uuid: None,
    };
    let id = s.record(&sig)?;
    s.created(id, sig.clone(), Handle::None);
    if d.fs.entry().pool_on_files() {
        let vdevs = [d.device.clone()];
        return super::zfs::make(s, &vdevs, None, &d.mkfs, d.mount.as_deref(), mount_point);
    }
    if let Some(j) = &d.journal {
        // Its journal superblock is ours too: `cleanup` wipes it as it wipes the data device.
        exclusive_open(j).map_err(TargetError)?;
        let sig = Resource::Signature {
            device: j.clone(),
            uuid: None,
        };
        let id = s.record(&sig)?;
        s.created(id, sig, Handle::None);
    }
    let devs = Devices {
        data: vec![d.device.clone()],
        journal: d.journal.clone(),
    };
    let o = MkfsOptions {
        extra: d.mkfs.clone(),
        profile: None,
    };
    let mkfs = run_all(&mkfs_commands(&d.fs, &devs, &o))
        .map_err(|e| TargetError(format!("making {} on {shown}: {e}", d.fs.name())))?;
    // The UUID is what lets `cleanup` prove, after a crash, that the device still holds the
    // filesystem we made before it wipes it.
    if let Resource::Signature { uuid, .. } = &mut sig {
        *uuid = fs_uuid(&d.device);
    }
    s.replace(id, sig);
    let (argv, source) = mount_command(&d.fs, &devs, d.mount.as_deref(), &mount_point);
    let fuse = d.fs.is_fuse().then(|| d.fs.mount_tool());
    let mount = s.mount(&argv, &source, &mount_point, fuse)?;
    Ok(Made {
        mount_point,
        mkfs: Some(mkfs),
        mount,
        devices: super::blockstat::roles(&devs),
    })
}

//! `loop:FSTYPE,...` — filesystems made on sparse image files in the work directory.
//!
//! Each setup: session directory, mount point, image(s) created with O_EXCL, each bound to a
//! loop device (ioctls, autoclear), mkfs with default options, mount. A kind that makes a
//! pool on the image files (zfs: zfs-fuse takes them as vdevs) skips the loop devices. Space is checked at parse time
//! and again before each setup: images may not leave under 10% free on the host filesystem,
//! and a work directory in RAM (tmpfs) must hold them in available memory.

use super::guards::Session;
use super::made::{require_root, run_all, workdir_of, Made};
use super::mkfs::{mkfs_commands, mount_command, Devices, MkfsOptions};
use super::spec::LoopSpec;
use super::{TargetError, TargetOptions};
use crate::error::UsageError;
use crate::units::format_bytes;
use std::path::{Path, PathBuf};

/// Read and check a `loop:` spec (no side effects); `fstarget` makes it a target.
pub(super) fn parse(spec: &str, rest: &str, opts: &TargetOptions) -> Result<LoopSpec, UsageError> {
    let bad = |m: String| UsageError::Target {
        spec: spec.into(),
        message: m,
    };
    let mut l = LoopSpec::parse(rest).map_err(bad)?;
    let size_given = rest
        .split(',')
        .any(|kv| kv.trim_start().starts_with("size="));
    if let (Some(size), false) = (opts.image_size, size_given) {
        l.size = l.size.max(size);
        // A kind whose writes never shrink its images (nilfs2) is counted whole.
        if !l.fs.entry().counted_whole {
            l.written = opts.image_written;
        }
    }
    if opts.loop_dio
        && !rest
            .split(',')
            .any(|kv| kv.trim_start().starts_with("dio="))
    {
        l.dio = true;
    }
    let fs = l.fs.name().to_string();
    super::fsdefaults::apply(&opts.fs_defaults, &fs, spec, &mut l.mkfs, &mut l.mount)
        .map_err(bad)?;
    l.fs.check_known().map_err(|e| bad(e.to_string()))?;
    require_root().map_err(bad)?;
    if l.fs.entry().needs_loop_devices() && !Path::new("/dev/loop-control").exists() {
        return Err(bad(
            "/dev/loop-control is missing: this kernel or container has no loop devices".into(),
        ));
    }
    l.fs.check_available()
        .map_err(|e| bad(e.for_target(l.fs.name())))?;
    let workdir = workdir_of(opts);
    check_space(&workdir, l.space_bytes()).map_err(bad)?;
    Ok(l)
}

/// Refuse images of `bytes` in `workdir` when they would leave < 10% of its filesystem free,
/// or when `workdir` is in RAM and they would not fit in available memory.
pub fn check_space(workdir: &Path, bytes: u64) -> Result<(), String> {
    let Some(existing) = workdir.ancestors().find(|p| p.exists()) else {
        return Ok(());
    };
    let st = nix::sys::statvfs::statvfs(existing)
        .map_err(|e| format!("statvfs {}: {e}", existing.display()))?;
    let frag = st.fragment_size();
    let (total, avail) = (st.blocks() * frag, st.blocks_available() * frag);
    if avail < bytes || avail - bytes < total / 10 {
        return Err(format!(
            "images of {} in {} would leave under 10% free on its filesystem ({} available of {}): \
             use a smaller size= or another --workdir",
            format_bytes(bytes),
            workdir.display(),
            format_bytes(avail),
            format_bytes(total)
        ));
    }
    if crate::residency::in_memory(existing) {
        let mem = mem_available();
        if bytes > mem {
            return Err(format!(
                "{} is on tmpfs (RAM) and images of {} would not fit in available memory ({}): \
                 use a --workdir on a disk",
                workdir.display(),
                format_bytes(bytes),
                format_bytes(mem)
            ));
        }
    }
    Ok(())
}

/// MemAvailable from /proc/meminfo, in bytes (0 when unreadable, which refuses RAM workdirs).
fn mem_available() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Make and mount the filesystem `l` describes inside the session.
pub(super) fn make(s: &mut Session, l: &LoopSpec) -> Result<Made, TargetError> {
    let mount_point = s.make_dir("mnt")?;
    let mut images = Vec::new();
    for i in 0..l.devices {
        images.push(s.make_file(&format!("disk{i}.img"), l.size)?);
    }
    // A kind that makes a pool on the image files themselves (zfs) takes its own path.
    if l.fs.entry().pool_on_files() {
        let vdevs: Vec<PathBuf> = images.into_iter().map(|(p, _)| p).collect();
        return super::zfs::make(
            s,
            &vdevs,
            l.layout.as_deref(),
            &l.mkfs,
            l.mount.as_deref(),
            mount_point,
        );
    }
    let forget = l.fs.entry().registers_devices;
    let mut data = Vec::new();
    for (image, id) in &images {
        data.push(s.attach_loop(image, *id, forget, l.dio)?);
    }
    let journal = match l.journal {
        Some(size) => {
            let (image, id) = s.make_file("journal.img", size)?;
            Some(s.attach_loop(&image, id, false, l.dio)?)
        }
        None => None,
    };
    let devs = Devices { data, journal };
    let o = MkfsOptions {
        extra: l.mkfs.clone(),
        profile: l.profile.clone(),
    };
    let mkfs = run_all(&mkfs_commands(&l.fs, &devs, &o))?;
    let (argv, source) = mount_command(&l.fs, &devs, l.mount.as_deref(), &mount_point);
    let fuse = l.fs.is_fuse().then(|| l.fs.mount_tool());
    let mount = s.mount(&argv, &source, &mount_point, fuse)?;
    Ok(Made {
        mount_point,
        mkfs: Some(mkfs),
        mount,
        devices: super::blockstat::roles(&devs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_check_refuses_what_cannot_fit() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_space(dir.path(), 1 << 20).is_ok());
        let e = check_space(&dir.path().join("not/yet"), u64::MAX / 2).unwrap_err();
        assert!(e.contains("under 10% free"), "{e}");
    }
}

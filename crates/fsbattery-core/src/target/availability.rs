//! Which filesystems this machine can make and mount, and the default target list.
//!
//! Probing only reads: PATH lookups, /proc/filesystems, /lib/modules, /dev nodes, euid.

use super::mkfs::{kernel_supports, FsKind, KNOWN};
use super::{Target, TargetOptions};
use std::path::Path;

/// Filesystems the default run compares (plus tmpfs), as in the seed studies.
const DEFAULT_FS: [&str; 5] = ["ext2", "ext3", "ext4", "xfs", "btrfs"];

/// Every filesystem fsbattery knows, with `Ok` or why this machine cannot use it
/// ("mkfs.xfs missing: apt-get install xfsprogs", "kernel lacks f2fs ...").
pub fn availability() -> Vec<(String, Result<(), String>)> {
    KNOWN
        .iter()
        .map(|name| (name.to_string(), check(name)))
        .collect()
}

fn check(name: &str) -> Result<(), String> {
    let fs = if name == "tmpfs" {
        None
    } else {
        Some(FsKind::from_name(name)?)
    };
    match &fs {
        None => kernel_supports("tmpfs")?,
        Some(fs) => fs.check_available()?,
    }
    if !nix::unistd::geteuid().is_root() {
        return Err("needs root to mount".into());
    }
    let needs_loop = fs.as_ref().is_some_and(|f| *f != FsKind::Zfs);
    if needs_loop && !Path::new("/dev/loop-control").exists() {
        return Err("no /dev/loop-control: loop devices unavailable".into());
    }
    Ok(())
}

/// Loop targets for each of ext2, ext3, ext4, xfs and btrfs this machine can make, plus
/// tmpfs — when running as root with loop devices; otherwise `Err(why)` (the CLI then falls
/// back to a plain directory).
pub fn default_targets(opts: &TargetOptions) -> Result<Vec<Box<dyn Target>>, String> {
    if !nix::unistd::geteuid().is_root() {
        return Err("not running as root: filesystems cannot be made and mounted".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Err("no /dev/loop-control: loop devices unavailable".into());
    }
    let mut out: Vec<Box<dyn Target>> = Vec::new();
    let mut missing = Vec::new();
    for fs in DEFAULT_FS {
        match check(fs) {
            Ok(()) => {
                out.push(super::parse(&format!("loop:{fs}"), opts).map_err(|e| e.to_string())?)
            }
            Err(why) => missing.push(format!("{fs}: {why}")),
        }
    }
    if out.is_empty() {
        return Err(format!(
            "no filesystem can be made here ({})",
            missing.join("; ")
        ));
    }
    out.push(super::parse("tmpfs", opts).map_err(|e| e.to_string())?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_filesystem_is_reported() {
        let a = availability();
        assert_eq!(a.len(), KNOWN.len());
        for (name, r) in &a {
            if let Err(why) = r {
                assert!(!why.is_empty(), "{name}");
            }
        }
    }
}

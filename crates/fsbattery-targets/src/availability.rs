//! Which filesystems this machine can make and mount, and the default target list.
//!
//! Probing only reads: PATH lookups, /proc/filesystems, /lib/modules, /dev nodes, euid.

use super::kinds;
use super::mkfs::{kernel_supports, FsKind, Unavailable};
use super::spec::{DevSpec, LoopSpec};
use super::{Target, TargetOptions};
use crate::error::UsageError;
use crate::model::SkippedTarget;
use crate::packages::Need;
use std::path::Path;

/// Filesystems the default run compares (plus tmpfs), as in the seed studies: the kinds
/// marked `default`, in table order.
fn default_fs() -> impl Iterator<Item = &'static str> {
    kinds::TABLE.iter().filter(|e| e.default).map(|e| e.name)
}

/// Every filesystem fsbattery knows, with `Ok` or why this machine cannot use it
/// ("mkfs.xfs not found: install xfsprogs (apt-get install ...)", "this kernel cannot mount
/// f2fs ...").
pub fn availability() -> Vec<(String, Result<(), String>)> {
    kinds::known_names()
        .iter()
        .map(|name| (name.to_string(), check(name)))
        .collect()
}

fn check(name: &str) -> Result<(), String> {
    // A kind not made on images (tmpfs) needs only the kernel.
    let fs = match kinds::lookup(name) {
        Some(e) if !e.on_images() => None,
        _ => Some(FsKind::from_name(name)?),
    };
    match &fs {
        None => kernel_supports(name).map_err(|e| e.to_string())?,
        Some(fs) => fs.check_available().map_err(|e| e.to_string())?,
    }
    if !nix::unistd::geteuid().is_root() {
        return Err("needs root to mount".into());
    }
    let needs_loop = fs.as_ref().is_some_and(|f| f.entry().needs_loop_devices());
    if needs_loop && !Path::new("/dev/loop-control").exists() {
        return Err("no /dev/loop-control: loop devices unavailable".into());
    }
    Ok(())
}

/// The default targets this machine can make, and the defaults it cannot, with why.
pub struct Defaults {
    /// Loop targets for each default filesystem that can be made, then tmpfs.
    pub targets: Vec<Box<dyn Target>>,
    /// Each default filesystem that cannot, with the reason and the fix.
    pub skipped: Vec<SkippedTarget>,
}

/// Loop targets for each of ext2, ext3, ext4, xfs and btrfs this machine can make, plus
/// tmpfs — when running as root with loop devices; otherwise `Err(why)` (the CLI then falls
/// back to a plain directory). A default it cannot make is kept in `skipped`; when none of
/// the five can be made, `targets` is empty.
pub fn default_targets(opts: &TargetOptions) -> Result<Defaults, String> {
    if !nix::unistd::geteuid().is_root() {
        return Err("not running as root: filesystems cannot be made and mounted".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Err("no /dev/loop-control: loop devices unavailable".into());
    }
    let mut d = Defaults {
        targets: Vec::new(),
        skipped: Vec::new(),
    };
    for fs in default_fs() {
        let spec = format!("loop:{fs}");
        match FsKind::from_name(fs)
            .expect("a default name")
            .check_available()
        {
            Ok(()) => d
                .targets
                .push(super::parse(&spec, opts).map_err(|e| e.to_string())?),
            Err(why) => d.skipped.push(skipped(spec, &why)),
        }
    }
    if d.targets.is_empty() {
        return Ok(d);
    }
    match kernel_supports("tmpfs") {
        Ok(()) => d
            .targets
            .push(super::parse("tmpfs", opts).map_err(|e| e.to_string())?),
        Err(why) => d.skipped.push(skipped("tmpfs".into(), &why)),
    }
    Ok(d)
}

/// A skipped default: a missing tool is fixed by `fsbattery setup` (which covers every
/// default), naming the package manager's own command too.
fn skipped(spec: String, why: &Unavailable) -> SkippedTarget {
    let (reason, fix) = match why {
        Unavailable::Missing {
            program,
            fix: Some(cmd),
            ..
        } => (
            format!("{program} not found"),
            Some(format!("fsbattery setup ({cmd})")),
        ),
        other => (other.to_string(), None),
    };
    SkippedTarget { spec, reason, fix }
}

/// The default target specs: the five default filesystems on loop images, then tmpfs.
pub fn default_specs() -> Vec<String> {
    default_fs()
        .map(|f| format!("loop:{f}"))
        .chain(std::iter::once("tmpfs".to_string()))
        .collect()
}

/// A `loop:` spec for every FUSE filesystem kind, in table order: what the privileged FUSE
/// tests make, so `setup --tests` installs their tools.
pub fn fuse_specs() -> Vec<String> {
    kinds::TABLE
        .iter()
        .filter(|e| matches!(e.serve, kinds::Serve::Fuse { .. }))
        .map(|e| format!("loop:{}", e.name))
        .collect()
}

/// The programs a target spec needs (for `fsbattery setup`), without probing anything but
/// the kernel's filesystem list. An unknown filesystem name, or one this kernel cannot
/// mount (no package fixes that), is a usage error.
pub fn spec_needs(spec: &str) -> Result<Vec<Need>, UsageError> {
    let bad = |m: String| UsageError::Target {
        spec: spec.into(),
        message: m,
    };
    let (prefix, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let (fs, extra): (Option<FsKind>, &[&str]) = match prefix {
        "dir" => (None, &[]),
        "tmpfs" => (None, &["mount"]),
        "loop" => (Some(LoopSpec::parse(rest).map_err(bad)?.fs), &[]),
        "dev" => (
            Some(DevSpec::parse(rest).map_err(bad)?.fs),
            &["blkid", "wipefs"],
        ),
        "vm" => return super::vm::needs(rest).map_err(bad),
        _ => return super::parse(spec, &TargetOptions::default()).map(|_| Vec::new()),
    };
    let mut needs: Vec<Need> = extra.iter().map(|p| Need::program(p)).collect();
    if let Some(fs) = fs {
        match fs.check_available() {
            Err(e @ (Unavailable::Unknown(_) | Unavailable::Kernel { .. })) => {
                return Err(bad(e.for_target(fs.name())))
            }
            _ => needs.extend(fs.programs().iter().map(|p| Need::program(p))),
        }
    }
    Ok(needs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fuse_specs_are_the_fuse_kinds() {
        let specs = fuse_specs();
        assert_eq!(
            specs[..4],
            ["loop:ntfs", "loop:exfat", "loop:fuse2fs", "loop:zfs"]
        );
    }

    #[test]
    fn every_known_filesystem_is_reported() {
        let a = availability();
        assert_eq!(a.len(), kinds::known_names().len());
        for (name, r) in &a {
            if let Err(why) = r {
                assert!(!why.is_empty(), "{name}");
            }
        }
    }
}

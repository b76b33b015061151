//! A filesystem to make, and what making it takes on this machine: whether the kernel (or
//! FUSE) can mount it, which tool is missing (and which package holds it), and the exact mkfs
//! and mount command lines. What each filesystem is and can do is its entry in the kinds
//! table (`kinds/`); this file reads the entries and decides nothing per filesystem.
//!
//! Invariant: filesystems are made with the tool's default options, as the seed studies did;
//! the only flags added are those needed to run without a prompt (`-F`, `-f`, `-Q`, `-q`) and
//! those that wire extra devices in (external journal/log, multi-device). Everything else
//! comes from the user's `mkfs=` and `mount=` options.

use super::kinds::{self, FsEntry, Serve};
use crate::process::which;
use std::path::{Path, PathBuf};

/// A filesystem fsbattery can make on a block device or image: an entry of the kinds table
/// ([`kinds::TABLE`]), or any other kernel filesystem with a `mkfs.NAME` tool.
#[derive(Debug, Clone)]
pub enum FsKind {
    /// A registered kind (ext4, xfs, btrfs, ntfs, zfs, ...).
    Known(&'static FsEntry),
    /// Any other kernel filesystem with a `mkfs.NAME` tool, made as [`kinds::kernel::GENERIC`].
    Other(String),
}

impl PartialEq for FsKind {
    fn eq(&self, other: &FsKind) -> bool {
        self.name() == other.name()
    }
}
impl Eq for FsKind {}

impl FsKind {
    /// Parse a filesystem name as written in a spec (a registered name or alias, or any
    /// lower-case name for a kernel filesystem's `mkfs.NAME`).
    pub fn from_name(name: &str) -> Result<FsKind, String> {
        match kinds::lookup(name) {
            Some(e) if !e.on_images() => Err(format!(
                "{n} is not made on an image: use the target {n}",
                n = e.name
            )),
            Some(e) => Ok(FsKind::Known(e)),
            None if name.is_empty() => Err("no filesystem type given".into()),
            None if name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') =>
            {
                Ok(FsKind::Other(name.into()))
            }
            None => Err(format!("'{name}' is not a filesystem name")),
        }
    }

    /// Its entry: what it is and can do.
    pub fn entry(&self) -> &'static FsEntry {
        match self {
            FsKind::Known(e) => e,
            FsKind::Other(_) => &kinds::kernel::GENERIC,
        }
    }

    /// The name as written in specs and labels.
    pub fn name(&self) -> &str {
        match self {
            FsKind::Known(e) => e.name,
            FsKind::Other(n) => n,
        }
    }

    /// Served by a FUSE daemon rather than the kernel.
    pub fn is_fuse(&self) -> bool {
        matches!(self.entry().serve, Serve::Fuse { .. })
    }

    /// Smallest image the mkfs tool accepts (per device), with margin.
    pub fn min_size(&self) -> u64 {
        self.entry().min_size
    }

    /// The tool that makes it.
    pub fn mkfs_tool(&self) -> String {
        match self.entry().mkfs.tool {
            Some(t) => t.into(),
            None => format!("mkfs.{}", self.name()),
        }
    }

    /// The program that mounts it (FUSE helpers are also the daemon's argv[0]).
    pub fn mount_tool(&self) -> &'static str {
        match self.entry().serve {
            Serve::Fuse { daemon, .. } => daemon,
            Serve::Kernel | Serve::Ram => "mount",
        }
    }

    /// The programs making and mounting it runs (looked up in [`crate::packages`] for the
    /// package that provides each).
    pub fn programs(&self) -> Vec<String> {
        let mut v = vec![self.mkfs_tool(), self.mount_tool().to_string()];
        v.extend(self.entry().extra_programs.iter().map(|p| p.to_string()));
        v
    }

    /// Why this machine cannot make and mount it, or Ok. A name fsbattery does not know and
    /// the kernel does not list is unknown (a typo, not a missing tool); a kernel filesystem
    /// the kernel cannot mount says so before any tool is asked for, since no package fixes it.
    pub fn check_available(&self) -> Result<(), Unavailable> {
        self.check_known()?;
        if !self.is_fuse() {
            kernel_supports(self.name())?;
        }
        for tool in self.programs() {
            if which(&tool).is_none() {
                return Err(Unavailable::missing(&tool));
            }
        }
        if self.is_fuse() {
            fuse_available().map_err(Unavailable::Other)?;
        }
        Ok(())
    }

    /// `Unknown` for a name neither fsbattery nor this kernel knows (checked before anything
    /// else, root included: a typo is a typo).
    pub fn check_known(&self) -> Result<(), Unavailable> {
        match self {
            FsKind::Other(n) => {
                let proc = std::fs::read_to_string("/proc/filesystems").unwrap_or_default();
                if known_name(n, &proc) {
                    Ok(())
                } else {
                    Err(Unavailable::Unknown(n.clone()))
                }
            }
            FsKind::Known(_) => Ok(()),
        }
    }

    /// Version strings of the tools involved, for the record: the entry's version commands
    /// (none listed: the mkfs tool's `-V`), then mount's for a kernel filesystem.
    pub fn tool_versions(&self) -> Vec<(String, Option<String>)> {
        use crate::process::version;
        let mut v: Vec<(String, Option<String>)> = match self.entry().versions {
            [] => {
                let tool = self.mkfs_tool();
                let ver = version(&[&tool, "-V"]);
                vec![(tool, ver)]
            }
            listed => listed
                .iter()
                .map(|(key, argv)| (key.to_string(), version(argv)))
                .collect(),
        };
        if !self.is_fuse() {
            v.push(("mount".into(), version(&["mount", "--version"])));
        }
        v
    }
}

/// Why a filesystem cannot be made and mounted on this machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// Neither fsbattery nor the kernel knows the name (a typo).
    #[error(
        "unknown filesystem '{0}'{hint}: known are {list} and any filesystem in /proc/filesystems \
         with a mkfs.NAME tool (see `fsbattery list targets`)",
        list = kinds::image_names().collect::<Vec<_>>().join(", "),
        hint = crate::suggest::hint(.0, kinds::image_names())
    )]
    Unknown(String),
    /// The running kernel has neither the filesystem nor a module for it.
    #[error("this kernel cannot mount {fs} (not in /proc/filesystems, no module in /lib/modules/{release})")]
    Kernel {
        /// The filesystem.
        fs: String,
        /// `uname -r`.
        release: String,
    },
    /// A program is not installed.
    #[error("{program} not found: {hint}")]
    Missing {
        /// The program.
        program: String,
        /// What to install, with the exact command (from [`crate::packages`]).
        hint: String,
        /// The exact command that installs it here, when a package is known.
        fix: Option<String>,
    },
    /// Anything else (FUSE unavailable).
    #[error("{0}")]
    Other(String),
}

impl Unavailable {
    /// `program` is missing: the hint comes from the package table for this distribution.
    pub fn missing(program: &str) -> Unavailable {
        use crate::packages::{detect_family, fix_command, hint, Need};
        let need = Need::program(program);
        let family = detect_family();
        Unavailable::Missing {
            program: program.into(),
            hint: hint(&need, family),
            fix: fix_command(&need, family),
        }
    }

    /// The message for a target spec: a missing tool or kernel support can also be solved
    /// by dropping the filesystem from the targets; an unknown name cannot.
    pub fn for_target(&self, fs: &str) -> String {
        match self {
            Unavailable::Unknown(_) => self.to_string(),
            _ => format!("{self} (or drop {fs} from the targets)"),
        }
    }
}

/// Whether `name` is a filesystem fsbattery knows, or one the kernel can put on a block
/// device (listed in `/proc/filesystems` without `nodev`), or one with a loadable module.
fn known_name(name: &str, proc_filesystems: &str) -> bool {
    kinds::lookup(name).is_some()
        || crate::packages::known_program(&format!("mkfs.{name}"))
        || listed(name, proc_filesystems, false)
        || module_present(name)
}

/// Whether `/proc/filesystems` text lists `fs` (with `nodev` entries only when `nodev_ok`).
fn listed(fs: &str, proc_filesystems: &str, nodev_ok: bool) -> bool {
    proc_filesystems.lines().any(|l| {
        let mut w = l.split_whitespace().rev();
        let name = w.next();
        let nodev = w.next() == Some("nodev");
        name == Some(fs) && (nodev_ok || !nodev)
    })
}

/// Whether the running kernel can mount `fs` (listed, or present as a loadable module).
pub fn kernel_supports(fs: &str) -> Result<(), Unavailable> {
    let proc = std::fs::read_to_string("/proc/filesystems").unwrap_or_default();
    kernel_check(fs, &proc, module_present(fs), &kernel_release())
}

/// Pure part of [`kernel_supports`]: listed in `proc_filesystems`, or a module is present.
fn kernel_check(
    fs: &str,
    proc_filesystems: &str,
    module: bool,
    release: &str,
) -> Result<(), Unavailable> {
    if listed(fs, proc_filesystems, true) || module {
        Ok(())
    } else {
        Err(Unavailable::Kernel {
            fs: fs.into(),
            release: release.into(),
        })
    }
}

fn kernel_release() -> String {
    nix::sys::utsname::uname()
        .map(|u| u.release().to_string_lossy().into_owned())
        .unwrap_or_else(|_| "?".into())
}

fn module_present(fs: &str) -> bool {
    let Ok(uts) = nix::sys::utsname::uname() else {
        return false;
    };
    let dir = Path::new("/lib/modules")
        .join(uts.release())
        .join("kernel/fs")
        .join(fs);
    dir.is_dir()
}

/// FUSE needs the kernel module and /dev/fuse.
pub fn fuse_available() -> Result<(), String> {
    kernel_supports("fuse").map_err(|_| "this kernel lacks FUSE".to_string())?;
    if !Path::new("/dev/fuse").exists() {
        return Err("/dev/fuse is missing".into());
    }
    Ok(())
}

/// Devices a filesystem is made on: data devices plus an optional external journal/log.
#[derive(Debug, Clone)]
pub struct Devices {
    /// Data devices (one unless multi-device).
    pub data: Vec<PathBuf>,
    /// External journal or log device (kinds with a [`kinds::Journal`]).
    pub journal: Option<PathBuf>,
}

/// How a filesystem is made: options beyond the defaults.
#[derive(Debug, Clone, Default)]
pub struct MkfsOptions {
    /// User's extra mkfs words.
    pub extra: Vec<String>,
    /// Multi-device layout the mkfs tool takes ([`kinds::Multi::mkfs`], btrfs's profile).
    pub profile: Option<String>,
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Command lines to run in order (a journal device the entry prepares comes first).
pub fn mkfs_commands(fs: &FsKind, dev: &Devices, o: &MkfsOptions) -> Vec<Vec<String>> {
    let e = fs.entry();
    let words = |w: &[&str]| w.iter().map(|f| f.to_string()).collect::<Vec<_>>();
    let mut argv: Vec<String> = vec![fs.mkfs_tool()];
    argv.extend(words(e.mkfs.args));
    argv.extend(words(e.mkfs.force));
    let mut cmds = Vec::new();
    if let (Some(j), Some(jdev)) = (&e.journal, &dev.journal) {
        if let Some(prepare) = j.prepare {
            cmds.push(prepare(jdev, &o.extra));
        }
        let (flag, prefix) = j.mkfs;
        argv.extend([flag.to_string(), format!("{prefix}{}", s(jdev))]);
    }
    if let (Some(p), Some(m)) = (&o.profile, &e.multi) {
        for flag in m.mkfs {
            argv.extend([flag.to_string(), p.clone()]);
        }
    }
    argv.extend(o.extra.iter().cloned());
    argv.extend(dev.data.iter().map(|d| s(d)));
    cmds.push(argv);
    cmds
}

/// The mount command line and the source /proc/mounts will show.
pub fn mount_command(
    fs: &FsKind,
    dev: &Devices,
    user_opts: Option<&str>,
    mount_point: &Path,
) -> (Vec<String>, String) {
    let e = fs.entry();
    let mut opts: Vec<String> = match e.serve {
        Serve::Fuse { options, .. } => options.iter().map(|o| o.to_string()).collect(),
        Serve::Kernel | Serve::Ram => Vec::new(),
    };
    if let (Some(prefix), Some(j)) = (e.journal.and_then(|j| j.mount), &dev.journal) {
        opts.push(format!("{prefix}{}", s(j)));
    }
    if let Some(prefix) = e.multi.and_then(|m| m.mount_each) {
        if dev.data.len() > 1 {
            opts.extend(dev.data.iter().map(|d| format!("{prefix}{}", s(d))));
        }
    }
    opts.extend(user_opts.filter(|o| !o.is_empty()).map(str::to_string));
    let source = s(&dev.data[0]);
    let mut argv: Vec<String> = if fs.is_fuse() {
        vec![fs.mount_tool().into(), source.clone(), s(mount_point)]
    } else {
        vec![
            "mount".into(),
            "-t".into(),
            fs.name().into(),
            source.clone(),
            s(mount_point),
        ]
    };
    if !opts.is_empty() {
        argv.extend(["-o".into(), opts.join(",")]);
    }
    (argv, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str) -> FsKind {
        FsKind::from_name(name).unwrap()
    }

    fn devs(n: usize, j: bool) -> Devices {
        Devices {
            data: (0..n)
                .map(|i| PathBuf::from(format!("/dev/loop{i}")))
                .collect(),
            journal: j.then(|| PathBuf::from("/dev/loop9")),
        }
    }

    #[test]
    fn default_mkfs_adds_only_force_flags() {
        let o = MkfsOptions::default();
        let c = mkfs_commands(&kind("xfs"), &devs(1, false), &o);
        assert_eq!(c, vec![vec!["mkfs.xfs", "-f", "/dev/loop0"]]);
        let c = mkfs_commands(&kind("ntfs"), &devs(1, false), &o);
        assert_eq!(c[0], ["mkfs.ntfs", "-Q", "-F", "/dev/loop0"]);
        let c = mkfs_commands(&kind("fuse2fs"), &devs(1, false), &o);
        assert_eq!(c[0], ["mke2fs", "-t", "ext4", "-F", "/dev/loop0"]);
    }

    #[test]
    fn ext4_external_journal_is_made_first_with_matching_block_size() {
        let o = MkfsOptions {
            extra: vec!["-b".into(), "2048".into()],
            profile: None,
        };
        let c = mkfs_commands(&kind("ext4"), &devs(1, true), &o);
        assert_eq!(c.len(), 2);
        assert_eq!(
            c[0],
            [
                "mke2fs",
                "-F",
                "-O",
                "journal_dev",
                "-b",
                "2048",
                "/dev/loop9"
            ]
        );
        assert_eq!(
            c[1],
            [
                "mkfs.ext4",
                "-F",
                "-J",
                "device=/dev/loop9",
                "-b",
                "2048",
                "/dev/loop0"
            ]
        );
    }

    #[test]
    fn btrfs_raid_and_xfs_log_wire_devices_into_mount() {
        let o = MkfsOptions {
            extra: vec![],
            profile: Some("raid10".into()),
        };
        let c = mkfs_commands(&kind("btrfs"), &devs(4, false), &o);
        assert_eq!(
            c[0][..6],
            ["mkfs.btrfs", "-f", "-d", "raid10", "-m", "raid10"]
        );
        let (m, src) = mount_command(
            &kind("btrfs"),
            &devs(2, false),
            Some("noatime"),
            "/m".as_ref(),
        );
        assert_eq!(src, "/dev/loop0");
        assert_eq!(
            m.last().unwrap(),
            "device=/dev/loop0,device=/dev/loop1,noatime"
        );
        let (m, _) = mount_command(&kind("xfs"), &devs(1, true), None, "/m".as_ref());
        assert_eq!(
            m,
            [
                "mount",
                "-t",
                "xfs",
                "/dev/loop0",
                "/m",
                "-o",
                "logdev=/dev/loop9"
            ]
        );
        let (m, _) = mount_command(&kind("ntfs"), &devs(1, false), None, "/m".as_ref());
        assert_eq!(m, ["ntfs-3g", "/dev/loop0", "/m"]);
    }

    #[test]
    fn names_round_trip_and_reject_paths() {
        for n in [
            "ext2", "ext3", "ext4", "xfs", "btrfs", "ntfs", "exfat", "fuse2fs", "zfs", "f2fs",
        ] {
            assert_eq!(FsKind::from_name(n).unwrap().name(), n);
        }
        assert!(FsKind::from_name("../x").is_err());
        assert!(FsKind::from_name("tmpfs").is_err());
    }

    const PROC: &str = "nodev\tsysfs\nnodev\ttmpfs\n\text4\n\txfs\nnodev\tfuse\n";

    #[test]
    fn kernel_support_comes_from_proc_filesystems_or_a_module() {
        assert_eq!(kernel_check("xfs", PROC, false, "6.1"), Ok(()));
        assert_eq!(kernel_check("fuse", PROC, false, "6.1"), Ok(()));
        assert_eq!(kernel_check("jfs", PROC, true, "6.1"), Ok(()));
        let e = kernel_check("jfs", PROC, false, "6.18.0").unwrap_err();
        assert_eq!(
            e.to_string(),
            "this kernel cannot mount jfs (not in /proc/filesystems, no module in \
             /lib/modules/6.18.0)"
        );
    }

    #[test]
    fn a_typo_is_unknown_and_a_known_name_is_not() {
        assert!(!known_name("nosuchfs", PROC));
        assert!(known_name("jfs", PROC), "in the package table");
        assert!(known_name("xfs", PROC));
        assert!(!known_name("sysfs", PROC), "nodev: cannot live on an image");
        let e = Unavailable::Unknown("nosuchfs".into());
        assert_eq!(
            e.for_target("nosuchfs"),
            "unknown filesystem 'nosuchfs': known are ext2, ext3, ext4, xfs, btrfs, f2fs, jfs, \
             nilfs2, reiserfs, ntfs, exfat, fuse2fs, zfs and any filesystem in \
             /proc/filesystems with a mkfs.NAME tool (see `fsbattery list targets`)"
        );
    }

    #[test]
    fn programs_of_each_kind() {
        assert_eq!(kind("xfs").programs(), ["mkfs.xfs", "mount"]);
        assert_eq!(kind("zfs").programs(), ["zpool", "zfs-fuse", "zfs"]);
        assert_eq!(kind("ntfs").programs(), ["mkfs.ntfs", "ntfs-3g"]);
        assert_eq!(kind("fuse2fs").programs(), ["mke2fs", "fuse2fs"]);
    }
}

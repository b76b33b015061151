//! The filesystem kinds: every filesystem fsbattery knows in one table, each entry carrying
//! its own name, the other names users write for it, its capabilities (kernel or FUSE,
//! multi-device, external journal or log and how that is wired into mkfs and mount, minimum
//! size), the tools that make and mount it, the flags that keep mkfs from asking, the
//! commands that report its tool versions and its free space, and its tuning option space —
//! the shape of fio's `ioengine_ops` and of the engine registry
//! (crates/fsbattery-engine/src/registry.rs), for filesystems.
//!
//! Everything that used to spell a filesystem by hand reads this table: the spec grammar
//! (spec.rs: multi-device keys, journal sizes, labels), mkfs and mount command lines
//! (mkfs.rs), loop and device targets (which kinds need loop devices, which make a pool on
//! the image files), `availability` and `list targets`, error messages naming the known
//! filesystems, the free-space report (runner/freefrag.rs), statfs names (fsinfo.rs) and the
//! shipped option spaces of `tune` (tune/space.rs).
//!
//! Invariant: the table's order is the listing order of `list targets` and of
//! [`known_names`]; a name or alias is registered once (a test checks). Any other kernel
//! filesystem with a `mkfs.NAME` tool is still made, through [`kernel::GENERIC`].
//! Adding a filesystem: one file with its entry, one line in [`TABLE`] (see
//! docs/src/adding-a-filesystem.md). Program → package lines stay in `crate::packages`, which
//! must not depend on `targets` (targets asks it for install hints).

mod btrfs;
mod exfat;
mod ext;
mod freespace;
mod fuse2fs;
pub mod kernel;
mod ntfs;
mod tmpfs;
mod xfs;
mod zfs;

pub use freespace::FreeSpaceTool;

use nix::sys::statfs::FsType;
use std::path::Path;

/// Who serves the filesystem once made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serve {
    /// The kernel: `mount -t NAME`.
    Kernel,
    /// A FUSE daemon, which is also the program that mounts it (`DAEMON SOURCE MOUNTPOINT`).
    Fuse {
        /// The daemon's program name.
        daemon: &'static str,
        /// Options it is always given, before the user's (fusefat, the example of
        /// docs/src/adding-a-filesystem.md, writes only with `rw+`).
        options: &'static [&'static str],
    },
    /// The kernel, in memory: not made on an image or device (tmpfs has its own target kind).
    Ram,
}

/// How the filesystem is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Make {
    /// Its mkfs tool on block devices (loop devices for `loop:` images).
    Mkfs,
    /// Its own code path on the image files themselves, or the device, with no loop devices:
    /// zfs's pools (targets/zfs.rs). The table points at it without importing it, so the
    /// kinds depend on nothing else in `targets`.
    PoolOnFiles,
}

/// The mkfs tool and the words it always gets.
#[derive(Debug, Clone, Copy)]
pub struct Mkfs {
    /// The tool; `None`: `mkfs.NAME`.
    pub tool: Option<&'static str>,
    /// Words before everything else (fuse2fs: `-t ext4` to mke2fs).
    pub args: &'static [&'static str],
    /// Flags that keep it from asking questions, and nothing else (`-F`, `-f`, `-q`).
    pub force: &'static [&'static str],
}

impl Mkfs {
    /// `mkfs.NAME` with no words of its own: the start of a kind's `Mkfs { force, ..PLAIN }`.
    pub const PLAIN: Mkfs = Mkfs {
        tool: None,
        args: &[],
        force: &[],
    };
}

/// Makes the external journal device before the filesystem (ext's `mke2fs -O journal_dev`):
/// the journal device and the user's mkfs words give the command line.
pub type JournalPrepFn = fn(&Path, &[String]) -> Vec<String>;

/// An external journal or log on its own device (`journal=external` / `log=external`).
#[derive(Clone, Copy)]
pub struct Journal {
    /// Smallest journal image the tools accept.
    pub min: u64,
    /// What the default label gets (`-extjournal`, `-extlog`).
    pub label: &'static str,
    /// The mkfs flag and the prefix of its value before the device path (`-J device=`).
    pub mkfs: (&'static str, &'static str),
    /// The mount option naming the device, when the kernel needs it (`logdev=`).
    pub mount: Option<&'static str>,
    /// A command that makes the journal device first, if any.
    pub prepare: Option<JournalPrepFn>,
    /// The spec's words, for help texts (`journal=external[,journal_size=SIZE]`).
    pub help: &'static str,
}

/// Made across several devices (`devices=N`).
#[derive(Debug, Clone, Copy)]
pub struct Multi {
    /// The spec key choosing the layout (`profile`, `layout`).
    pub key: &'static str,
    /// Each layout with the fewest devices it needs.
    pub choices: &'static [(&'static str, u32)],
    /// Layouts that pair devices (zfs's `mirror`): an odd count is refused.
    pub paired: &'static [&'static str],
    /// mkfs flags each followed by the chosen layout (btrfs: `-d P -m P`).
    pub mkfs: &'static [&'static str],
    /// A mount option naming each member when there are several (btrfs `device=`), so the
    /// kernel needs no device scan (and no udev, which containers often lack).
    pub mount_each: Option<&'static str>,
    /// The layouts shown in help texts.
    pub help: &'static str,
}

/// A program version for the run record: the record's key and the command that prints it.
pub type Version = (&'static str, &'static [&'static str]);

/// One registered filesystem kind.
#[derive(Clone, Copy)]
pub struct FsEntry {
    /// The name in specs, labels and records.
    pub name: &'static str,
    /// Other names accepted for it (`ntfs-3g`), canonical as `name`.
    pub aliases: &'static [&'static str],
    /// Kernel, FUSE or in memory.
    pub serve: Serve,
    /// How it is made.
    pub make: Make,
    /// Its mkfs tool and fixed words.
    pub mkfs: Mkfs,
    /// Programs needed beyond the mkfs and mount tools (zfs: `zfs`).
    pub extra_programs: &'static [&'static str],
    /// Smallest image or device per device the mkfs tool accepts, with margin.
    pub min_size: u64,
    /// Multi-device layouts, if it can span devices.
    pub multi: Option<Multi>,
    /// External journal or log, if it can have one.
    pub journal: Option<Journal>,
    /// The kernel keeps a registry of its member devices (btrfs), forgotten when a loop
    /// device is released.
    pub registers_devices: bool,
    /// Writes never shrink its images (nilfs2 logs every write and frees space only when its
    /// cleaner runs): the space check counts its images whole.
    pub counted_whole: bool,
    /// In the default run's comparison (the seed studies' five).
    pub default: bool,
    /// Keeps a journal or log that makes it crash-safe (recorded as the target's
    /// `FsFacts::journaling`; ext2, exfat and tmpfs do not).
    pub journaling: bool,
    /// Version commands for the record; empty: the mkfs tool's own `-V`.
    pub versions: &'static [Version],
    /// The tool that reports its free-space fragmentation, if any.
    pub free_space: Option<FreeSpaceTool>,
    /// Its statfs magic and the name shown for it when /proc/mounts cannot be read.
    pub statfs: Option<(FsType, &'static str)>,
    /// Its shipped `tune` option space (suites/options/NAME.toml), if any.
    pub option_space: Option<&'static str>,
}

impl std::fmt::Debug for FsEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FsEntry")
            .field("name", &self.name)
            .field("serve", &self.serve)
            .finish_non_exhaustive()
    }
}

impl FsEntry {
    /// The plainest entry: a kernel filesystem made by `mkfs.NAME` with no flags, on one
    /// device of at least 16 MiB, nothing else. An entry lists what differs and ends with
    /// `..FsEntry::KERNEL`.
    pub const KERNEL: FsEntry = FsEntry {
        name: "",
        aliases: &[],
        serve: Serve::Kernel,
        make: Make::Mkfs,
        mkfs: Mkfs::PLAIN,
        extra_programs: &[],
        min_size: 16 << 20,
        multi: None,
        journal: None,
        registers_devices: false,
        counted_whole: false,
        default: false,
        journaling: true,
        versions: &[],
        free_space: None,
        statfs: None,
        option_space: None,
    };

    /// Made as a pool on the image files or the device by its own code (targets/zfs.rs).
    pub fn pool_on_files(&self) -> bool {
        matches!(self.make, Make::PoolOnFiles)
    }

    /// Needs loop devices to be made on `loop:` images.
    pub fn needs_loop_devices(&self) -> bool {
        !self.pool_on_files() && self.serve != Serve::Ram
    }

    /// Made on an image or device at all (tmpfs is not).
    pub fn on_images(&self) -> bool {
        self.serve != Serve::Ram
    }

    /// Its files live in RAM.
    pub fn in_memory(&self) -> bool {
        self.serve == Serve::Ram
    }
}

/// Every filesystem kind, in listing order.
pub const TABLE: &[FsEntry] = &[
    ext::EXT2,
    ext::EXT3,
    ext::EXT4,
    xfs::XFS,
    btrfs::BTRFS,
    tmpfs::TMPFS,
    kernel::F2FS,
    kernel::JFS,
    kernel::NILFS2,
    kernel::REISERFS,
    ntfs::NTFS,
    exfat::EXFAT,
    fuse2fs::FUSE2FS,
    zfs::ZFS,
    // New filesystems go here (listing order).
];

/// Every name in [`TABLE`] order (spelled only in the entries).
static NAMES: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| TABLE.iter().map(|e| e.name).collect());

/// Every filesystem name fsbattery knows (and `tmpfs`), in listing order.
pub fn known_names() -> &'static [&'static str] {
    &NAMES
}

/// The names of the kinds made on images or devices (every known name but tmpfs).
pub fn image_names() -> impl Iterator<Item = &'static str> {
    TABLE.iter().filter(|e| e.on_images()).map(|e| e.name)
}

/// The entry named `name` or one of its aliases.
pub fn lookup(name: &str) -> Option<&'static FsEntry> {
    TABLE
        .iter()
        .find(|e| e.name == name || e.aliases.contains(&name))
}

/// The entry a multi-device key (`profile`, `layout`) belongs to.
pub fn owner_of_key(key: &str) -> Option<&'static FsEntry> {
    TABLE.iter().find(|e| e.multi.is_some_and(|m| m.key == key))
}

/// Names of the entries `keep` selects, as a sentence: "btrfs and zfs", "ext3, ext4 and xfs".
pub fn names_where(keep: impl Fn(&FsEntry) -> bool) -> String {
    let names: Vec<&str> = TABLE.iter().filter(|e| keep(e)).map(|e| e.name).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The filesystems a loop image can hold, from the table: "ext2 ext3 ext4 xfs btrfs, any
/// kernel fs with mkfs.FSTYPE, and FUSE ntfs exfat fuse2fs zfs".
pub fn loop_fstypes() -> String {
    let join = |keep: &dyn Fn(&FsEntry) -> bool| {
        TABLE
            .iter()
            .filter(|e| keep(e))
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let kernel = join(&|e| e.default && e.serve == Serve::Kernel);
    let fuse = join(&|e| matches!(e.serve, Serve::Fuse { .. }));
    format!("{kernel}, any kernel fs with mkfs.FSTYPE, and FUSE {fuse}")
}

/// The `loop:` kind's help for FSTYPE, from the table: the default kernel filesystems, any
/// kernel filesystem with a mkfs tool, the FUSE ones, the multi-device layouts and journals.
pub fn loop_help() -> String {
    let multi: Vec<String> = TABLE
        .iter()
        .filter_map(|e| {
            e.multi
                .map(|m| format!("{}={} ({})", m.key, m.help, e.name))
        })
        .collect();
    let mut journals: Vec<(&str, Vec<&str>)> = Vec::new();
    for e in TABLE {
        if let Some(j) = e.journal {
            match journals.iter_mut().find(|(h, _)| *h == j.help) {
                Some((_, names)) => names.push(e.name),
                None => journals.push((j.help, vec![e.name])),
            }
        }
    }
    let journals: Vec<String> = journals
        .iter()
        .map(|(h, n)| format!("{h} ({})", n.join("/")))
        .collect();
    format!(
        "FSTYPE: {}. Multi-device: devices=N with {}. External journal: {}.",
        loop_fstypes(),
        multi.join(" or "),
        journals.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::freespace::MIB;
    use super::*;

    /// Every name and alias finds one entry; the listing order is the old `KNOWN` order.
    #[test]
    fn names_and_aliases_are_unique_and_found() {
        let mut seen = std::collections::HashSet::new();
        for e in TABLE {
            for n in std::iter::once(&e.name).chain(e.aliases) {
                assert!(seen.insert(*n), "{n} registered twice");
                assert_eq!(lookup(n).map(|f| f.name), Some(e.name));
            }
        }
        assert_eq!(
            known_names(),
            [
                "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs", "jfs", "nilfs2",
                "reiserfs", "ntfs", "exfat", "fuse2fs", "zfs"
            ]
        );
        assert_eq!(lookup("ntfs-3g").map(|e| e.name), Some("ntfs"));
        assert_eq!(lookup("zfs-fuse").map(|e| e.name), Some("zfs"));
    }

    /// The capabilities the old `match self` arms decided.
    #[test]
    fn capabilities_match_the_filesystems() {
        let e = |n| lookup(n).unwrap();
        assert_eq!(names_where(|e| e.multi.is_some()), "btrfs and zfs");
        assert_eq!(names_where(|e| e.journal.is_some()), "ext3, ext4 and xfs");
        assert_eq!(owner_of_key("profile").map(|e| e.name), Some("btrfs"));
        assert_eq!(owner_of_key("layout").map(|e| e.name), Some("zfs"));
        assert!(e("zfs").pool_on_files() && !e("zfs").needs_loop_devices());
        assert!(e("xfs").needs_loop_devices() && !e("tmpfs").on_images());
        assert!(e("btrfs").registers_devices && !e("xfs").registers_devices);
        assert!(e("nilfs2").counted_whole && !e("f2fs").counted_whole);
        let defaults: Vec<&str> = TABLE.iter().filter(|e| e.default).map(|e| e.name).collect();
        assert_eq!(defaults, ["ext2", "ext3", "ext4", "xfs", "btrfs"]);
        assert_eq!(
            (e("xfs").min_size, e("btrfs").min_size, e("zfs").min_size),
            (300 * MIB, 128 * MIB, 64 * MIB)
        );
        assert_eq!(e("ext4").min_size, 16 * MIB);
    }

    #[test]
    fn the_loop_help_is_built_from_the_table() {
        let h = loop_help();
        assert!(
            h.starts_with("FSTYPE: ext2 ext3 ext4 xfs btrfs, any kernel fs"),
            "{h}"
        );
        assert!(h.contains("FUSE ntfs exfat fuse2fs zfs."), "{h}");
        assert!(
            h.contains("profile=raid0|raid1|raid10|... (btrfs) or layout="),
            "{h}"
        );
        assert!(h.contains("(ext3/ext4), log=external (xfs)"), "{h}");
    }
}

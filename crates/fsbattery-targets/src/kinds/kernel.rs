//! Kernel filesystems made by their `mkfs.NAME` with nothing but a flag that keeps it from
//! asking: f2fs, jfs, nilfs2, reiserfs by name, and [`GENERIC`], the entry of any other
//! filesystem in /proc/filesystems (or with a kernel module) whose `mkfs.NAME` is installed.

use super::{FsEntry, Mkfs};

/// Any kernel filesystem with a `mkfs.NAME` tool and no flags of its own; its name comes
/// from the spec (`FsKind::Other`).
pub const GENERIC: FsEntry = kernel("", &[]);

const fn kernel(name: &'static str, force: &'static [&'static str]) -> FsEntry {
    FsEntry {
        name,
        mkfs: Mkfs {
            force,
            ..Mkfs::PLAIN
        },
        ..FsEntry::KERNEL
    }
}

pub(super) const F2FS: FsEntry = kernel("f2fs", &["-f"]);
pub(super) const JFS: FsEntry = kernel("jfs", &["-q"]);
/// nilfs2 logs every write and frees space only when its cleaner runs (S2's nilfs2 filled
/// its 100 GB volume in one bonnie++ run): its images are counted whole.
pub(super) const NILFS2: FsEntry = FsEntry {
    counted_whole: true,
    ..kernel("nilfs2", &["-f"])
};
pub(super) const REISERFS: FsEntry = kernel("reiserfs", &["-q"]);

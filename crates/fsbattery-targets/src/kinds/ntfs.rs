//! NTFS through ntfs-3g (FUSE): made by `mkfs.ntfs -Q -F` (quick, no prompt), served by the
//! ntfs-3g daemon.

use super::{FsEntry, Mkfs, Serve};

pub(super) const NTFS: FsEntry = FsEntry {
    name: "ntfs",
    aliases: &["ntfs-3g"],
    serve: Serve::Fuse {
        daemon: "ntfs-3g",
        options: &[],
    },
    mkfs: Mkfs {
        tool: None,
        args: &[],
        force: &["-Q", "-F"],
    },
    versions: &[
        ("mkfs.ntfs", &["mkfs.ntfs", "--version"]),
        ("ntfs-3g", &["ntfs-3g", "--version"]),
    ],
    ..FsEntry::KERNEL
};

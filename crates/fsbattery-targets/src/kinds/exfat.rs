//! exFAT through exfat-fuse (FUSE): made by exfatprogs' `mkfs.exfat` (which never asks),
//! served by `mount.exfat-fuse`.

use super::{FsEntry, Serve};

pub(super) const EXFAT: FsEntry = FsEntry {
    name: "exfat",
    serve: Serve::Fuse {
        daemon: "mount.exfat-fuse",
        options: &[],
    },
    versions: &[
        ("mkfs.exfat", &["mkfs.exfat", "-V"]),
        ("exfat-fuse", &["mount.exfat-fuse", "-V"]),
    ],
    journaling: false,
    ..FsEntry::KERNEL
};

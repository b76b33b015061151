//! ext4 served in user space by fuse2fs (FUSE): made by `mke2fs -t ext4 -F`, so it compares
//! with the kernel's ext4 on the same on-disk format.

use super::ext::MKE2FS_VERSION;
use super::{FsEntry, Mkfs, Serve};

pub(super) const FUSE2FS: FsEntry = FsEntry {
    name: "fuse2fs",
    serve: Serve::Fuse {
        daemon: "fuse2fs",
        options: &[],
    },
    mkfs: Mkfs {
        tool: Some("mke2fs"),
        args: &["-t", "ext4"],
        force: &["-F"],
    },
    versions: &[MKE2FS_VERSION, ("fuse2fs", &["fuse2fs", "--version"])],
    ..FsEntry::KERNEL
};

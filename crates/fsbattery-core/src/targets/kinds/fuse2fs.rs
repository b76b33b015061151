//! ext4 served in user space by fuse2fs (FUSE): made by `mke2fs -t ext4 -F`, so it compares
//! with the kernel's ext4 on the same on-disk format.

use super::ext::MKE2FS_VERSION;
use super::freespace::MIB;
use super::{FsEntry, Make, Mkfs, Serve};

pub(super) const FUSE2FS: FsEntry = FsEntry {
    name: "fuse2fs",
    aliases: &[],
    serve: Serve::Fuse { daemon: "fuse2fs" },
    make: Make::Mkfs,
    mkfs: Mkfs {
        tool: Some("mke2fs"),
        args: &["-t", "ext4"],
        force: &["-F"],
    },
    extra_programs: &[],
    min_size: 16 * MIB,
    multi: None,
    journal: None,
    registers_devices: false,
    counted_whole: false,
    default: false,
    versions: &[MKE2FS_VERSION, ("fuse2fs", &["fuse2fs", "--version"])],
    free_space: None,
    statfs: None,
    option_space: None,
};

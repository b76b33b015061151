//! NTFS through ntfs-3g (FUSE): made by `mkfs.ntfs -Q -F` (quick, no prompt), served by the
//! ntfs-3g daemon.

use super::freespace::MIB;
use super::{FsEntry, Make, Mkfs, Serve};

pub(super) const NTFS: FsEntry = FsEntry {
    name: "ntfs",
    aliases: &["ntfs-3g"],
    serve: Serve::Fuse { daemon: "ntfs-3g" },
    make: Make::Mkfs,
    mkfs: Mkfs {
        tool: None,
        args: &[],
        force: &["-Q", "-F"],
    },
    extra_programs: &[],
    min_size: 16 * MIB,
    multi: None,
    journal: None,
    registers_devices: false,
    counted_whole: false,
    default: false,
    versions: &[
        ("mkfs.ntfs", &["mkfs.ntfs", "--version"]),
        ("ntfs-3g", &["ntfs-3g", "--version"]),
    ],
    free_space: None,
    statfs: None,
    option_space: None,
};

//! exFAT through exfat-fuse (FUSE): made by exfatprogs' `mkfs.exfat` (which never asks),
//! served by `mount.exfat-fuse`.

use super::freespace::MIB;
use super::{FsEntry, Make, Mkfs, Serve};

pub(super) const EXFAT: FsEntry = FsEntry {
    name: "exfat",
    aliases: &[],
    serve: Serve::Fuse {
        daemon: "mount.exfat-fuse",
    },
    make: Make::Mkfs,
    mkfs: Mkfs {
        tool: None,
        args: &[],
        force: &[],
    },
    extra_programs: &[],
    min_size: 16 * MIB,
    multi: None,
    journal: None,
    registers_devices: false,
    counted_whole: false,
    default: false,
    versions: &[
        ("mkfs.exfat", &["mkfs.exfat", "-V"]),
        ("exfat-fuse", &["mount.exfat-fuse", "-V"]),
    ],
    free_space: None,
    statfs: None,
    option_space: None,
};

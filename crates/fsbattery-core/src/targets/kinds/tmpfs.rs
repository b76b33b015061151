//! tmpfs: known by name (listed, checked against the kernel, accepted in a suite's
//! `[fs.tmpfs]`), but not made on an image or device: the `tmpfs` target kind mounts it.

use super::{FsEntry, Make, Mkfs, Serve};
use nix::sys::statfs::TMPFS_MAGIC;

pub(super) const TMPFS: FsEntry = FsEntry {
    name: "tmpfs",
    aliases: &[],
    serve: Serve::Ram,
    make: Make::Mkfs,
    mkfs: Mkfs {
        tool: None,
        args: &[],
        force: &[],
    },
    extra_programs: &[],
    min_size: 0,
    multi: None,
    journal: None,
    registers_devices: false,
    counted_whole: false,
    default: false,
    versions: &[],
    free_space: None,
    statfs: Some((TMPFS_MAGIC, "tmpfs")),
    option_space: None,
};

//! tmpfs: known by name (listed, checked against the kernel, accepted in a suite's
//! `[fs.tmpfs]`), but not made on an image or device: the `tmpfs` target kind mounts it.

use super::{FsEntry, Serve};
use nix::sys::statfs::TMPFS_MAGIC;

pub(super) const TMPFS: FsEntry = FsEntry {
    name: "tmpfs",
    serve: Serve::Ram,
    min_size: 0,
    statfs: Some((TMPFS_MAGIC, "tmpfs")),
    journaling: false,
    ..FsEntry::KERNEL
};

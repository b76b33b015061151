//! Btrfs (kernel), made by btrfs-progs: `mkfs.btrfs -f`, on one device or several with a
//! data and metadata profile (`-d P -m P`); each member is named to mount (`device=`), and
//! the kernel's registry of members is cleared when a loop device is released.

use super::freespace::MIB;
use super::{FsEntry, Mkfs, Multi};
use nix::sys::statfs::BTRFS_SUPER_MAGIC;

pub(super) const BTRFS: FsEntry = FsEntry {
    name: "btrfs",
    mkfs: Mkfs {
        force: &["-f"],
        ..Mkfs::PLAIN
    },
    min_size: 128 * MIB,
    multi: Some(Multi {
        key: "profile",
        choices: &[
            ("single", 1),
            ("dup", 1),
            ("raid0", 2),
            ("raid1", 2),
            ("raid1c3", 3),
            ("raid1c4", 4),
            ("raid10", 2),
            ("raid5", 2),
        ],
        paired: &[],
        mkfs: &["-d", "-m"],
        mount_each: Some("device="),
        help: "raid0|raid1|raid10|...",
    }),
    registers_devices: true,
    default: true,
    versions: &[("mkfs.btrfs", &["mkfs.btrfs", "--version"])],
    statfs: Some((BTRFS_SUPER_MAGIC, "btrfs")),
    option_space: Some(include_str!("../../../../suites/options/btrfs.toml")),
    ..FsEntry::KERNEL
};

//! ZFS through zfs-fuse (FUSE), as S2 tested it: a pool made by `zpool` on the image files
//! themselves (no loop devices) or on the device, with a vdev layout across several, by its
//! own code path (targets/zfs.rs: our own daemon and pool, destroyed on teardown).

use super::freespace::MIB;
use super::{FsEntry, Make, Mkfs, Multi, Serve};

pub(super) const ZFS: FsEntry = FsEntry {
    name: "zfs",
    aliases: &["zfs-fuse"],
    serve: Serve::Fuse {
        daemon: "zfs-fuse",
        options: &[],
    },
    make: Make::PoolOnFiles,
    mkfs: Mkfs {
        tool: Some("zpool"),
        args: &[],
        force: &[],
    },
    extra_programs: &["zfs"],
    min_size: 64 * MIB,
    multi: Some(Multi {
        key: "layout",
        choices: &[
            ("stripe", 1),
            ("mirror", 2),
            ("raidz", 2),
            ("raidz2", 3),
            ("raidz3", 4),
        ],
        paired: &["mirror"],
        mkfs: &[],
        mount_each: None,
        help: "stripe|mirror|raidz",
    }),
    versions: &[(
        "zfs-fuse",
        &[
            "dpkg-query",
            "-W",
            "-f",
            "zfs-fuse ${Version}\n",
            "zfs-fuse",
        ],
    )],
    ..FsEntry::KERNEL
};

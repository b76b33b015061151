//! XFS (kernel), made by xfsprogs: `mkfs.xfs -f`; its log may live on a device of its own,
//! named to both mkfs (`-l logdev=`) and mount (`logdev=`). Free space is reported by
//! `xfs_db -r -c freesp`.

use super::freespace::{summary, FreeSpaceTool, MIB};
use super::{FsEntry, Journal, Mkfs};
use fsbattery_record::aging::FreeSpace;
use nix::sys::statfs::XFS_SUPER_MAGIC;

pub(super) const XFS: FsEntry = FsEntry {
    name: "xfs",
    mkfs: Mkfs {
        force: &["-f"],
        ..Mkfs::PLAIN
    },
    min_size: 300 * MIB,
    journal: Some(Journal {
        min: 64 * MIB,
        label: "-extlog",
        mkfs: ("-l", "logdev="),
        mount: Some("logdev="),
        prepare: None,
        help: "log=external",
    }),
    default: true,
    versions: &[("mkfs.xfs", &["mkfs.xfs", "-V"])],
    free_space: Some(FreeSpaceTool {
        argv: &["xfs_db", "-r", "-c", "freesp"],
        parse: xfs_freesp,
    }),
    statfs: Some((XFS_SUPER_MAGIC, "xfs")),
    option_space: Some(include_str!("../../../../suites/options/xfs.toml")),
    ..FsEntry::KERNEL
};

/// xfs_db freesp's histogram ("from to extents blocks pct", sizes in filesystem blocks).
pub fn xfs_freesp(text: &str, block: u64) -> Option<FreeSpace> {
    let (mut extents, mut free, mut small) = (0u64, 0u64, 0u64);
    let mut rows = 0;
    for line in text.lines() {
        let w: Vec<u64> = line
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let [_, to, n, blocks] = w[..] else {
            // The pct column is a decimal: four whole numbers make a row.
            continue;
        };
        rows += 1;
        extents += n;
        free += blocks * block;
        if to * block < MIB {
            small += blocks * block;
        }
    }
    (rows > 0).then(|| summary(extents, free, small))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xfs_freesp_summary() {
        let text = "   from      to extents  blocks    pct
      1       1      16      16   0.02
      4       7       1       6   0.01
   2048    4095       1    4086   6.24
  16384   20480       3   61396  93.73
";
        let f = xfs_freesp(text, 4096).unwrap();
        assert_eq!(
            (f.extents, f.free_bytes),
            (21, (16 + 6 + 4086 + 61396) * 4096)
        );
        // Extents up to 255 blocks of 4 KiB are under 1 MiB: the first two rows.
        let want = 22.0 * 100.0 / (16.0 + 6.0 + 4086.0 + 61396.0);
        assert!((f.small_extent_pct - want).abs() < 1e-9, "{f:?}");
        assert_eq!(xfs_freesp("xfs_db: cannot open", 4096), None);
    }
}

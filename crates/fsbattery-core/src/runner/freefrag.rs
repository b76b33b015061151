//! Free-space fragmentation of an aged filesystem, read by its own tool: `e2freefrag DEV` for
//! ext2/3/4, `xfs_db -r -c freesp DEV` for xfs. The parsers are pure and tested on the tools'
//! real output; the summary is the share of free space in extents under 1 MiB, the pieces a
//! large sequential write cannot use whole.
//!
//! Both tools read the device, not the mounted filesystem: after a sync the free-space maps
//! may still sit in the journal (xfs_db showed 267 of 320 MB free on an image that df said
//! was 57 % full). A freeze and thaw (`fsfreeze -f`, `-u`) first checkpoints the journal, so
//! the device holds the maps as they are.
//!
//! Invariant: a missing tool, another filesystem, or output we cannot read gives `None` (the
//! record then says nothing about fragmentation), never an error that fails the cells.

use fsbattery_record::aging::FreeSpace;
use std::path::Path;

const MIB: u64 = 1 << 20;

/// Read the free-space fragmentation of the filesystem mounted at `root`.
pub(super) fn probe(root: &Path) -> Option<FreeSpace> {
    let m = crate::targets::fsinfo::describe(root);
    let dev = m.device;
    let argv: Vec<String> = match m.fs_type.as_str() {
        "ext2" | "ext3" | "ext4" => vec!["e2freefrag".into(), dev],
        "xfs" => ["xfs_db", "-r", "-c", "freesp"]
            .iter()
            .map(|s| s.to_string())
            .chain([dev])
            .collect(),
        _ => return None,
    };
    let mount = m.mount_point;
    let freeze = |how: &str| crate::process::run(&["fsfreeze".into(), how.into(), mount.clone()]);
    let frozen = freeze("-f");
    // Thaw whatever happened: a frozen filesystem would hang every workload after this.
    if frozen.is_err() || freeze("-u").is_err() {
        return None;
    }
    let ran = crate::process::run(&argv).ok()?;
    let mut fs = if argv[0] == "xfs_db" {
        let block = nix::sys::statvfs::statvfs(root).ok()?.fragment_size();
        xfs_freesp(&ran.output, block)?
    } else {
        e2freefrag(&ran.output)?
    };
    fs.command = ran.command;
    Some(fs)
}

/// A size as e2freefrag prints it: "4K", "512K", "2M", "1G".
fn size(s: &str) -> Option<u64> {
    let s = s.trim().trim_end_matches('-');
    let (n, unit) = s.split_at(s.len().checked_sub(1)?);
    let mul = match unit {
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return None,
    };
    n.parse::<u64>().ok().map(|n| n * mul)
}

/// The value after `key:` on its line, first word.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let line = text.lines().find(|l| l.trim_start().starts_with(key))?;
    line.split_once(':')?.1.split_whitespace().next()
}

/// e2freefrag's summary and histogram.
pub(crate) fn e2freefrag(text: &str) -> Option<FreeSpace> {
    let block: u64 = field(text, "Blocksize")?.parse().ok()?;
    let free_blocks: u64 = field(text, "Free blocks")?.parse().ok()?;
    let extents: u64 = field(text, "Num. free extent")?.parse().ok()?;
    // "    4K...    8K-  :             3             3    0.00%": extents in [4K, 8K).
    let mut small = 0u64;
    for line in text.lines().filter(|l| l.contains("...")) {
        let (range, counts) = line.split_once(':')?;
        let hi = size(range.split("...").nth(1)?)?;
        let blocks: u64 = counts.split_whitespace().nth(1)?.parse().ok()?;
        if hi <= MIB {
            small += blocks;
        }
    }
    Some(summary(extents, free_blocks * block, small * block))
}

/// xfs_db freesp's histogram ("from to extents blocks pct", sizes in filesystem blocks).
pub(crate) fn xfs_freesp(text: &str, block: u64) -> Option<FreeSpace> {
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

fn summary(extents: u64, free_bytes: u64, small: u64) -> FreeSpace {
    FreeSpace {
        command: String::new(),
        extents,
        free_bytes,
        small_extent_pct: small as f64 * 100.0 / free_bytes.max(1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const E2: &str = "Device: /dev/loop3
Blocksize: 4096 bytes
Total blocks: 65536
Free blocks: 56023 (85.5%)

Min. free extent: 4 KB 
Max. free extent: 16126 KB
Avg. free extent: 9337 KB
Num. free extent: 9

HISTOGRAM OF FREE EXTENT SIZES:
Extent Size Range :  Free extents   Free Blocks  Percent
    4K...    8K-  :             3             3    0.00%
  512K... 1024K-  :             1           200    0.36%
    1M...    2M-  :             1           300    0.54%
    4M...    8M-  :             2          3000    5.36%
    8M...   16M-  :             2         52520   93.75%
";

    #[test]
    fn e2freefrag_summary() {
        let f = e2freefrag(E2).unwrap();
        assert_eq!((f.extents, f.free_bytes), (9, 56023 * 4096));
        let want = 203.0 * 100.0 / 56023.0;
        assert!((f.small_extent_pct - want).abs() < 1e-9, "{f:?}");
        assert_eq!(e2freefrag("not e2freefrag"), None);
    }

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

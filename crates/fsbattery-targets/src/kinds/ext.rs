//! ext2, ext3 and ext4 (kernel), made by e2fsprogs: `mkfs.extN -F`; ext3 and ext4 may keep
//! their journal on a device of its own, made first by `mke2fs -O journal_dev`. Free space
//! is reported by `e2freefrag`.

use super::freespace::{summary, FreeSpaceTool, MIB};
use super::{FsEntry, Journal, Mkfs, Version};
use fsbattery_record::aging::FreeSpace;
use nix::sys::statfs::EXT4_SUPER_MAGIC;
use std::path::Path;

/// e2fsprogs' version, for every kind mke2fs makes.
pub(super) const MKE2FS_VERSION: Version = ("mke2fs", &["mke2fs", "-V"]);

const fn ext(name: &'static str, journal: Option<Journal>) -> FsEntry {
    FsEntry {
        name,
        mkfs: Mkfs {
            force: &["-F"],
            ..Mkfs::PLAIN
        },
        journal,
        default: true,
        versions: &[MKE2FS_VERSION],
        free_space: Some(FreeSpaceTool {
            argv: &["e2freefrag"],
            parse: |text, _| e2freefrag(text),
        }),
        statfs: Some((EXT4_SUPER_MAGIC, "ext2/3/4")),
        ..FsEntry::KERNEL
    }
}

/// ext3 and ext4's external journal.
const JOURNAL: Journal = Journal {
    min: 8 * MIB,
    label: "-extjournal",
    mkfs: ("-J", "device="),
    mount: None,
    prepare: Some(journal_device),
    help: "journal=external[,journal_size=SIZE]",
};

pub(super) const EXT2: FsEntry = FsEntry {
    journaling: false,
    ..ext("ext2", None)
};
pub(super) const EXT3: FsEntry = ext("ext3", Some(JOURNAL));
pub(super) const EXT4: FsEntry = FsEntry {
    option_space: Some(include_str!("../../../../suites/options/ext4.toml")),
    ..ext("ext4", Some(JOURNAL))
};

/// The journal device's mkfs. Its block size must equal the filesystem's, and mke2fs takes
/// the filesystem's from the journal device: give both the user's -b or 4096 (mke2fs would
/// pick 1024 for a small journal image).
fn journal_device(journal: &Path, extra: &[String]) -> Vec<String> {
    let bs = block_size_arg(extra).unwrap_or_else(|| "4096".into());
    vec![
        "mke2fs".into(),
        "-F".into(),
        "-O".into(),
        "journal_dev".into(),
        "-b".into(),
        bs,
        journal.display().to_string(),
    ]
}

fn block_size_arg(extra: &[String]) -> Option<String> {
    let i = extra.iter().position(|w| w == "-b")?;
    extra.get(i + 1).cloned()
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

/// e2freefrag's summary and histogram (it prints its own block size).
pub fn e2freefrag(text: &str) -> Option<FreeSpace> {
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
}

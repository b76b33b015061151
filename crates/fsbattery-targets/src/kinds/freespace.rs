//! How a filesystem kind reports its free-space fragmentation: the command (its own tool, run
//! on the device) and the parser of its output. The parsers live with their kinds (ext.rs,
//! xfs.rs); runner/freefrag.rs freezes the filesystem, runs the command and records the result.

use fsbattery_record::aging::FreeSpace;

pub const MIB: u64 = 1 << 20;

/// Reads the tool's output; the second argument is the filesystem's block size in bytes.
pub type ParseFn = fn(&str, u64) -> Option<FreeSpace>;

/// A free-space report command.
#[derive(Clone, Copy)]
pub struct FreeSpaceTool {
    /// The command; the device path is appended.
    pub argv: &'static [&'static str],
    /// Its output as a summary, or `None` when it cannot be read.
    pub parse: ParseFn,
}

/// The summary every parser gives: the share of free space in extents under 1 MiB, the
/// pieces a large sequential write cannot use whole.
pub fn summary(extents: u64, free_bytes: u64, small: u64) -> FreeSpace {
    FreeSpace {
        command: String::new(),
        extents,
        free_bytes,
        small_extent_pct: small as f64 * 100.0 / free_bytes.max(1) as f64,
    }
}

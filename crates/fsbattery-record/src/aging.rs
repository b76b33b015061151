//! `run --age PCT[,seed=N]`: what the plan asked for and what the churn did to each made
//! filesystem before its workloads, with the free-space fragmentation it left where a tool
//! could read it. An aged run is named by its age (like a label), so `compare fresh aged`
//! compares the same suite on the same targets, once fresh and once lived-in.

use serde::{Deserialize, Serialize};

/// The aging the plan asked for.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct AgeSpec {
    /// Fill the filesystem to this percentage of its size (1 to 95).
    pub pct: u32,
    /// Seed of the churn: the same seed makes the same files in the same order.
    pub seed: u64,
}

impl AgeSpec {
    /// Default seed when `--age` gives none.
    pub const DEFAULT_SEED: u64 = 1;

    /// "aged 70 %".
    pub fn describe(&self) -> String {
        format!("aged {} %", self.pct)
    }
}

/// What the churn did to one made filesystem (one per lifecycle).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Aging {
    /// Target fill, percent.
    pub pct: u32,
    /// Seed.
    pub seed: u64,
    /// Create/append/delete rounds made.
    pub rounds: u32,
    /// Files created over all rounds.
    pub files_created: u64,
    /// Files deleted over all rounds.
    pub files_deleted: u64,
    /// Files left on the filesystem.
    pub files_left: u64,
    /// Bytes written over all rounds (creates and appends).
    pub bytes_written: u64,
    /// Bytes of the files left.
    pub bytes_left: u64,
    /// Percent of the filesystem used after the churn (statvfs).
    pub used_pct: f64,
    /// Wall seconds of the churn (never part of any cell).
    pub secs: f64,
    /// Free-space fragmentation after the churn, where a tool could read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_space: Option<FreeSpace>,
}

/// A summary of free-space fragmentation read by the filesystem's own tool.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FreeSpace {
    /// The command run, e.g. "e2freefrag /dev/loop3".
    pub command: String,
    /// Free extents counted.
    pub extents: u64,
    /// Free bytes counted.
    pub free_bytes: u64,
    /// Percent of the free space in extents smaller than 1 MiB.
    pub small_extent_pct: f64,
}

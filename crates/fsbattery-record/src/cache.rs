//! What the record says of the page cache: the policy a run asked for, what was done to the
//! cache before each timed phase, and how much of the phase's own files was resident when its
//! clock started (measured, not assumed).
//!
//! Invariants: a [`PhaseCache`] is a measurement made in the run that wrote it; a phase whose
//! files were in memory anyway (tmpfs) says so with `memory_medium` rather than passing off a
//! full residency as a cache hit.

use serde::{Deserialize, Serialize};

/// The cache state a run asks for before each timed phase (`run --cache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CachePolicy {
    /// Sync, then drop the page cache (root) or evict the phase's files (fadvise).
    #[default]
    Cold,
    /// Read the phase's files in first, so it starts with them cached.
    Warm,
    /// Do what the reference tool the workload follows did (none: as cold).
    Tool,
    /// Sync only, drop nothing: each phase finds what the previous ones left (S1's `sync`
    /// and sleep between tests).
    None,
}

impl std::fmt::Display for CachePolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CachePolicy::Cold => "cold",
            CachePolicy::Warm => "warm",
            CachePolicy::Tool => "tool",
            CachePolicy::None => "none",
        })
    }
}

/// What was done to the page cache before one timed phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CachePrep {
    /// sync, then the whole page cache dropped (`/proc/sys/vm/drop_caches`): cold guaranteed
    /// except for pages the kernel could not drop, which the residency shows.
    Dropped,
    /// posix_fadvise(DONTNEED) on the phase's files (not root, or fio's `invalidate`): cold
    /// attempted, not guaranteed (metadata and dirty pages stay).
    Fadvised,
    /// The phase's files read in whole (warm).
    ReadIn,
    /// Nothing: the phase found the cache as the previous one left it (bonnie++, PostMark).
    Nothing,
    /// sync(2) only (`cache = "none"`): dirty pages written, nothing dropped.
    Synced,
}

/// How residency was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResidencyProbe {
    /// cachestat(2), Linux ≥ 6.5.
    Cachestat,
    /// mincore(2) on a read-only mapping of each file.
    Mincore,
}

/// The page cache as one timed phase found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseCache {
    /// The policy the phase ran under (the run's `--cache`, or the workload's tool default).
    pub policy: CachePolicy,
    /// What was done to the cache before the clock started.
    pub prep: CachePrep,
    /// Bytes of the phase's own files in the page cache just before the clock started.
    pub resident_bytes: u64,
    /// Total size of those files.
    pub file_bytes: u64,
    /// How `resident_bytes` was measured.
    pub probe: ResidencyProbe,
    /// The files live in memory (tmpfs, ramfs): residency is no cache hit there.
    #[serde(default, skip_serializing_if = "is_false")]
    pub memory_medium: bool,
}

/// The run's cache conditions as planned: `--cache` and `--memory`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCache {
    /// The policy asked for (`tool`: each workload's reference tool, cold for the others).
    pub policy: CachePolicy,
    /// The memory cgroup every workload ran in, if `--memory` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryLimit>,
}

/// The memory cgroup that bounded the page cache (`run --memory`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryLimit {
    /// The limit in bytes.
    pub limit_bytes: u64,
    /// Where the size came from: "--memory", or "seed_memory of SUITE".
    pub source: String,
    /// The cgroup directory the run made.
    pub cgroup: String,
    /// "v2" (memory.max) or "v1" (memory.limit_in_bytes).
    pub version: String,
    /// Peak memory the cgroup was charged (memory.peak, memory.max_usage_in_bytes), read
    /// when the workloads were done; absent until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_bytes: Option<u64>,
    /// The most page cache it held, as read after each workload step (memory.stat `file`
    /// or `cache`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_cache_bytes: Option<u64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl PhaseCache {
    /// Resident share of the files in percent (0 for no data).
    pub fn resident_pct(&self) -> f64 {
        if self.file_bytes == 0 {
            0.0
        } else {
            self.resident_bytes as f64 / self.file_bytes as f64 * 100.0
        }
    }

    /// A phase meant to start cold that found some of its files cached: its number is not a
    /// cold number, and reports flag it.
    pub fn cold_but_resident(&self) -> bool {
        self.policy == CachePolicy::Cold && !self.memory_medium && self.resident_bytes > 0
    }

    /// One short phrase for reports: "12.5 % resident", "memory medium".
    pub fn describe(&self) -> String {
        if self.memory_medium {
            "files in memory (tmpfs): residency is not a cache hit".into()
        } else {
            format!(
                "{:.1} % of {} resident ({}, {})",
                self.resident_pct(),
                crate::format_bytes(self.file_bytes),
                self.policy,
                self.prep.describe()
            )
        }
    }
}

impl CachePrep {
    /// What the preparation guarantees, in words.
    pub fn describe(&self) -> &'static str {
        match self {
            CachePrep::Dropped => "caches dropped",
            CachePrep::Fadvised => "fadvise only: cold attempted, not guaranteed",
            CachePrep::ReadIn => "read in first",
            CachePrep::Nothing => "cache left as the previous phase left it",
            CachePrep::Synced => "synced, nothing dropped",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(policy: CachePolicy, resident: u64, memory_medium: bool) -> PhaseCache {
        PhaseCache {
            policy,
            prep: CachePrep::Dropped,
            resident_bytes: resident,
            file_bytes: 4096,
            probe: ResidencyProbe::Cachestat,
            memory_medium,
        }
    }

    #[test]
    fn only_a_cold_phase_on_a_real_medium_with_pages_is_flagged() {
        assert!(phase(CachePolicy::Cold, 1024, false).cold_but_resident());
        assert!(!phase(CachePolicy::Cold, 0, false).cold_but_resident());
        assert!(!phase(CachePolicy::Cold, 4096, true).cold_but_resident());
        assert!(!phase(CachePolicy::Warm, 4096, false).cold_but_resident());
        assert_eq!(phase(CachePolicy::Warm, 1024, false).resident_pct(), 25.0);
    }

    #[test]
    fn serialises_compactly_and_reads_back() {
        let p = phase(CachePolicy::Cold, 0, false);
        let j = serde_json::to_string(&p).unwrap();
        assert!(!j.contains("memory_medium"), "{j}");
        assert!(j.contains("\"prep\":\"dropped\""), "{j}");
        assert_eq!(serde_json::from_str::<PhaseCache>(&j).unwrap(), p);
    }
}

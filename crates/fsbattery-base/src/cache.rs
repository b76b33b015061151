//! Quiescing the machine before each test: sync, then drop the page cache.
//!
//! As root the whole cache is dropped (`/proc/sys/vm/drop_caches`); otherwise the files the
//! next test touches are evicted one by one with `posix_fadvise(DONTNEED)`, which is the best
//! an unprivileged user can do. The method used is returned so the record can say it.
//!
//! [`CacheMode`] is the one place that turns the run's `--cache` policy (and, for `tool`,
//! what the workload's reference tool did) into what happens before a timed phase: workloads
//! never call these functions themselves, they receive the mode in their context.

use crate::model::{CachePolicy, CachePrep};
use crate::regular_files::regular_files;
use nix::fcntl::{posix_fadvise, PosixFadviseAdvice};
use std::fs::File;
use std::path::Path;

/// What a workload's reference tool does to the page cache before each timed phase. Every
/// workload declares one (`Workload::tool_cache` in the workloads has no default), so
/// `--cache tool` never falls back to anything the tool did not do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolCache {
    /// fio's `invalidate=1`: posix_fadvise(DONTNEED) on the job's files, no sync, no drop.
    Invalidate,
    /// Nothing: each phase finds what the previous one left (tar, cpio, cp, cat, rm, dd,
    /// split, bonnie++, PostMark, iozone, filebench, the io500 app between its phases).
    #[default]
    Nothing,
    /// sync(2) and nothing else: FFSB syncs after laying out its files, before it times.
    Sync,
}

/// The cache handling of one workload run: the run's policy and the workload's tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheMode {
    /// `--cache` (cold unless asked otherwise).
    pub policy: CachePolicy,
    /// What the workload's reference tool does.
    pub tool: ToolCache,
}

impl CacheMode {
    /// The policy phases actually run under (recorded with each sample).
    pub fn effective(&self) -> CachePolicy {
        self.policy
    }

    /// Bring the cache into this mode's state before a phase over `paths`; returns what was
    /// done, for the record.
    pub fn prepare(&self, paths: &[&Path]) -> CachePrep {
        match (self.effective(), self.tool) {
            (CachePolicy::Warm, _) => {
                nix::unistd::sync();
                for p in paths {
                    read_in(p);
                }
                CachePrep::ReadIn
            }
            (CachePolicy::Tool, ToolCache::Invalidate) => {
                for p in paths {
                    fadvise_tree(p);
                }
                CachePrep::Fadvised
            }
            (CachePolicy::Tool, ToolCache::Nothing) => CachePrep::Nothing,
            (CachePolicy::None, _) | (CachePolicy::Tool, ToolCache::Sync) => {
                nix::unistd::sync();
                CachePrep::Synced
            }
            (CachePolicy::Cold, _) => match quiesce(paths) {
                CacheDrop::DropCaches => CachePrep::Dropped,
                CacheDrop::Fadvise => CachePrep::Fadvised,
            },
        }
    }

    /// [`Self::prepare`] for one of several processes on a node (MPI ranks): only the node's
    /// leader drops the page cache; the others sync and evict their own files.
    pub fn prepare_as(&self, paths: &[&Path], node_leader: bool) -> CachePrep {
        if node_leader || self.effective() != CachePolicy::Cold {
            return self.prepare(paths);
        }
        nix::unistd::sync();
        for p in paths {
            fadvise_tree(p);
        }
        CachePrep::Fadvised
    }

    /// Undo what measuring residency warmed (dentries, inodes, directory blocks) when the
    /// phase is meant to start with everything dropped; data pages were not touched.
    pub fn after_measuring(&self, prep: CachePrep) {
        if prep == CachePrep::Dropped {
            let _ = std::fs::write("/proc/sys/vm/drop_caches", "3\n");
        }
    }
}

/// Read every regular file under `root` to its end, so the phase finds it cached; errors are
/// ignored (the residency measured next shows what made it in).
fn read_in(root: &Path) {
    let mut buf = vec![0u8; 1 << 20];
    for path in regular_files(root) {
        if let Ok(mut f) = File::open(&path) {
            while matches!(std::io::Read::read(&mut f, &mut buf), Ok(n) if n > 0) {}
        }
    }
}

/// How the cache was emptied before a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheDrop {
    /// Echo 3 > /proc/sys/vm/drop_caches.
    DropCaches,
    /// posix_fadvise(DONTNEED) on each file under the paths.
    Fadvise,
}

/// Whether this process can drop the whole page cache.
pub fn can_drop_caches() -> bool {
    nix::unistd::geteuid().is_root()
        && std::fs::OpenOptions::new()
            .write(true)
            .open("/proc/sys/vm/drop_caches")
            .is_ok()
}

/// sync(2), then drop caches (root) or fadvise every file under `paths`.
pub fn quiesce(paths: &[&Path]) -> CacheDrop {
    nix::unistd::sync();
    if can_drop_caches() && std::fs::write("/proc/sys/vm/drop_caches", "3\n").is_ok() {
        return CacheDrop::DropCaches;
    }
    for p in paths {
        fadvise_tree(p);
    }
    CacheDrop::Fadvise
}

/// Evict one source file from the page cache before a phase reads it from "another disk"
/// (S1's tarball_in): the dataset was generated by this run, so its pages are resident and
/// may be dirty; they are written first (DONTNEED leaves dirty pages), then dropped. Errors
/// are ignored as in `fadvise_tree`: the residency recorded with the phase shows the rest.
pub fn evict_source(path: &Path) {
    if let Ok(f) = File::open(path) {
        let _ = f.sync_data();
        let _ = posix_fadvise(&f, 0, 0, PosixFadviseAdvice::POSIX_FADV_DONTNEED);
    }
}

/// Evict one file's clean pages from the page cache (posix_fadvise DONTNEED), as fio's
/// `invalidate` does to each file it (re)opens; errors are ignored as in `fadvise_tree`.
pub fn evict_file(path: &Path) {
    if let Ok(f) = File::open(path) {
        let _ = posix_fadvise(&f, 0, 0, PosixFadviseAdvice::POSIX_FADV_DONTNEED);
    }
}

/// Evict every regular file under `root` from the page cache; errors are ignored because an
/// eviction that fails only makes the next test warmer, never wrong (the residency measured
/// next says so).
fn fadvise_tree(root: &Path) {
    for path in regular_files(root) {
        evict_file(&path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `none` (S1's sync and sleep) syncs and drops nothing, whatever the workload's tool,
    /// and stays `none` in the record.
    #[test]
    fn none_syncs_only_and_is_recorded_as_none() {
        // (Residency is not asserted: other tests on this machine may drop the whole cache.)
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, vec![1u8; 1 << 16]).unwrap();
        for tool in [ToolCache::Nothing, ToolCache::Invalidate, ToolCache::Sync] {
            let mode = CacheMode {
                policy: CachePolicy::None,
                tool,
            };
            assert_eq!(mode.effective(), CachePolicy::None);
            assert_eq!(mode.prepare(&[&file]), CachePrep::Synced);
        }
    }
}

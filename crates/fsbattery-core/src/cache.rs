//! Quiescing the machine before each test: sync, then drop the page cache.
//!
//! As root the whole cache is dropped (`/proc/sys/vm/drop_caches`); otherwise the files the
//! next test touches are evicted one by one with `posix_fadvise(DONTNEED)`, which is the best
//! an unprivileged user can do. The method used is returned so the record can say it.

use nix::fcntl::{posix_fadvise, PosixFadviseAdvice};
use std::fs::File;
use std::path::Path;

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

/// Evict every regular file under `root` from the page cache; errors are ignored because an
/// eviction that fails only makes the next test warmer, never wrong.
/// sync(2), then fadvise every file under `paths`: what a rank that is not its node's
/// leader does while the leader drops the node's cache (see `WorkloadCtx::phase`).
pub fn evict(paths: &[&Path]) {
    nix::unistd::sync();
    for p in paths {
        fadvise_tree(p);
    }
}

fn fadvise_tree(root: &Path) {
    let Ok(meta) = std::fs::symlink_metadata(root) else {
        return;
    };
    if meta.is_file() {
        if let Ok(f) = File::open(root) {
            let _ = posix_fadvise(&f, 0, 0, PosixFadviseAdvice::POSIX_FADV_DONTNEED);
        }
    } else if meta.is_dir() {
        if let Ok(rd) = std::fs::read_dir(root) {
            for e in rd.flatten() {
                fadvise_tree(&e.path());
            }
        }
    }
}

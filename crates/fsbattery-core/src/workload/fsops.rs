//! Filesystem operations shared by several workloads, done the way the seeds' tools do them.
//!
//! `walk` is `find`: readdir every directory and lstat every entry (find stats what it visits).

use crate::error::{IoContext, WorkloadError};
use std::path::Path;

/// Walk `root` recursively, lstat-ing every entry as `find` does; returns entries seen,
/// `root` included. Polls the interruption flag as it goes.
pub fn walk(root: &Path) -> Result<u64, WorkloadError> {
    let mut seen = 1u64;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let rd = std::fs::read_dir(&dir).ctx(|| format!("read directory {}", dir.display()))?;
        for entry in rd {
            let entry = entry.ctx(|| format!("read directory {}", dir.display()))?;
            let path = entry.path();
            let meta =
                std::fs::symlink_metadata(&path).ctx(|| format!("stat {}", path.display()))?;
            seen += 1;
            super::poll(seen)?;
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    Ok(seen)
}

/// Remove a directory and everything below it (rm -rf).
pub fn remove_tree(path: &Path) -> Result<(), WorkloadError> {
    std::fs::remove_dir_all(path).ctx(|| format!("remove {}", path.display()))
}

//! A workload's private directory on the target, removed on drop.
//!
//! The guard is what makes "the workload's files are removed" hold on every path: success,
//! error, and interruption. Removal failures are logged, never swallowed silently.

use crate::error::{IoContext, WorkloadError};
use std::path::{Path, PathBuf};

/// A directory created for one workload run; removed with everything in it on drop.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Create `<root>/fsbattery-<name>-<pid>`; fails if it already exists (never reuse files).
    pub fn create(root: &Path, name: &str) -> Result<Scratch, WorkloadError> {
        let path = root.join(format!("fsbattery-{name}-{}", std::process::id()));
        std::fs::create_dir(&path)
            .ctx(|| format!("create scratch directory {}", path.display()))?;
        Ok(Scratch { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A path inside the scratch directory.
    pub fn join(&self, p: impl AsRef<Path>) -> PathBuf {
        self.path.join(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                crate::notice::warn(format!("could not remove {}: {e}", self.path.display()));
            }
        }
    }
}

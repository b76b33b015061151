//! Sources other than kernel trees that a workload generates once per run on the source disk
//! (a git repository, a C project): a directory named after the generator and its
//! parameters, filled by the workload's own generator.
//!
//! Invariants: the name is the cache key, so one name stands for one content (the generator
//! is deterministic in the parameters the name spells); a directory is made at most once per
//! store, into a fresh path, and a failed generation leaves nothing the store would reuse.

use super::DatasetError;
use std::fmt;
use std::path::Path;

/// The generator of one source directory.
pub type MakeFn = Box<dyn Fn(&Path) -> Result<(), DatasetError> + Send + Sync>;

/// A source a workload generates once per run (see the module header).
pub struct Generated {
    /// Directory name in the store, unique per generator and parameters, e.g.
    /// `git-repo-f2000-c60-seed1`.
    pub name: String,
    /// Fills the directory it is given (new and empty).
    pub make: MakeFn,
}

impl fmt::Debug for Generated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Generated")
            .field("name", &self.name)
            .finish()
    }
}

/// Make `g` as `dir/<name>`: into a temporary name first, renamed when complete, so an
/// interrupted generation is never taken for a finished one.
pub(super) fn make_in(dir: &Path, g: &Generated) -> Result<std::path::PathBuf, DatasetError> {
    let out = dir.join(&g.name);
    let part = dir.join(format!("{}.part", g.name));
    if part.exists() {
        std::fs::remove_dir_all(&part)
            .map_err(|e| DatasetError::io(format!("remove {}", part.display()), e))?;
    }
    std::fs::create_dir(&part)
        .map_err(|e| DatasetError::io(format!("create {}", part.display()), e))?;
    if let Err(e) = (g.make)(&part) {
        let _ = std::fs::remove_dir_all(&part);
        return Err(e);
    }
    std::fs::rename(&part, &out).map_err(|e| {
        DatasetError::io(format!("rename {} to {}", part.display(), out.display()), e)
    })?;
    Ok(out)
}

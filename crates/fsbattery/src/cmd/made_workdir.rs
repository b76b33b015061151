//! The work directory a run makes: a guard that removes it again when the run ends, however
//! it ends (a refusal after it was made, the run's end), so no path can forget it.
//!
//! Invariant: only the directory itself is removed, and only when empty — never what it
//! holds, which may be another run's sessions (two runs at once in one work directory).

use std::path::{Path, PathBuf};

/// Owns the work directory when this run is the one that makes it.
pub struct MadeWorkdir(Option<PathBuf>);

impl MadeWorkdir {
    /// Taken before anything may create `dir`: owns it when it does not exist yet.
    pub fn note(dir: &Path) -> MadeWorkdir {
        MadeWorkdir((!dir.exists()).then(|| dir.to_path_buf()))
    }
}

impl Drop for MadeWorkdir {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_the_directory_it_made_only_when_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("work");
        let made = MadeWorkdir::note(&dir);
        std::fs::create_dir(&dir).unwrap();
        drop(made);
        assert!(!dir.exists(), "made by the run: removed");

        let made = MadeWorkdir::note(&dir);
        std::fs::create_dir_all(dir.join("other-run")).unwrap();
        drop(made);
        assert!(dir.join("other-run").exists(), "never what it holds");

        let existing = MadeWorkdir::note(&dir);
        std::fs::remove_dir(dir.join("other-run")).unwrap();
        drop(existing);
        assert!(dir.exists(), "there before the run: kept");
    }
}

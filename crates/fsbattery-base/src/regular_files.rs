//! The regular files under a path, listed by the types `readdir` reports, so that listing
//! them loads no inode: the cache preparation (read in, evict) and the residency measure walk
//! a phase's files just before its clock starts, and loading every inode there would warm
//! what the phase is about to use (an entry of unknown type is looked at; symbolic links are
//! not followed). Unreadable directories are skipped: a file that cannot be listed cannot be
//! cached or evicted either.

use std::path::{Path, PathBuf};

/// Every regular file under `root` (or `root` itself when it is one), in walk order.
pub fn regular_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(meta) = std::fs::symlink_metadata(root) else {
        return out;
    };
    if meta.is_file() {
        out.push(root.to_path_buf());
        return out;
    }
    if !meta.is_dir() {
        return out;
    }
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => dirs.push(e.path()),
                Ok(t) if t.is_file() => out.push(e.path()),
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_in_every_directory_are_listed_and_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("a/b")).unwrap();
        for f in ["top", "a/one", "a/b/two"] {
            std::fs::write(d.path().join(f), b"x").unwrap();
        }
        std::os::unix::fs::symlink(d.path().join("a"), d.path().join("link")).unwrap();
        let mut got: Vec<_> = regular_files(d.path())
            .iter()
            .map(|p| p.strip_prefix(d.path()).unwrap().to_path_buf())
            .collect();
        got.sort();
        let want: Vec<PathBuf> = ["a/b/two", "a/one", "top"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(got, want);
        // A file given as the root is itself; a missing root is nothing.
        let top = d.path().join("top");
        assert_eq!(regular_files(&top), vec![top.clone()]);
        assert!(regular_files(&d.path().join("missing")).is_empty());
    }
}

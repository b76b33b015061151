//! Content hashes of directory trees and tar archives, comparable with each other.
//!
//! The hash covers, for every entry below a root, its relative path (`/`-separated, no
//! leading `./`), its kind (directory, regular file, symlink), its permission bits
//! (`mode & 0o7777`, symlinks 0), its size and the SHA-256 of its bytes (a symlink's bytes
//! are its target). Entries are taken in byte order of their paths, so readdir order, tar
//! order and timestamps never matter. Invariant: extracting a tarball whose scan gave hash H
//! into an empty directory D, with modes preserved, gives `content_hash(D) == H`.
//! Hard links are hashed as independent files (what they read as).

use super::DatasetError;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Format tag hashed first, so a future change of the scheme cannot collide with this one.
const SCHEME: &[u8] = b"fsbattery-tree-v1\0";

/// What a tree holds, with its content hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeSummary {
    /// Hex SHA-256 over the sorted entry records (see the module doc).
    pub hash: String,
    /// Regular files.
    pub files: u64,
    /// Directories (the root excluded).
    pub dirs: u64,
    /// Symbolic links.
    pub symlinks: u64,
    /// Sum of regular file sizes.
    pub bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Dir = 1,
    File = 2,
    Symlink = 3,
}

impl Kind {
    /// The kind in words, for explanations.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Dir => "directory",
            Kind::File => "file",
            Kind::Symlink => "symlink",
        }
    }
}

/// What the hash covers of one entry.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub(crate) kind: Kind,
    /// `mode & 0o7777`; 0 for symlinks.
    pub(crate) mode: u32,
    /// Bytes of a file, or of a symlink's target.
    pub(crate) size: u64,
    /// SHA-256 of those bytes.
    pub(crate) digest: [u8; 32],
}

/// Collects entry records in any order and folds them into a [`TreeSummary`].
#[derive(Debug, Default)]
pub(crate) struct TreeHasher {
    entries: BTreeMap<Vec<u8>, Record>,
}

impl TreeHasher {
    /// A directory at `path` (relative, normalised).
    pub(crate) fn dir(&mut self, path: &[u8], mode: u32) {
        let rec = Record {
            kind: Kind::Dir,
            mode: mode & 0o7777,
            size: 0,
            digest: [0; 32],
        };
        self.entries.insert(path.to_vec(), rec);
    }

    /// A regular file whose contents hashed to `digest`.
    pub(crate) fn file(&mut self, path: &[u8], mode: u32, size: u64, digest: [u8; 32]) {
        let rec = Record {
            kind: Kind::File,
            mode: mode & 0o7777,
            size,
            digest,
        };
        self.entries.insert(path.to_vec(), rec);
    }

    /// A symbolic link pointing at `target`.
    pub(crate) fn symlink(&mut self, path: &[u8], target: &[u8]) {
        let rec = Record {
            kind: Kind::Symlink,
            mode: 0,
            size: target.len() as u64,
            digest: Sha256::digest(target).into(),
        };
        self.entries.insert(path.to_vec(), rec);
    }

    /// Mode, size and digest of a recorded regular file (to hash a hard link as its target).
    pub(crate) fn file_record(&self, path: &[u8]) -> Option<(u32, u64, [u8; 32])> {
        self.entries
            .get(path)
            .filter(|r| r.kind == Kind::File)
            .map(|r| (r.mode, r.size, r.digest))
    }

    /// Record every missing ancestor directory with `mode` (tar archives may omit them; tar
    /// then creates them itself).
    pub(crate) fn add_implicit_parents(&mut self, mode: u32) {
        let mut missing = Vec::new();
        for path in self.entries.keys() {
            let mut end = path.len();
            while let Some(pos) = path[..end].iter().rposition(|&b| b == b'/') {
                let parent = &path[..pos];
                if !self.entries.contains_key(parent) {
                    missing.push(parent.to_vec());
                }
                end = pos;
            }
        }
        for p in missing {
            self.dir(&p, mode);
        }
    }

    /// Every record, by path.
    pub(crate) fn entries(&self) -> &BTreeMap<Vec<u8>, Record> {
        &self.entries
    }

    /// Fold the records into the summary.
    pub(crate) fn finish(self) -> TreeSummary {
        self.summary()
    }

    /// The summary, keeping the records (to compare them when hashes differ).
    pub(crate) fn summary(&self) -> TreeSummary {
        let mut h = Sha256::new();
        h.update(SCHEME);
        let (mut files, mut dirs, mut symlinks, mut bytes) = (0, 0, 0, 0);
        for (path, r) in &self.entries {
            h.update((path.len() as u64).to_be_bytes());
            h.update(path);
            h.update([r.kind as u8]);
            h.update(r.mode.to_be_bytes());
            h.update(r.size.to_be_bytes());
            h.update(r.digest);
            match r.kind {
                Kind::Dir => dirs += 1,
                Kind::File => {
                    files += 1;
                    bytes += r.size;
                }
                Kind::Symlink => symlinks += 1,
            }
        }
        TreeSummary {
            hash: hex(&h.finalize()),
            files,
            dirs,
            symlinks,
            bytes,
        }
    }
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Content hash of everything below `dir` (see the module doc); `dir` itself is not hashed.
pub fn content_hash(dir: &Path) -> Result<String, DatasetError> {
    Ok(summarize(dir)?.hash)
}

/// Counts and content hash of everything below `dir`.
pub fn summarize(dir: &Path) -> Result<TreeSummary, DatasetError> {
    Ok(scan_dir(dir)?.finish())
}

/// The record of every entry below `dir`.
pub(crate) fn scan_dir(dir: &Path) -> Result<TreeHasher, DatasetError> {
    let mut hasher = TreeHasher::default();
    let mut buf = vec![0u8; 256 << 10];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d)
            .map_err(|e| DatasetError::io(format!("read {}", d.display()), e))?;
        for entry in rd {
            let entry = entry.map_err(|e| DatasetError::io(format!("read {}", d.display()), e))?;
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path)
                .map_err(|e| DatasetError::io(format!("stat {}", path.display()), e))?;
            let rel = path.strip_prefix(dir).expect("walk stays below its root");
            let rel = rel.as_os_str().as_bytes();
            let mode = meta.permissions().mode();
            if meta.is_dir() {
                hasher.dir(rel, mode);
                stack.push(path);
            } else if meta.is_file() {
                let digest = hash_file(&path, &mut buf)?;
                hasher.file(rel, mode, meta.len(), digest);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path)
                    .map_err(|e| DatasetError::io(format!("readlink {}", path.display()), e))?;
                hasher.symlink(rel, target.as_os_str().as_bytes());
            } else {
                return Err(DatasetError::Unsupported {
                    path: path.clone(),
                    what: "a device, fifo or socket".into(),
                });
            }
        }
    }
    Ok(hasher)
}

fn hash_file(path: &Path, buf: &mut [u8]) -> Result<[u8; 32], DatasetError> {
    let mut f =
        File::open(path).map_err(|e| DatasetError::io(format!("open {}", path.display()), e))?;
    let mut h = Sha256::new();
    loop {
        let n = f
            .read(buf)
            .map_err(|e| DatasetError::io(format!("read {}", path.display()), e))?;
        if n == 0 {
            return Ok(h.finalize().into());
        }
        h.update(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_does_not_matter_but_content_and_mode_do() {
        let d = Sha256::digest(b"x").into();
        let mut a = TreeHasher::default();
        a.dir(b"t", 0o755);
        a.file(b"t/f", 0o644, 1, d);
        let mut b = TreeHasher::default();
        b.file(b"t/f", 0o100644, 1, d);
        b.dir(b"t", 0o40755);
        let (ha, hb) = (a.finish(), b.finish());
        assert_eq!(ha, hb);
        assert_eq!((ha.files, ha.dirs, ha.bytes), (1, 1, 1));
        let mut c = TreeHasher::default();
        c.dir(b"t", 0o755);
        c.file(b"t/f", 0o755, 1, d);
        assert_ne!(c.finish().hash, ha.hash);
    }

    #[test]
    fn implicit_parents_are_added() {
        let mut a = TreeHasher::default();
        a.file(b"a/b/c", 0o644, 0, [0; 32]);
        a.add_implicit_parents(0o755);
        let s = a.finish();
        assert_eq!((s.dirs, s.files), (2, 1));
    }
}

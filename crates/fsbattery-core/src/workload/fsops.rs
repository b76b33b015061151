//! Filesystem operations shared by several workloads, done the way the seeds' tools do them.
//!
//! The one directory walk: [`walk_tree`] is find's and tar's, pre-order in readdir order with an
//! lstat per entry and the interruption flag polled per entry; [`walk`] is `find` on top of it
//! (counting what it visits).

use super::poll;
use crate::error::{IoContext, WorkloadError};
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Walk `root` recursively, lstat-ing every entry as `find` does; returns entries seen,
/// `root` included. Polls the interruption flag as it goes.
pub fn walk(root: &Path) -> Result<u64, WorkloadError> {
    let mut seen = 0u64;
    walk_tree(root, &[String::new()], &mut |v| {
        seen += u64::from(v.kind != Kind::Leave);
        Ok(())
    })?;
    Ok(seen)
}

/// What the walk is at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A directory, before its contents.
    Enter,
    /// The same directory, after its contents.
    Leave,
    /// A regular file.
    File,
    /// A symbolic link.
    Symlink,
}

/// One step of [`walk_tree`].
pub(crate) struct Visit<'a> {
    /// Where the entry is.
    pub abs: &'a Path,
    /// Its path relative to the walk's base (what archives store).
    pub rel: &'a Path,
    /// Its lstat.
    pub meta: &'a Metadata,
    /// What it is.
    pub kind: Kind,
}

/// Walk `names` below `base` as find and tar do: pre-order, readdir order, lstat each entry.
pub(crate) fn walk_tree(
    base: &Path,
    names: &[String],
    f: &mut dyn FnMut(Visit<'_>) -> Result<(), WorkloadError>,
) -> Result<(), WorkloadError> {
    let mut seen = 0u64;
    for name in names {
        walk_entry(base, PathBuf::from(name), f, &mut seen)?;
    }
    Ok(())
}

fn walk_entry(
    base: &Path,
    rel: PathBuf,
    f: &mut dyn FnMut(Visit<'_>) -> Result<(), WorkloadError>,
    seen: &mut u64,
) -> Result<(), WorkloadError> {
    poll(*seen)?;
    *seen += 1;
    let abs = base.join(&rel);
    let meta = std::fs::symlink_metadata(&abs).ctx(|| format!("stat {}", abs.display()))?;
    let visit = |kind| Visit {
        abs: &abs,
        rel: &rel,
        meta: &meta,
        kind,
    };
    if meta.is_dir() {
        f(visit(Kind::Enter))?;
        let rd = std::fs::read_dir(&abs).ctx(|| format!("read directory {}", abs.display()))?;
        for entry in rd {
            let entry = entry.ctx(|| format!("read directory {}", abs.display()))?;
            walk_entry(base, rel.join(entry.file_name()), f, seen)?;
        }
        f(visit(Kind::Leave))
    } else if meta.is_file() {
        f(visit(Kind::File))
    } else if meta.file_type().is_symlink() {
        f(visit(Kind::Symlink))
    } else {
        Err(WorkloadError::Failed(format!(
            "{}: devices, fifos and sockets are not copied",
            abs.display()
        )))
    }
}

/// Remove a directory and everything below it (rm -rf).
pub fn remove_tree(path: &Path) -> Result<(), WorkloadError> {
    std::fs::remove_dir_all(path).ctx(|| format!("remove {}", path.display()))
}

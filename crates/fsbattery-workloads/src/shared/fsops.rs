//! Filesystem operations shared by several workloads, done the way the seeds' tools do them.
//!
//! The one directory walk: [`walk_tree`] is find's and tar's, pre-order in readdir order with an
//! lstat per entry and the interruption flag polled per entry; [`walk`] is `find` on top of it
//! (counting what it visits) by a lean loop of its own, [`super::find_rm`].

use crate::error::{IoContext, WorkloadError};
use crate::poll;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Walk `root` recursively, lstat-ing every entry as `find` does; returns entries seen,
/// `root` included. Polls the interruption flag as it goes. The lean loop of
/// [`super::find_rm`]: it visits what [`walk_tree`] visits, without the paths.
pub fn walk(root: &Path) -> Result<u64, WorkloadError> {
    super::find_rm::count_tree(root)
}

/// [`walk`] through [`walk_tree`]: the test that the two agree.
#[cfg(test)]
pub(crate) fn walk_tree_count(root: &Path) -> Result<u64, WorkloadError> {
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
        let abs = base.join(name);
        let meta = std::fs::symlink_metadata(&abs).ctx(|| format!("stat {}", abs.display()))?;
        walk_entry(PathBuf::from(name), abs, meta, f, &mut seen)?;
    }
    Ok(())
}

/// Visit `rel` (at `abs`, lstat `meta`) and, for a directory, everything below it. Entries
/// below are stat'ed relative to their directory's descriptor (`DirEntry::metadata`: fstatat
/// with AT_SYMLINK_NOFOLLOW), as find does, not by their whole path: measured on tmpfs with
/// 100,000 files, the path walk per entry made `metadata`'s find 0.65 × a C readdir + fstatat
/// loop (bench/meta_floor.c).
fn walk_entry(
    rel: PathBuf,
    abs: PathBuf,
    meta: Metadata,
    f: &mut dyn FnMut(Visit<'_>) -> Result<(), WorkloadError>,
    seen: &mut u64,
) -> Result<(), WorkloadError> {
    poll(*seen)?;
    *seen += 1;
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
            let path = entry.path();
            let meta = entry
                .metadata()
                .ctx(|| format!("stat {}", path.display()))?;
            walk_entry(rel.join(entry.file_name()), path, meta, f, seen)?;
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

/// Remove a directory and everything below it (rm -rf), by [`super::find_rm`]'s lean loop.
pub fn remove_tree(path: &Path) -> Result<(), WorkloadError> {
    super::find_rm::remove_tree(path)
}

/// [`remove_tree`] as fsbattery's own untimed housekeeping, then `syncfs(2)` on the
/// filesystem that held `path`: the removal is written back now, not inside whatever is timed
/// next (the next phase, or the unmount row).
pub fn remove_untimed(path: &Path) -> Result<(), WorkloadError> {
    remove_tree(path)?;
    let parent = path.parent().unwrap_or(path);
    let dir = std::fs::File::open(parent).ctx(|| format!("open {}", parent.display()))?;
    nix::unistd::syncfs(&dir)
        .map_err(std::io::Error::from)
        .ctx(|| format!("syncfs {}", parent.display()))
}

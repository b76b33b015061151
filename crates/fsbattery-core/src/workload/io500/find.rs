//! io500's find phase as the app runs it (pfind): over the whole data directory, files
//! `-newer` the timestamp file (status change time in whole seconds, at or after the
//! file's, as pfind compares), `-size 3901c` and `-name "*01*"`, counting matches. A name
//! that does not match is counted without a stat; one that does is `lstat`ed. The phase's
//! rate is every file looked at (pfind's `total_files`) over the time, as the app scores it.
//!
//! Ranks share the work by entry: every rank reads every directory and handles the files
//! whose name hashes to it (pfind steals work between ranks instead; on one node the
//! reading is parallel either way). Written by hand: no crate
//! walks a tree split over MPI ranks.

use crate::error::{IoContext, WorkloadError};
use nix::dir::{Dir, Type};
use nix::fcntl::OFlag;
use nix::sys::stat::Mode;
use std::ffi::CStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What find counts.
pub(super) struct Query<'a> {
    /// Status change time of the timestamp file, whole seconds.
    pub newer_s: i64,
    /// The size a match has (IO500: 3,901 bytes).
    pub size: u64,
    /// The part of a name a match contains (`-name "*01*"`).
    pub name_part: &'a str,
}

/// What one rank saw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found {
    /// Files looked at.
    pub total: u64,
    /// Files that matched.
    pub found: u64,
}

/// The query of `timestamp` for IO500's rule.
pub(super) fn io500_query(timestamp: &Path) -> Result<Query<'static>, WorkloadError> {
    let m = timestamp
        .symlink_metadata()
        .ctx(|| format!("stat {}", timestamp.display()))?;
    Ok(Query {
        newer_s: m.ctime(),
        size: 3_901,
        name_part: "01",
    })
}

/// Walk `dir`, this rank's share of its files (see the module header). As pfind: names are
/// read with `readdir` and a matching name is `lstat`ed by its full path; the path is built
/// in one reused buffer (pfind's `sprintf`), so an entry costs no allocation.
pub(super) fn find(
    dir: &Path,
    q: &Query<'_>,
    rank: usize,
    ranks: usize,
) -> Result<Found, WorkloadError> {
    let mut walk = Walk {
        q,
        rank,
        ranks,
        path: dir.as_os_str().as_bytes().to_vec(),
        seen: 0,
        out: Found::default(),
    };
    walk.dir()?;
    Ok(walk.out)
}

/// One rank's walk: the path of the entry at hand, and what it counted so far.
struct Walk<'a, 'q> {
    q: &'a Query<'q>,
    rank: usize,
    ranks: usize,
    path: Vec<u8>,
    seen: u64,
    out: Found,
}

impl Walk<'_, '_> {
    /// The directory at `self.path`, and every directory below it.
    fn dir(&mut self) -> Result<(), WorkloadError> {
        let len = self.path.len();
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let mut d = self
            .with_c_path(|p| Dir::open(p, flags, Mode::empty()))?
            .map_err(std::io::Error::from)
            .ctx(|| format!("opendir {}", self.shown()))?;
        for e in d.iter() {
            crate::workload::poll(self.seen)?;
            self.seen += 1;
            let e = e
                .map_err(std::io::Error::from)
                .ctx(|| format!("readdir {}", self.shown()))?;
            let name = e.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            self.path.truncate(len);
            self.path.push(b'/');
            self.path.extend_from_slice(name);
            let is_dir = match e.file_type() {
                Some(t) => t == Type::Directory,
                // The filesystem did not say (DT_UNKNOWN): ask, as pfind does.
                None => self.lstat()?.st_mode & libc::S_IFMT == libc::S_IFDIR,
            };
            if is_dir {
                self.dir()?;
            } else {
                self.file(name)?;
            }
        }
        self.path.truncate(len);
        Ok(())
    }

    /// A file named `name` at `self.path`: counted when it is this rank's, `lstat`ed when its
    /// name matches.
    fn file(&mut self, name: &[u8]) -> Result<(), WorkloadError> {
        if share(name, self.ranks) != self.rank {
            return Ok(());
        }
        self.out.total += 1;
        if !contains(name, self.q.name_part.as_bytes()) {
            return Ok(());
        }
        let st = self.lstat()?;
        if st.st_ctime >= self.q.newer_s && st.st_size as u64 == self.q.size {
            self.out.found += 1;
        }
        Ok(())
    }

    fn lstat(&mut self) -> Result<nix::sys::stat::FileStat, WorkloadError> {
        self.with_c_path(nix::sys::stat::lstat)?
            .map_err(std::io::Error::from)
            .ctx(|| format!("stat {}", self.shown()))
    }

    /// `f` of `self.path` as a C string: its NUL is pushed for the call and popped after,
    /// so the buffer never holds one between calls (a path holding one cannot be walked).
    fn with_c_path<T>(&mut self, f: impl FnOnce(&CStr) -> T) -> Result<T, WorkloadError> {
        self.path.push(0);
        let out = CStr::from_bytes_with_nul(&self.path).map(f);
        self.path.pop();
        out.map_err(|_| WorkloadError::Failed(format!("{} holds a NUL byte", self.shown())))
    }

    fn shown(&self) -> String {
        String::from_utf8_lossy(&self.path).into_owned()
    }
}

/// The rank that handles a file of this name: by its FNV-1a hash, the same on every rank
/// whatever order each one's readdir returns.
fn share(name: &[u8], ranks: usize) -> usize {
    (super::peers::fnv(name) % ranks as u64) as usize
}

/// Whether `part` occurs in `name` (`-name "*<part>*"`).
fn contains(name: &[u8], part: &[u8]) -> bool {
    part.is_empty() || name.windows(part.len()).any(|w| w == part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_counts_as_pfind_and_the_ranks_shares_add_up() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let q = Query {
            newer_s: 0,
            size: 3,
            name_part: "01",
        };
        // Matches: name with "01" and 3 bytes. Not: wrong size, wrong name.
        for (name, bytes) in [("x01", 3), ("y01", 2), ("z02", 3), ("w101", 3)] {
            std::fs::write(sub.join(name), vec![0u8; bytes]).unwrap();
        }
        std::fs::write(d.path().join("top01"), b"abc").unwrap();
        let all = find(d.path(), &q, 0, 1).unwrap();
        assert_eq!(all, Found { total: 5, found: 3 });
        let (a, b) = (
            find(d.path(), &q, 0, 2).unwrap(),
            find(d.path(), &q, 1, 2).unwrap(),
        );
        assert_eq!((a.total + b.total, a.found + b.found), (5, 3));
        // Newer than now + an hour: nothing.
        let later = Query {
            newer_s: chrono::Utc::now().timestamp() + 3600,
            ..q
        };
        assert_eq!(find(d.path(), &later, 0, 1).unwrap().found, 0);
    }
}

//! io500's find phase as the app runs it (pfind): over the whole data directory, files
//! `-newer` the timestamp file (status change time in whole seconds, at or after the
//! file's, as pfind compares), `-size 3901c` and `-name "*01*"`, counting matches. Every
//! name that is not a directory is tried against the pattern with glibc's `regexec`, as
//! pfind does (see `name_match`); one that matches is `lstat`ed. The phase's rate is every
//! file looked at (pfind's `total_files`) over the time, as the app scores it.
//!
//! Ranks share the work by directory, as pfind hands out directories: the walk goes level
//! by level; each rank reads its share of the level's directories (every `ranks`-th of the
//! level's list, which is the same on every rank) and the subdirectories all ranks found
//! make the next level's list. So every directory is read once, by one rank, and a file is
//! counted by the rank that read its directory. pfind balances by stealing work between
//! ranks instead, which on io500's few large directories often leaves one of them unshared
//! (bench/README.md); stealing needs point-to-point messages, which `Collective` does not
//! offer. Written by hand: no crate walks a tree split over MPI ranks.

use super::name_match::NameMatch;
use crate::error::{IoContext, WorkloadError};
use nix::dir::{Dir, Type};
use nix::fcntl::OFlag;
use nix::sys::stat::Mode;
use std::ffi::CStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What find counts.
pub(super) struct Query {
    /// Status change time of the timestamp file, whole seconds.
    pub newer_s: i64,
    /// The size a match has (IO500: 3,901 bytes).
    pub size: u64,
    /// The `-name` pattern (IO500: `*01*`).
    pub name: NameMatch,
}

/// What one rank saw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found {
    /// Files looked at.
    pub total: u64,
    /// Files that matched.
    pub found: u64,
}

/// IO500's `-name` pattern.
pub(super) const IO500_NAME: &str = "*01*";

/// The query of `timestamp` for IO500's rule.
pub(super) fn io500_query(timestamp: &Path) -> Result<Query, WorkloadError> {
    let m = timestamp
        .symlink_metadata()
        .ctx(|| format!("stat {}", timestamp.display()))?;
    Ok(Query {
        newer_s: m.ctime(),
        size: 3_901,
        name: NameMatch::new(IO500_NAME)?,
    })
}

/// How the ranks pool the directories each found: called by every rank with the same tag
/// and its own list, returns every rank's lists in rank order ([`super::peers::Peers::all_items`]).
pub(super) type Pool<'a> = &'a dyn Fn(&str, Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, WorkloadError>;

/// Walk `dir` level by level, this rank reading its share of each level's directories (see
/// the module header). As pfind: names are read with `readdir` and a matching name is
/// `lstat`ed by its full path, built in one reused buffer (pfind's `sprintf`).
pub(super) fn find(
    dir: &Path,
    q: &Query,
    rank: usize,
    ranks: usize,
    pool: Pool<'_>,
) -> Result<Found, WorkloadError> {
    let mut walk = Walk {
        q,
        path: Vec::new(),
        seen: 0,
        out: Found::default(),
    };
    let mut level = vec![dir.as_os_str().as_bytes().to_vec()];
    for depth in 0.. {
        let mut below = Vec::new();
        for d in level.iter().skip(rank).step_by(ranks.max(1)) {
            walk.path.clear();
            walk.path.extend_from_slice(d);
            walk.dir(&mut below)?;
        }
        level = pool(&format!("io500-find-level-{depth}"), below)?;
        if level.is_empty() {
            break;
        }
    }
    Ok(walk.out)
}

/// One rank's walk: the path of the entry at hand, and what it counted so far.
struct Walk<'a> {
    q: &'a Query,
    path: Vec<u8>,
    seen: u64,
    out: Found,
}

impl Walk<'_> {
    /// The directory at `self.path`: its files counted, its subdirectories' paths pushed
    /// onto `below`.
    fn dir(&mut self, below: &mut Vec<Vec<u8>>) -> Result<(), WorkloadError> {
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
            let name = e.file_name();
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            self.path.truncate(len);
            self.path.push(b'/');
            self.path.extend_from_slice(name.to_bytes());
            let is_dir = match e.file_type() {
                Some(t) => t == Type::Directory,
                // The filesystem did not say (DT_UNKNOWN): ask, as pfind does.
                None => self.lstat()?.st_mode & libc::S_IFMT == libc::S_IFDIR,
            };
            if is_dir {
                below.push(self.path.clone());
            } else {
                self.file(name)?;
            }
        }
        self.path.truncate(len);
        Ok(())
    }

    /// A file named `name` at `self.path`: counted, and `lstat`ed when its name matches.
    fn file(&mut self, name: &CStr) -> Result<(), WorkloadError> {
        self.out.total += 1;
        if !self.q.name.matches(name) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier, Mutex};

    fn query(newer_s: i64) -> Query {
        Query {
            newer_s,
            size: 3,
            name: NameMatch::new(IO500_NAME).unwrap(),
        }
    }

    fn alone(_: &str, items: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, WorkloadError> {
        Ok(items)
    }

    /// `ranks` threads walking `dir` together, pooling their lists through shared memory as
    /// the ranks do through MPI; what each rank counted, in rank order.
    fn walk_on(ranks: usize, dir: &Path) -> Vec<Found> {
        let slots = Arc::new(Mutex::new(vec![Vec::new(); ranks]));
        let barrier = Arc::new(Barrier::new(ranks));
        let threads: Vec<_> = (0..ranks)
            .map(|rank| {
                let (slots, barrier, dir) = (slots.clone(), barrier.clone(), dir.to_path_buf());
                std::thread::spawn(move || {
                    let pool = |_: &str, items: Vec<Vec<u8>>| {
                        slots.lock().unwrap()[rank] = items;
                        barrier.wait();
                        let all = slots.lock().unwrap().concat();
                        barrier.wait();
                        Ok(all)
                    };
                    find(&dir, &query(0), rank, ranks, &pool).unwrap()
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    }

    #[test]
    fn find_counts_as_pfind() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        // Matches: name with "01" and 3 bytes. Not: wrong size, wrong name.
        for (name, bytes) in [("x01", 3), ("y01", 2), ("z02", 3), ("w101", 3)] {
            std::fs::write(sub.join(name), vec![0u8; bytes]).unwrap();
        }
        std::fs::write(d.path().join("top01"), b"abc").unwrap();
        let all = find(d.path(), &query(0), 0, 1, &alone).unwrap();
        assert_eq!(all, Found { total: 5, found: 3 });
        // Newer than now + an hour: nothing.
        let later = query(chrono::Utc::now().timestamp() + 3600);
        assert_eq!(find(d.path(), &later, 0, 1, &alone).unwrap().found, 0);
    }

    #[test]
    fn ranks_read_each_directory_once_and_their_counts_add_up() {
        // Four directories at the second level with 10, 20, 30 and 40 files (each with one
        // match): three ranks must together see every file once.
        let d = tempfile::tempdir().unwrap();
        for (i, n) in [10, 20, 30, 40].iter().enumerate() {
            let sub = d.path().join(format!("top/d{i}"));
            std::fs::create_dir_all(&sub).unwrap();
            for f in 0..*n {
                let name = if f == 0 {
                    "m01".to_string()
                } else {
                    format!("f{f}")
                };
                std::fs::write(sub.join(name), b"abc").unwrap();
            }
        }
        let parts = walk_on(3, d.path());
        let total: u64 = parts.iter().map(|f| f.total).sum();
        let found: u64 = parts.iter().map(|f| f.found).sum();
        assert_eq!((total, found), (100, 4));
        // The work was split: no rank looked at every file.
        assert!(parts.iter().all(|f| f.total < 100), "{parts:?}");
    }
}

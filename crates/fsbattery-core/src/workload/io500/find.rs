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

/// Walk `dir`, this rank's share of its files (see the module header).
pub(super) fn find(
    dir: &Path,
    q: &Query<'_>,
    rank: usize,
    ranks: usize,
) -> Result<Found, WorkloadError> {
    let mut out = Found::default();
    let entries = std::fs::read_dir(dir).ctx(|| format!("readdir {}", dir.display()))?;
    for (i, e) in entries.enumerate() {
        crate::workload::poll(i as u64)?;
        let e = e.ctx(|| format!("readdir {}", dir.display()))?;
        let kind = e
            .file_type()
            .ctx(|| format!("stat {}", e.path().display()))?;
        if kind.is_dir() {
            let sub = find(&e.path(), q, rank, ranks)?;
            out.total += sub.total;
            out.found += sub.found;
            continue;
        }
        let name = e.file_name();
        if share(name.as_bytes(), ranks) != rank {
            continue;
        }
        out.total += 1;
        if !contains(name.as_bytes(), q.name_part.as_bytes()) {
            continue;
        }
        let path = e.path();
        let m = path
            .symlink_metadata()
            .ctx(|| format!("stat {}", path.display()))?;
        if m.ctime() >= q.newer_s && m.size() == q.size {
            out.found += 1;
        }
    }
    Ok(out)
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

//! Where io500's files are, laid out as the io500 app lays them out under its data
//! directory: `ior-easy/ior_file_easy.%08d` (one file per rank, IOR `-F`), `ior-hard/file`
//! (shared), `mdtest-easy/test-dir.0-0/mdtest_tree.<rank>.0/` (a directory per rank, mdtest
//! `-u`) and `mdtest-hard/test-dir.0-0/mdtest_tree.0/` (one shared directory), files named
//! `file.mdtest.<rank>.<i>` as mdtest names them; the timestamp file `find` compares
//! against lies beside the data directory, as the app keeps it in its result directory.
//!
//! Which rank's data a rank reads back: IOR's `-C -Q 1` shifts by one node's worth of ranks
//! (on one node, none: each rank reads its own), mdtest's `-N 1` by one rank per step (stat
//! +1, read +2, delete +3). `read_shift = rank` keeps fsbattery's earlier rule instead: every
//! later phase works on the next rank's data.

use super::find_query::IO500_NAME;
use super::mdtest::Names;
use super::name_match::NameMatch;
use crate::error::{IoContext, WorkloadError};
use std::ffi::CStr;
use std::path::{Path, PathBuf};

/// The io500 tree of one run.
pub(super) struct Layout {
    pub rank: usize,
    pub ranks: usize,
    /// The directory holding the data directory and the timestamp file.
    pub top: PathBuf,
    /// Ranks between a writer and the reader of its ior data.
    pub ior_shift: usize,
    /// Ranks per mdtest step (mdtest `-N`); 0 in `read_shift = rank` mode (then every step
    /// is the next rank).
    pub md_stride: usize,
}

impl Layout {
    /// The data directory `find` walks.
    pub fn data(&self) -> PathBuf {
        self.top.join("datafiles")
    }
    pub fn timestamp(&self) -> PathBuf {
        self.top.join("timestampfile")
    }
    pub fn easy_file(&self, rank: usize) -> PathBuf {
        self.data()
            .join("ior-easy")
            .join(format!("ior_file_easy.{rank:08}"))
    }
    pub fn hard_file(&self) -> PathBuf {
        self.data().join("ior-hard").join("file")
    }
    fn easy_dir(&self, rank: usize) -> PathBuf {
        self.data()
            .join("mdtest-easy/test-dir.0-0")
            .join(format!("mdtest_tree.{rank}.0"))
    }
    fn hard_dir(&self) -> PathBuf {
        self.data().join("mdtest-hard/test-dir.0-0/mdtest_tree.0")
    }
    /// Rank `rank`'s mdtest-easy file names.
    pub fn md_easy(&self, rank: usize) -> Result<Names, WorkloadError> {
        Names::new(&self.easy_dir(rank), rank)
    }
    /// Rank `rank`'s mdtest-hard file names.
    pub fn md_hard(&self, rank: usize) -> Result<Names, WorkloadError> {
        Names::new(&self.hard_dir(), rank)
    }
    /// The rank whose ior data this rank reads.
    pub fn ior_source(&self) -> usize {
        (self.rank + self.ior_shift) % self.ranks
    }
    /// The rank whose mdtest files this rank works on at `step` (1 stat, 2 read, 3 delete).
    pub fn md_source(&self, step: usize) -> usize {
        match self.md_stride {
            0 => (self.rank + 1) % self.ranks,
            s => (self.rank + step * s) % self.ranks,
        }
    }

    /// Make the tree (rank 0, before the first phase): every directory, the empty shared
    /// ior-hard file.
    pub fn make(&self) -> Result<(), WorkloadError> {
        let mut dirs = vec![self.data().join("ior-easy"), self.data().join("ior-hard")];
        dirs.push(self.hard_dir());
        dirs.extend((0..self.ranks).map(|r| self.easy_dir(r)));
        for d in &dirs {
            std::fs::create_dir_all(d).ctx(|| format!("mkdir {}", d.display()))?;
        }
        let hard = self.hard_file();
        std::fs::File::create(&hard).ctx(|| format!("create {}", hard.display()))?;
        Ok(())
    }

    /// Touch the timestamp file `find` compares against (rank 0, after mdtest-easy-write, as
    /// the app's timestamp phase).
    pub fn stamp(&self) -> Result<(), WorkloadError> {
        let t = self.timestamp();
        std::fs::File::create(&t)
            .map(drop)
            .ctx(|| format!("create {}", t.display()))
    }
}

/// How many of `files` mdtest-hard files of `rank` find's `-name` matches: their names
/// made as the phases make them, tried as find tries them.
pub(super) fn matching(rank: usize, files: u64) -> Result<u64, WorkloadError> {
    let pattern = NameMatch::new(IO500_NAME)?;
    // An empty directory: the names come out as "/file.mdtest.R.I"; the slash is cut off.
    let mut names = Names::new(Path::new(""), rank)?;
    let mut n = 0;
    for i in 0..files {
        let path = names.made(i);
        let name = CStr::from_bytes_with_nul(&path.to_bytes_with_nul()[1..])
            .expect("a C string without its first byte is one");
        n += u64::from(pattern.matches(name));
    }
    Ok(n)
}

/// Whether `path` exists (for rank 0's cleanup guard).
pub(super) fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

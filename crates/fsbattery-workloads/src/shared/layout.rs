//! Where the ranks of an MPI run put their files, for the workloads that make files: each rank
//! in its own directory (file per process, IOR `-F`, mdtest `-u`: the default), or all ranks in
//! one shared directory / one shared file, and whether reads are rank-shifted (IOR `-C`).
//!
//! In one shared file the ranks' transfers interleave as IOR lays them out without `-F` with
//! one transfer per block: segment i holds every rank's i-th transfer in rank order, so rank r's
//! transfer i is at (i × ranks + r) × transfer. A rank-shifted read reads rank r+1's data (its
//! file, its files, its transfers), so the client cache of what this rank wrote cannot serve
//! it (on one node the page cache is shared, as it is for IOR there).
//!
//! Both are parameters of the workload (`layout`, `reorder`), so the record keeps them per
//! cell. For a single process they change nothing.

use super::specs::{choice, flag};
use crate::error::{IoContext, WorkloadError};
use crate::params::ParamSpec;
use crate::settings::{Choice, Group, Raw, Setting};
use crate::WorkloadCtx;
use std::path::{Path, PathBuf};

crate::choice! {
    /// Which `layout` a workload's settings name.
    pub enum LayoutKind {
        /// Each rank in its own directory (IOR `-F`, mdtest `-u`).
        Fpp = "fpp",
        /// All ranks in one directory / one file.
        Shared = "shared",
    }
}

/// The `layout` parameter.
const LAYOUT_PARAM: ParamSpec = choice(
    "layout",
    "under MPI: fpp = each rank in its own directory (IOR -F, mdtest -u); shared = all \
           ranks in one directory / one file, transfers interleaved by rank (IOR without -F)",
    LayoutKind::NAMES,
    0,
    0,
);

/// The `reorder` parameter.
const REORDER_PARAM: ParamSpec = flag(
    "reorder",
    "under MPI: read back what the next rank wrote (IOR -C), not this rank's own data",
    0,
);

/// Which members of the layout group a workload declares.
#[derive(Debug, Clone, Copy)]
pub enum LayoutDefaults {
    /// `layout` only.
    Layout,
    /// `layout` and `reorder`.
    WithReorder,
}

/// The `layout` and `reorder` settings, flattened into a workload's settings
/// (`layout: LayoutSettings => LayoutDefaults::Layout`). A member the workload does not
/// declare holds the value that changes nothing: a file (directory) per process, no reorder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutSettings {
    /// The layout asked for.
    pub kind: LayoutKind,
    /// Reads take the next rank's data (IOR `-C`).
    pub reorder: bool,
}

impl Default for LayoutSettings {
    fn default() -> Self {
        LayoutSettings {
            kind: LayoutKind::Fpp,
            reorder: false,
        }
    }
}

impl Group for LayoutSettings {
    type Defaults = LayoutDefaults;
    fn specs(d: &LayoutDefaults) -> Vec<ParamSpec> {
        match d {
            LayoutDefaults::Layout => vec![LAYOUT_PARAM],
            LayoutDefaults::WithReorder => vec![LAYOUT_PARAM, REORDER_PARAM],
        }
    }
    fn decode(_: &LayoutDefaults, r: &Raw<'_>) -> Result<Self, String> {
        Ok(LayoutSettings {
            kind: r.member(&["layout"], LayoutKind::Fpp)?,
            reorder: r.member(&["reorder"], false)?,
        })
    }
    fn encode(&self, d: &LayoutDefaults, out: &mut Vec<(&'static str, u64)>) {
        out.push(("layout", self.kind.to_raw()));
        if let LayoutDefaults::WithReorder = d {
            out.push(("reorder", self.reorder.to_raw()));
        }
    }
}

/// One rank's view of the layout.
#[derive(Debug, Clone)]
pub struct Layout {
    /// This rank.
    pub rank: usize,
    /// Number of ranks.
    pub ranks: usize,
    /// One shared directory or file rather than one per rank.
    pub shared: bool,
    /// Reads take the next rank's data.
    pub reorder: bool,
}

impl Layout {
    /// The layout `lp` asks for, as this rank of `ctx`'s ranks.
    pub fn of(ctx: &WorkloadCtx<'_>, lp: &LayoutSettings) -> Layout {
        let (rank, ranks) = ctx.ranks();
        Layout {
            rank,
            ranks,
            shared: lp.kind == LayoutKind::Shared && ranks > 1,
            reorder: lp.reorder,
        }
    }

    /// The rank whose data this rank reads back: the next one with `reorder`, else itself.
    pub fn read_rank(&self) -> usize {
        match self.reorder {
            true => (self.rank + 1) % self.ranks,
            false => self.rank,
        }
    }

    /// Offset of `rank`'s transfer `i` of `transfer` bytes: in one shared file, interleaved
    /// by rank; in a file of its own, sequential.
    pub fn offset(&self, rank: usize, i: u64, transfer: u64) -> u64 {
        match self.shared {
            true => (i * self.ranks as u64 + rank as u64) * transfer,
            false => i * transfer,
        }
    }

    /// A name for `rank`'s `base` file: the base itself where each rank has its own
    /// directory, `base.rN` in a shared directory (mdtest's shared-directory names).
    pub fn name(&self, base: &str, rank: usize) -> String {
        match self.shared {
            true => format!("{base}.r{rank}"),
            false => base.to_string(),
        }
    }
}

/// A shared-file size check for plan time: every rank's transfers must be whole, or the
/// interleaved pieces would overlap the next rank's. `size` and `transfer` are each a
/// parameter's name and value.
pub fn check_shared(
    workload: &str,
    lp: &LayoutSettings,
    (size, s): (&str, u64),
    (transfer, t): (&str, u64),
) -> Result<(), WorkloadError> {
    if lp.kind == LayoutKind::Shared && (t == 0 || s % t != 0) {
        return Err(WorkloadError::Failed(format!(
            "{workload}.layout=shared interleaves {transfer}-sized pieces by rank: \
             {workload}.{size} ({s}) must be a multiple of {workload}.{transfer} ({t})"
        )));
    }
    Ok(())
}

/// The directory the ranks share for one workload: made by rank 0, then an exchange with
/// every rank (a barrier: nobody uses it before it exists, probes before the first phase
/// included), and removed by rank 0 when dropped (after the last phase's barrier, so every
/// rank is done with it). For one process, or with
/// a file per process, it is the rank's own `dir`, untouched.
pub struct SharedDir {
    path: PathBuf,
    owned: bool,
}

impl SharedDir {
    /// `<shared root>/fsbattery-<name>-shared` under a shared layout, else `own`.
    pub fn make(
        ctx: &mut WorkloadCtx<'_>,
        l: &Layout,
        name: &str,
        own: &Path,
    ) -> Result<SharedDir, WorkloadError> {
        Self::make_if(ctx, l, l.shared, name, own)
    }

    /// [`Self::make`] when `shared` (one directory for the ranks' own files, as IOR `-F` keeps
    /// them: another rank must find them for a rank-shifted read), else `own`.
    pub fn make_if(
        ctx: &mut WorkloadCtx<'_>,
        l: &Layout,
        shared: bool,
        name: &str,
        own: &Path,
    ) -> Result<SharedDir, WorkloadError> {
        if !shared || l.ranks < 2 {
            return Ok(SharedDir {
                path: own.to_path_buf(),
                owned: false,
            });
        }
        let path = ctx.shared_root().join(format!("fsbattery-{name}-shared"));
        if l.rank == 0 {
            std::fs::create_dir(&path)
                .ctx(|| format!("create shared directory {}", path.display()))?;
        }
        let dir = SharedDir {
            owned: l.rank == 0,
            path,
        };
        // Rank 0's failure above reaches the others here (they fail the cell with it).
        ctx.share_count(name, 0)?;
        Ok(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SharedDir {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(shared: bool, rank: usize) -> Layout {
        Layout {
            rank,
            ranks: 3,
            shared,
            reorder: true,
        }
    }

    #[test]
    fn shared_transfers_interleave_by_rank_as_ior_without_f() {
        let l = layout(true, 1);
        // Segment 0: ranks 0, 1, 2; segment 1: ranks 0, 1, 2 ...
        assert_eq!(l.offset(1, 0, 100), 100);
        assert_eq!(l.offset(2, 0, 100), 200);
        assert_eq!(l.offset(0, 1, 100), 300);
        assert_eq!(l.offset(1, 1, 100), 400);
        assert_eq!(layout(false, 1).offset(1, 4, 100), 400);
    }

    #[test]
    fn a_rank_shifted_read_takes_the_next_rank_and_wraps() {
        assert_eq!(layout(true, 1).read_rank(), 2);
        assert_eq!(layout(true, 2).read_rank(), 0);
        let own = Layout {
            reorder: false,
            ..layout(true, 2)
        };
        assert_eq!(own.read_rank(), 2);
    }

    #[test]
    fn a_shared_file_needs_whole_transfers() {
        let check = |size, kind| {
            let lp = LayoutSettings {
                kind,
                reorder: false,
            };
            check_shared("stream", &lp, ("size", size), ("block", 4096))
        };
        assert!(check(8192, LayoutKind::Shared).is_ok());
        let e = check(8000, LayoutKind::Shared).unwrap_err();
        assert!(e.to_string().contains("multiple of stream.block"), "{e}");
        assert!(check(8000, LayoutKind::Fpp).is_ok());
    }
}

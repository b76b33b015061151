//! The IO settings several workloads share — engine, queue depth, reap batch, O_DIRECT and its
//! fallback, the content of written blocks — declared here once and read here once, into
//! [`IoParams`], so every workload spells, defaults and resolves them the same way.
//!
//! Names: `depth` and `batch` are the group's names. iozone (`uring.depth`) and randomio
//! (`uring.batch`) declared theirs before the group was shared and keep those keys, so suites
//! and records written with them read the same; [`crate::params::ALIASES`] lets a user write
//! either name for either workload.
//!
//! `depth` means operations in flight for the block workloads (dd, randomio, bonnie, bigfile,
//! iozone) and chunks of one transfer in flight for the file-set workloads (ffsb, postmark,
//! the personalities): the engine's queue either way, which is why it is one parameter with
//! two helps (and two defaults: 8, and 1 where one transfer rarely has more chunks).

use super::layout::LayoutParams;
use super::specs::{choice, count, flag, percent};
use crate::engine::{EngineEntry, EngineSpec, Fill, UringOptions};
use crate::error::WorkloadError;
use crate::params::{ParamSpec, Params, MAX_DEPTH};

/// Names of the `engine` parameter's choices, in [`EngineSpec::choose`] order: the engine
/// registry's ([`crate::engine::ENGINES`]).
pub(in crate::workload) const ENGINES: &[&str] = &crate::engine::NAMES;
/// Names of the `fill` parameter's choices.
pub(in crate::workload) const FILLS: &[&str] = &["zeros", "random", "compressible"];
/// Index of "zeros" in [`FILLS`].
pub(in crate::workload) const FILL_ZEROS: u64 = 0;
/// Index of "random" in [`FILLS`].
pub(in crate::workload) const FILL_RANDOM: u64 = 1;

/// The `engine` parameter (sync at every scale), with the workload's own help.
pub(in crate::workload) const fn engine(help: &'static str) -> ParamSpec {
    choice("engine", help, ENGINES, 0, 0)
}

/// The queue depth parameter under `name` (`depth`, or iozone's older `uring.depth`).
pub(in crate::workload) const fn depth(
    name: &'static str,
    help: &'static str,
    default: u64,
) -> ParamSpec {
    count(name, help, default, default).range(1, MAX_DEPTH)
}

/// The io_uring reap batch under `name` (randomio's `uring.batch`): 0 = auto.
pub(in crate::workload) const fn batch(name: &'static str, help: &'static str) -> ParamSpec {
    count(name, help, 0, 0).range(0, MAX_DEPTH)
}

/// `direct`: 1 opens the data file with O_DIRECT.
pub(in crate::workload) const fn direct(default: u64) -> ParamSpec {
    flag(
        "direct",
        "true: open the data file with O_DIRECT (bypass the page cache); false: buffered",
        default,
    )
}

/// `fill` with the given default index into [`FILLS`].
pub(in crate::workload) const fn fill(default: u64) -> ParamSpec {
    choice(
        "fill",
        "content of written blocks: zeros, random (incompressible, each block stamped with \
         its offset) or compressible (see compress_pct)",
        FILLS,
        default,
        default,
    )
}

/// `buffered_fallback`: run buffered where O_DIRECT is refused instead of failing.
pub(in crate::workload) const BUFFERED_FALLBACK: ParamSpec = flag(
    "buffered_fallback",
    "true: where O_DIRECT is refused, run buffered and record direct_used=0; false: fail the \
     cell",
    0,
);

/// `compress_pct`: the random share of compressible blocks.
pub(in crate::workload) const COMPRESS_PCT: ParamSpec = percent(
    "compress_pct",
    "fill=compressible: percent of every 4 KiB that is random, the rest zeros (about the \
     compressed size in percent)",
    50,
);

/// The content of written blocks a workload's `fill` parameter names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::workload) enum FillKind {
    /// All zeros.
    Zeros,
    /// Incompressible, each block stamped with its offset.
    Random,
    /// `compress_pct` percent random, the rest zeros.
    Compressible,
}

/// The shared IO group of one workload's resolved parameters. A member the workload does not
/// declare holds the value that means "does not apply": the sync engine, depth 1, buffered,
/// zeros.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::workload) struct IoParams {
    /// The `engine` index as resolved; [`IoParams::engine_kind`] names it.
    engine_index: u64,
    /// Queue depth (`depth`, or `uring.depth`).
    pub depth: u64,
    /// io_uring reap batch (`batch`, or `uring.batch`); 0 = auto.
    pub batch: u64,
    /// O_DIRECT asked for.
    pub direct: bool,
    /// Run buffered where O_DIRECT is refused.
    pub buffered_fallback: bool,
    /// Content of written blocks.
    pub fill: FillKind,
    /// Random share of compressible blocks, percent.
    pub compress_pct: u64,
}

impl IoParams {
    /// Read the group from `p`, each member under its name or its older alias.
    pub fn of(p: &Params) -> IoParams {
        let any = |names: &[&str], none: u64| names.iter().find_map(|n| p.value(n)).unwrap_or(none);
        IoParams {
            engine_index: any(&["engine"], 0),
            depth: any(&["depth", "uring.depth"], 1),
            batch: any(&["batch", "uring.batch"], 0),
            direct: any(&["direct"], 0) != 0,
            buffered_fallback: any(&["buffered_fallback"], 0) != 0,
            fill: match any(&["fill"], FILL_ZEROS) {
                FILL_ZEROS => FillKind::Zeros,
                FILL_RANDOM => FillKind::Random,
                _ => FillKind::Compressible,
            },
            compress_pct: any(&["compress_pct"], 0),
        }
    }

    /// The engine named, `None` for an index past [`ENGINES`] (only values built without
    /// `Params::resolve` can hold one).
    pub fn engine_kind(&self) -> Option<&'static EngineEntry> {
        crate::engine::by_index(self.engine_index)
    }

    /// True when the engine is built on io_uring (its registry entry says so): today the one
    /// engine with a queue, a reap batch and a kernel feature to probe (the null engine is
    /// synchronous).
    pub fn uses_uring(&self) -> bool {
        self.engine_kind().is_some_and(|e| e.caps.io_uring)
    }

    /// The engine, io_uring with `uring`'s other options at this depth. A depth outside
    /// 1..=[`MAX_DEPTH`] is refused with the parameter's name, for every workload alike (never
    /// clamped); so is an engine index past [`ENGINES`].
    pub fn engine(&self, workload: &str, uring: UringOptions) -> Result<EngineSpec, WorkloadError> {
        let depth = self.depth;
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(WorkloadError::Failed(format!(
                "{workload}.depth={depth}: use 1..={MAX_DEPTH}"
            )));
        }
        let uring = UringOptions {
            depth: depth as u32,
            ..uring
        };
        let index = self.engine_index;
        EngineSpec::choose(index, uring).ok_or_else(|| {
            WorkloadError::Failed(format!(
                "{workload}.engine={index}: use one of {}",
                ENGINES.join(", ")
            ))
        })
    }

    /// The content of written blocks; a `compress_pct` past 100 is refused.
    pub fn fill(&self, workload: &str) -> Result<Fill, WorkloadError> {
        let pct = self.compress_pct;
        if pct > 100 {
            return Err(WorkloadError::Failed(format!(
                "{workload}.compress_pct={pct}: use 0..=100"
            )));
        }
        Ok(match self.fill {
            FillKind::Zeros => Fill::Zeros,
            FillKind::Random => Fill::Random,
            FillKind::Compressible => Fill::Compressible(pct as f64 / 100.0),
        })
    }

    /// Whether the `direct_used` metric is declared: O_DIRECT asked for with a fallback to
    /// buffered IO allowed (the only case in which it can be 0).
    pub fn may_fall_back(&self) -> bool {
        self.direct && self.buffered_fallback
    }
}

/// The parameters of one file written and read back in blocks (dd, bigfile, stream), read
/// once from the resolved [`Params`]: its size and block in bytes, the shared IO group and the
/// MPI layout (members a workload does not declare do not apply, as in [`IoParams`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::workload) struct SizeBlock {
    /// Bytes of the file (`size`).
    pub size: u64,
    /// Bytes per write and read (`block`).
    pub block: u64,
    /// Engine, depth, O_DIRECT, fill.
    pub io: IoParams,
    /// Where MPI ranks put the file.
    pub layout: LayoutParams,
}

impl SizeBlock {
    /// The values `p` holds.
    pub fn of(p: &Params) -> SizeBlock {
        SizeBlock {
            size: p.get("size"),
            block: p.get("block"),
            io: IoParams::of(p),
            layout: LayoutParams::of(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The null engine has no queue: only io_uring counts as asynchronous (randomio once
    /// tested `engine > 0`, counting null in).
    #[test]
    fn only_io_uring_uses_uring() {
        for (index, uring) in [(0, false), (1, true), (2, false)] {
            let io = IoParams::of(&Params::from_pairs(&[("engine", index)]));
            assert_eq!(io.uses_uring(), uring, "{}", ENGINES[index as usize]);
        }
    }

    /// Members a workload does not declare mean "does not apply"; older names read the same
    /// as the group's.
    #[test]
    fn undeclared_members_do_not_apply_and_old_names_read_the_same() {
        let io = IoParams::of(&Params::from_pairs(&[]));
        assert_eq!(
            (io.engine_kind().map(|e| e.name), io.depth, io.direct),
            (Some("sync"), 1, false)
        );
        let old = IoParams::of(&Params::from_pairs(&[
            ("uring.depth", 4),
            ("uring.batch", 2),
        ]));
        let new = IoParams::of(&Params::from_pairs(&[("depth", 4), ("batch", 2)]));
        assert_eq!(old, new);
        let e = IoParams::of(&Params::from_pairs(&[("engine", 7)]))
            .engine("dd", UringOptions::default())
            .unwrap_err();
        assert!(e.to_string().contains("dd.engine=7"), "{e}");
    }
}

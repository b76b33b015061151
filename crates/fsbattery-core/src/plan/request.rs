//! What a run asks for, as the command line (or any other front end) gives it: plain values,
//! no parser types. [`build`](super::build) turns it into a plan; nothing here is checked yet
//! beyond what a value's type holds.

use crate::model::CachePolicy;
use crate::params::Scale;
use crate::runner::Fresh;
use crate::workload::Method;
use fsbattery_record::aging::AgeSpec;
use fsbattery_stats::Aggregate;
use std::path::PathBuf;
use std::time::Duration;

/// `--repeat`: a fixed count, or repeat until decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// Exactly N repeats.
    Fixed(u32),
    /// As many as the verdicts need, from `min` to `max`.
    Auto {
        /// At least this many (≥ 2).
        min: u32,
        /// At most this many.
        max: u32,
    },
}

/// A `run` request: the targets, workloads and conditions asked for, each `None` (or empty)
/// where the suite's or fsbattery's default applies.
#[derive(Debug, Clone)]
pub struct Request {
    /// Target specs (`loop:ext4`, `tmpfs`, `dir:PATH`); none: the defaults.
    pub targets: Vec<String>,
    /// A suite preset name or suite file.
    pub suite: Option<String>,
    /// Only these workloads.
    pub workloads: Vec<String>,
    /// Repeats per test.
    pub repeat: Option<Repeat>,
    /// With auto repeats, one target: the CI95 half-width to stop at, in percent.
    pub precision: Option<f64>,
    /// With auto repeats: the equivalence margin, in percent.
    pub margin: Option<f64>,
    /// With auto repeats: the time repeats may take.
    pub budget: Option<Duration>,
    /// Age every made filesystem before its workloads.
    pub age: Option<AgeSpec>,
    /// Problem sizes.
    pub scale: Scale,
    /// Aggregate shown in tables.
    pub aggregate: Option<Aggregate>,
    /// Rank targets in RAM against disks too.
    pub rank_reference: bool,
    /// Group weights of the composite.
    pub weights: Vec<(String, f64)>,
    /// Seconds to pause before each timed phase.
    pub pause: Option<f64>,
    /// Page cache before each timed phase.
    pub cache: Option<CachePolicy>,
    /// Memory cgroup limit: `SIZE`, `seed` or `none`.
    pub memory: Option<String>,
    /// Threads for the multithreaded workloads.
    pub jobs: Option<u32>,
    /// `WORKLOAD.PARAM=VALUE` overrides.
    pub set: Vec<String>,
    /// Work directory: loop images, mount points, state files, default targets.
    pub workdir: PathBuf,
    /// Native or commands, for every workload.
    pub method: Option<Method>,
    /// When a made filesystem is made afresh.
    pub fresh: Fresh,
    /// A real kernel tarball instead of the generated tree.
    pub tree_tarball: Option<PathBuf>,
    /// Seconds a FUSE daemon may answer nothing.
    pub fuse_timeout: u64,
    /// Allow `dev:` targets that hold data.
    pub destroy_data: bool,
    /// The run's name.
    pub label: Option<String>,
    /// Show the plan instead of running it: [`build`](super::build) answers a
    /// [`DryRun`](super::DryRun), which the runner does not take.
    pub dry_run: bool,
}

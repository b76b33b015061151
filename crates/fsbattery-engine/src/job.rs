//! A job: one file, one access pattern, N threads each with its own engine; and its result.
//!
//! Invariants:
//! - [`JobSpec::validate`] rejects impossible jobs before any I/O (house rule 5).
//! - The file's blocks are split into `jobs` contiguous regions, one per thread; every pattern
//!   (random included) stays inside its thread's region, so threads never write the same block
//!   concurrently and a run is reproducible from its seed.
//! - Threads run on the one pool ([`super::run_pool`]): they set up (open, allocate, register)
//!   before its start line and time after it; the job's elapsed time is the slowest thread's.
//! - Rates count data operations (reads and writes); fsyncs are reported on their own.

use super::direct::dio_alignment;
use super::pattern::XorShift;
use super::thread::{ThreadJob, ThreadPlan, ThreadResult};
use super::{EngineError, EngineSpec, Fill, LatencyHistogram, LatencySummary, Pattern};
use serde::{Deserialize, Serialize};
use std::fs::OpenOptions;
use std::path::PathBuf;
use std::time::Duration;

/// When a job ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stop {
    /// After this many data operations in total (split evenly over the threads).
    Ops(u64),
    /// After this much time (each thread stops issuing at the deadline, then drains).
    Runtime(Duration),
}

/// How the job opens its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FileMode {
    /// The file must exist (and hold `file_size` bytes if the job reads).
    Existing,
    /// Create the file if missing; keep existing contents (rewrite tests).
    #[default]
    Create,
    /// Create or truncate to zero (write tests on a new file, as `dd` does). Write-only jobs.
    Truncate,
}

/// Everything one IO job needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    /// The file.
    pub path: PathBuf,
    /// Bytes of the file the job uses (whole blocks only; a trailing partial block is unused).
    pub file_size: u64,
    /// Bytes per operation (record size).
    pub block_size: u32,
    /// Which blocks, in which order.
    pub pattern: Pattern,
    /// Probability that a data operation is a write (0 = read only, 1 = write only).
    pub write_fraction: f64,
    /// Probability that a write is followed by an fsync (randomio's sync fraction).
    pub fsync_fraction: f64,
    /// Open with O_DIRECT (buffers and block size aligned accordingly).
    pub direct: bool,
    /// Engine and its options.
    pub engine: EngineSpec,
    /// Threads, each with its own engine and region of the file.
    pub jobs: u32,
    /// When to stop.
    pub stop: Stop,
    /// Content of written blocks.
    pub fill: Fill,
    /// How to open the file.
    pub file_mode: FileMode,
    /// Check every read against what this job's fill would have written there.
    pub verify: bool,
    /// Seed of offsets, the read/write mix and the fill.
    pub seed: u64,
}

impl JobSpec {
    /// One sequential read pass over `file_size` bytes in `block_size` blocks, sync engine,
    /// buffered, one thread, random fill, file created if missing.
    pub fn new(path: impl Into<PathBuf>, file_size: u64, block_size: u32) -> Self {
        JobSpec {
            path: path.into(),
            file_size,
            block_size,
            pattern: Pattern::Sequential,
            write_fraction: 0.0,
            fsync_fraction: 0.0,
            direct: false,
            engine: EngineSpec::Sync,
            jobs: 1,
            stop: Stop::Ops(file_size / u64::from(block_size.max(1))),
            fill: Fill::Random,
            file_mode: FileMode::Create,
            verify: false,
            seed: 0,
        }
    }

    /// Blocks in the file.
    pub fn blocks(&self) -> u64 {
        self.file_size / u64::from(self.block_size.max(1))
    }

    /// Reject impossible jobs, with the reason and the fix.
    pub fn validate(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::Invalid(m));
        let bs = u64::from(self.block_size);
        if self.block_size < 16 {
            return bad(format!("block size {bs} B: use at least 16 B"));
        }
        if self.jobs == 0 || self.blocks() < u64::from(self.jobs) {
            return bad(format!(
                "{} jobs over {} blocks of {bs} B in {} B: each thread needs at least one block",
                self.jobs,
                self.blocks(),
                self.file_size
            ));
        }
        for (name, f) in [
            ("write", self.write_fraction),
            ("fsync", self.fsync_fraction),
        ] {
            if !(0.0..=1.0).contains(&f) {
                return bad(format!("{name} fraction {f}: use a value in 0..=1"));
            }
        }
        let depth = self.engine.depth();
        if !(1..=4096).contains(&depth) {
            return bad(format!("uring.depth {depth}: use 1..=4096"));
        }
        if self.direct && !bs.is_multiple_of(512) {
            return bad(format!(
                "O_DIRECT needs a block size multiple of 512 B, not {bs} B"
            ));
        }
        if self.file_mode == FileMode::Truncate && self.write_fraction < 1.0 {
            return bad("file mode truncate empties the file, so the job may only write".into());
        }
        match self.stop {
            Stop::Ops(0) => bad("op count 0: ask for at least one operation".into()),
            Stop::Runtime(d) if d.is_zero() => bad("runtime 0: ask for a positive time".into()),
            _ => Ok(()),
        }
    }

    /// What each of its threads reads (see `thread.rs`).
    pub(crate) fn thread_job(&self) -> ThreadJob {
        ThreadJob {
            path: self.path.clone(),
            direct: self.direct,
            block_size: self.block_size,
            pattern: self.pattern,
            write_fraction: self.write_fraction,
            fsync_fraction: self.fsync_fraction,
            fill: self.fill,
            verify: self.verify,
            depth: self.engine.depth(),
            reap_batch: self.engine.reap_batch(self.jobs),
        }
    }

    /// Create or truncate as the file mode says; check a reading job has its bytes.
    fn prepare_file(&self) -> Result<(), EngineError> {
        let mut o = OpenOptions::new();
        match self.file_mode {
            FileMode::Existing => o.read(true),
            FileMode::Create => o.write(true).create(true),
            FileMode::Truncate => o.write(true).create(true).truncate(true),
        };
        let f = o
            .open(&self.path)
            .map_err(|e| EngineError::io("open", &self.path, e))?;
        let len = f
            .metadata()
            .map_err(|e| EngineError::io("stat", &self.path, e))?
            .len();
        let need = self.blocks() * u64::from(self.block_size);
        // The null engine reads nothing, so the file need not hold the bytes (a workload's
        // layout through it wrote none).
        let reads = self.write_fraction < 1.0 && !self.engine.entry().caps.no_io;
        if reads && len < need {
            return Err(EngineError::Invalid(format!(
                "{} holds {len} B but the job reads up to {need} B: lay it out first with a \
                 sequential write job",
                self.path.display()
            )));
        }
        Ok(())
    }
}

/// Count, bytes and latency of one kind of operation.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct OpStats {
    /// Operations completed.
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Per-operation latency.
    pub latency: LatencySummary,
}

/// What a job measured, merged over its threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// Engine name.
    pub engine: String,
    /// Operations in flight per thread.
    pub depth: u32,
    /// Threads.
    pub jobs: u32,
    /// Bytes per operation.
    pub block_size: u32,
    /// Access pattern.
    pub pattern: Pattern,
    /// Fill of written blocks (reported so a reader knows how compressible the data was).
    pub fill: Fill,
    /// Whether O_DIRECT was used.
    pub direct: bool,
    /// Data operations (reads + writes).
    pub ops: u64,
    /// Data bytes (read + written).
    pub bytes: u64,
    /// Wall time of the slowest thread, seconds.
    pub elapsed_s: f64,
    /// Data operations per second.
    pub iops: f64,
    /// Data throughput in MB/s (10^6 bytes).
    pub mb_per_s: f64,
    /// Data throughput in MiB/s (2^20 bytes).
    pub mib_per_s: f64,
    /// Reads.
    pub read: OpStats,
    /// Writes.
    pub write: OpStats,
    /// Fsyncs.
    pub fsync: OpStats,
    /// Latency of all data operations.
    pub latency: LatencySummary,
    /// Achieved queue depth: the time-weighted mean of each engine's in-flight count (a
    /// synchronous operation counts as one while it runs), averaged over the threads, so it
    /// compares with `depth` (per thread). Absent in older results.
    #[serde(default)]
    pub queue_depth: f64,
    /// Engine reaps over all threads (each one call that submits the queued refills and
    /// collects every ready completion); `ops / reaps` is the mean completions per reap.
    #[serde(default)]
    pub reaps: u64,
}

/// Run `spec`: validate, prepare the file, run every thread, merge the results.
pub fn run_job(spec: &JobSpec) -> Result<JobResult, EngineError> {
    spec.validate()?;
    spec.prepare_file()?;
    let align = if spec.direct {
        let a = dio_alignment(&spec.path);
        if !(spec.block_size as usize).is_multiple_of(a.offset) {
            return Err(EngineError::Invalid(format!(
                "O_DIRECT on {} needs blocks that are multiples of {} B, not {} B",
                spec.path.display(),
                a.offset,
                spec.block_size
            )));
        }
        a.mem
    } else {
        4096
    };
    let mut base = vec![0u8; spec.block_size as usize];
    spec.fill.generate(spec.seed, &mut base);
    let job = spec.thread_job();
    let plans = thread_plans(spec, &job, &base);
    let results = spec.engine.run_threads(&plans, align)?;
    Ok(merge(spec, &results))
}

/// Regions, quotas and seeds of every thread.
fn thread_plans<'a>(spec: &JobSpec, job: &'a ThreadJob, base: &'a [u8]) -> Vec<ThreadPlan<'a>> {
    let n = u64::from(spec.jobs);
    let blocks = spec.blocks();
    (0..n)
        .map(|t| {
            let first = t * blocks / n;
            let end = (t + 1) * blocks / n;
            let (quota, runtime_ns) = match spec.stop {
                Stop::Ops(total) => (total / n + u64::from(t < total % n), u64::MAX),
                Stop::Runtime(d) => (u64::MAX, d.as_nanos().min(u128::from(u64::MAX)) as u64),
            };
            ThreadPlan {
                job,
                base,
                first,
                blocks: end - first,
                quota,
                runtime_ns,
                seed: XorShift::new(spec.seed ^ (t << 32)).next_u64(),
            }
        })
        .filter(|p| p.quota > 0)
        .collect()
}

fn merge(spec: &JobSpec, results: &[ThreadResult]) -> JobResult {
    let mut hist: [LatencyHistogram; 3] = Default::default();
    let mut ops = [0u64; 3];
    let mut bytes = [0u64; 3];
    let mut elapsed_ns = 0;
    for r in results {
        for k in 0..3 {
            hist[k].merge(&r.hist[k]);
            ops[k] += r.ops[k];
            bytes[k] += r.bytes[k];
        }
        elapsed_ns = elapsed_ns.max(r.elapsed_ns);
    }
    let stats = |k: usize| OpStats {
        ops: ops[k],
        bytes: bytes[k],
        latency: hist[k].summary(),
    };
    let mut data = hist[0].clone();
    data.merge(&hist[1]);
    let elapsed_s = elapsed_ns as f64 / 1e9;
    let (data_ops, data_bytes) = (ops[0] + ops[1], bytes[0] + bytes[1]);
    let rate = |x: f64| if elapsed_s > 0.0 { x / elapsed_s } else { 0.0 };
    JobResult {
        engine: spec.engine.name().to_string(),
        depth: spec.engine.depth(),
        jobs: spec.jobs,
        block_size: spec.block_size,
        pattern: spec.pattern,
        fill: spec.fill,
        direct: spec.direct,
        ops: data_ops,
        bytes: data_bytes,
        elapsed_s,
        iops: rate(data_ops as f64),
        mb_per_s: rate(data_bytes as f64) / 1e6,
        mib_per_s: rate(data_bytes as f64) / 1048576.0,
        read: stats(0),
        write: stats(1),
        fsync: stats(2),
        latency: data.summary(),
        queue_depth: results.iter().map(ThreadResult::mean_depth).sum::<f64>()
            / results.len().max(1) as f64,
        reaps: results.iter().map(|r| r.reaps).sum(),
    }
}

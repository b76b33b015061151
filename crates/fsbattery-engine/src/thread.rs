//! One thread of a job: what it reads ([`ThreadJob`], copied out of the `JobSpec`), its share
//! of the file ([`ThreadPlan`]), the [`OpSource`] that turns them into operations for the
//! [`Driver`] ([`drive`]), and [`run_threads`], which each engine's registry entry
//! instantiates with its own engine type.
//!
//! Threads read a [`ThreadJob`] rather than the `JobSpec` itself: the spec holds an
//! `EngineSpec`, which looks engines up in the registry, whose entries run these threads; a
//! thread needs only the numbers (depth, reap batch), so the registry's entries name this
//! module and nothing here names them back.

use super::buffer::{matches, stamp};
use super::driver::{Driver, OpSource};
use super::pattern::{OffsetGen, Pattern, XorShift};
use super::pool::run_pool;
use super::{BufferPool, Completion, Engine, EngineError, Fill, LatencyHistogram, Op, OpKind};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// What every thread of a job reads: the job's own settings, and from its engine spec the
/// depth and the reap batch.
#[derive(Debug, Clone)]
pub(crate) struct ThreadJob {
    /// The file.
    pub path: PathBuf,
    /// Open with O_DIRECT.
    pub direct: bool,
    /// Bytes per operation.
    pub block_size: u32,
    /// The access pattern.
    pub pattern: Pattern,
    /// Share of data operations that write, 0..=1.
    pub write_fraction: f64,
    /// Share of writes followed by an fsync, 0..=1.
    pub fsync_fraction: f64,
    /// What writes carry.
    pub fill: Fill,
    /// Check what reads bring back against the fill.
    pub verify: bool,
    /// Operations in flight per thread (the engine spec's depth).
    pub depth: u32,
    /// Completions to wait for per reap (the engine spec's, for the job's thread count).
    pub reap_batch: u32,
}

impl ThreadJob {
    /// Open the job's file for one thread: read, write when the job writes, O_DIRECT if asked.
    fn open(&self) -> Result<File, EngineError> {
        let mut o = OpenOptions::new();
        o.read(true).write(self.write_fraction > 0.0);
        if self.direct {
            o.custom_flags(libc::O_DIRECT);
        }
        o.open(&self.path).map_err(|e| {
            let how = if self.direct { " with O_DIRECT" } else { "" };
            EngineError::io(format!("open{how}"), &self.path, e)
        })
    }
}

/// One thread's share of a job.
#[derive(Debug, Clone)]
pub(crate) struct ThreadPlan<'a> {
    /// What every thread of the job reads.
    pub job: &'a ThreadJob,
    /// The base block every write starts from.
    pub base: &'a [u8],
    /// First block of this thread's region.
    pub first: u64,
    /// Blocks in the region.
    pub blocks: u64,
    /// Data operations (reads + writes) to issue; `u64::MAX` when time-based.
    pub quota: u64,
    /// Stop issuing after this many nanoseconds; `u64::MAX` when count-based.
    pub runtime_ns: u64,
    /// Seed of this thread's offset and mix generators.
    pub seed: u64,
}

/// What one thread measured.
#[derive(Debug, Default)]
pub(crate) struct ThreadResult {
    /// Latency per kind (read, write, fsync).
    pub hist: [LatencyHistogram; 3],
    /// Operations per kind.
    pub ops: [u64; 3],
    /// Bytes per kind.
    pub bytes: [u64; 3],
    /// From the start of the loop to the last completion.
    pub elapsed_ns: u64,
    /// Integral of the engine's in-flight count over time, in operation-nanoseconds.
    pub depth_area: u128,
    /// Reaps (engine calls that submit what is queued and collect completions).
    pub reaps: u64,
}

impl ThreadResult {
    /// Time-weighted mean of the operations in flight (0 when nothing ran).
    pub fn mean_depth(&self) -> f64 {
        if self.elapsed_ns == 0 {
            0.0
        } else {
            self.depth_area as f64 / self.elapsed_ns as f64
        }
    }
}

/// Probability `f` as a threshold on a uniform u64 (`u64::MAX` means always).
fn cut(f: f64) -> u64 {
    if f >= 1.0 {
        u64::MAX
    } else if f <= 0.0 {
        0
    } else {
        (f * 18_446_744_073_709_551_616.0) as u64
    }
}

#[inline]
fn hit(rng: &mut XorShift, cut: u64) -> bool {
    cut == u64::MAX || (cut != 0 && rng.next_u64() < cut)
}

/// A job's thread as an [`OpSource`]: offsets from the pattern, the read/write/fsync mix, the
/// fill and its verification, per-kind accounting.
struct JobSource<'p, 'a> {
    plan: &'p ThreadPlan<'a>,
    gen: OffsetGen,
    mix: XorShift,
    dirty: Vec<bool>,
    file: u32,
    write_cut: u64,
    fsync_cut: u64,
    fsync_next: bool,
    issued: u64,
    res: ThreadResult,
}

/// Run `plan` on `engine` until its quota or runtime is used up.
pub(crate) fn drive<E: Engine>(
    engine: E,
    file: u32,
    plan: &ThreadPlan<'_>,
) -> Result<ThreadResult, EngineError> {
    let spec = plan.job;
    let mut driver = Driver::new(engine, spec.reap_batch as usize);
    let mut src = JobSource {
        plan,
        gen: OffsetGen::new(
            spec.pattern,
            plan.first,
            plan.blocks,
            u64::from(spec.block_size),
            plan.seed,
        ),
        mix: XorShift::new(plan.seed ^ 0x006d_6978),
        dirty: vec![false; driver.depth()],
        file,
        write_cut: cut(spec.write_fraction),
        fsync_cut: cut(spec.fsync_fraction),
        fsync_next: false,
        issued: 0,
        res: ThreadResult::default(),
    };
    src.res.elapsed_ns = driver.run(&mut src)?;
    src.res.depth_area = driver.depth_area;
    src.res.reaps = driver.reaps;
    Ok(src.res)
}

impl OpSource for JobSource<'_, '_> {
    type Error = EngineError;

    /// An fsync owed by the last write, else a read or a write; none once the quota or the
    /// runtime is used up.
    // Forced: one call per operation, and the job loop is the benchmark's hot path.
    #[inline(always)]
    fn next(&mut self, slot: u16, bufs: &mut BufferPool, now: u64) -> Option<Op> {
        if (self.issued >= self.plan.quota && !self.fsync_next) || now >= self.plan.runtime_ns {
            return None;
        }
        let spec = self.plan.job;
        let kind = if self.fsync_next {
            self.fsync_next = false;
            OpKind::Fsync
        } else if hit(&mut self.mix, self.write_cut) {
            self.fsync_next = hit(&mut self.mix, self.fsync_cut);
            OpKind::Write
        } else {
            OpKind::Read
        };
        let offset = if kind == OpKind::Fsync {
            0
        } else {
            self.issued += 1;
            self.gen.next_offset()
        };
        if kind == OpKind::Write {
            let buf = bufs.slot_mut(usize::from(slot));
            if std::mem::take(&mut self.dirty[usize::from(slot)]) {
                buf.copy_from_slice(self.plan.base);
            }
            if spec.fill.stamps() {
                stamp(buf, offset);
            }
        }
        Some(Op {
            kind,
            offset,
            len: spec.block_size,
            slot,
            file: self.file,
            issued_ns: now,
        })
    }

    /// Account one completion at time `now`; fail on an error, a short transfer or a
    /// verification miss.
    #[inline(always)]
    fn complete(&mut self, c: &Completion, now: u64, bufs: &BufferPool) -> Result<(), EngineError> {
        let op = c.op;
        let spec = self.plan.job;
        let want = if op.kind == OpKind::Fsync {
            0
        } else {
            op.len as i32
        };
        if c.result != want {
            return Err(self.failure(c));
        }
        let k = op.kind.index();
        self.res.hist[k].record(now.saturating_sub(op.issued_ns));
        self.res.ops[k] += 1;
        self.res.bytes[k] += c.result as u64;
        if op.kind == OpKind::Read {
            let slot = usize::from(op.slot);
            self.dirty[slot] = true;
            if spec.verify
                && !matches(
                    bufs.slot(slot),
                    self.plan.base,
                    op.offset,
                    spec.fill.stamps(),
                )
            {
                return Err(EngineError::Verify {
                    offset: op.offset,
                    path: spec.path.clone(),
                });
            }
        }
        Ok(())
    }
}

impl JobSource<'_, '_> {
    #[cold]
    fn failure(&self, c: &Completion) -> EngineError {
        let path = self.plan.job.path.clone();
        if c.result < 0 {
            let what = format!(
                "{} of {} bytes at offset {} of",
                c.op.kind.name(),
                c.op.len,
                c.op.offset
            );
            EngineError::io(what, path, std::io::Error::from_raw_os_error(-c.result))
        } else {
            EngineError::Short {
                kind: c.op.kind.name(),
                offset: c.op.offset,
                got: c.result as u32,
                want: c.op.len,
                path,
            }
        }
    }
}

/// Run every plan on its own thread of the pool, each with an engine `make` builds on that
/// thread (so the driver loop is monomorphic: no virtual call per operation). Each registry
/// entry instantiates it with its own engine type.
pub(crate) fn run_threads<E: Engine>(
    plans: &[ThreadPlan<'_>],
    align: usize,
    make: impl Fn(BufferPool) -> Result<E, EngineError> + Sync,
) -> Result<Vec<ThreadResult>, EngineError> {
    let stop = AtomicBool::new(false);
    let setup = |t: usize| {
        let p = &plans[t];
        let file = p.job.open()?;
        let mut pool = BufferPool::new(p.job.depth as usize, p.job.block_size as usize, align);
        pool.fill_all(p.base);
        let mut engine = make(pool)?;
        let id = engine.add_file(file)?;
        Ok((engine, id))
    };
    let body = |t: usize, (engine, id): (E, u32), _| drive(engine, id, &plans[t]);
    Ok(run_pool(plans.len(), &stop, setup, body)?.0)
}

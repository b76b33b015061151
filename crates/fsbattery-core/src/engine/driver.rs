//! The one loop that drives any [`Engine`] for one thread: issue, reap, account.
//!
//! Invariants:
//! - One clock read per operation boundary: after each synchronous completion, after each
//!   reap (which waits for `EngineSpec::reap_batch` completions, or all that are in flight). That reading both ends the finished operations' latencies and stamps the next
//!   operations' issue time, so in the sync loop an operation's latency runs from the end of
//!   the previous one (offset generation and the histogram record are inside it: tens of ns).
//! - No allocation in the loop: slots come from a free list sized once, completions land in
//!   a vector reused across reaps, histograms are preallocated.
//! - A slot read into is marked dirty and refilled from the base block before it is written
//!   from, so writes always carry the job's fill pattern, whatever reads brought in.
//! - The interruption flag is polled as [`crate::interrupt::due`] says (every 256 operations); on error or interrupt the
//!   engine is dropped, which waits for operations still in flight.

use super::buffer::{matches, stamp};
use super::pattern::{OffsetGen, XorShift};
use super::{Completion, Engine, EngineError, JobSpec, LatencyHistogram, Op, OpKind, Submit};
use std::time::Instant;

/// One thread's share of a job.
#[derive(Debug, Clone)]
pub(crate) struct ThreadPlan<'a> {
    /// The whole job.
    pub spec: &'a JobSpec,
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

#[inline]
fn clock(start: Instant) -> u64 {
    start.elapsed().as_nanos() as u64
}

struct Driver<'p, 'a, E: Engine> {
    engine: E,
    plan: &'p ThreadPlan<'a>,
    gen: OffsetGen,
    mix: XorShift,
    free: Vec<u16>,
    dirty: Vec<bool>,
    file: u32,
    batch: usize,
    done: Vec<Completion>,
    pending: Option<Op>,
    write_cut: u64,
    fsync_cut: u64,
    fsync_next: bool,
    issued: u64,
    interrupted: bool,
    res: ThreadResult,
}

/// Run `plan` on `engine` until its quota or runtime is used up.
pub(crate) fn drive<E: Engine>(
    engine: E,
    file: u32,
    plan: &ThreadPlan<'_>,
) -> Result<ThreadResult, EngineError> {
    let spec = plan.spec;
    let depth = engine.depth().min(engine.buffers().slots());
    let mut d = Driver {
        plan,
        gen: OffsetGen::new(
            spec.pattern,
            plan.first,
            plan.blocks,
            u64::from(spec.block_size),
            plan.seed,
        ),
        mix: XorShift::new(plan.seed ^ 0x006d_6978),
        free: (0..depth as u16).rev().collect(),
        dirty: vec![false; depth],
        file,
        batch: spec.engine.reap_batch() as usize,
        done: Vec::with_capacity(depth),
        pending: None,
        write_cut: cut(spec.write_fraction),
        fsync_cut: cut(spec.fsync_fraction),
        fsync_next: false,
        issued: 0,
        interrupted: false,
        res: ThreadResult::default(),
        engine,
    };
    d.run()?;
    if d.interrupted {
        return Err(EngineError::Interrupted);
    }
    Ok(d.res)
}

impl<E: Engine> Driver<'_, '_, E> {
    fn run(&mut self) -> Result<(), EngineError> {
        let start = Instant::now();
        let mut now = 0;
        loop {
            now = self.issue(now, start)?;
            if self.engine.in_flight() == 0 {
                // `issue` returns with nothing in flight only when the job is done.
                if self.pending.is_some() {
                    return Err(EngineError::Invalid(format!(
                        "engine {} reported busy with nothing in flight",
                        self.engine.name()
                    )));
                }
                break;
            }
            self.engine.reap(self.batch, &mut self.done)?;
            now = clock(start);
            for i in 0..self.done.len() {
                let c = self.done[i];
                self.complete(c, now)?;
            }
            self.done.clear();
        }
        self.res.elapsed_ns = now;
        Ok(())
    }

    #[inline]
    fn stopping(&self, now: u64) -> bool {
        (self.issued >= self.plan.quota && !self.fsync_next)
            || now >= self.plan.runtime_ns
            || self.interrupted
    }

    /// Submit until the engine is busy, slots run out, or the job is done.
    #[inline]
    fn issue(&mut self, mut now: u64, start: Instant) -> Result<u64, EngineError> {
        loop {
            let op = match self.pending.take() {
                Some(op) => Op {
                    issued_ns: now,
                    ..op
                },
                None => {
                    if self.stopping(now) {
                        return Ok(now);
                    }
                    let Some(slot) = self.free.pop() else {
                        return Ok(now);
                    };
                    self.next_op(slot, now)
                }
            };
            match self.engine.submit(op)? {
                Submit::Completed(c) => {
                    now = clock(start);
                    self.complete(c, now)?;
                }
                Submit::Queued => {}
                Submit::Busy => {
                    self.pending = Some(op);
                    return Ok(now);
                }
            }
        }
    }

    /// The next operation on `slot`: an fsync owed by the last write, else a read or a write.
    #[inline]
    fn next_op(&mut self, slot: u16, now: u64) -> Op {
        let spec = self.plan.spec;
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
            if crate::interrupt::due(self.issued) {
                self.interrupted = true;
            }
            self.gen.next_offset()
        };
        if kind == OpKind::Write {
            let buf = self.engine.buffers_mut().slot_mut(usize::from(slot));
            if std::mem::take(&mut self.dirty[usize::from(slot)]) {
                buf.copy_from_slice(self.plan.base);
            }
            if spec.fill.stamps() {
                stamp(buf, offset);
            }
        }
        Op {
            kind,
            offset,
            len: spec.block_size,
            slot,
            file: self.file,
            issued_ns: now,
        }
    }

    /// Account one completion at time `now`; fail on an error, a short transfer or a
    /// verification miss.
    #[inline]
    fn complete(&mut self, c: Completion, now: u64) -> Result<(), EngineError> {
        let op = c.op;
        let spec = self.plan.spec;
        let want = if op.kind == OpKind::Fsync {
            0
        } else {
            op.len as i32
        };
        if c.result != want {
            return Err(self.failure(&c));
        }
        let k = op.kind.index();
        self.res.hist[k].record(now.saturating_sub(op.issued_ns));
        self.res.ops[k] += 1;
        self.res.bytes[k] += c.result as u64;
        if op.kind == OpKind::Read {
            let slot = usize::from(op.slot);
            self.dirty[slot] = true;
            if spec.verify {
                let got = self.engine.buffers().slot(slot);
                if !matches(got, self.plan.base, op.offset, spec.fill.stamps()) {
                    return Err(EngineError::Verify {
                        offset: op.offset,
                        path: spec.path.clone(),
                    });
                }
            }
        }
        self.free.push(op.slot);
        Ok(())
    }

    #[cold]
    fn failure(&self, c: &Completion) -> EngineError {
        let path = self.plan.spec.path.clone();
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

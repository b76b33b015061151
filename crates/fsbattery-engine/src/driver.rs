//! The one loop that moves bytes: [`Driver`] submits, reaps and hands completions back, for
//! every engine and every caller. Engine jobs (`thread::drive`), block-IO passes and single
//! operations (`workload/shared/blockio.rs`) and file-set transfers (`workload/shared/fileset.rs`) are
//! [`OpSource`]s run by it; no other code calls `Engine::submit` or `Engine::reap`.
//!
//! Invariants:
//! - Two clock reads per operation: one right before it goes to the engine (its issue time,
//!   as fio's `issue_time`), one after each synchronous completion or reap (which ends every
//!   operation it finished). So a latency is the engine call's alone: the offset, a write
//!   slot's refill, a rate limit's sleep and the previous completion's accounting are not in
//!   it, as they are not in fio's completion latency.
//! - The queue stays full as fio keeps it: every reap takes every completion that is ready,
//!   every freed slot is refilled before the next reap, and that reap pushes all the refills
//!   to the engine in one call (one `io_uring_enter` for many entries) and sleeps only when
//!   no completion is ready (it waits for `EngineSpec::reap_batch` completions: by default a
//!   quarter of the depth shared among the threads, 1 to 16, see `auto_reap_batch`).
//! - The achieved queue depth is the time-weighted mean of the engine's own in-flight count:
//!   the count after the refills holds until the reap's clock reading. A synchronous submit
//!   counts as one operation in flight for its duration.
//! - No allocation in the loop: slots come from a free list sized once, completions land in
//!   a vector reused across reaps and passes, histograms are preallocated; sources are generic
//!   (monomorphised), so the job loop makes no virtual call per operation.
//! - A slot is free only when no operation holds it; on an error the driver waits for every
//!   operation in flight before returning, so a buffer is never reused or freed under the
//!   kernel.
//! - The interruption flag is polled as [`crate::interrupt::due`] says (every 256 submitted
//!   operations, counted across passes); once it is up nothing new is issued, what is in
//!   flight completes, and the pass fails with `Interrupted`.
//! - A job's slot read into is marked dirty and refilled from the base block before it is
//!   written from, so writes always carry the job's fill pattern, whatever reads brought in.

use super::{BufferPool, Completion, Engine, EngineError, Op, Submit};
use std::time::Instant;

#[inline]
fn clock(start: Instant) -> u64 {
    start.elapsed().as_nanos() as u64
}

/// Where a [`Driver`]'s operations come from and where their completions go: a job's access
/// pattern ([`crate::run_job`]), a contiguous transfer ([`super::Transfer`]), anything else a
/// workload needs. Called from the hot loop: implementations must not allocate.
pub trait OpSource {
    /// What a failed completion becomes (engine errors convert into it).
    type Error: From<EngineError>;
    /// The next operation, in buffer `slot` (fill the slot through `bufs` before a write), at
    /// clock `now`; `None` when there is nothing more to issue.
    fn next(&mut self, slot: u16, bufs: &mut BufferPool, now: u64) -> Option<Op>;
    /// Account one completion at clock `now` (`bufs` holds what a read brought in); an error
    /// ends the pass.
    fn complete(&mut self, c: &Completion, now: u64, bufs: &BufferPool) -> Result<(), Self::Error>;
}

/// An engine with its free slots and completion buffer: the one submit/reap loop. Reusable:
/// each [`Driver::run`] is one pass of one [`OpSource`], and the slots and vectors are sized
/// once, when the driver is made.
pub struct Driver<E: Engine> {
    engine: E,
    depth: usize,
    free: Vec<u16>,
    batch: usize,
    done: Vec<Completion>,
    pending: Option<Op>,
    submitted: u64,
    start: Instant,
    // In-flight count since `level_since` (ns), for `ThreadResult::depth_area`.
    level: usize,
    level_since: u64,
    /// Integral of the in-flight count over time (operation-ns), read by a job's thread.
    pub(crate) depth_area: u128,
    /// Engine calls that reaped, read by a job's thread.
    pub(crate) reaps: u64,
}

impl<E: Engine> Driver<E> {
    /// A driver over `engine` that waits for `batch` completions per reap (or all in flight).
    /// Its clock starts now.
    pub fn new(engine: E, batch: usize) -> Self {
        let depth = engine.depth().min(engine.buffers().slots());
        Driver {
            depth,
            free: (0..depth as u16).rev().collect(),
            batch: batch.max(1),
            done: Vec::with_capacity(depth),
            pending: None,
            submitted: 0,
            start: Instant::now(),
            level: 0,
            level_since: 0,
            depth_area: 0,
            reaps: 0,
            engine,
        }
    }

    /// The engine, to add or remove files or prepare a slot between passes.
    pub fn engine_mut(&mut self) -> &mut E {
        &mut self.engine
    }

    /// Buffer slots the driver hands out.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Run `src` until it has nothing more to issue and nothing is in flight; returns the
    /// clock (ns since the driver was made) at the last completion. On an error, and on
    /// Ctrl-C (after the operations in flight completed), everything in flight is waited for
    /// before the error returns, so a buffer is never reused under the kernel. The free list
    /// is LIFO: a single operation after a single operation gets the same slot.
    pub fn run<S: OpSource>(&mut self, src: &mut S) -> Result<u64, S::Error> {
        let res = self.pass(src);
        if res.is_err() {
            self.drain();
        }
        res
    }

    fn pass<S: OpSource>(&mut self, src: &mut S) -> Result<u64, S::Error> {
        let start = self.start;
        let mut now = clock(start);
        let mut interrupted = false;
        loop {
            now = self.issue(src, now, &mut interrupted)?;
            if self.engine.in_flight() == 0 {
                // `issue` returns with nothing in flight only when the pass is done.
                if self.pending.is_some() {
                    return Err(EngineError::Invalid(format!(
                        "engine {} reported busy with nothing in flight",
                        self.engine.name()
                    ))
                    .into());
                }
                break;
            }
            // The refills are in flight from here (they go out in this reap's one call).
            self.level = self.engine.in_flight();
            self.engine.reap(self.batch, &mut self.done)?;
            self.reaps += 1;
            now = clock(start);
            self.account(now);
            for i in 0..self.done.len() {
                let c = self.done[i];
                self.free.push(c.op.slot);
                src.complete(&c, now, self.engine.buffers())?;
            }
            self.done.clear();
        }
        if interrupted {
            return Err(EngineError::Interrupted.into());
        }
        Ok(now)
    }

    /// Add the in-flight level held since the last reading to the depth integral.
    #[inline]
    fn account(&mut self, now: u64) {
        let dt = now.saturating_sub(self.level_since);
        self.depth_area += self.level as u128 * u128::from(dt);
        self.level_since = now;
    }

    /// Submit until the engine is busy, slots run out, or the source is done.
    #[inline]
    fn issue<S: OpSource>(
        &mut self,
        src: &mut S,
        mut now: u64,
        interrupted: &mut bool,
    ) -> Result<u64, S::Error> {
        loop {
            let op = match self.pending.take() {
                Some(op) => op,
                None => {
                    if *interrupted {
                        return Ok(now);
                    }
                    let Some(slot) = self.free.pop() else {
                        return Ok(now);
                    };
                    let Some(op) = src.next(slot, self.engine.buffers_mut(), now) else {
                        // Done: the slot goes back (once per pass, off the hot path).
                        self.free.push(slot);
                        return Ok(now);
                    };
                    self.submitted += 1;
                    if crate::interrupt::due(self.submitted) {
                        *interrupted = true;
                    }
                    op
                }
            };
            // Stamped at the submission, as fio stamps `issue_time` in `td_io_queue`: the
            // offset, the fill and the previous completion's accounting are the tool's time,
            // not the operation's (a refilled 4 KiB write slot made a buffered write's mean
            // 0.4-0.7 µs slower than fio's, 2026-11-29).
            let op = Op {
                issued_ns: clock(self.start),
                ..op
            };
            match self.engine.submit(op)? {
                Submit::Completed(c) => {
                    now = clock(self.start);
                    self.level = 1;
                    self.account(now);
                    self.free.push(c.op.slot);
                    src.complete(&c, now, self.engine.buffers())?;
                }
                Submit::Queued => {}
                Submit::Busy => {
                    self.pending = Some(op);
                    return Ok(now);
                }
            }
        }
    }

    /// Wait for everything still in flight, ignoring results (an error path is leaving), and
    /// give every slot back. A failing reap leaves the slots it could not account for out.
    #[cold]
    fn drain(&mut self) {
        self.pending = None;
        self.done.clear();
        while self.engine.in_flight() > 0 {
            if self.engine.reap(1, &mut self.done).is_err() {
                self.free.clear();
                return;
            }
            self.done.clear();
        }
        self.free.clear();
        self.free.extend((0..self.depth as u16).rev());
    }
}

#[cfg(test)]
#[path = "driver_tests.rs"]
mod tests;

//! The IO engine: how bytes move between a workload and a file.
//!
//! One contract for every engine (house rule 6, fio's `ioengine_ops` without the god-struct):
//! [`Engine::submit`] answers [`Submit::Completed`] (synchronous engines), [`Submit::Queued`]
//! (asynchronous engines: the operation is in flight) or [`Submit::Busy`] (no room: reap first
//! and submit the same operation again), and [`Engine::reap`] collects finished operations.
//! One driver loop (`Driver`, in `driver.rs`) therefore drives `pread`/`pwrite`, io_uring and
//! the null engine alike, for jobs ([`run_job`]) and for every workload that moves bytes; the
//! one thread pool ([`run_pool`]) runs its threads.
//!
//! Invariants:
//! - Each engine owns its state: its open files (operations name one by index, so workloads
//!   over many files such as postmark or ffsb use one engine), its aligned buffer pool (one slot
//!   per operation in flight), its ring. Nothing is shared between threads; `jobs N` runs N
//!   engines, each created on the thread that uses it (io_uring rings are single-issuer).
//! - An operation names a buffer slot; the caller never reuses a slot until the operation that
//!   holds it has completed (the driver keeps a free list of slots).
//! - Engines never time anything: the driver stamps [`Op::issued_ns`] and reads the clock once
//!   per completion batch, so timing costs the same for every engine.
//!
//! Adding an engine is one file implementing [`Engine`] and one arm in [`EngineSpec`] and the
//! dispatch in `job.rs`. The `null` engine ([`SyncEngine::null`]) does no I/O: it makes tests of the
//! layers above deterministic and measures fsbattery's own per-operation cost.

mod buffer;
mod direct;
mod driver;
mod error;
mod files;
mod job;
mod latency;
mod pattern;
mod pool;
mod sync;
mod transfer;
mod uring;

#[cfg(test)]
mod tests;

pub use buffer::{AlignedBuf, BufferPool, Fill};
pub use direct::{check_direct, dio_alignment, DioAlignment, DirectIo};
pub(crate) use driver::Driver;
pub use error::EngineError;
pub use job::{run_job, FileMode, JobResult, JobSpec, OpStats, Stop};
pub use latency::{LatencyHistogram, LatencySummary};
pub use pattern::{OffsetGen, Pattern, XorShift};
pub use pool::{run_pool, PoolError, PoolResult};
pub use sync::SyncEngine;
pub(crate) use transfer::Transfer;
pub use uring::{probe_uring, UringEngine, UringOptions, MAX_REGISTERED_FILES};

use serde::{Deserialize, Serialize};
use std::fs::File;

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    /// Read `len` bytes at `offset` into the slot's buffer.
    Read,
    /// Write `len` bytes from the slot's buffer at `offset`.
    Write,
    /// fsync the file (offset and len are ignored).
    Fsync,
}

impl OpKind {
    /// Index 0, 1, 2 for per-kind arrays (read, write, fsync).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// "read", "write" or "fsync".
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Fsync => "fsync",
        }
    }
}

/// One operation handed to an engine. Plain data, copied freely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// Read, write or fsync.
    pub kind: OpKind,
    /// Byte offset in the file (aligned for O_DIRECT).
    pub offset: u64,
    /// Bytes to move (at most the pool's slot length).
    pub len: u32,
    /// Buffer slot, `0..engine.depth()`; also identifies the operation while in flight.
    pub slot: u16,
    /// File index, as returned by [`Engine::add_file`].
    pub file: u32,
    /// Opaque to engines and returned in the [`Completion`]: the driver stores the issue time
    /// (nanoseconds since the thread's start) here.
    pub issued_ns: u64,
}

/// A finished operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The operation as submitted.
    pub op: Op,
    /// Bytes moved (0 for fsync) or a negative errno, as the kernel returns them.
    pub result: i32,
}

/// The answer of [`Engine::submit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submit {
    /// Done already (synchronous engines): here is the completion.
    Completed(Completion),
    /// Accepted and in flight: it will come back from [`Engine::reap`].
    Queued,
    /// No room: nothing was accepted. Reap at least one completion, then submit it again.
    Busy,
}

/// An IO engine instance, owned by one thread.
pub trait Engine {
    /// Registry name ("sync", "io_uring").
    fn name(&self) -> &'static str;
    /// Most operations in flight at once; also the number of buffer slots.
    fn depth(&self) -> usize;
    /// Operations submitted and not yet reaped.
    fn in_flight(&self) -> usize;
    /// The buffer pool (slot contents after a read completes).
    fn buffers(&self) -> &BufferPool;
    /// The buffer pool, to fill a slot before a write is submitted.
    fn buffers_mut(&mut self) -> &mut BufferPool;
    /// Take ownership of an open file; operations name it by the returned index (the lowest
    /// free one, so the first file is 0). Open it with O_DIRECT for direct IO.
    fn add_file(&mut self, file: File) -> Result<u32, EngineError>;
    /// Give file `id` back (None if unknown). No operation on it may be in flight.
    fn remove_file(&mut self, id: u32) -> Option<File>;
    /// Start `op` (see [`Submit`]). Errors are submission failures; an operation that fails in
    /// the kernel is reported through its [`Completion::result`].
    fn submit(&mut self, op: Op) -> Result<Submit, EngineError>;
    /// Push out anything queued and wait until at least `min` operations finished (never more
    /// than are in flight); append every finished operation to `out`. Returns how many were
    /// appended. `min == 0` only polls.
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError>;
}

/// Engine names, in [`EngineSpec::choose`] order.
const NAMES: &[&str] = &["sync", "io_uring", "null"];

/// A boxed engine is an engine: workloads that pick the engine at run time drive a
/// `Box<dyn Engine>` through the same `Driver` (one virtual call per submit and reap).
impl<T: Engine + ?Sized> Engine for Box<T> {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn depth(&self) -> usize {
        (**self).depth()
    }
    fn in_flight(&self) -> usize {
        (**self).in_flight()
    }
    fn buffers(&self) -> &BufferPool {
        (**self).buffers()
    }
    fn buffers_mut(&mut self) -> &mut BufferPool {
        (**self).buffers_mut()
    }
    fn add_file(&mut self, file: File) -> Result<u32, EngineError> {
        (**self).add_file(file)
    }
    fn remove_file(&mut self, id: u32) -> Option<File> {
        (**self).remove_file(id)
    }
    #[inline]
    fn submit(&mut self, op: Op) -> Result<Submit, EngineError> {
        (**self).submit(op)
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        (**self).reap(min, out)
    }
}

/// Which engine a job uses, with its namespaced options (`uring.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EngineSpec {
    /// `pread`/`pwrite`/`fsync`, one operation at a time.
    #[default]
    Sync,
    /// io_uring with a queue of `depth` operations.
    IoUring(UringOptions),
    /// No I/O: every operation completes at once (deterministic tests, fsbattery's own cost).
    Null,
}

impl EngineSpec {
    /// io_uring at queue depth `depth` with registered buffers and files.
    pub fn uring(depth: u32) -> Self {
        EngineSpec::IoUring(UringOptions {
            depth,
            ..UringOptions::default()
        })
    }

    /// Registry name.
    pub fn name(&self) -> &'static str {
        match self {
            EngineSpec::Sync => "sync",
            EngineSpec::IoUring(_) => "io_uring",
            EngineSpec::Null => "null",
        }
    }

    /// Operations in flight per thread (1 for sync).
    pub fn depth(&self) -> u32 {
        match self {
            EngineSpec::Sync | EngineSpec::Null => 1,
            EngineSpec::IoUring(o) => o.depth,
        }
    }

    /// Completions the driver waits for per reap with `threads` threads on the file: 1 for
    /// sync, `uring.batch` for io_uring (clamped to 1..=depth), and for `uring.batch` 0 (auto)
    /// [`auto_reap_batch`].
    pub fn reap_batch(&self, threads: u32) -> u32 {
        match self {
            EngineSpec::Sync | EngineSpec::Null => 1,
            EngineSpec::IoUring(o) if o.batch == 0 => auto_reap_batch(o.depth, threads),
            EngineSpec::IoUring(o) => o.batch.clamp(1, o.depth.max(1)),
        }
    }

    /// A fresh engine of this kind over `pool` (at least [`EngineSpec::depth`] slots), for
    /// workloads that run their own submit/reap loop. Create it on the thread that uses it.
    pub fn build(&self, pool: BufferPool) -> Result<Box<dyn Engine>, EngineError> {
        Ok(match self {
            EngineSpec::Sync => Box::new(SyncEngine::new(pool)),
            EngineSpec::IoUring(o) => Box::new(UringEngine::new(pool, *o)?),
            EngineSpec::Null => Box::new(SyncEngine::null(pool)),
        })
    }

    /// Every engine name, for help and error messages; also the choices of the workloads'
    /// `engine` parameter, in the order [`EngineSpec::choose`] reads.
    pub fn names() -> &'static [&'static str] {
        NAMES
    }

    /// The engine at `index` of [`EngineSpec::names`] (a workload's `engine` parameter), with
    /// `uring` as io_uring's options; None for an index past the end.
    pub fn choose(index: u64, uring: UringOptions) -> Option<EngineSpec> {
        match index {
            0 => Some(EngineSpec::Sync),
            1 => Some(EngineSpec::IoUring(uring)),
            2 => Some(EngineSpec::Null),
            _ => None,
        }
    }
}

/// The reap batch `uring.batch=0` (the default) waits for at queue depth `depth` per thread
/// with `threads` threads: a quarter of the depth shared among the threads
/// (`depth / (4 × threads)`), at least 1 and at most 16. Every ready completion is reaped
/// whatever the batch. Waiting for a share of a burst of completions (virtio coalesces
/// interrupts: ~11 per wake-up at depth 32 on this machine's disk) lets it arrive before the
/// thread wakes and resubmits, so the refills go out in fewer, larger submissions (fewer
/// device notifications); with several threads each ring sees only its share of a burst.
/// Measured against fio in bench/README.md: depth 32, 1 thread, waiting for 1 gave 0.80–0.90
/// × fio, for 8 0.95–1.00 ×; 4 threads waiting for 8 each 0.85–0.93 ×, for 1 1.01 ×. The cap
/// keeps latency from stretching at deep queues.
pub fn auto_reap_batch(depth: u32, threads: u32) -> u32 {
    (depth / (4 * threads.max(1))).clamp(1, 16)
}

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
//! - Engines never time anything: the driver stamps [`Op::issued_ns`] as it submits and reads
//!   the clock once per completion batch, so timing costs the same for every engine.
//!
//! Adding an engine is one file implementing [`Engine`] with its [`EngineEntry`] (name,
//! capabilities, options) and one line in the registry's table ([`ENGINES`]); see
//! docs/src/adding-an-engine.md. The `null` engine ([`SyncEngine::null`]) does no I/O: it makes tests of the
//! layers above deterministic and measures fsbattery's own per-operation cost.
//!
//! A leaf crate: it depends on no other fsbattery crate. Besides the engines it holds the
//! process-wide [`interrupt`] flag, which its driver polls on every hot path.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod buffer;
mod direct;
mod driver;
mod entry;
mod error;
mod files;
pub mod interrupt;
mod job;
mod latency;
mod pattern;
mod pool;
mod registry;
mod spec;
mod sync;
mod thread;
mod transfer;
mod uring;
mod uring_options;

#[cfg(test)]
mod tests;

pub use buffer::{AlignedBuf, BufferPool, Fill};
pub use direct::{check_direct, dio_alignment, DioAlignment, DirectIo};
pub use driver::{Driver, OpSource};
pub use entry::{Caps, EngineEntry, EngineOption};
pub use error::EngineError;
pub use job::{run_job, FileMode, JobResult, JobSpec, OpStats, Stop};
pub use latency::{LatencyHistogram, LatencySummary};
pub use pattern::{OffsetGen, Pattern, XorShift};
pub use pool::{run_pool, PoolError, PoolResult};
pub use registry::{by_index, lookup, ENGINES, NAMES};
pub use spec::EngineSpec;
pub use sync::SyncEngine;
pub use transfer::Transfer;
pub use uring::{probe_uring, uring_available, UringEngine, MAX_REGISTERED_FILES};
pub use uring_options::UringOptions;

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
    /// fdatasync the file (offset and len are ignored); counted with fsyncs (index 2).
    Fdatasync,
}

impl OpKind {
    /// Index 0, 1, 2 for per-kind arrays (read, write, sync: fsync and fdatasync share it).
    #[inline]
    pub fn index(self) -> usize {
        match self {
            OpKind::Read => 0,
            OpKind::Write => 1,
            OpKind::Fsync | OpKind::Fdatasync => 2,
        }
    }

    /// Whether it flushes a file (fsync or fdatasync) rather than moving bytes.
    #[inline]
    pub fn is_sync(self) -> bool {
        matches!(self, OpKind::Fsync | OpKind::Fdatasync)
    }

    /// "read", "write", "fsync" or "fdatasync".
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Fsync => "fsync",
            OpKind::Fdatasync => "fdatasync",
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
    /// (nanoseconds since the thread's start) here as it submits; what a source puts here is
    /// overwritten.
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

/// The reap batch `uring.batch=0` (the default) waits for at queue depth `depth` per thread
/// with `threads` threads: a quarter of the depth shared among the threads
/// (`depth / (4 × threads)`), at least 1 and at most 16. Every ready completion is reaped
/// whatever the batch. Waiting for a share of a burst of completions (virtio coalesces
/// interrupts: ~11 per wake-up at depth 32 on this machine's disk) lets it arrive before the
/// thread wakes and resubmits, so the refills go out in fewer, larger submissions (fewer
/// device notifications); with several threads each ring sees only its share of a burst.
/// Measured against fio in docs/src/performance.md: depth 32, 1 thread, waiting for 1 gave 0.80–0.90
/// × fio, for 8 0.95–1.00 ×; 4 threads waiting for 8 each 0.85–0.93 ×, for 1 1.01 ×. The cap
/// keeps latency from stretching at deep queues.
pub fn auto_reap_batch(depth: u32, threads: u32) -> u32 {
    (depth / (4 * threads.max(1))).clamp(1, 16)
}

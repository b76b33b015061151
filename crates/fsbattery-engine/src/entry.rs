//! What one registered engine is: its name, aliases, capabilities, options and the two
//! functions that make and run it. A leaf beside the table (`registry.rs`): each engine file
//! declares its entry with these types, and the table lists the entries.

use crate::thread::{ThreadPlan, ThreadResult};
use crate::{BufferPool, Engine, EngineError, UringOptions};

/// What an engine can do, read by the layers above instead of matching on its name (fio's
/// ioengine flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Keeps several operations in flight, so the queue options (`depth`, `batch`) apply;
    /// false: one operation at a time (fio's `FIO_SYNCIO`), depth and batch are 1.
    pub queued: bool,
    /// Moves no bytes (fio's `FIO_NOIO`): a job that reads needs no file contents first.
    pub no_io: bool,
    /// Built on io_uring: the plan checks that the host can set up a ring before the run.
    pub io_uring: bool,
}

/// One option an engine reads, for help and for the options table of the docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineOption {
    /// Its name in a workload's parameters (`depth`, `batch`) or in [`UringOptions`].
    pub name: &'static str,
    /// What it does for this engine.
    pub help: &'static str,
}

/// Makes a boxed engine of one kind over a buffer pool, with the queue options.
pub(crate) type BuildFn = fn(BufferPool, &UringOptions) -> Result<Box<dyn Engine>, EngineError>;
/// Runs a job's threads with an engine of one kind, monomorphic (no virtual call per
/// operation): each entry instantiates `job::run_threads` with its own engine type.
pub(crate) type RunFn =
    fn(&[ThreadPlan<'_>], usize, &UringOptions) -> Result<Vec<ThreadResult>, EngineError>;

/// One registered engine.
#[derive(Clone, Copy)]
pub struct EngineEntry {
    /// Registry name, the `engine` parameter's value ("sync", "io_uring").
    pub name: &'static str,
    /// Other tools' names for the same engine (fio's `psync`), accepted by [`crate::lookup`].
    pub aliases: &'static [&'static str],
    /// One line for help texts.
    pub help: &'static str,
    /// What it can do.
    pub caps: Caps,
    /// The options it reads (empty: none).
    pub options: &'static [EngineOption],
    pub(crate) build: BuildFn,
    pub(crate) run: RunFn,
}

impl std::fmt::Debug for EngineEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineEntry")
            .field("name", &self.name)
            .field("caps", &self.caps)
            .finish_non_exhaustive()
    }
}

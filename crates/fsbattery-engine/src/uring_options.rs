//! The io_uring engine's options (`uring.*`). A leaf: every registry entry's make and run
//! functions take them (an engine without a queue ignores them), and the io_uring engine
//! reads them, so the entry types and the engine both use this module instead of each other.

use serde::{Deserialize, Serialize};

/// Options of the io_uring engine (`uring.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UringOptions {
    /// Operations in flight per thread (`uring.depth`), 1..=4096.
    pub depth: u32,
    /// Register the buffer pool with the ring and use READ_FIXED/WRITE_FIXED
    /// (`uring.registered_buffers`).
    pub registered_buffers: bool,
    /// Register files with the ring (`uring.registered_files`).
    pub registered_files: bool,
    /// Completions to wait for per reap (`uring.batch`, at most the depth; the CLI's
    /// `randomio.uring.batch`); 0, the default, is [`crate::auto_reap_batch`] of the depth.
    /// Every ready completion is reaped whatever the value; larger batches mean fewer
    /// wake-ups and larger submissions, but an operation's latency then ends when its batch
    /// is reaped. No difference on tmpfs; ahead on a virtio disk (docs/src/performance.md).
    pub batch: u32,
}

impl UringOptions {
    /// Depth 32, registered buffers and files, automatic reap batch.
    pub const DEFAULT: UringOptions = UringOptions {
        depth: 32,
        registered_buffers: true,
        registered_files: true,
        batch: 0,
    };
}

impl Default for UringOptions {
    fn default() -> Self {
        UringOptions::DEFAULT
    }
}

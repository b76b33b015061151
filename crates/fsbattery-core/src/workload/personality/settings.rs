//! A personality's parameters as declared, read once from the resolved [`Params`] (sizes in
//! bytes): what sizing a plan and the run's checked `Config` both start from, so neither looks
//! a parameter up by name.

use crate::params::Params;
use crate::workload::io::IoParams;

/// The parameters every personality declares (`specs` in the parent module).
#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    /// Entries in the file set.
    pub files: u64,
    /// Mean file size, bytes.
    pub mean_size: u64,
    /// Entries per directory.
    pub dirwidth: u64,
    /// Percent of the entries made before the timed phase.
    pub prealloc: u64,
    /// Threads asked for; 0 = one per CPU.
    pub threads: u64,
    /// Seconds of the timed phase.
    pub runtime: u64,
    /// Bytes per request of whole-file reads and writes.
    pub io_size: u64,
    /// Largest append, bytes.
    pub append_size: u64,
    /// Seed of sizes, appends and the entries made first.
    pub seed: u64,
    /// Engine and depth.
    pub io: IoParams,
}

impl Settings {
    /// The values `p` holds.
    pub fn of(p: &Params) -> Settings {
        Settings {
            files: p.get("files"),
            mean_size: p.get("mean_size"),
            dirwidth: p.get("dirwidth"),
            prealloc: p.get("prealloc"),
            threads: p.get("threads"),
            runtime: p.get("runtime"),
            io_size: p.get("io_size"),
            append_size: p.get("append_size"),
            seed: p.get("seed"),
            io: IoParams::of(p),
        }
    }
}

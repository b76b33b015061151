//! A personality's settings as declared (sizes in bytes): what sizing a plan and the run's
//! checked `Config` both start from, so neither looks a parameter up by name. The three
//! personalities share the struct and differ in their defaults ([`Defaults`]).

use crate::fileset::{bytes, count, percent, MAX_FILES, THREADS_RANGE};
use crate::io::{IoDefaults, IoGroup};
use crate::params::MAX_REQUEST;

/// A personality's defaults: files and mean size per scale, directory width, preallocated
/// percent and filebench's thread count (standard scale).
#[derive(Debug, Clone, Copy)]
pub struct Defaults {
    /// Files at quick and standard scale.
    pub files: [u64; 2],
    /// Mean size at quick and standard scale.
    pub mean: [u64; 2],
    /// Entries per directory.
    pub dirwidth: u64,
    /// Percent made first.
    pub prealloc: u64,
    /// Threads at standard scale.
    pub threads: u64,
}

/// fileserver's defaults.
pub const FILESERVER: Defaults = Defaults {
    files: [1_000, 10_000],
    mean: [32 << 10, 128 << 10],
    dirwidth: 20,
    prealloc: 80,
    threads: 50,
};
/// varmail's defaults.
pub const VARMAIL: Defaults = Defaults {
    files: [500, 1_000],
    mean: [16 << 10, 16 << 10],
    dirwidth: 1_000_000,
    prealloc: 80,
    threads: 16,
};
/// webserver's defaults.
pub const WEBSERVER: Defaults = Defaults {
    files: [500, 1_000],
    mean: [16 << 10, 16 << 10],
    dirwidth: 20,
    prealloc: 100,
    threads: 100,
};

crate::settings! {
    /// The settings every personality declares.
    pub struct Settings(d: Defaults = FILESERVER) {
        /// Entries in the file set.
        pub files: u64 =
            count("files", "entries in the file set", d.files[0], d.files[1]).range(1, MAX_FILES),
        /// Mean file size.
        pub mean_size: u64 = bytes(
            "mean_size",
            "mean file size (gamma distribution, shape 1.5)",
            d.mean[0],
            d.mean[1],
        )
        .range(1, MAX_REQUEST),
        /// Entries per directory.
        pub dirwidth: u64 =
            count("dirwidth", "entries per directory", d.dirwidth, d.dirwidth).range(1, MAX_FILES),
        /// Percent of the entries made before the timed phase.
        pub prealloc: u64 = percent(
            "prealloc",
            "percent of the entries created before the timed phase",
            d.prealloc,
        ),
        /// Threads asked for; 0 = one per CPU.
        pub threads: u64 = count("threads", "threads (0 = one per CPU)", 0, d.threads)
            .range(THREADS_RANGE.0, THREADS_RANGE.1),
        /// Seconds of the timed phase.
        pub runtime: u64 =
            count("runtime", "seconds of the timed phase", 2, 60).range(1, crate::params::MAX_RUNTIME),
        /// Bytes per request of whole-file reads and writes.
        pub io_size: u64 = bytes(
            "io_size",
            "request size of whole-file reads and writes",
            1 << 20,
            1 << 20,
        )
        .range(1, MAX_REQUEST),
        /// Largest append.
        pub append_size: u64 = bytes(
            "append_size",
            "largest append (appends are 1..=APPEND_SIZE bytes)",
            16 << 10,
            16 << 10,
        )
        .range(1, MAX_REQUEST),
        /// Engine and depth.
        pub io: IoGroup => IoDefaults::FILE_SET,
        /// Seed of sizes, appends and the entries made first.
        pub seed: u64 = count(
            "seed",
            "seed of sizes, appends and the entries made first",
            1,
            1,
        )
        .range(0, u64::MAX),
    }
}

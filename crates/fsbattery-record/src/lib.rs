//! fsbattery-record: the run record, the one canonical artefact of a run, and everything that
//! reads it back.
//!
//! This crate holds the record's types and their serde layout ([`model`]), the plain data the
//! record keeps about datasets and filesystems ([`dataset`]), the journal's events and its
//! reader ([`journal`]), the built-in lifecycle workload's declaration ([`lifecycle`]) and the
//! loading of a run directory ([`load()`]). It depends on nothing of the I/O side (no nix,
//! io_uring or tar), so the renderers build from it alone; fsbattery-core depends on it,
//! re-exports it as `fsbattery_core::model`, and adds what needs the machine: probing,
//! measuring, and the durable journal writer.
//!
//! Invariants: nothing here prints or writes; loading never rewrites a run directory.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
#![forbid(unsafe_code)]

pub mod aging;
pub mod cache;
pub mod cell_stats;
pub mod composite;
pub mod dataset;
pub mod guest;
pub mod journal;
pub mod lifecycle;
pub mod load;
pub mod meta;
pub mod model;
pub mod parts;
pub mod published;
pub mod repeats;
pub mod settings;
pub mod then_now;

pub use cell_stats::{CellStats, CellVerdict};
pub use load::{load, LoadError, Loaded};
pub use meta::{Dim, MetricKind, MetricMeta, Stat};
pub use model::*;
pub use parts::{PartStep, RunPart};

/// File name of the assembled run record inside a run directory.
pub const RESULTS_FILE: &str = "results.json";

/// File name of the journal inside a run directory.
pub const JOURNAL_FILE: &str = "journal.jsonl";

/// Show bytes in the largest binary unit that divides them, else with one decimal.
pub fn format_bytes(v: u64) -> String {
    const UNITS: [(&str, u64); 6] = [
        ("EiB", 1 << 60),
        ("PiB", 1 << 50),
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, size) in UNITS {
        if v >= size {
            return if v.is_multiple_of(size) {
                format!("{}{name}", v / size)
            } else {
                format!("{:.1}{name}", v as f64 / size as f64)
            };
        }
    }
    format!("{v}B")
}

//! fsbattery-base: the foundation every other layer of fsbattery stands on — errors and their
//! hints, the run record's types as the core sees them (`model`), measurement and units, child
//! processes, notices, the cache policy, host facts, packages to install, parameters and typed
//! workload settings, MPI-style collectives, the journal's file format.
//!
//! It may use the leaves only (`fsbattery-engine`, `fsbattery-record`, `fsbattery-stats`);
//! the crates above it (`fsbattery-targets`, `fsbattery-workloads`, `fsbattery-core`)
//! re-export what they use of it at their own root, so `crate::error` reads the same in each
//! of them. Nothing here knows a filesystem kind, a workload or the runner.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod atomic;
pub mod cache;
pub mod collective;
/// The IO engines, their registry and the driver loop: the leaf crate `fsbattery-engine`.
pub use fsbattery_engine as engine;
pub mod error;
pub mod host;
/// The process-wide interruption flag (in `fsbattery-engine`, whose driver polls it most).
pub use fsbattery_engine::interrupt;
pub mod journal;
pub mod measure;
pub mod model;
pub mod notice;
pub mod packages;
pub mod params;
pub mod process;
pub mod regular_files;
pub mod residency;
pub mod settings;
pub mod suggest;
pub mod units;

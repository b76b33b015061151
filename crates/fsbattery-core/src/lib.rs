//! fsbattery-core: the run model, targets, workloads, the runner and its journal.
//!
//! Data flows one way: a validated [`runner::Plan`] is executed against targets, every result
//! is appended to the journal as it is measured, and the assembled [`model::RunRecord`] is what
//! every renderer reads. Nothing here formats output for people.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod atomic;
pub mod cache;
pub mod cache_plan;
pub mod ceiling;
pub mod collective;
pub mod dataset;
/// The IO engines, their registry and the driver loop: the leaf crate `fsbattery-engine`,
/// re-exported under its old path.
pub use fsbattery_engine as engine;
pub mod error;
pub mod host;
pub mod import;
/// The process-wide interruption flag (in `fsbattery-engine`, whose driver polls it most).
pub use fsbattery_engine::interrupt;
pub mod journal;
pub mod label;
pub mod measure;
pub mod model;
pub mod notice;
pub mod packages;
pub mod params;
pub mod plan;
pub(crate) mod process;
pub mod published;
pub(crate) mod regular_files;
pub mod residency;
pub mod runner;
pub mod seed_sized;
pub mod settings;
pub mod suggest;
pub mod suite;
pub mod suite_native;
pub mod suite_settings;
pub mod targets;
pub mod tune;
pub mod units;
pub mod workload;

//! fsbattery-core: the orchestration — the plan (request → checked plan or dry run), the
//! runner and its journal, suites and their settings, tune, the importers of other tools'
//! output.
//!
//! Data flows one way: a validated [`runner::Plan`] is executed against targets, every result
//! is appended to the journal as it is measured, and the assembled [`model::RunRecord`] is what
//! every renderer reads. Nothing here formats output for people.
//!
//! What it may use: everything below it — the workloads (`fsbattery-workloads`), the
//! filesystem lifecycle (`fsbattery-targets`), the foundation (`fsbattery-base`) and the
//! leaves. It re-exports them under the paths they had when they were modules of this crate
//! (`fsbattery_core::workload`, `fsbattery_core::targets`, `fsbattery_core::error`, ...), so
//! the binary, the MPI crate and the tests name one path for each.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

// The foundation, re-exported under its old paths (`fsbattery_core::error`, `crate::params`).
pub use fsbattery_base::{
    atomic, cache, choice, collective, engine, error, host, interrupt, journal, measure, model,
    notice, packages, params, process, regular_files, residency, settings, suggest, units,
};

pub mod cache_plan;
pub mod ceiling;
/// The datasets the tree workloads read (in `fsbattery-workloads`), under their old path.
pub use fsbattery_workloads::dataset;
pub mod import;
pub mod label;
pub mod plan;
pub mod published;
pub mod runner;
pub mod seed_sized;
pub mod suite;
pub mod suite_native;
pub mod suite_settings;
/// The filesystem lifecycle: the crate `fsbattery-targets`, re-exported under its old path.
pub use fsbattery_targets as targets;
pub mod tune;
/// The workloads: the crate `fsbattery-workloads`, re-exported under its old path.
pub use fsbattery_workloads as workload;

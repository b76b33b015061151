//! fsbattery-store: the results store, every run's comparable facts in one embedded SQLite
//! database, so `history` and `site` can look across runs, kernels, options and machines.
//!
//! The JSON record in each run directory stays the source of truth: the store holds what is
//! needed to find comparable runs and draw their trends (a run's conditions, each cell's
//! samples and summary) and the directory it came from, and `rebuild` recreates it from
//! those directories. Adding a run is one transaction, so a killed writer leaves the store
//! as it was before; concurrent writers are serialised by SQLite (WAL, busy timeout).
//!
//! Invariants: a run is keyed by its directory's canonical path, so adding it again replaces
//! it rather than doubling it; nothing personal is stored (no host name, no user; the
//! machine is an id derived from its hardware, see [`facts::machine_id`]).
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
#![forbid(unsafe_code)]

mod error;
pub mod facts;
mod location;
mod query;
mod schema;
pub mod series;
mod store;

pub use error::StoreError;
pub use facts::{machine_id, PointFacts, RunFacts};
pub use location::default_path;
pub use query::{Filter, Point, RunRow};
pub use series::{series, By, Series, SeriesPoint};
pub use store::Store;

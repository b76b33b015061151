//! The run record, as `fsbattery_core::model`: its types live in the `fsbattery-record` crate
//! (which renderers depend on without the I/O side) and are re-exported here unchanged, so
//! `fsbattery_core::model::RunRecord` and `fsbattery_record::RunRecord` are one type.

pub use fsbattery_record::meta::{Dim, MetricKind, MetricMeta, Stat};
pub use fsbattery_record::model::*;

//! The built-in `filesystem` workload's declaration: the lifecycle rows (mkfs, mount and
//! unmount time, space after formatting) are ordinary cells of this workload, so the record
//! says what they are. Measuring them is `fsbattery_core::runner::lifecycle`'s, which
//! re-exports this declaration: one source of truth for the run that writes the cells and for
//! [`upgrade`], which fills in what older records lack.
//!
//! Space available is a property of the size the target was given, so it is declared not
//! comparable: recorded, never ranked or scored.

use crate::model::{MetricSpec, RunRecord};

/// Name of the built-in workload whose cells hold the lifecycle rows.
pub const WORKLOAD: &str = "filesystem";

/// The lifecycle metrics, in S1's order.
pub fn metrics() -> Vec<MetricSpec> {
    vec![
        MetricSpec::seconds("mkfs", "wall time of mkfs on the fresh device"),
        MetricSpec::seconds("mount", "wall time of mounting the fresh filesystem"),
        MetricSpec::rate(
            "avail_mib",
            "MiB",
            "space available to users right after formatting",
        )
        // It follows the size each target was given (a tmpfs is half the RAM, an image
        // what --set loop.size says): a property of the target, not a ranking.
        .not_comparable(),
        MetricSpec::seconds("umount", "wall time of unmounting after the workloads"),
    ]
}

/// Bring an older record up to date. Written before [`MetricSpec::comparable`] existed: its
/// lifecycle cells take the flag from the specs above (the record's own data, the built-in
/// workload's declaration), so an old record's space-available row is not ranked either.
/// Written before [`MetricSpec::meta`] existed: each planned metric gets the metadata its name
/// implies ([`crate::meta::derive`]), so it renders as it always did.
pub fn upgrade(rec: &mut RunRecord) {
    let specs = metrics();
    for c in rec.cells.iter_mut().filter(|c| c.workload == WORKLOAD) {
        if let Some(m) = specs.iter().find(|m| m.name == c.metric) {
            c.comparable = m.comparable;
        }
    }
    for w in &mut rec.plan.workloads {
        for m in w.metrics.iter_mut().filter(|m| m.meta.is_none()) {
            m.meta = Some(crate::meta::derive(&w.name, &m.name, &m.unit, m.better));
        }
    }
}

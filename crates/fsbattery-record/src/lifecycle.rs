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

/// A participant of the plan that the runner measures itself, around each filesystem it makes,
/// rather than a workload's run: its declaration is looked up by name like a workload's
/// ([`builtin`]), so suite rows, the plan and the journal ask it instead of comparing names.
/// It is not listed in the plan's workloads (older records do not list it either): its cells
/// appear when a target makes a filesystem and produces its samples.
pub struct BuiltIn {
    /// Name its cells and suite rows carry.
    pub name: &'static str,
    /// Its metrics, in report order.
    pub metrics: fn() -> Vec<MetricSpec>,
    /// One sample per repeat (as a workload), or one per filesystem made (once with --fresh
    /// once): the journal counts a cell short of its repeats as incomplete only in the first case.
    pub per_repeat: bool,
}

/// The filesystem lifecycle: mkfs, mount, unmount and space after formatting.
pub const FILESYSTEM: BuiltIn = BuiltIn {
    name: WORKLOAD,
    metrics,
    per_repeat: false,
};

/// The built-in participant called `name`, if it is one.
pub fn builtin(name: &str) -> Option<&'static BuiltIn> {
    [&FILESYSTEM].into_iter().find(|b| b.name == name)
}

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
    for c in rec.cells.iter_mut() {
        let Some(b) = builtin(&c.workload) else {
            continue;
        };
        if let Some(m) = (b.metrics)().iter().find(|m| m.name == c.metric) {
            c.comparable = m.comparable;
        }
    }
    for w in &mut rec.plan.workloads {
        for m in w.metrics.iter_mut().filter(|m| m.meta.is_none()) {
            m.meta = Some(crate::meta::derive(&w.name, &m.name, &m.unit, m.better));
        }
    }
}

//! The composite's group weights: a workload weighs 1, the filesystem's lifecycle rows
//! (mkfs, mount, unmount, space) weigh 0 — they describe making the filesystem, not what it
//! does under a workload — unless the run's `--weights GROUP=W` says otherwise. One place, so
//! every renderer weighs alike.

use fsbattery_record::{lifecycle, RunRecord};

/// The default weight of a group.
pub fn default_weight(group: &str) -> f64 {
    if group == lifecycle::WORKLOAD {
        0.0
    } else {
        1.0
    }
}

/// The weight of each group in `rec`'s composite: the run's own choice, else the default.
pub fn of(rec: &RunRecord) -> impl Fn(&str) -> f64 + '_ {
    move |group| {
        rec.plan
            .weights
            .get(group)
            .copied()
            .unwrap_or_else(|| default_weight(group))
    }
}

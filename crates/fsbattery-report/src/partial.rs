//! What an interrupted run lacks: the planned (target, workload) cells that were not measured
//! whole, so its summary can say so instead of ranking what happened to finish first.

use fsbattery_record::{CellStatus, RunRecord};

/// "target · workload" for every ranked target and planned workload whose cells are absent
/// or not all `ok`, in plan order.
pub fn missing(rec: &RunRecord, ranked: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for t in ranked {
        for w in &rec.plan.workloads {
            let cells: Vec<_> = rec
                .cells
                .iter()
                .filter(|c| c.target == *t && c.workload == w.name)
                .collect();
            if cells.is_empty() || cells.iter().any(|c| c.status != CellStatus::Ok) {
                out.push(format!("{t} · {}", w.name));
            }
        }
    }
    out
}

//! Which metrics are points of a sweep (iozone's `write@8192`: a quantity at a value of a
//! swept dimension), read from the metrics' metadata alone.
//!
//! Role: the one question both the main matrix ([`crate::matrix::Matrix::build_main`] drops
//! the points) and the sweep tables ([`crate::iozone_tables`] shows them) ask. It lives apart
//! so that neither of those modules imports the other for it: this module reads only the
//! record, and a row is given by its key fields ([`Row`]).

use fsbattery_record::RunRecord;
use fsbattery_stats::Better;

/// The key fields of a table row: what [`is_swept`] reads of one.
pub trait Row {
    /// Workload of the row.
    fn workload(&self) -> &str;
    /// Metric of the row.
    fn metric(&self) -> &str;
    /// Unit of the row's values.
    fn unit(&self) -> &str;
    /// Direction of the row's metric.
    fn better(&self) -> Better;
}

/// Where a metric sits on a sweep, by its metadata; `None` for an ordinary metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The swept quantity, e.g. iozone's test "write".
    pub quantity: String,
    /// Value of the swept dimension here, e.g. 8192.
    pub at: u64,
    /// Unit of `at` ([`fsbattery_record::BYTES`] for sizes).
    pub unit: String,
}

/// The point a workload's metric is, `None` for a metric without dimensions.
pub fn point(
    rec: &RunRecord,
    workload: &str,
    metric: &str,
    unit: &str,
    better: Better,
) -> Option<Point> {
    let meta = rec.metric_meta(workload, metric, unit, better);
    let dim = meta.dims.first()?;
    Some(Point {
        quantity: meta.quantity(metric).to_string(),
        at: dim.value,
        unit: dim.unit.clone(),
    })
}

/// The workloads that recorded a point of a sweep.
pub fn swept_workloads(rec: &RunRecord) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in &rec.cells {
        if !out.contains(&c.workload.as_str())
            && point(rec, &c.workload, &c.metric, &c.unit, c.better).is_some()
        {
            out.push(&c.workload);
        }
    }
    out
}

/// Whether a main-table row belongs to the sweep tables instead: a point of a sweep, or a row
/// with no cells of its own (a suite's label or pending row) of a workload in `swept`
/// ([`swept_workloads`]; iozone's `write` row labels the `write@…` points).
pub fn is_swept(rec: &RunRecord, row: &impl Row, swept: &[&str]) -> bool {
    if point(rec, row.workload(), row.metric(), row.unit(), row.better()).is_some() {
        return true;
    }
    let own_cells = rec
        .cells
        .iter()
        .any(|c| c.workload == row.workload() && c.metric == row.metric());
    !own_cells && swept.contains(&row.workload())
}

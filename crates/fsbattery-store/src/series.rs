//! Series: the runs of a store that measured the same thing and differ in at most one chosen
//! dimension (kernel, fs-version, options, or none but time), in the order they were run,
//! each with its change points.
//!
//! A point is one cell of one run (its mean, with its 95 % interval). Two points belong to
//! one series when every fact that makes runs comparable agrees — suite, scale, method,
//! cache policy, fsbattery version, machine, target kind and filesystem, workload and
//! parameters, metric and unit, and the kernel, tool versions and options except the one
//! the series is by. A point's kernel is its target's (a run of `vm:` targets of several
//! kernels holds points of each), else its run's.

use crate::query::{Filter, Point, RunRow};
use crate::{Store, StoreError};
use fsbattery_stats::{change_points, Better, ChangePoint};
use std::collections::BTreeMap;

/// The one dimension a series may vary in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The kernel.
    Kernel,
    /// mkfs and other tool versions.
    FsVersion,
    /// mkfs and mount options.
    Options,
    /// Nothing: the same conditions over time.
    Time,
}

impl By {
    /// The dimension's name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            By::Kernel => "kernel",
            By::FsVersion => "fs-version",
            By::Options => "options",
            By::Time => "time",
        }
    }
}

/// One point of a series: a run's cell.
#[derive(Debug, Clone)]
pub struct SeriesPoint {
    /// The run.
    pub run: RunRow,
    /// Its cell.
    pub point: Point,
    /// The value of the series' dimension in this run (the start time for `time`).
    pub dimension: String,
    /// The cell's mean: what the change points are found in.
    pub mean: f64,
}

/// A series and its change points.
#[derive(Debug, Clone)]
pub struct Series {
    /// What the points share, as `name: value` pairs for display.
    pub shared: Vec<(&'static str, String)>,
    /// The dimension it varies in.
    pub by: By,
    /// Workload, metric and unit, for titles.
    pub workload: String,
    /// Metric name.
    pub metric: String,
    /// Unit of the means.
    pub unit: String,
    /// Which direction is better.
    pub better: Better,
    /// Points in run order (start time).
    pub points: Vec<SeriesPoint>,
    /// Significant changes in level, in index order.
    pub changes: Vec<ChangePoint>,
}

impl Series {
    /// Whether a change made things worse (lower rate, longer time).
    pub fn is_regression(&self, c: &ChangePoint) -> bool {
        match self.better {
            Better::Higher => c.mean_after < c.mean_before,
            Better::Lower => c.mean_after > c.mean_before,
        }
    }

    /// The change that ends at the newest point, when it is a regression beyond
    /// `threshold_pct`: the newest segment is significantly worse than the one before.
    pub fn newest_regression(&self, threshold_pct: f64) -> Option<&ChangePoint> {
        let last = self.changes.last()?;
        let size = last.change_pct.map(f64::abs).unwrap_or(f64::INFINITY);
        (self.is_regression(last) && size > threshold_pct).then_some(last)
    }
}

/// Every series of the points `filter` selects, varying in `by`, with change points at
/// significance `p`. Series of fewer than two points, and (unless `by` is time) series whose
/// dimension takes a single value, are left out.
pub fn series(store: &Store, filter: &Filter, by: By, p: f64) -> Result<Vec<Series>, StoreError> {
    // One read transaction for both queries: a run a writer adds (or replaces) meanwhile is
    // seen whole or not at all (WAL gives the reader the snapshot of its first read).
    let (runs, points) = store.snapshot(|store| {
        let runs: BTreeMap<i64, RunRow> = store
            .runs_where(filter.include_partial)?
            .into_iter()
            .map(|r| (r.id, r))
            .collect();
        Ok((runs, store.points(filter)?))
    })?;
    let mut groups: BTreeMap<Vec<String>, Vec<SeriesPoint>> = BTreeMap::new();
    for point in points {
        let (Some(run), Some(mean)) = (runs.get(&point.run_id), point.facts.mean) else {
            continue;
        };
        let key = key(run, &point, by).into_iter().map(|(_, v)| v).collect();
        groups.entry(key).or_default().push(SeriesPoint {
            dimension: dimension(run, &point, by),
            run: run.clone(),
            point,
            mean,
        });
    }
    let mut out = Vec::new();
    for points in groups.into_values() {
        let distinct = points
            .iter()
            .map(|p| &p.dimension)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        if points.len() < 2 || (by != By::Time && distinct < 2) {
            continue;
        }
        let means: Vec<f64> = points.iter().map(|p| p.mean).collect();
        let f = &points[0].point.facts;
        out.push(Series {
            shared: key(&points[0].run, &points[0].point, by),
            by,
            workload: f.workload.clone(),
            metric: f.metric.clone(),
            unit: f.unit.clone(),
            better: f.better,
            changes: change_points(&means, p),
            points,
        });
    }
    Ok(out)
}

/// Everything that must agree for two points to be in one series, named.
fn key(run: &RunRow, point: &Point, by: By) -> Vec<(&'static str, String)> {
    let (r, f) = (&run.facts, &point.facts);
    let mut k = vec![
        ("workload", f.workload.clone()),
        ("metric", f.metric.clone()),
        (
            "target",
            format!("{} {}", f.target_kind, f.fs_type)
                .trim()
                .to_string(),
        ),
        ("suite", r.suite.clone()),
        ("scale", r.scale.clone()),
        ("method", r.method.clone()),
        ("cache", r.cache_policy.clone()),
        ("params", f.params.clone()),
        ("unit", f.unit.clone()),
        ("machine", r.machine_id.clone()),
        ("disk", f.device_model.clone()),
        ("fsbattery", r.tool_version.clone()),
    ];
    if by != By::Kernel {
        k.push(("kernel", f.kernel(r).to_string()));
    }
    if by != By::FsVersion {
        k.push(("fs-version", f.fs_version.clone()));
    }
    if by != By::Options {
        k.push(("options", f.options.clone()));
    }
    k
}

/// The value of `by` for this point.
fn dimension(run: &RunRow, point: &Point, by: By) -> String {
    match by {
        By::Kernel => point.facts.kernel(&run.facts).to_string(),
        By::FsVersion => point.facts.fs_version.clone(),
        By::Options => point.facts.options.clone(),
        By::Time => run.facts.started.clone(),
    }
}

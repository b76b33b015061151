//! fio's metrics under fio's names, per reporting group: `iops` (reads + writes per second),
//! per direction `read_iops`/`write_iops`, `read_bw`/`write_bw` (MB/s, fio's `bw_bytes` /
//! 10^6), completion latency `read_clat_mean` and fio's percentile set `read_clat_p1` ..
//! `read_clat_p99.99` (ms), and for groups that sync, `sync_lat_mean` and `sync_lat_p1` ..
//! `sync_lat_p99.99` (fio's `sync:` lines: every fsync/fdatasync, end_fsync's included).
//! With more than one group each name is prefixed by the group's name and a dot.
//!
//! The same function names the metrics of a run and of `import --from fio --workload fio:…`
//! ([`names_for`]), so the two compare row by row.

use super::jobs::Group;
use super::run::GroupResult;
use crate::model::{MetricSpec, Stat};

/// fio's default `percentile_list`.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// What a group reports: its name prefix, its directions and whether it syncs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// `""`, or `"GROUP."` when the file has several groups.
    pub prefix: String,
    /// Reads, writes.
    pub dirs: [bool; 2],
    /// Sync latency is reported.
    pub sync: bool,
}

impl Shape {
    /// The shape of `g`, one of `groups` groups.
    pub fn of(g: &Group, groups: usize) -> Shape {
        Shape {
            prefix: prefix(&g.name, groups),
            dirs: g.directions(),
            sync: g.syncs(),
        }
    }
}

/// The metric prefix of the group called `name` among `groups`.
pub fn prefix(name: &str, groups: usize) -> String {
    if groups > 1 {
        format!("{name}.")
    } else {
        String::new()
    }
}

/// `p50`, `p99.9`, `p99.99`: a percentile as the metric suffix writes it.
pub fn pct_name(p: f64) -> String {
    format!("p{p}")
}

/// The metrics of one group of shape `s`, in report order.
pub fn names_for(s: &Shape) -> Vec<MetricSpec> {
    let pre = &s.prefix;
    let mut m = vec![MetricSpec::rate(
        &format!("{pre}iops"),
        "ops/s",
        "reads + writes per second (fio: read.iops + write.iops)",
    )];
    let dirs = ["read", "write"]
        .into_iter()
        .zip(s.dirs)
        .filter_map(|(d, on)| on.then_some(d));
    for d in dirs.clone() {
        m.push(MetricSpec::rate(
            &format!("{pre}{d}_iops"),
            "ops/s",
            &format!("{d}s per second (fio {d}.iops)"),
        ));
        m.push(MetricSpec::rate(
            &format!("{pre}{d}_bw"),
            "MB/s",
            &format!("{d} bandwidth, 10^6 B/s (fio {d}.bw_bytes)"),
        ));
    }
    for d in dirs {
        m.extend(latency(
            pre,
            &format!("{d}_clat"),
            &format!("{d} completion latency (fio {d}.clat_ns)"),
        ));
    }
    if s.sync {
        m.extend(latency(
            pre,
            "sync_lat",
            "fsync/fdatasync latency (fio sync.lat_ns)",
        ));
    }
    m
}

/// Mean and every percentile of the latency `of`.
fn latency(pre: &str, of: &str, what: &str) -> Vec<MetricSpec> {
    let full = format!("{pre}{of}");
    let mut m = vec![MetricSpec::latency_ms(
        &format!("{full}_mean"),
        &full,
        Stat::Mean,
        &format!("{what}, mean"),
    )];
    for p in PERCENTILES {
        m.push(MetricSpec::latency_ms(
            &format!("{full}_{}", pct_name(p)),
            &full,
            Stat::Percentile(p),
            &format!("{what}, {p}th percentile"),
        ));
    }
    m
}

/// The values of a group's metrics from what it measured, in [`names_for`]'s order; a
/// latency without a single operation is left out (no number from nothing).
pub fn values(s: &Shape, r: &GroupResult) -> Vec<(String, f64)> {
    let pre = &s.prefix;
    let rate = |x: f64| {
        if r.elapsed_s > 0.0 {
            x / r.elapsed_s
        } else {
            0.0
        }
    };
    let mut v = vec![(format!("{pre}iops"), rate((r.ops[0] + r.ops[1]) as f64))];
    let dirs: Vec<(usize, &str)> = [(0, "read"), (1, "write")]
        .into_iter()
        .filter(|(i, _)| s.dirs[*i])
        .collect();
    for &(i, d) in &dirs {
        v.push((format!("{pre}{d}_iops"), rate(r.ops[i] as f64)));
        v.push((format!("{pre}{d}_bw"), rate(r.bytes[i] as f64) / 1e6));
    }
    let mut lat = |k: usize, of: String| {
        let h = &r.hist[k];
        if h.is_empty() {
            return;
        }
        v.push((format!("{of}_mean"), h.summary().mean_ns / 1e6));
        for p in PERCENTILES {
            v.push((
                format!("{of}_{}", pct_name(p)),
                h.quantile(p / 100.0) as f64 / 1e6,
            ));
        }
    };
    for &(i, d) in &dirs {
        lat(i, format!("{pre}{d}_clat"));
    }
    if s.sync {
        lat(2, format!("{pre}sync_lat"));
    }
    v
}

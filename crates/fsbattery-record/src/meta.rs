//! What a metric measures, as data: its kind (a time, a rate, a statistic of a latency
//! distribution, ...), the quantity it is a statistic or a point of, and where on a sweep it
//! sits (iozone's record size). Workloads declare it with their metrics
//! ([`crate::MetricSpec::meta`]); renderers group and place cells by it alone, so a new
//! workload's percentiles or swept metrics render without a renderer knowing its name.
//!
//! Records written before metadata existed carry none: [`derive()`] reads it from the naming
//! conventions those records followed (iozone's `<test>@<record bytes>`, latency suffixes
//! `_p50` … `_max`, time units) — the one place those conventions are still read.

use fsbattery_stats::Better;
use serde::{Deserialize, Serialize};

/// A metric's meaning (see the module header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricMeta {
    /// What kind of number it is.
    pub kind: MetricKind,
    /// For [`MetricKind::Latency`]: which statistic of the distribution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stat: Option<Stat>,
    /// The quantity this metric is one statistic or one point of, shared by its siblings:
    /// `read_lat` for `read_lat_p99`, `write` for iozone's `write@8192`. `None`: the metric
    /// stands alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
    /// Where on a sweep this point sits, the swept dimension first (iozone: record size, then
    /// file size). Empty for an ordinary metric.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dims: Vec<Dim>,
}

/// The kind of number a metric is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricKind {
    /// Wall time of a phase.
    Time,
    /// Work per second (MB/s, files/s, ops/s).
    Rate,
    /// A statistic of a latency distribution (see [`MetricMeta::stat`]).
    Latency,
    /// A size (bytes, MiB).
    Size,
    /// A count.
    Count,
    /// A ratio or a percentage.
    Ratio,
    /// None of the above.
    Other,
}

/// One coordinate of a point on a sweep, e.g. record size = 8192 B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dim {
    /// What is swept, e.g. "record", "file".
    pub name: String,
    /// Its value at this point, in `unit`.
    pub value: u64,
    /// Unit of `value` ([`crate::BYTES`] for sizes).
    pub unit: String,
}

impl Dim {
    /// A size dimension in bytes, e.g. `Dim::bytes("record", 8192)`.
    pub fn bytes(name: &str, value: u64) -> Dim {
        Dim {
            name: name.into(),
            value,
            unit: crate::BYTES.into(),
        }
    }
}

/// A statistic of a distribution; written as `min`, `mean`, `max`, `stddev`, `value` (the one
/// figure a tool gave) or `pN` (the N-th percentile, e.g. `p99.9`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Stat {
    /// Smallest.
    Min,
    /// Arithmetic mean.
    Mean,
    /// Largest.
    Max,
    /// Standard deviation.
    Stddev,
    /// A single figure whose statistic the tool did not say.
    Value,
    /// The given percentile, 0 to 100.
    Percentile(f64),
}

impl Stat {
    /// Parse the written form (see [`Stat`]).
    pub fn parse(s: &str) -> Option<Stat> {
        Some(match s {
            "min" => Stat::Min,
            "mean" => Stat::Mean,
            "max" => Stat::Max,
            "stddev" => Stat::Stddev,
            "value" => Stat::Value,
            _ => {
                let p: f64 = s.strip_prefix('p')?.parse().ok()?;
                if !(0.0..=100.0).contains(&p) {
                    return None;
                }
                Stat::Percentile(p)
            }
        })
    }

    /// Where it stands in a row of statistics: min, percentiles ascending (the mean after the
    /// median), max, stddev, then a lone value.
    pub fn rank(&self) -> f64 {
        match self {
            Stat::Min => -1.0,
            Stat::Percentile(p) => *p,
            Stat::Mean => 50.5,
            Stat::Max => 101.0,
            Stat::Stddev => 102.0,
            Stat::Value => 103.0,
        }
    }
}

impl std::fmt::Display for Stat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stat::Min => f.write_str("min"),
            Stat::Mean => f.write_str("mean"),
            Stat::Max => f.write_str("max"),
            Stat::Stddev => f.write_str("stddev"),
            Stat::Value => f.write_str("value"),
            Stat::Percentile(p) => write!(f, "p{p}"),
        }
    }
}

impl From<Stat> for String {
    fn from(s: Stat) -> String {
        s.to_string()
    }
}

impl TryFrom<String> for Stat {
    type Error = String;
    fn try_from(s: String) -> Result<Stat, String> {
        Stat::parse(&s).ok_or_else(|| format!("'{s}' is not min, mean, max, stddev, value or pN"))
    }
}

/// Latency units: a metric in one of them is a latency whatever its name.
const LATENCY_UNITS: [&str; 4] = ["ms", "us", "µs", "ns"];

impl MetricMeta {
    /// A metric of `kind`, standing alone.
    pub fn of_kind(kind: MetricKind) -> MetricMeta {
        MetricMeta {
            kind,
            stat: None,
            of: None,
            dims: Vec::new(),
        }
    }

    /// The kind a unit implies: `s` a time, `…/s` a rate, `%` a ratio, bytes a size, a
    /// latency unit a latency (its lone value), anything else a count.
    pub fn from_unit(unit: &str) -> MetricMeta {
        let kind = match unit {
            "s" => MetricKind::Time,
            "%" => MetricKind::Ratio,
            "B" | "KiB" | "MiB" | "GiB" | "TiB" | "KB" | "MB" | "GB" => MetricKind::Size,
            u if u.ends_with("/s") => MetricKind::Rate,
            u if LATENCY_UNITS.contains(&u) => {
                return MetricMeta {
                    stat: Some(Stat::Value),
                    ..MetricMeta::of_kind(MetricKind::Latency)
                }
            }
            _ => MetricKind::Count,
        };
        MetricMeta::of_kind(kind)
    }

    /// Statistic `stat` of the latency distribution of `of`.
    pub fn latency(of: &str, stat: Stat) -> MetricMeta {
        MetricMeta {
            stat: Some(stat),
            of: Some(of.into()),
            ..MetricMeta::of_kind(MetricKind::Latency)
        }
    }

    /// This metric as the point of the sweep `of` at `dims` (the swept dimension first).
    pub fn point(mut self, of: &str, dims: Vec<Dim>) -> MetricMeta {
        self.of = Some(of.into());
        self.dims = dims;
        self
    }

    /// The quantity it belongs to: [`MetricMeta::of`], else the metric's own name.
    pub fn quantity<'a>(&'a self, metric: &'a str) -> &'a str {
        self.of.as_deref().unwrap_or(metric)
    }
}

/// The metadata an older record's metric implies by the conventions it was named by: iozone's
/// `<test>@<record bytes>`; a latency statistic named `<quantity>_p50` (`_p90`, `_p95`,
/// `_p99`, `_p99.9`, `_p99.99`, `_max`, with lower-is-better) or measured in a latency unit;
/// else what the unit implies.
pub fn derive(workload: &str, metric: &str, unit: &str, better: Better) -> MetricMeta {
    let by_unit = MetricMeta::from_unit(unit);
    if workload == "iozone" {
        if let Some((test, rec)) = metric.rsplit_once('@') {
            if let Ok(record) = rec.parse::<u64>() {
                return by_unit.point(test, vec![Dim::bytes("record", record)]);
            }
        }
    }
    let split = metric
        .rsplit_once('_')
        .filter(|(_, s)| NAMED_STATS.contains(s));
    let by_name =
        split.is_some_and(|(_, s)| NAMED_PERCENTILES.contains(&s)) && better == Better::Lower;
    if by_name || by_unit.kind == MetricKind::Latency {
        let (base, stat) = split.unwrap_or((metric, "value"));
        return MetricMeta::latency(base, Stat::parse(stat).unwrap_or(Stat::Value));
    }
    by_unit
}

/// Suffixes that made a metric a latency statistic by name alone in older records.
const NAMED_PERCENTILES: [&str; 7] = ["p50", "p90", "p95", "p99", "p99.9", "p99.99", "max"];
/// Every statistic suffix an older record's latency metric may carry.
const NAMED_STATS: [&str; 11] = [
    "min", "p50", "mean", "p90", "p95", "p99", "p99.9", "p99.99", "max", "stddev", "value",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_read_and_write_back() {
        for s in [
            "min", "p50", "mean", "p99.9", "p99.99", "max", "stddev", "value", "p75",
        ] {
            assert_eq!(Stat::parse(s).unwrap().to_string(), s);
        }
        assert!(Stat::parse("p101").is_none() && Stat::parse("median").is_none());
        let json = serde_json::to_string(&MetricMeta::latency("read", Stat::Percentile(99.9)));
        assert_eq!(
            json.unwrap(),
            r#"{"kind":"latency","stat":"p99.9","of":"read"}"#
        );
    }

    #[test]
    fn stats_rank_as_a_latency_table_shows_them() {
        let order = [
            "min", "p50", "mean", "p90", "p95", "p99", "p99.9", "p99.99", "max", "stddev", "value",
        ];
        let ranks: Vec<f64> = order
            .iter()
            .map(|s| Stat::parse(s).unwrap().rank())
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
    }
}

#[cfg(test)]
mod upgrade_tests {
    /// A record as written before metadata existed: its iozone point declares none.
    const OLD: &str = r#"{"schema_version":1,"tool":{"name":"fsbattery","version":"0"},
        "started":"x","finished":null,"host":{"hostname":"","kernel":"","os":"","cpu_model":"",
        "cores":1,"ram_bytes":1,"root":false},
        "plan":{"suite":"s","scale":"quick","repeat":1,"aggregate":"mean","pause_secs":0.0,
          "method":"native","rows":[],"workloads":[{"name":"iozone","params":{},
          "metrics":[{"name":"write@8192","unit":"KB/s","better":"higher","help":""}]}]},
        "targets":[],"cells":[]}"#;

    #[test]
    fn an_older_records_plan_gets_the_metadata_its_names_imply() {
        let mut rec: crate::RunRecord = serde_json::from_str(OLD).unwrap();
        assert_eq!(rec.plan.workloads[0].metrics[0].meta, None);
        crate::lifecycle::upgrade(&mut rec);
        let meta = rec.plan.workloads[0].metrics[0].meta.clone().unwrap();
        assert_eq!(meta.of.as_deref(), Some("write"));
        assert_eq!(meta.dims, vec![super::Dim::bytes("record", 8192)]);
    }
}

//! Per-operation latency: HDR histograms in nanoseconds and their summary.
//!
//! Invariants: recording is one `saturating_record` (a few nanoseconds, no allocation, no
//! failure: values past the range are clamped to it, which at one hour cannot matter for a
//! single IO); histograms from different threads merge exactly (same bounds everywhere);
//! a summary of an empty histogram is all zeros, never NaN.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest trackable latency: one hour in nanoseconds.
const MAX_NS: u64 = 3_600_000_000_000;
/// Three significant digits: 0.1 % resolution at every magnitude.
const SIGFIG: u8 = 3;

/// A latency histogram in nanoseconds.
#[derive(Debug, Clone)]
pub struct LatencyHistogram(Histogram<u64>);

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram covering 1 ns .. 1 h at three significant digits.
    pub fn new() -> Self {
        LatencyHistogram(
            Histogram::new_with_bounds(1, MAX_NS, SIGFIG).expect("constant bounds are valid"),
        )
    }

    /// Record one latency.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.0.saturating_record(ns);
    }

    /// Number of recorded values.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// True if nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Add every value of `other` (same bounds by construction, so this cannot fail).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        self.0
            .add(&other.0)
            .expect("histograms with equal bounds always add");
    }

    /// Latency at quantile `q` (0.0..=1.0), in nanoseconds.
    pub fn quantile(&self, q: f64) -> u64 {
        self.0.value_at_quantile(q)
    }

    /// Mean, spread and the usual percentiles.
    pub fn summary(&self) -> LatencySummary {
        if self.0.is_empty() {
            return LatencySummary::default();
        }
        let h = &self.0;
        LatencySummary {
            count: h.len(),
            mean_ns: h.mean(),
            stddev_ns: h.stdev(),
            min_ns: h.min(),
            p50_ns: h.value_at_quantile(0.50),
            p90_ns: h.value_at_quantile(0.90),
            p99_ns: h.value_at_quantile(0.99),
            p999_ns: h.value_at_quantile(0.999),
            max_ns: h.max(),
        }
    }
}

/// Summary of a latency distribution, in nanoseconds (values are HDR bucket values: exact to
/// three significant digits).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Number of operations.
    pub count: u64,
    /// Arithmetic mean.
    pub mean_ns: f64,
    /// Standard deviation (population).
    pub stddev_ns: f64,
    /// Smallest.
    pub min_ns: u64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest.
    pub max_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_ordered_and_merges() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        for i in 1..=1000u64 {
            a.record(i * 1000);
        }
        b.record(5_000_000);
        b.record(u64::MAX); // clamped, not lost
        a.merge(&b);
        let s = a.summary();
        assert_eq!(s.count, 1002);
        assert!(s.min_ns <= s.p50_ns && s.p50_ns <= s.p90_ns && s.p90_ns <= s.p99_ns);
        assert!(s.p99_ns <= s.p999_ns && s.p999_ns <= s.max_ns);
        assert!((s.p50_ns as f64 - 500_000.0).abs() < 2_500.0, "{s:?}");
        assert!(s.max_ns >= MAX_NS - MAX_NS / 500);
        assert_eq!(LatencyHistogram::new().summary(), LatencySummary::default());
    }
}

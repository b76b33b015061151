//! Direction of "good" for a metric.
//!
//! Role: the single place that knows whether a larger or a smaller number is
//! an improvement (throughput vs. latency). Invariant: `is_better` is a strict
//! order, so equal values are never "better" than each other.

use serde::{Deserialize, Serialize};

/// Which direction of a metric counts as an improvement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Larger values are better (e.g. throughput, IOPS).
    Higher,
    /// Smaller values are better (e.g. latency, elapsed time).
    Lower,
}

impl Better {
    /// Returns `true` when `a` is strictly better than `b` in this direction.
    ///
    /// Strict so that ties (and comparisons involving NaN) are never reported
    /// as improvements.
    pub fn is_better(self, a: f64, b: f64) -> bool {
        match self {
            Better::Higher => a > b,
            Better::Lower => a < b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn higher_prefers_larger() {
        assert!(Better::Higher.is_better(2.0, 1.0));
        assert!(!Better::Higher.is_better(1.0, 2.0));
        assert!(!Better::Higher.is_better(1.0, 1.0));
    }

    #[test]
    fn lower_prefers_smaller() {
        assert!(Better::Lower.is_better(1.0, 2.0));
        assert!(!Better::Lower.is_better(2.0, 1.0));
        assert!(!Better::Lower.is_better(1.0, 1.0));
    }

    #[test]
    fn nan_is_never_better() {
        assert!(!Better::Higher.is_better(f64::NAN, 1.0));
        assert!(!Better::Lower.is_better(f64::NAN, 1.0));
    }

    #[test]
    fn serde_uses_lowercase_names() {
        assert_eq!(
            serde_json::to_string(&Better::Higher).unwrap(),
            "\"higher\""
        );
        assert_eq!(serde_json::to_string(&Better::Lower).unwrap(), "\"lower\"");
        let b: Better = serde_json::from_str("\"lower\"").unwrap();
        assert_eq!(b, Better::Lower);
    }
}

//! Choice of the single number that represents a set of samples.
//!
//! Role: names the aggregation (`mean`, `best`, `median`, `min`, `max`) consistently for
//! serde, the command line (`FromStr`) and output (`Display`). Invariant: the
//! three spellings are identical in all three places, so a value printed by
//! one run can be fed back to another.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which statistic of a [`Summary`](crate::Summary) to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Aggregate {
    /// Arithmetic mean of the samples.
    Mean,
    /// Best sample according to the metric's [`Better`](crate::Better).
    Best,
    /// Median of the samples.
    Median,
    /// Smallest sample (S2's "min Ges s": the fastest of the runs, whatever the direction).
    Min,
    /// Largest sample (S2's "max Ges s").
    Max,
}

impl Aggregate {
    /// All variants, in a stable order (useful for help text).
    pub const ALL: [Aggregate; 5] = [
        Aggregate::Mean,
        Aggregate::Best,
        Aggregate::Median,
        Aggregate::Min,
        Aggregate::Max,
    ];

    /// The canonical lowercase name, shared by serde, `FromStr` and `Display`.
    pub fn as_str(self) -> &'static str {
        match self {
            Aggregate::Mean => "mean",
            Aggregate::Best => "best",
            Aggregate::Median => "median",
            Aggregate::Min => "min",
            Aggregate::Max => "max",
        }
    }
}

impl fmt::Display for Aggregate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error returned when a string does not name an [`Aggregate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseAggregateError {
    input: String,
}

impl fmt::Display for ParseAggregateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown aggregate {:?} (expected one of: mean, best, median, min, max)",
            self.input
        )
    }
}

impl std::error::Error for ParseAggregateError {}

impl FromStr for Aggregate {
    type Err = ParseAggregateError;

    /// Parses the exact lowercase names; anything else is rejected so typos on
    /// the command line are reported instead of silently defaulting.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Aggregate::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| ParseAggregateError {
                input: s.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_from_str_round_trip() {
        for a in Aggregate::ALL {
            assert_eq!(a.to_string().parse::<Aggregate>().unwrap(), a);
        }
        assert_eq!(Aggregate::Mean.to_string(), "mean");
        assert_eq!(Aggregate::Best.to_string(), "best");
        assert_eq!(Aggregate::Median.to_string(), "median");
    }

    #[test]
    fn from_str_rejects_unknown() {
        let err = "average".parse::<Aggregate>().unwrap_err();
        assert!(err.to_string().contains("average"));
        assert!("Mean".parse::<Aggregate>().is_err());
    }

    #[test]
    fn serde_matches_display() {
        for a in Aggregate::ALL {
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(json, format!("\"{a}\""));
            let back: Aggregate = serde_json::from_str(&json).unwrap();
            assert_eq!(back, a);
        }
    }
}

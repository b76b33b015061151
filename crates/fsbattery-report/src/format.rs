//! Number formatting shared by every text renderer: a few significant digits, the CI95 half
//! width when there is one, and words for cells without numbers.

use crate::matrix::Entry;
use fsbattery_stats::{Aggregate, Mark, Summary, DEFAULT_ALPHA, MIN_SAMPLES};

/// A value with about four significant digits, never in scientific notation.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// "1.23 ±0.04" (CI95 half width), or just "1.23" with one sample.
pub fn with_ci(s: &Summary, agg: Aggregate) -> String {
    match s.ci95_half_width {
        Some(h) => format!("{} ±{}", num(s.aggregate(agg)), num(h)),
        None => num(s.aggregate(agg)),
    }
}

/// Text of a matrix entry.
pub fn entry(e: &Entry, agg: Aggregate) -> String {
    match e {
        Entry::Measured(s) => with_ci(s, agg),
        Entry::Incomplete(Some(s)) => format!("{} (incomplete)", with_ci(s, agg)),
        Entry::Incomplete(None) => "incomplete".into(),
        Entry::Failed(_) => "failed".into(),
        Entry::Pending(_) => "pending".into(),
        Entry::Missing => "-".into(),
        Entry::NotApplicable => "n/a".into(),
    }
}

/// The text mark of a cell: `*` significantly best, `≈` tied with the best, nothing else.
pub fn mark(m: Mark) -> &'static str {
    match m {
        Mark::Winner => "*",
        Mark::Tied => "≈",
        Mark::None => "",
    }
}

/// What the marks mean, for every text renderer (one line, no trailing newline).
pub fn legend() -> String {
    format!(
        "* significantly best (Welch's t-test, α = {DEFAULT_ALPHA}, n ≥ {MIN_SAMPLES} each); \
         ≈ tied with the best (no significant difference); unmarked: fewer than {MIN_SAMPLES} \
         runs, or not ranked (CPU %, values that describe the target); n/a: does not apply"
    )
}

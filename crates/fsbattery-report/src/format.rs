//! Number formatting shared by every text renderer: a few significant digits, the CI95 half
//! width when there is one, and words for cells without numbers.

use crate::matrix::Entry;
use fsbattery_stats::{Aggregate, Mark, Summary, DEFAULT_ALPHA, DEFAULT_MARGIN_PCT, MIN_SAMPLES};

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

/// What a tool-bound cell says after its value.
pub const TOOL_BOUND: &str = "tool-bound — the filesystem is faster than we can measure";

/// The line under a table that has tool-bound cells: what the ceiling was and that those
/// cells are not ranked; `None` when no cell of `m` is tool-bound.
pub fn tool_bound_note(
    m: &crate::matrix::Matrix,
    rec: &fsbattery_record::RunRecord,
) -> Option<String> {
    let c = rec.host.tool_ceiling.as_ref()?;
    if !m.rows.iter().any(|r| r.tool_bound.contains(&true)) {
        return None;
    }
    Some(format!(
        "{TOOL_BOUND}: the rate is within 20 % of fsbattery's own ceiling on this machine \
         ({} 4 KiB cached reads/s for ops/s, {} null-loop ops/s for other counts, measured in \
         {} s at the start of the run); such cells are never ranked",
        num(c.read_4k_ops_per_s),
        num(c.null_ops_per_s),
        num(c.secs)
    ))
}

/// The text mark of a cell: `*` significantly best, `≈` shown equivalent to the best, `?`
/// undecided (too noisy to tell), nothing else. "≈" is kept for what readers take it to
/// mean, "about as good", and only given when an equivalence test showed it.
pub fn mark(m: Mark) -> &'static str {
    match m {
        Mark::Winner => "*",
        Mark::Equivalent => "≈",
        Mark::Undecided => "?",
        Mark::None => "",
    }
}

/// What the marks mean, for every text renderer (one line, no trailing newline).
pub fn legend() -> String {
    format!(
        "* significantly best: better than every other target (Welch's t-test, Holm-adjusted, \
         α = {DEFAULT_ALPHA}, n ≥ {MIN_SAMPLES} each); ≈ equivalent to the best within \
         ±{DEFAULT_MARGIN_PCT} % (TOST equivalence test, Holm-adjusted); ? undecided: too noisy \
         to tell, neither separated from nor shown equivalent to the best (the best of such a \
         row is marked too); unmarked: significantly worse than the best, fewer than \
         {MIN_SAMPLES} runs, or not ranked (CPU %, values that describe the target, reference \
         targets in RAM); n/a: does not apply"
    )
}

/// 1.00 GiB, 512.0 MiB: binary units, as mkfs and df print them.
pub fn bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

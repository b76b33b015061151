//! The per-rank spread of an MPI cell, for every renderer: the smallest and largest rank's
//! value over the cell's repeats and the largest skew (seconds between the first and the last
//! rank to finish), shown beside the aggregate, plus the line that says what an aggregate over
//! ranks is.
//!
//! A cell of a single process has no spread (`None`): its tables look as they always did.

use fsbattery_record::Cell;

/// What the aggregate of an MPI cell is, by kind of metric (as the runner combines them).
pub const LEGEND: &str = "ranks: [min–max] is the smallest and largest rank's own value (the \
    HTML's tooltip and the CSV add the skew: seconds between the first and the last rank to \
    finish); a rate is all ranks' work over the \
    first start to the last end (IOR's stonewall), a time or latency maximum the slowest rank's, \
    a latency percentile the worst rank's (at least the pooled percentile: samples keep no \
    histograms to merge), anything else the ranks' mean";

/// The spread of one cell's per-rank values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Number of ranks (the largest over the repeats).
    pub ranks: usize,
    /// Smallest rank value over every repeat.
    pub min: f64,
    /// Largest rank value over every repeat.
    pub max: f64,
    /// Largest first-to-last-finish gap over the repeats, seconds.
    pub skew_s: f64,
}

/// The spread of `cell`, `None` when no sample has per-rank parts.
pub fn of(cell: &Cell) -> Option<Spread> {
    let mut out: Option<Spread> = None;
    for s in cell.samples.iter().filter(|s| !s.ranks.is_empty()) {
        let values = s.ranks.iter().map(|r| r.value);
        let ends = s.ranks.iter().map(|r| r.elapsed_s);
        let skew = ends.clone().fold(0.0, f64::max) - ends.fold(f64::INFINITY, f64::min);
        let here = Spread {
            ranks: s.ranks.len(),
            min: values.clone().fold(f64::INFINITY, f64::min),
            max: values.fold(f64::NEG_INFINITY, f64::max),
            skew_s: skew,
        };
        out = Some(match out {
            None => here,
            Some(o) => Spread {
                ranks: o.ranks.max(here.ranks),
                min: o.min.min(here.min),
                max: o.max.max(here.max),
                skew_s: o.skew_s.max(here.skew_s),
            },
        });
    }
    out
}

impl Spread {
    /// "[0.251–0.312]": compact, after the aggregate in a table cell.
    pub fn short(&self) -> String {
        format!(
            "[{}–{}]",
            crate::format::num(self.min),
            crate::format::num(self.max)
        )
    }

    /// "3 ranks, min 0.251, max 0.312, skew 0.004 s": a tooltip or a note.
    pub fn long(&self) -> String {
        format!(
            "{} ranks, min {}, max {}, skew {} s",
            self.ranks,
            crate::format::num(self.min),
            crate::format::num(self.max),
            crate::format::num(self.skew_s)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::{RankSample, Sample};

    fn sample(parts: &[(f64, f64)]) -> Sample {
        Sample {
            ranks: parts
                .iter()
                .map(|&(value, elapsed_s)| RankSample { value, elapsed_s })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn spread_spans_every_repeat_and_keeps_the_largest_skew() {
        let cell = Cell {
            samples: vec![
                sample(&[(1.0, 2.0), (3.0, 2.5)]),
                sample(&[(0.5, 1.0), (2.0, 1.1)]),
            ],
            ..serde_json::from_str(CELL).unwrap()
        };
        let s = of(&cell).unwrap();
        assert_eq!((s.ranks, s.min, s.max), (2, 0.5, 3.0));
        assert!((s.skew_s - 0.5).abs() < 1e-12);
        assert_eq!(s.short(), "[0.500–3.00]");
        assert!(s
            .long()
            .starts_with("2 ranks, min 0.500, max 3.00, skew 0.500 s"));
    }

    #[test]
    fn a_single_process_has_no_spread() {
        let cell = Cell {
            samples: vec![Sample::default()],
            ..serde_json::from_str(CELL).unwrap()
        };
        assert!(of(&cell).is_none());
    }

    const CELL: &str = r#"{"target":"t","workload":"w","metric":"m","unit":"s",
        "better":"lower","method":"native","status":{"state":"ok"},"samples":[]}"#;
}

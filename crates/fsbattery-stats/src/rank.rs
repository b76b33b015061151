//! The verdict of one table row: which target wins, which are tied with the best, or why
//! there is no verdict.
//!
//! Role: the single place every renderer (terminal table, Markdown, HTML, spreadsheet) asks
//! "does this row have a winner?", so a `*`, a bold cell or a coloured cell always means the
//! same thing. The best cell is chosen by the shown value (the run's aggregate) in the metric's
//! direction; it is called the winner only when Welch's t-test (via [`compare`]) says it is
//! significantly better than every other contestant.
//!
//! Invariants:
//! - at most one [`Mark::Winner`] per row, and never together with [`Mark::Tied`];
//! - an exact tie of the shown values never produces a winner;
//! - with fewer than [`MIN_SAMPLES`] samples on the best or the runner-up there is no verdict
//!   and no mark at all ([`Outcome::NotEnoughSamples`]), because two runs cannot tell a real
//!   difference from noise;
//! - a single contestant has nothing to win against ([`Outcome::Alone`]), no mark;
//! - [`Mark::Tied`] goes to the best and to every contestant that cannot be told apart from it.

use crate::{compare, Better, Verdict, MIN_SAMPLES};

/// Significance level used when the run record does not carry one.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// One column's claim in a row: the value shown and the samples behind it.
#[derive(Debug, Clone, Copy)]
pub struct Contestant<'a> {
    /// The shown value (mean, median or best of the samples).
    pub value: f64,
    /// Every sample, for the significance test.
    pub samples: &'a [f64],
}

/// How one cell of a row is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// No mark.
    None,
    /// Significantly better than every other contestant.
    Winner,
    /// The best, or not distinguishable from the best.
    Tied,
}

/// What a row says as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to rank (the row is not comparable, or no column measured it).
    NoContest,
    /// Only one column measured it.
    Alone,
    /// The best or the runner-up has fewer than [`MIN_SAMPLES`] samples.
    NotEnoughSamples,
    /// The best cannot be told apart from at least one other contestant.
    NoSignificantDifference,
    /// This column is significantly better than every other.
    Winner(usize),
}

/// The verdict of a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowVerdict {
    /// Column with the best shown value (first on a tie), whether or not it wins.
    pub best: Option<usize>,
    /// The runner-up: the next best shown value.
    pub runner_up: Option<usize>,
    /// One mark per column.
    pub marks: Vec<Mark>,
    /// The row as a whole.
    pub outcome: Outcome,
}

impl RowVerdict {
    /// A row nobody competes in (not comparable, CPU %, nothing measured): no marks.
    pub fn none(columns: usize) -> RowVerdict {
        RowVerdict {
            best: None,
            runner_up: None,
            marks: vec![Mark::None; columns],
            outcome: Outcome::NoContest,
        }
    }

    /// The mark of column `i` (none outside the row).
    pub fn mark(&self, i: usize) -> Mark {
        self.marks.get(i).copied().unwrap_or(Mark::None)
    }

    /// The significant winner, if there is one.
    pub fn winner(&self) -> Option<usize> {
        match self.outcome {
            Outcome::Winner(i) => Some(i),
            _ => None,
        }
    }

    /// Words for a summary: "significant", "no significant difference", ...
    pub fn describe(&self) -> &'static str {
        match self.outcome {
            Outcome::NoContest => "not ranked",
            Outcome::Alone => "only one target measured",
            Outcome::NotEnoughSamples => "not enough samples (n < 3)",
            Outcome::NoSignificantDifference => "no significant difference",
            Outcome::Winner(_) => "significant",
        }
    }
}

/// The verdict of a row whose columns are `cells` (`None`: nothing measured there), in the
/// metric's direction `better`, at significance level `alpha`.
pub fn rank_row(cells: &[Option<Contestant<'_>>], better: Better, alpha: f64) -> RowVerdict {
    let mut v = RowVerdict::none(cells.len());
    let mut order: Vec<(usize, f64)> = cells
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.filter(|c| c.value.is_finite()).map(|c| (i, c.value)))
        .collect();
    // Stable: equal values keep column order, so the best of a tie is the first column.
    order.sort_by(|a, b| match better {
        Better::Lower => a.1.total_cmp(&b.1),
        Better::Higher => b.1.total_cmp(&a.1),
    });
    let Some(&(best, best_value)) = order.first() else {
        return v;
    };
    v.best = Some(best);
    let Some(&(runner_up, _)) = order.get(1) else {
        v.outcome = Outcome::Alone;
        return v;
    };
    v.runner_up = Some(runner_up);
    let samples = |i: usize| cells[i].map(|c| c.samples).unwrap_or_default();
    if samples(best).len() < MIN_SAMPLES || samples(runner_up).len() < MIN_SAMPLES {
        v.outcome = Outcome::NotEnoughSamples;
        return v;
    }
    // A contestant is beaten when the best is significantly better and not merely equal.
    let beaten = |i: usize, value: f64| {
        value != best_value
            && compare(samples(i), samples(best), better, alpha).verdict == Verdict::Better
    };
    let tied: Vec<usize> = order[1..]
        .iter()
        .filter(|&&(i, value)| !beaten(i, value))
        .map(|&(i, _)| i)
        .collect();
    if tied.is_empty() {
        v.marks[best] = Mark::Winner;
        v.outcome = Outcome::Winner(best);
    } else {
        v.marks[best] = Mark::Tied;
        for i in tied {
            v.marks[i] = Mark::Tied;
        }
        v.outcome = Outcome::NoSignificantDifference;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cols: &[&[f64]]) -> Vec<Option<Contestant<'static>>> {
        cols.iter()
            .map(|s| {
                let s: &'static [f64] = s.to_vec().leak();
                (!s.is_empty()).then(|| Contestant {
                    value: s.iter().sum::<f64>() / s.len() as f64,
                    samples: s,
                })
            })
            .collect()
    }

    #[test]
    fn clearly_separated_has_a_winner() {
        let cells = row(&[&[10.0, 10.1, 9.9], &[5.0, 5.1, 4.9], &[20.0, 20.2, 19.8]]);
        let v = rank_row(&cells, Better::Lower, DEFAULT_ALPHA);
        assert_eq!(v.outcome, Outcome::Winner(1));
        assert_eq!(v.marks, [Mark::None, Mark::Winner, Mark::None]);
        assert_eq!((v.best, v.runner_up), (Some(1), Some(0)));
    }

    #[test]
    fn overlapping_samples_are_tied() {
        // Three targets whose CI95 intervals overlap: no single winner.
        let cells = row(&[&[10.0, 12.0, 8.0], &[9.5, 11.5, 8.5], &[30.0, 31.0, 29.0]]);
        let v = rank_row(&cells, Better::Lower, DEFAULT_ALPHA);
        assert_eq!(v.outcome, Outcome::NoSignificantDifference);
        assert_eq!(v.best, Some(1));
        assert_eq!(v.marks, [Mark::Tied, Mark::Tied, Mark::None]);
        assert_eq!(v.winner(), None);
    }

    #[test]
    fn exact_ties_have_no_winner() {
        let cells = row(&[&[5.0, 5.0, 5.0], &[5.0, 5.0, 5.0], &[9.0, 9.0, 9.0]]);
        let v = rank_row(&cells, Better::Lower, DEFAULT_ALPHA);
        assert_eq!(v.outcome, Outcome::NoSignificantDifference);
        assert_eq!(v.marks, [Mark::Tied, Mark::Tied, Mark::None]);
        // Equal means with different spreads are a tie too.
        let cells = row(&[&[4.0, 5.0, 6.0], &[5.0, 5.0, 5.0]]);
        let v = rank_row(&cells, Better::Higher, DEFAULT_ALPHA);
        assert_eq!(v.outcome, Outcome::NoSignificantDifference);
    }

    #[test]
    fn fewer_than_three_samples_give_no_verdict() {
        let cells = row(&[&[1.0, 1.1], &[9.0, 9.1, 9.2]]);
        let v = rank_row(&cells, Better::Lower, DEFAULT_ALPHA);
        assert_eq!(v.outcome, Outcome::NotEnoughSamples);
        assert_eq!(v.marks, [Mark::None, Mark::None]);
        assert_eq!(v.best, Some(0));
    }

    #[test]
    fn alone_and_empty() {
        let v = rank_row(&row(&[&[1.0, 2.0, 3.0], &[]]), Better::Lower, 0.05);
        assert_eq!((v.outcome, v.best), (Outcome::Alone, Some(0)));
        assert_eq!(v.marks, [Mark::None, Mark::None]);
        let v = rank_row(&row(&[&[], &[]]), Better::Lower, 0.05);
        assert_eq!(v, RowVerdict::none(2));
    }

    #[test]
    fn direction_matters() {
        let cells = row(&[&[10.0, 10.1, 9.9], &[5.0, 5.1, 4.9]]);
        assert_eq!(
            rank_row(&cells, Better::Higher, 0.05).outcome,
            Outcome::Winner(0)
        );
    }

    #[test]
    fn describe_words() {
        let cells = row(&[&[10.0, 12.0, 8.0], &[9.5, 11.5, 8.5]]);
        let v = rank_row(&cells, Better::Lower, 0.05);
        assert_eq!(v.describe(), "no significant difference");
    }
}

//! The marks of one table row, derived from its three-outcome verdict.
//!
//! Role: the single place every renderer (terminal table, Markdown, HTML, spreadsheet) asks
//! "how is this cell marked?", so a `*`, a bold cell or a coloured cell always means the same
//! thing. The decision itself is [`decide_row`]'s (Welch and TOST against the best, Holm over
//! the row); this module turns it into one [`Mark`] per column and a summary [`Outcome`].
//!
//! Invariants:
//! - at most one [`Mark::Winner`] per row, and then no other mark;
//! - [`Mark::Equivalent`] only on columns shown equivalent to the best within the margin (and
//!   on the best when at least one is): "≈" never means "too noisy to tell";
//! - [`Mark::Undecided`] on the undecided columns and on the best of an undecided row;
//! - an exact tie of the shown values never produces a winner;
//! - fewer than [`MIN_SAMPLES`](crate::MIN_SAMPLES) samples anywhere in the row, or a single contestant: no
//!   marks at all.

use crate::{decide_row, Better, Contestant, Decision, RowTest, Standing, DEFAULT_MARGIN_PCT};

/// Significance level used when the run record does not carry one.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// How one cell of a row is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// No mark: significantly worse than the best, or no verdict.
    None,
    /// Significantly better than every other contestant.
    Winner,
    /// Shown equivalent to the best within the margin (or the best of such a group).
    Equivalent,
    /// Neither separated from nor shown equivalent to the best (or the best of such a row).
    Undecided,
}

/// What a row says as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to rank (the row is not comparable, or no column measured it).
    NoContest,
    /// Only one column measured it.
    Alone,
    /// A contestant has fewer than [`MIN_SAMPLES`](crate::MIN_SAMPLES) samples.
    NotEnoughSamples,
    /// This column is significantly better than every other.
    Winner(usize),
    /// Every other column is significantly worse than the best or equivalent to it, and at
    /// least one is equivalent.
    Equivalent,
    /// At least one column is neither separated from nor equivalent to the best.
    Undecided,
}

/// The verdict of a row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowVerdict {
    /// Column with the best shown value (first on a tie), whether or not it wins.
    pub best: Option<usize>,
    /// The runner-up: the next best shown value.
    pub runner_up: Option<usize>,
    /// One mark per column.
    pub marks: Vec<Mark>,
    /// The row as a whole.
    pub outcome: Outcome,
    /// The decision with its numbers: ratio, CI, the p behind it, the repeats that would
    /// decide it.
    pub decision: Decision,
    /// Each column's standing against the best.
    pub standings: Vec<Standing>,
    /// The equivalence margin, in percent of the better mean.
    pub margin_pct: f64,
    /// Paired over rounds or independent (see [`decide_row`]).
    pub test: RowTest,
}

impl RowVerdict {
    /// A row nobody competes in (not comparable, CPU %, nothing measured): no marks.
    pub fn none(columns: usize) -> RowVerdict {
        RowVerdict {
            best: None,
            runner_up: None,
            marks: vec![Mark::None; columns],
            outcome: Outcome::NoContest,
            decision: Decision::NoContest,
            standings: vec![Standing::Absent; columns],
            margin_pct: DEFAULT_MARGIN_PCT,
            test: RowTest::Independent,
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

    /// The p-value behind the verdict: the largest Holm-adjusted Welch p of a winner, the
    /// largest Holm-adjusted TOST p of an equivalence; `None` otherwise (an undecided row has
    /// no verdict to stand behind; its numbers are in [`Decision::Undecided`]).
    pub fn p(&self) -> Option<f64> {
        match self.decision {
            Decision::Winner { p, .. } | Decision::Equivalent { p, .. } => Some(p),
            _ => None,
        }
    }

    /// Words for a summary: "significant", "equivalent", "undecided", ...
    pub fn describe(&self) -> &'static str {
        match self.outcome {
            Outcome::NoContest => "not ranked",
            Outcome::Alone => "only one target measured",
            Outcome::NotEnoughSamples => "not enough samples (n < 3)",
            Outcome::Equivalent => "equivalent",
            Outcome::Undecided => "undecided: too noisy",
            Outcome::Winner(_) => "significant",
        }
    }
}

/// The verdict of a row whose columns are `cells` (`None`: nothing measured there), in the
/// metric's direction `better`, at significance level `alpha`, with the default equivalence
/// margin ([`DEFAULT_MARGIN_PCT`]).
pub fn rank_row(cells: &[Option<Contestant<'_>>], better: Better, alpha: f64) -> RowVerdict {
    rank_row_within(cells, better, alpha, DEFAULT_MARGIN_PCT)
}

/// [`rank_row`] with an equivalence margin of `margin_pct` % of the better mean.
pub fn rank_row_within(
    cells: &[Option<Contestant<'_>>],
    better: Better,
    alpha: f64,
    margin_pct: f64,
) -> RowVerdict {
    let row = decide_row(cells, better, alpha, margin_pct);
    let outcome = match row.decision {
        Decision::NoContest => Outcome::NoContest,
        Decision::Alone { .. } => Outcome::Alone,
        Decision::NotEnoughSamples { .. } => Outcome::NotEnoughSamples,
        Decision::Winner { column, .. } => Outcome::Winner(column),
        Decision::Equivalent { .. } => Outcome::Equivalent,
        Decision::Undecided { .. } => Outcome::Undecided,
    };
    let marks = row
        .standings
        .iter()
        .map(|s| match (s, outcome) {
            (Standing::Best, Outcome::Winner(_)) => Mark::Winner,
            (Standing::Best, Outcome::Equivalent) | (Standing::Equivalent { .. }, _) => {
                Mark::Equivalent
            }
            (Standing::Best, Outcome::Undecided) | (Standing::Undecided { .. }, _) => {
                Mark::Undecided
            }
            _ => Mark::None,
        })
        .collect();
    RowVerdict {
        best: row.best,
        runner_up: row.runner_up,
        marks,
        outcome,
        decision: row.decision,
        standings: row.standings,
        margin_pct,
        test: row.test,
    }
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
                    rounds: None,
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
    fn overlapping_samples_are_undecided() {
        // Three targets whose CI95 intervals overlap: no single winner, and ±20 % noise on
        // three runs cannot show ±5 % equivalence either.
        let cells = row(&[&[10.0, 12.0, 8.0], &[9.5, 11.5, 8.5], &[30.0, 31.0, 29.0]]);
        let v = rank_row(&cells, Better::Lower, DEFAULT_ALPHA);
        assert_eq!(v.outcome, Outcome::Undecided);
        assert_eq!(v.best, Some(1));
        assert_eq!(v.marks, [Mark::Undecided, Mark::Undecided, Mark::None]);
        assert_eq!(v.winner(), None);
    }

    #[test]
    fn exact_ties_have_no_winner() {
        let cells = row(&[&[5.0, 5.0, 5.0], &[5.0, 5.0, 5.0], &[9.0, 9.0, 9.0]]);
        let v = rank_row(&cells, Better::Lower, DEFAULT_ALPHA);
        assert_eq!(v.outcome, Outcome::Equivalent);
        assert_eq!(v.marks, [Mark::Equivalent, Mark::Equivalent, Mark::None]);
        // Equal means with different spreads are no winner either (±20 % noise: undecided).
        let cells = row(&[&[4.0, 5.0, 6.0], &[5.0, 5.0, 5.0]]);
        let v = rank_row(&cells, Better::Higher, DEFAULT_ALPHA);
        assert_eq!(v.outcome, Outcome::Undecided);
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
        assert_eq!(v.describe(), "undecided: too noisy");
    }
}

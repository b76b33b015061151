//! The verdict of one row, in exactly three outcomes: a winner, equivalent, or undecided.
//!
//! Role: the single definition every renderer and the adaptive repeats share. The best column
//! is the one with the best shown value (first on a tie). Each other column is compared with
//! it by [`pair`]'s two tests, Welch (a difference) and TOST (equivalence within ±margin % of
//! the better mean), and each family of k − 1 p-values is Holm-adjusted, so the error rate
//! holds for the row as a whole and not per comparison. A column is then, against the best:
//! - separated ("worse"): Holm-adjusted Welch p < α and its mean is worse than the best's;
//! - equivalent: not separated, and Holm-adjusted TOST p < α;
//! - undecided: neither.
//!
//! The row is a [`Decision::Winner`] when every other column is separated (the p shown is
//! the largest Holm-adjusted Welch p, the one the verdict rests on); [`Decision::Equivalent`]
//! when every other is separated or equivalent and at least one is equivalent (p: the largest
//! Holm-adjusted TOST p among the equivalent); otherwise [`Decision::Undecided`], naming the
//! undecided columns noisiest first (widest standard error of the difference relative to the
//! best mean) with the first one's ratio, CI and the repeats that would decide it.
//!
//! Blocked rows: when every column names the round of each of its samples (the run measured
//! the targets interleaved, round by round) and shares at least [`MIN_SAMPLES`] rounds with the
//! best, each comparison is the paired one of [`crate::paired`] — per-round log-ratios, a paired
//! t-test and a paired TOST, Holm-adjusted the same way — so drift common to a round cancels;
//! otherwise every comparison is Welch's and TOST's on independent samples. [`Row::test`] says
//! which; ratios of a paired row are geometric (the mean per-round ratio).
//!
//! Invariants:
//! - a column without a cell or with a non-finite shown value takes no part
//!   ([`Standing::Absent`]);
//! - any taking part with fewer than [`MIN_SAMPLES`] usable samples gives
//!   [`Decision::NotEnoughSamples`] naming it: the row cannot be decided without it;
//! - an exact tie of samples is never a winner (Welch p = 1);
//! - ratios are "times better": for the winner, how many times better than the next best;
//!   for an undecided column, how many times better the best is than it. Their CIs are the
//!   `1 - α` intervals of the difference relative to the worse side's mean.

use serde::{Deserialize, Serialize};

use crate::equivalence::relative;
use crate::pair::{pair, PairOutcome};
use crate::paired::PairedDiff;
use crate::repeats::repeats_to_decide;
use crate::welch_diff::WelchDiff;
use crate::{holm, Better, MIN_SAMPLES};

/// One column's claim in a row: the value shown and the samples behind it.
#[derive(Debug, Clone, Copy)]
pub struct Contestant<'a> {
    /// The shown value (mean, median or best of the samples).
    pub value: f64,
    /// Every sample, for the significance test.
    pub samples: &'a [f64],
    /// The round each sample was measured in, when the run measured its targets in
    /// interleaved rounds (then a row whose columns share rounds is compared round by round);
    /// `None`: independent samples.
    pub rounds: Option<&'a [u32]>,
}

/// How a row's columns were compared with its best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "test", rename_all = "snake_case")]
pub enum RowTest {
    /// Welch's t-test and TOST on independent samples.
    #[default]
    Independent,
    /// Paired over rounds: per-round log-ratios, a paired t-test and a paired TOST.
    PairedRounds {
        /// The fewest rounds any comparison of the row had in common with the best.
        rounds: usize,
    },
}

/// Where one column stands against the best of its row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "standing", rename_all = "snake_case")]
pub enum Standing {
    /// Takes no part: nothing measured, or not ranked.
    Absent,
    /// The best shown value of the row.
    Best,
    /// Significantly worse than the best (Holm-adjusted Welch p).
    Worse {
        /// Holm-adjusted Welch p-value.
        p: f64,
    },
    /// Shown equivalent to the best within the margin (Holm-adjusted TOST p).
    Equivalent {
        /// Holm-adjusted TOST p-value.
        p: f64,
    },
    /// Neither separated from nor shown equivalent to the best.
    Undecided {
        /// Holm-adjusted Welch p-value.
        p_diff: f64,
        /// Holm-adjusted TOST p-value.
        p_equiv: f64,
    },
    /// Fewer than [`MIN_SAMPLES`] usable samples.
    NotEnoughSamples,
    /// Not compared: another column of the row has too few samples.
    Unjudged,
}

/// What a row says as a whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Nothing to rank: no column measured it.
    NoContest,
    /// Only one column measured it.
    Alone {
        /// That column.
        column: usize,
    },
    /// A column taking part has fewer than [`MIN_SAMPLES`] usable samples.
    NotEnoughSamples {
        /// The first such column.
        column: usize,
    },
    /// `column` is significantly better than every other.
    Winner {
        /// The winning column.
        column: usize,
        /// The next best column by shown value.
        next: usize,
        /// How many times better than `next` (by means).
        ratio: Option<f64>,
        /// The `1 - α` interval of `ratio`.
        ratio_ci: Option<(f64, f64)>,
        /// The largest Holm-adjusted Welch p-value over the k − 1 comparisons.
        p: f64,
    },
    /// The best and the `equivalent` columns are equivalent within ±`margin_pct` %; the
    /// `worse` ones are significantly worse.
    Equivalent {
        /// The column with the best shown value.
        best: usize,
        /// Columns shown equivalent to the best (the best not included).
        equivalent: Vec<usize>,
        /// Columns significantly worse than the best.
        worse: Vec<usize>,
        /// The margin, in percent of the better mean.
        margin_pct: f64,
        /// The largest Holm-adjusted TOST p-value among `equivalent`.
        p: f64,
    },
    /// At least one column is neither separated from nor equivalent to the best.
    Undecided {
        /// The column with the best shown value.
        best: usize,
        /// The undecided column named: the noisiest.
        column: usize,
        /// Every undecided column, noisiest first (`column` first).
        undecided: Vec<usize>,
        /// How many times better the best is than `column` (by means).
        ratio: Option<f64>,
        /// The `1 - α` interval of `ratio`.
        ratio_ci: Option<(f64, f64)>,
        /// Holm-adjusted Welch p-value of `column` against the best.
        p_diff: f64,
        /// Holm-adjusted TOST p-value of `column` against the best.
        p_equiv: f64,
        /// Samples per column that would decide `column`, from the observed variance
        /// (`None`: not within [`MAX_REPEATS`](crate::MAX_REPEATS)).
        repeats: Option<usize>,
    },
}

/// The verdict of a row with each column's standing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Column with the best shown value (first on a tie), whether or not it wins.
    pub best: Option<usize>,
    /// The next best shown value.
    pub runner_up: Option<usize>,
    /// One standing per column.
    pub standings: Vec<Standing>,
    /// The row as a whole.
    pub decision: Decision,
    /// Whether the comparisons were paired over rounds or independent.
    #[serde(default)]
    pub test: RowTest,
}

/// Decides the row whose columns are `cells` (`None`: takes no part), in the metric's
/// direction `better`, at level `alpha`, with equivalence within ±`margin_pct` %.
pub fn decide_row(
    cells: &[Option<Contestant<'_>>],
    better: Better,
    alpha: f64,
    margin_pct: f64,
) -> Row {
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
    let mut row = Row {
        best: order.first().map(|o| o.0),
        runner_up: order.get(1).map(|o| o.0),
        standings: vec![Standing::Absent; cells.len()],
        decision: Decision::NoContest,
        test: RowTest::Independent,
    };
    let Some(best) = row.best else {
        return row;
    };
    row.standings[best] = Standing::Best;
    let Some(next) = row.runner_up else {
        row.decision = Decision::Alone { column: best };
        return row;
    };
    let samples = |i: usize| cells[i].map(|c| c.samples).unwrap_or_default();
    let usable = |i: usize| {
        let s = samples(i);
        s.len() >= MIN_SAMPLES && s.iter().all(|x| x.is_finite())
    };
    if let Some(&(column, _)) = order.iter().find(|o| !usable(o.0)) {
        for &(i, _) in &order[1..] {
            row.standings[i] = Standing::Unjudged;
        }
        for &(i, _) in order.iter().filter(|o| !usable(o.0)) {
            row.standings[i] = Standing::NotEnoughSamples;
        }
        row.decision = Decision::NotEnoughSamples { column };
        return row;
    }
    let others: Vec<usize> = order[1..].iter().map(|o| o.0).collect();
    let cols = Cols {
        cells,
        best,
        better,
        alpha,
        margin_pct,
        paired: paired_row(cells, best, &others),
    };
    row.test = cols.test();
    let judged: Vec<Judged> = (others.iter().enumerate())
        .map(|(k, &i)| cols.judge(k, i))
        .collect();
    let p_diff = holm(&judged.iter().map(|j| j.p_diff).collect::<Vec<_>>());
    let p_equiv = holm(&judged.iter().map(|j| j.p_equiv).collect::<Vec<_>>());
    for (k, &i) in others.iter().enumerate() {
        // Separated only in the direction the shown values rank them: a column whose mean
        // is significantly better than the best's shown value's column stays undecided.
        let worse = p_diff[k] < alpha && judged[k].best_better;
        row.standings[i] = if worse {
            Standing::Worse { p: p_diff[k] }
        } else if p_equiv[k] < alpha {
            Standing::Equivalent { p: p_equiv[k] }
        } else {
            Standing::Undecided {
                p_diff: p_diff[k],
                p_equiv: p_equiv[k],
            }
        };
    }
    let picked = |f: fn(&Standing) -> bool| -> Vec<usize> {
        others
            .iter()
            .copied()
            .filter(|&i| f(&row.standings[i]))
            .collect()
    };
    let worse = picked(|s| matches!(s, Standing::Worse { .. }));
    let equivalent = picked(|s| matches!(s, Standing::Equivalent { .. }));
    let mut undecided = picked(|s| matches!(s, Standing::Undecided { .. }));
    row.decision = if undecided.is_empty() && equivalent.is_empty() {
        let (ratio, ratio_ci) = cols.times_better(next, &others);
        Decision::Winner {
            column: best,
            next,
            ratio,
            ratio_ci,
            p: p_diff.iter().copied().fold(0.0, f64::max),
        }
    } else if undecided.is_empty() {
        let p = others
            .iter()
            .zip(&p_equiv)
            .filter(|(i, _)| equivalent.contains(i))
            .fold(0.0_f64, |m, (_, &p)| m.max(p));
        Decision::Equivalent {
            best,
            equivalent,
            worse,
            margin_pct,
            p,
        }
    } else {
        // Stable: equally noisy columns keep their rank order.
        undecided.sort_by(|&a, &b| {
            let noise = |i| cols.noise(i, &others);
            noise(b).total_cmp(&noise(a))
        });
        let column = undecided[0];
        let k = others.iter().position(|&i| i == column).unwrap_or(0);
        let (ratio, ratio_ci) = cols.times_better(column, &others);
        let repeats = cols.estimate(column, &others, others.len());
        Decision::Undecided {
            best,
            column,
            undecided,
            ratio,
            ratio_ci,
            p_diff: p_diff[k],
            p_equiv: p_equiv[k],
            repeats,
        }
    };
    row
}

/// Per other column (in `others`' order), its paired comparison with the best, when every
/// one of them can be paired; `None`: the row is compared as independent samples.
fn paired_row(
    cells: &[Option<Contestant<'_>>],
    best: usize,
    others: &[usize],
) -> Option<Vec<PairedDiff>> {
    let a = cells[best]?;
    others
        .iter()
        .map(|&i| {
            let b = cells[i]?;
            PairedDiff::new(a.samples, a.rounds?, b.samples, b.rounds?)
        })
        .collect()
}

/// One comparison with the best before Holm's adjustment.
struct Judged {
    p_diff: f64,
    p_equiv: f64,
    /// The best's side is the better one (by the test's own estimate).
    best_better: bool,
}

/// A row's columns as its comparisons see them: paired or independent.
struct Cols<'c, 'a> {
    cells: &'c [Option<Contestant<'a>>],
    best: usize,
    better: Better,
    alpha: f64,
    margin_pct: f64,
    /// Per other column, its paired comparison (see [`paired_row`]).
    paired: Option<Vec<PairedDiff>>,
}

impl Cols<'_, '_> {
    fn samples(&self, i: usize) -> &[f64] {
        self.cells[i].map(|c| c.samples).unwrap_or_default()
    }

    fn test(&self) -> RowTest {
        match &self.paired {
            Some(p) => RowTest::PairedRounds {
                rounds: p.iter().map(|d| d.n).min().unwrap_or(0),
            },
            None => RowTest::Independent,
        }
    }

    /// The paired comparison of column `i` (of `others`), when the row is paired.
    fn paired_of(&self, i: usize, others: &[usize]) -> Option<&PairedDiff> {
        let k = others.iter().position(|&o| o == i)?;
        self.paired.as_ref().map(|p| &p[k])
    }

    /// Column `i`, the `k`-th of the others, against the best.
    fn judge(&self, k: usize, i: usize) -> Judged {
        if let Some(d) = self.paired.as_ref().map(|p| p[k]) {
            // d is ln(column / best): the best is better when the column is larger for a
            // lower-is-better metric.
            let best_better = match self.better {
                Better::Lower => d.mean > 0.0,
                Better::Higher => d.mean < 0.0,
            };
            return Judged {
                p_diff: d.p_diff(),
                p_equiv: d.p_equiv(self.margin_pct),
                best_better: best_better && d.p_diff() < self.alpha,
            };
        }
        let (a, b) = (self.samples(self.best), self.samples(i));
        let p = pair(a, b, self.better, self.alpha, self.margin_pct);
        Judged {
            p_diff: p.p_diff.unwrap_or(1.0),
            p_equiv: p.p_equiv.unwrap_or(1.0),
            best_better: p.outcome == PairOutcome::ABetter,
        }
    }

    /// "Times better" of the best over column `i`, with its `1 − α` interval.
    fn times_better(&self, i: usize, others: &[usize]) -> (Option<f64>, Option<(f64, f64)>) {
        if let Some(d) = self.paired_of(i, others) {
            let (lo, hi) = d.ci(1.0 - self.alpha);
            let (m, lo, hi) = match self.better {
                Better::Lower => (d.mean, lo, hi),
                Better::Higher => (-d.mean, -hi, -lo),
            };
            return (Some(m.exp()), Some((lo.exp(), hi.exp())));
        }
        // Orient the pair so the ratio reads "times better": worse over best for lower.
        let (num, den) = match self.better {
            Better::Lower => (self.samples(i), self.samples(self.best)),
            Better::Higher => (self.samples(self.best), self.samples(i)),
        };
        WelchDiff::new(num, den).map_or((None, None), |w| relative(&w, w.ci(1.0 - self.alpha)))
    }

    /// Standard error of column `i`'s comparison, relative to the best's scale.
    fn noise(&self, i: usize, others: &[usize]) -> f64 {
        if let Some(d) = self.paired_of(i, others) {
            return d.se;
        }
        let diff = |i: usize| WelchDiff::new(self.samples(self.best), self.samples(i));
        let scale = diff(self.best).map_or(1.0, |w| w.mean_a.abs().max(f64::MIN_POSITIVE));
        diff(i).map_or(f64::INFINITY, |w| w.se / scale)
    }

    /// Samples (rounds) per column that would decide column `i`, at Holm's first-step level.
    fn estimate(&self, i: usize, others: &[usize], family: usize) -> Option<usize> {
        if let Some(d) = self.paired_of(i, others) {
            return d.repeats_to_decide(self.alpha / family.max(1) as f64, self.margin_pct);
        }
        estimate(
            self.samples(self.best),
            self.samples(i),
            self.better,
            self.alpha,
            family,
            self.margin_pct,
        )
    }
}

/// Samples (rounds) per column that would decide column `i` against the row's `best`, by the
/// test [`decide_row`] uses for the row: paired over rounds when every column of the row can
/// be paired with the best, Welch's otherwise.
pub(crate) fn pair_estimate(
    cells: &[Option<Contestant<'_>>],
    best: usize,
    i: usize,
    better: Better,
    alpha: f64,
    family: usize,
    margin_pct: f64,
) -> Option<usize> {
    let others: Vec<usize> = (0..cells.len())
        .filter(|&o| o != best && cells[o].is_some_and(|c| c.value.is_finite()))
        .collect();
    let cols = Cols {
        cells,
        best,
        better,
        alpha,
        margin_pct,
        paired: paired_row(cells, best, &others),
    };
    cols.estimate(i, &others, family)
}

/// Samples per column that would decide column `b` against the best `a` from the observed
/// variance, at Holm's first-step level α / `family` (the conservative level for an estimate);
/// `None` when not within [`MAX_REPEATS`](crate::MAX_REPEATS).
pub(crate) fn estimate(
    a: &[f64],
    b: &[f64],
    better: Better,
    alpha: f64,
    family: usize,
    margin_pct: f64,
) -> Option<usize> {
    let w = WelchDiff::new(a, b)?;
    let better_mean = if better.is_better(w.mean_a, w.mean_b) {
        w.mean_a
    } else {
        w.mean_b
    };
    let level = alpha / family.max(1) as f64;
    repeats_to_decide(&w, level, margin_pct / 100.0 * better_mean.abs())
}

/// For each column of a row, whether its position is decided: the winner, a column separated
/// from or equivalent to the best, and the best itself once no column is undecided (with the
/// same Holm families as [`decide_row`]). A column taking no part counts as decided (there is
/// nothing to wait for); one short of samples does not. The adaptive repeats stop a cell when
/// its column is decided.
pub fn decided(
    cells: &[Option<Contestant<'_>>],
    better: Better,
    alpha: f64,
    margin_pct: f64,
) -> Vec<bool> {
    let row = decide_row(cells, better, alpha, margin_pct);
    let settled = matches!(
        row.decision,
        Decision::Winner { .. } | Decision::Equivalent { .. } | Decision::Alone { .. }
    );
    row.standings
        .iter()
        .map(|s| match s {
            Standing::Absent | Standing::Worse { .. } | Standing::Equivalent { .. } => true,
            Standing::Best => settled,
            Standing::Undecided { .. } | Standing::NotEnoughSamples | Standing::Unjudged => false,
        })
        .collect()
}

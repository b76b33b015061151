//! `--repeat auto` in the runner: every cell's comparable samples so far, and the decision to
//! stop repeating it.
//!
//! Two rules (see [`fsbattery_record::repeats`]):
//! - *compared* (two or more ranked targets, filesystems made afresh per round): after each
//!   round — every target ran the same repeat — a cell (target × workload) stops once, in every
//!   headline metric of its workload, its place is decided against the best target: it wins,
//!   or is significantly worse, or is equivalent within the margin (Holm over the row's
//!   comparisons). It also stops, as hopeless, once every row it still waits on would need
//!   far more repeats than the maximum and the budget leave ([`fsbattery_stats::hopeless`]):
//!   that decides nothing, it only gives the time left to rows more repeats can decide. Only headline metrics count: comparable times and rates, the mean or median
//!   of a latency distribution; maxima and other percentiles, sizes, counts, constants and
//!   timings under [`TINY_SECS`] are shown and ranked but never hold a run hostage.
//! - *alone* (one ranked target, or one filesystem for the whole run, where the other targets'
//!   samples do not exist yet): after each step, once every comparable metric's CI95 is within
//!   the precision of its mean.
//! - *reference* (a target shown but not ranked, in a compared run): no verdict waits on it,
//!   so it gets its table's repeats (the minimum) and stops; with `--precision` given it
//!   repeats to that precision as a target alone does.
//!
//! Rows of a run in interleaved rounds (not `--fresh once`) are judged round by round: each
//! sample keeps its round (repeat index), and [`fsbattery_stats::decide_row`] pairs the columns
//! over the rounds they share.
//!
//! With [`AutoRepeat::equal_counts`] (a best, min or max aggregate, which grows with the
//! number of samples) a workload's ranked cells stop together: at the round in which every
//! one of them would stop, each with its own reason.
//!
//! Invariants: a cell is decided at most once, after a finished (not failed, not interrupted)
//! repeat; never before `min` repeats, always at `max`; a failed step stops its cell. The
//! schedule is the fixed one for `max` repeats; a stopped cell's later steps are skipped, so a
//! cycle whose cells are all stopped makes no filesystem. The budget is checked before each
//! round: no round starts that the last one's length says would end past it.

use crate::model::Sample;
use fsbattery_record::meta::{MetricKind, Stat};
use fsbattery_record::repeats::{AutoRepeat, Convergence, StopReason};
use fsbattery_record::MetricSpec;
use fsbattery_stats::Better;
use fsbattery_stats::Contestant;
use std::time::{Duration, Instant};

/// A time metric whose best mean is under this many seconds is too short to decide on: its
/// spread is the scheduler's, not the filesystem's.
pub(super) const TINY_SECS: f64 = 0.01;

/// One metric that can hold a cell back under the compared rule.
#[derive(Debug, Clone)]
pub(super) struct Headline {
    name: String,
    better: Better,
    /// A time (seconds): subject to [`TINY_SECS`].
    time: bool,
}

/// Whether `m` is a headline metric (see the module header).
pub(super) fn is_headline(m: &MetricSpec) -> bool {
    if !m.comparable {
        return false;
    }
    let meta = m
        .meta
        .clone()
        .unwrap_or_else(|| fsbattery_record::meta::MetricMeta::from_unit(&m.unit));
    match meta.kind {
        MetricKind::Time | MetricKind::Rate => true,
        MetricKind::Latency => {
            matches!(meta.stat, Some(Stat::Mean | Stat::Value))
                || matches!(meta.stat, Some(Stat::Percentile(p)) if p == 50.0)
        }
        MetricKind::Size | MetricKind::Count | MetricKind::Ratio | MetricKind::Other => false,
    }
}

/// Per workload, its headline metrics: those of `metrics` that [`is_headline`], and, when the
/// plan's table shows only some of the workload's metrics (`shown`, empty: all), only those.
pub(super) fn headlines(metrics: &[MetricSpec], shown: &[&str]) -> Vec<Headline> {
    metrics
        .iter()
        .filter(|m| is_headline(m) && (shown.is_empty() || shown.contains(&m.name.as_str())))
        .map(|m| Headline {
            name: m.name.clone(),
            better: m.better,
            time: m.unit == "s",
        })
        .collect()
}

/// One cell's state.
#[derive(Debug, Clone, Default)]
struct CellState {
    /// (metric, comparable values in repeat order, the repeat of each).
    samples: Vec<(String, Vec<f64>, Vec<u32>)>,
    /// Finished repeats.
    made: u32,
    /// Decided, failed or out of budget: no more repeats.
    stopped: bool,
}

impl CellState {
    fn values(&self, metric: &str) -> Option<(&[f64], &[u32])> {
        self.samples
            .iter()
            .find(|(m, _, _)| m == metric)
            .map(|(_, v, r)| (v.as_slice(), r.as_slice()))
    }

    fn sets(&self) -> Vec<&[f64]> {
        self.samples.iter().map(|(_, v, _)| v.as_slice()).collect()
    }
}

/// The whole run's auto-repeat state: one [`CellState`] per target × workload.
pub(super) struct AutoRun {
    spec: AutoRepeat,
    /// `[target][workload]`.
    cells: Vec<Vec<CellState>>,
    /// Per workload, its headline metrics.
    headlines: Vec<Vec<Headline>>,
    /// Per target: ranked against the others (false: a reference, decided alone).
    ranked: Vec<bool>,
    /// The compared rule applies (see the module header).
    compared: bool,
    /// Targets are measured in interleaved rounds: samples of one repeat share a round.
    interleaved: bool,
    /// When the first round started (the budget's clock).
    started: Option<Instant>,
    /// When the last round started.
    round_started: Option<Instant>,
    /// How long the last finished round took.
    last_round: Duration,
}

impl AutoRun {
    /// `ranked`: per target, whether it is ranked; `once`: one filesystem per target for the
    /// whole run (no rounds to compare after).
    pub(super) fn new(
        spec: AutoRepeat,
        headlines: Vec<Vec<Headline>>,
        ranked: Vec<bool>,
        once: bool,
    ) -> Self {
        let compared = !once && ranked.iter().filter(|r| **r).count() >= 2;
        let cells = vec![vec![CellState::default(); headlines.len()]; ranked.len()];
        Self {
            spec,
            cells,
            headlines,
            ranked,
            compared,
            interleaved: !once,
            started: None,
            round_started: None,
            last_round: Duration::ZERO,
        }
    }

    pub(super) fn stopped(&self, t: usize, w: usize) -> bool {
        self.cells[t][w].stopped
    }

    /// No more repeats of cell (`t`, `w`): it failed, and no decision can come of it.
    pub(super) fn fail(&mut self, t: usize, w: usize) {
        self.cells[t][w].stopped = true;
    }

    /// Keep one comparable sample of cell (`t`, `w`).
    pub(super) fn record(&mut self, t: usize, w: usize, metric: &str, sample: &Sample) {
        let sets = &mut self.cells[t][w].samples;
        match sets.iter_mut().find(|(m, _, _)| m == metric) {
            Some((_, v, r)) => {
                v.push(sample.value);
                r.push(sample.repeat);
            }
            None => sets.push((metric.to_string(), vec![sample.value], vec![sample.repeat])),
        }
    }

    /// A repeat of cell (`t`, `w`) finished in an earlier part of a resumed run: its
    /// comparable samples kept and counted, no decision made (the record has it, or the next
    /// repeat makes it).
    pub(super) fn replay(&mut self, t: usize, w: usize, samples: &[(&str, &Sample)]) {
        for (metric, sample) in samples {
            self.record(t, w, metric, sample);
        }
        self.cells[t][w].made += 1;
    }

    /// Cell (`t`, `w`) was decided in an earlier part of a resumed run: no more repeats.
    pub(super) fn restore_stopped(&mut self, t: usize, w: usize) {
        self.cells[t][w].stopped = true;
    }

    /// A repeat of cell (`t`, `w`) finished. Under the alone rule (or for a reference
    /// target), the decision when the cell stops here.
    pub(super) fn after_step(&mut self, t: usize, w: usize, workload: &str) -> Option<Convergence> {
        let cell = &mut self.cells[t][w];
        if cell.stopped {
            return None;
        }
        cell.made += 1;
        if self.compared && self.ranked[t] {
            return None;
        }
        if self.compared && !self.spec.precision_stated {
            // A reference: its table needs the minimum, no verdict waits on more.
            let made = self.cells[t][w].made;
            return (made >= self.spec.min)
                .then(|| self.stop(t, w, workload, StopReason::Reference));
        }
        self.decide_alone(t, w, workload)
    }

    /// The precision rule for one cell.
    fn decide_alone(&mut self, t: usize, w: usize, workload: &str) -> Option<Convergence> {
        let cell = &self.cells[t][w];
        if cell.made < self.spec.min {
            return None;
        }
        let widest = fsbattery_stats::widest_ci95(&cell.sets());
        // No comparable metric: nothing to make precise, the minimum is enough.
        let precise = widest.is_none_or(|x| x.within(self.spec.precision_pct));
        if !precise && cell.made < self.spec.max {
            return None;
        }
        let stop = if precise {
            StopReason::Precise
        } else {
            StopReason::Maximum
        };
        Some(self.stop(t, w, workload, stop))
    }

    /// Mark cell (`t`, `w`) stopped for `reason`; what the record says of it.
    fn stop(&mut self, t: usize, w: usize, workload: &str, reason: StopReason) -> Convergence {
        let cell = &mut self.cells[t][w];
        cell.stopped = true;
        let widest = fsbattery_stats::widest_ci95(&cell.sets());
        Convergence {
            workload: workload.to_string(),
            repeats: cell.made,
            reached: matches!(
                reason,
                StopReason::Decided | StopReason::Precise | StopReason::Reference
            ),
            stop: Some(reason),
            widest_metric: widest.map_or_else(String::new, |x| cell.samples[x.index].0.clone()),
            widest_half_width_pct: widest.and_then(|x| x.half_width_pct),
        }
    }

    /// A round is about to start: false when the budget says it would end past it.
    pub(super) fn round_fits(&mut self) -> bool {
        let now = Instant::now();
        let started = *self.started.get_or_insert(now);
        if let Some(r) = self.round_started {
            self.last_round = now - r;
        }
        self.round_started = Some(now);
        let Some(budget) = self.spec.budget_secs else {
            return true;
        };
        let spent = (now - started).as_secs_f64();
        spent + self.last_round.as_secs_f64() <= budget
    }

    /// Every cell still repeating stops for `reason` (the budget): their decisions. This is
    /// the final look, at `alpha`: a cell whose place it decides stops as decided.
    pub(super) fn stop_all(
        &mut self,
        names: &[&str],
        reason: StopReason,
        alpha: f64,
    ) -> Vec<(usize, Convergence)> {
        let mut out = Vec::new();
        for (w, name) in names.iter().enumerate() {
            let last = self.places(w, alpha, alpha);
            for (t, place) in last.into_iter().enumerate() {
                if !self.cells[t][w].stopped && self.cells[t][w].made > 0 {
                    let why = match place {
                        Place::Decided
                            if self.compared
                                && self.ranked[t]
                                && self.cells[t][w].made >= self.spec.min =>
                        {
                            StopReason::Decided
                        }
                        _ => reason,
                    };
                    out.push((t, self.stop(t, w, name, why)));
                }
            }
        }
        out
    }

    /// A round ended (every target ran the same repeat of the workloads in `workloads`):
    /// under the compared rule, the cells of ranked targets that stop now.
    pub(super) fn after_round(
        &mut self,
        workloads: &[usize],
        names: &[&str],
        alpha: f64,
    ) -> Vec<(usize, Convergence)> {
        let mut out = Vec::new();
        if !self.compared {
            return out;
        }
        for &w in workloads {
            // Interim looks stop only at Haybittle–Peto's level; the look a cell's last repeat
            // makes (the maximum) is the final one, at α, as the report's verdict is.
            let interim = self.places(w, fsbattery_stats::look_alpha(alpha, false), alpha);
            let last = self.places(w, alpha, alpha);
            // (target, why it stops now, or None: it goes on).
            let mut due: Vec<(usize, Option<StopReason>)> = Vec::new();
            for (t, place) in interim.into_iter().enumerate() {
                let cell = &self.cells[t][w];
                if !self.ranked[t] || cell.stopped {
                    continue;
                }
                let at_max = cell.made >= self.spec.max;
                let place = if at_max { last[t] } else { place };
                let reason = match place {
                    _ if cell.made < self.spec.min => None,
                    Place::Decided => Some(StopReason::Decided),
                    Place::Hopeless => Some(StopReason::Hopeless),
                    Place::Open if at_max => Some(StopReason::Maximum),
                    Place::Open => None,
                };
                due.push((t, reason));
            }
            // Equal counts: the workload's ranked cells stop together, once none goes on.
            if self.spec.equal_counts && due.iter().any(|(_, r)| r.is_none()) {
                continue;
            }
            for (t, reason) in due {
                if let Some(reason) = reason {
                    out.push((t, self.stop(t, w, names[w], reason)));
                }
            }
        }
        out
    }

    /// Repeats per cell of workload `w` that can still be afforded: the most any of its
    /// ranked cells made plus the rounds the budget leaves at the last round's length, at
    /// most the maximum.
    fn affordable(&self, w: usize) -> usize {
        let made = (0..self.cells.len())
            .filter(|&t| self.ranked[t])
            .map(|t| self.cells[t][w].made)
            .max()
            .unwrap_or(0);
        let rounds_left = match (self.spec.budget_secs, self.started, self.round_started) {
            (Some(budget), Some(started), Some(_)) if !self.last_round.is_zero() => {
                let left = budget - started.elapsed().as_secs_f64();
                (left.max(0.0) / self.last_round.as_secs_f64()).floor() as u32
            }
            _ => u32::MAX,
        };
        made.saturating_add(rounds_left).min(self.spec.max) as usize
    }

    /// Per target, its place in workload `w`: decided in every headline metric at `look` (the
    /// level of this look, see [`fsbattery_stats::look_alpha`]); else, when every metric it
    /// waits on is hopeless at the final look's `alpha` (see [`fsbattery_stats::hopeless`]),
    /// hopeless; else open.
    fn places(&self, w: usize, look: f64, alpha: f64) -> Vec<Place> {
        let affordable = self.affordable(w);
        let mut all = vec![Place::Decided; self.cells.len()];
        for h in &self.headlines[w] {
            let cells: Vec<Option<Contestant<'_>>> = (0..self.cells.len())
                .map(|t| {
                    let (v, rounds) = self.cells[t][w].values(&h.name)?;
                    (self.ranked[t] && !v.is_empty()).then(|| Contestant {
                        value: v.iter().sum::<f64>() / v.len() as f64,
                        samples: v,
                        rounds: self.interleaved.then_some(rounds),
                    })
                })
                .collect();
            if h.time && best_mean(&cells, h.better).is_some_and(|m| m < TINY_SECS) {
                continue;
            }
            let margin = self.spec.margin_pct;
            let decided = fsbattery_stats::decided(&cells, h.better, look, margin);
            let mut hopeless =
                fsbattery_stats::hopeless(&cells, h.better, alpha, margin, affordable);
            // Futility judges the row at the final look's α, this look may be an interim one:
            // a column separated at α but not yet at this look still waits on the best, so
            // the best is not given up while any such column has hope.
            if let Some(b) = best_index(&cells, h.better) {
                let waiting = (0..cells.len())
                    .any(|t| t != b && cells[t].is_some() && !decided[t] && !hopeless[t]);
                hopeless[b] &= !waiting;
            }
            for ((a, d), hl) in all.iter_mut().zip(decided).zip(hopeless) {
                *a = match (*a, d, hl) {
                    (Place::Open, _, _) | (_, false, false) => Place::Open,
                    (Place::Hopeless, _, _) | (_, false, true) => Place::Hopeless,
                    (Place::Decided, true, _) => Place::Decided,
                };
            }
        }
        all
    }
}

/// Where a cell stands in its workload's headline rows after a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Some row still waits on it and more repeats may decide it.
    Open,
    /// Every row is decided for it.
    Decided,
    /// Decided or hopeless in every row, hopeless in at least one.
    Hopeless,
}

/// The index of the best column's mean in direction `better`.
fn best_index(cells: &[Option<Contestant<'_>>], better: Better) -> Option<usize> {
    let best = best_mean(cells, better)?;
    cells
        .iter()
        .position(|c| c.is_some_and(|c| c.value == best))
}

/// The best column's mean in direction `better`.
fn best_mean(cells: &[Option<Contestant<'_>>], better: Better) -> Option<f64> {
    let means = cells.iter().flatten().map(|c| c.value);
    match better {
        Better::Lower => means.reduce(f64::min),
        Better::Higher => means.reduce(f64::max),
    }
}

#[cfg(test)]
#[path = "auto_tests.rs"]
mod tests;

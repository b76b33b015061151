//! `--repeat auto` in the runner: per target, the comparable samples each workload produced so
//! far, and the decision to stop repeating it.
//!
//! Invariants: a workload is decided at most once per target, after a finished (not failed,
//! not interrupted) repeat; never before `min` repeats, always at `max`. The schedule is the
//! fixed one for `max` repeats; a decided or failed workload's later steps are skipped, so a
//! cycle whose workloads are all decided makes no filesystem. Only comparable metrics count:
//! a value that describes the target (space after mkfs) is not a measurement to converge.

use crate::model::Sample;
use fsbattery_record::repeats::{AutoRepeat, Convergence};

/// One target's auto-repeat state.
pub(super) struct AutoState {
    spec: AutoRepeat,
    /// Per workload index: (metric, comparable values in repeat order).
    samples: Vec<Vec<(String, Vec<f64>)>>,
    /// Per workload index: decided or failed, no more repeats.
    stopped: Vec<bool>,
}

impl AutoState {
    pub(super) fn new(spec: AutoRepeat, workloads: usize) -> Self {
        Self {
            spec,
            samples: vec![Vec::new(); workloads],
            stopped: vec![false; workloads],
        }
    }

    pub(super) fn stopped(&self, w: usize) -> bool {
        self.stopped[w]
    }

    /// No more repeats of `w` (it failed: no precision can come of it).
    pub(super) fn stop(&mut self, w: usize) {
        self.stopped[w] = true;
    }

    /// Keep one comparable sample of workload `w`.
    pub(super) fn record(&mut self, w: usize, metric: &str, sample: &Sample) {
        let sets = &mut self.samples[w];
        match sets.iter_mut().find(|(m, _)| m == metric) {
            Some((_, v)) => v.push(sample.value),
            None => sets.push((metric.to_string(), vec![sample.value])),
        }
    }

    /// After repeat `repeat` (0-based) of workload `w` finished: the decision when it stops
    /// here (precision reached at ≥ min repeats, or max made), else `None`.
    pub(super) fn decide(&mut self, w: usize, workload: &str, repeat: u32) -> Option<Convergence> {
        let made = repeat + 1;
        if self.stopped[w] || made < self.spec.min {
            return None;
        }
        let sets: Vec<&[f64]> = self.samples[w].iter().map(|(_, v)| v.as_slice()).collect();
        let widest = fsbattery_stats::widest_ci95(&sets);
        // No comparable metric: nothing to make precise, the minimum is enough.
        let reached = widest.is_none_or(|x| x.within(self.spec.precision_pct));
        if !reached && made < self.spec.max {
            return None;
        }
        self.stopped[w] = true;
        Some(Convergence {
            workload: workload.to_string(),
            repeats: made,
            reached,
            widest_metric: widest.map_or_else(String::new, |x| self.samples[w][x.index].0.clone()),
            widest_half_width_pct: widest.and_then(|x| x.half_width_pct),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(value: f64) -> Sample {
        Sample {
            repeat: 0,
            value,
            elapsed_s: 0.0,
            user_s: 0.0,
            sys_s: 0.0,
            cpu_pct: 0.0,
            ..Default::default()
        }
    }

    fn spec() -> AutoRepeat {
        AutoRepeat {
            min: 3,
            max: 6,
            precision_pct: 3.0,
        }
    }

    /// Feed `values` one repeat at a time; the repeat at which it stopped and the decision.
    fn run(values: &[f64]) -> Option<(u32, Convergence)> {
        let mut a = AutoState::new(spec(), 1);
        for (r, v) in values.iter().enumerate() {
            a.record(0, "touch", &sample(*v));
            if let Some(c) = a.decide(0, "metadata", r as u32) {
                assert!(a.stopped(0) && a.decide(0, "metadata", r as u32).is_none());
                return Some((r as u32, c));
            }
        }
        None
    }

    #[test]
    fn a_quiet_metric_stops_at_the_minimum_and_says_why() {
        let (at, c) = run(&[100.0, 100.5, 99.8, 100.1, 100.0, 99.9]).unwrap();
        assert_eq!((at, c.repeats, c.reached), (2, 3, true));
        assert_eq!(c.widest_metric, "touch");
        assert!(c.widest_half_width_pct.unwrap() < 3.0, "{c:?}");
    }

    #[test]
    fn a_noisy_metric_goes_on_to_the_maximum() {
        let (at, c) = run(&[50.0, 150.0, 80.0, 130.0, 60.0, 140.0, 100.0]).unwrap();
        assert_eq!((at, c.repeats, c.reached), (5, 6, false));
        assert!(c.widest_half_width_pct.unwrap() > 3.0);
        assert!(c.describe().contains("not converged"), "{}", c.describe());
    }

    #[test]
    fn the_widest_comparable_metric_decides() {
        let mut a = AutoState::new(spec(), 2);
        for r in 0..3u32 {
            a.record(0, "quiet", &sample(10.0));
            a.record(0, "noisy", &sample(f64::from(r) * 10.0 + 1.0));
            a.record(1, "only", &sample(5.0));
            assert!(a.decide(0, "w0", r).is_none());
            let one = a.decide(1, "w1", r);
            assert_eq!(one.is_some(), r == 2, "w1 is exact from its 3rd repeat");
        }
        let c = a.decide(0, "w0", 5).unwrap();
        assert_eq!((c.widest_metric.as_str(), c.reached), ("noisy", false));
    }
}

//! What an interrupted run left in its journal, as the runner continuing it (`run --resume`)
//! needs it: which steps (target × workload × repeat) are finished, their samples (for
//! `--repeat auto`, which must decide on everything measured so far), and which cells were
//! decided already.
//!
//! Invariants: a step is finished when every metric its workload declares has a sample of that
//! repeat and no failure of it is journaled after them; a step measured again in a later part
//! starts afresh (its earlier samples no longer count), as the record's assembler drops them.
//! Only the journal is read: nothing here trusts a results.json.

use crate::journal::Event;
use crate::model::{MetricSpec, Sample};
use std::collections::{HashMap, HashSet};

/// One step's key: (target label, workload, repeat).
type StepKey = (String, String, u32);

/// A step's samples as journaled: (metric, sample, comparable), and the part they came from.
#[derive(Debug, Default)]
struct StepSamples {
    part: usize,
    samples: Vec<(String, Sample, bool)>,
}

/// The finished work of an interrupted run.
#[derive(Debug, Default)]
pub struct Prior {
    steps: HashMap<StepKey, StepSamples>,
    failed: HashSet<StepKey>,
    /// (target label, workload) cells `--repeat auto` decided.
    converged: HashSet<(String, String)>,
}

impl Prior {
    /// Read the events of the run's journal (all its parts so far).
    pub fn from_events(events: &[Event]) -> Prior {
        let mut prior = Prior::default();
        let mut part = 0;
        for ev in events {
            match ev {
                Event::Resumed { .. } => part += 1,
                Event::Sample {
                    target,
                    workload,
                    metric,
                    comparable,
                    sample,
                    ..
                } => {
                    let key = (target.clone(), workload.clone(), sample.repeat);
                    let entry = prior.steps.entry(key.clone()).or_default();
                    if entry.part < part {
                        // Measured again in this part: what an earlier part left is replaced.
                        *entry = StepSamples {
                            part,
                            samples: Vec::new(),
                        };
                        prior.failed.remove(&key);
                    }
                    entry.samples.retain(|(m, _, _)| m != metric);
                    entry
                        .samples
                        .push((metric.clone(), sample.clone(), *comparable));
                }
                Event::Failed {
                    target,
                    workload,
                    repeat,
                    ..
                } => {
                    prior
                        .failed
                        .insert((target.clone(), workload.clone(), *repeat));
                }
                Event::Converged {
                    target,
                    convergence,
                } => {
                    prior
                        .converged
                        .insert((target.clone(), convergence.workload.clone()));
                }
                _ => {}
            }
        }
        prior
    }

    /// The samples of a finished step (every declared metric measured, no failure since), or
    /// `None` when the step is still to be measured.
    pub(super) fn finished(
        &self,
        label: &str,
        workload: &str,
        repeat: u32,
        metrics: &[MetricSpec],
    ) -> Option<&[(String, Sample, bool)]> {
        let key = (label.to_string(), workload.to_string(), repeat);
        if self.failed.contains(&key) {
            return None;
        }
        let step = self.steps.get(&key)?;
        let all = metrics
            .iter()
            .all(|m| step.samples.iter().any(|(n, _, _)| *n == m.name));
        all.then_some(step.samples.as_slice())
    }

    /// `--repeat auto` decided this cell before.
    pub(super) fn converged(&self, label: &str, workload: &str) -> bool {
        self.converged
            .contains(&(label.to_string(), workload.to_string()))
    }
}

/// Step (`repeat`, `w`) of the run's target was finished in an earlier part.
pub(super) fn finished(run: &super::TargetRun<'_>, repeat: u32, w: usize) -> bool {
    samples_of(run, repeat, w).is_some()
}

fn samples_of<'p>(
    run: &super::TargetRun<'p>,
    repeat: u32,
    w: usize,
) -> Option<&'p [(String, Sample, bool)]> {
    let prior = run.prior?;
    let pw = &run.plan.workloads[w];
    let metrics = pw.workload.metrics(&pw.params);
    prior.finished(run.label, pw.workload.name(), repeat, &metrics)
}

/// When step (`repeat`, `w`) was finished in an earlier part: count it, give its comparable
/// samples to `--repeat auto`, and say so (true); false when it is still to be measured.
pub(super) fn replay(run: &mut super::TargetRun<'_>, repeat: u32, w: usize) -> bool {
    let Some(samples) = samples_of(run, repeat, w) else {
        return false;
    };
    *run.index += 1;
    if let Some(auto) = run.auto.as_mut() {
        let comparable: Vec<(&str, &Sample)> = samples
            .iter()
            .filter(|(_, _, c)| *c)
            .map(|(m, s, _)| (m.as_str(), s))
            .collect();
        auto.replay(run.t, w, &comparable);
    }
    true
}

/// `--repeat auto`: the cells an earlier part decided take no more repeats.
pub(super) fn restore_decisions(
    auto: &mut super::auto::AutoRun,
    prior: &Prior,
    labels: &[String],
    workloads: &[super::PlannedWorkload],
) {
    for (t, label) in labels.iter().enumerate() {
        for (w, pw) in workloads.iter().enumerate() {
            if prior.converged(label, pw.workload.name()) {
                auto.restore_stopped(t, w);
            }
        }
    }
}

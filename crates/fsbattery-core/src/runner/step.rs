//! One step of the runner: one workload run once on a set-up target. Every sample goes to the
//! journal the moment it exists ([`SampleSink`]); under MPI the step ends with every rank's
//! outcome (`Team::cell_end`), so a failure on any rank fails the cell on all of them.

use super::ranks::{combine_ranks, rank_root, ranks_error, stop};
use super::*;
use fsbattery_record::meta::MetricMeta;

/// Where a step's samples go while its workload runs: combined over the ranks, shown to the
/// observer, kept for `--repeat auto`, journaled at once.
struct SampleSink<'s> {
    step: &'s Step<'s>,
    metrics: &'s [MetricSpec],
    method: String,
    journal: &'s mut Journal,
    obs: &'s mut dyn RunObserver,
    memcg: Option<&'s crate::targets::MemoryCgroup>,
    write_err: Option<std::io::Error>,
    comparable: Vec<(String, Sample)>,
    /// The first metric recorded that the workload does not declare.
    undeclared: Option<String>,
}

impl SampleSink<'_> {
    fn take(&mut self, metric: &str, mut sample: Sample) {
        // Right after a phase, while its files still exist: the cgroup's cache at its fullest.
        if let Some(cg) = self.memcg {
            cg.sample_cache();
        }
        // A metric the workload does not declare has no unit or direction to record: guessing
        // ("s", lower is better) would rank it wrongly, so the cell fails instead.
        let Some(spec) = self.metrics.iter().find(|m| m.name == metric) else {
            self.undeclared.get_or_insert_with(|| metric.to_string());
            return;
        };
        let unit = spec.unit.as_str();
        let meta = spec.meta.clone();
        combine_ranks(
            &mut sample,
            &meta.unwrap_or_else(|| MetricMeta::from_unit(unit)),
        );
        self.obs.sample(self.step, metric, unit, &sample);
        if spec.comparable {
            self.comparable.push((metric.to_string(), sample.clone()));
        }
        let (target, workload) = (self.step.target, self.step.workload);
        let ev = sample_event(target, workload, metric, spec, &self.method, sample);
        if let Err(e) = self.journal.append(&ev) {
            self.write_err.get_or_insert(e);
        }
    }
}

/// The journal event for one sample of `workload`'s `metric`, carrying the unit, direction and
/// comparability of `spec`, the participant's declaration of it: one path for workload samples
/// and the runner's lifecycle samples.
pub(super) fn sample_event(
    target: &str,
    workload: &str,
    metric: &str,
    spec: &MetricSpec,
    method: &str,
    sample: Sample,
) -> Event {
    Event::Sample {
        target: target.into(),
        workload: workload.into(),
        metric: metric.into(),
        unit: spec.unit.clone(),
        better: spec.better,
        comparable: spec.comparable,
        method: method.into(),
        sample,
    }
}

/// The refusal of a metric a workload recorded without declaring it (a bug in the workload,
/// not the user's to fix, so the cell fails with its name).
fn undeclared_error(workload: &str, metric: &str) -> WorkloadError {
    WorkloadError::Failed(format!(
        "{workload} recorded metric '{metric}', which it does not declare: no unit or \
         direction to record it with (a bug in fsbattery; please report it)"
    ))
}

/// Run one workload once on the set-up target, journaling each sample as it is measured.
pub(super) fn run_step(
    run: &mut TargetRun<'_>,
    target: &mut dyn Target,
    devices: Option<&DeviceSet>,
    repeat: u32,
    w: usize,
) -> std::io::Result<()> {
    if stop(run.team) {
        return Ok(());
    }
    let pw = &run.plan.workloads[w];
    let name = pw.workload.name();
    let label = run.label;
    let step = Step {
        index: *run.index,
        total: run.total,
        target: label,
        workload: name,
        repeat,
    };
    run.obs.step_start(&step);
    let metrics = pw.workload.metrics(&pw.params);
    let mut sink = SampleSink {
        step: &step,
        metrics: &metrics,
        method: pw.method.to_string(),
        journal: &mut *run.journal,
        obs: &mut *run.obs,
        memcg: run.memcg,
        write_err: None,
        comparable: Vec::new(),
        undeclared: None,
    };
    let (team, plan) = (run.team, run.plan);
    let mut res = run_workload(team, plan, pw, target, devices, repeat, &mut sink);
    if let (Ok(()), Some(metric)) = (&res, &sink.undeclared) {
        res = Err(undeclared_error(name, metric));
    }
    if let Some(e) = sink.write_err {
        return Err(e);
    }
    let comparable = sink.comparable;
    // The workload saw an errno; what caused it underneath (the kernel's error on the
    // filesystem's device, the FUSE watchdog's abort) goes with it.
    let error = outcome(team, &res).map(|e| match target.fault() {
        Some(cause) => format!("{e} [{cause}]"),
        None => e,
    });
    if let Some(reason) = &error {
        run.journal.append(&Event::Failed {
            target: label.to_string(),
            workload: name.into(),
            repeat,
            reason: reason.clone(),
        })?;
    }
    auto_step(run, w, res.is_ok(), &comparable)?;
    run.obs.step_end(&step, error.as_deref());
    *run.index += 1;
    Ok(())
}

/// The workload in its context: this rank's directory (the target's root for one process),
/// the cache policy, the device counters, the datasets and the team.
fn run_workload(
    team: &Team<'_>,
    plan: &Plan,
    pw: &PlannedWorkload,
    target: &mut dyn Target,
    devices: Option<&DeviceSet>,
    repeat: u32,
    sink: &mut SampleSink<'_>,
) -> Result<(), WorkloadError> {
    let cache = crate::cache::CacheMode {
        policy: pw.cache.policy,
        tool: pw.workload.tool_cache(),
    };
    // Under MPI a rank that cannot make its directory fails the cell like any workload error
    // (through `cell_end`), never the run: the other ranks are waiting for it.
    let root = rank_root(team, target.root());
    let dir = root
        .as_ref()
        .map_or(target.root(), |r| r.as_path())
        .to_path_buf();
    let mut on_sample = |metric: &str, sample: Sample| sink.take(metric, sample);
    let ctx = WorkloadCtx::new(&dir, repeat, pw.method, plan.pause, &mut on_sample)
        .with_devices(devices)
        .with_cache(cache)
        .with_phase_cache(&pw.cache.phases);
    let mut ctx = match &plan.datasets {
        Some(store) => ctx.with_datasets(store),
        None => ctx,
    }
    .with_team(team, target.root());
    let res = match &root {
        Err(e) => Err(WorkloadError::Failed(e.to_string())),
        Ok(_) => pw.workload.run(&mut ctx, &pw.params),
    };
    let fault = ctx.fault().cloned();
    if team.is_parallel() && root.is_ok() {
        // Each rank's own directory, emptied by its workload (best effort: a failed
        // workload's leftovers are reported by the workload's own cleanup).
        let _ = std::fs::remove_dir(&dir);
    }
    match (res, fault) {
        (Ok(()), Some(fault)) => Err(fault.into()),
        (res, _) => res,
    }
}

/// Why the cell failed, if it did: this process's error, or under MPI every rank's (a signal
/// on any rank stops every rank, and is no failure).
fn outcome(team: &Team<'_>, res: &Result<(), WorkloadError>) -> Option<String> {
    let error = match res {
        Ok(()) | Err(WorkloadError::Interrupted) => None,
        Err(e) => Some(e.to_string()),
    };
    if !team.is_parallel() {
        return error;
    }
    let interrupted = matches!(res, Err(WorkloadError::Interrupted));
    let followed = matches!(res, Err(WorkloadError::Team(_)));
    let ends = team.cell_end(error.as_deref(), interrupted, followed);
    if ends.iter().any(|e| e.interrupted) {
        crate::interrupt::request();
        return None;
    }
    ranks_error(&ends)
}

/// `--repeat auto` after one step: keep its comparable samples, and journal the decision when
/// the cell stops here (alone rule; the compared rule decides after the round); a failed step
/// stops its cell (no decision can come of it).
fn auto_step(
    run: &mut TargetRun<'_>,
    w: usize,
    finished: bool,
    samples: &[(String, Sample)],
) -> std::io::Result<()> {
    let t = run.t;
    let Some(auto) = run.auto.as_mut() else {
        return Ok(());
    };
    if !finished {
        auto.fail(t, w);
        return Ok(());
    }
    for (metric, sample) in samples {
        auto.record(t, w, metric, sample);
    }
    let name = run.plan.workloads[w].workload.name();
    match auto.after_step(t, w, name) {
        Some(convergence) => run.journal.append(&Event::Converged {
            target: run.label.to_string(),
            convergence,
        }),
        None => Ok(()),
    }
}

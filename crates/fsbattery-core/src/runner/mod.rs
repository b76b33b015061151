//! The runner: expands targets × repeats × workloads, drives each target's lifecycle, and
//! journals every result the moment it exists.
//!
//! Order: in rounds. Each round runs the same cycle on every target in turn — set the target
//! up (a fresh filesystem when its kind makes one), run the cycle's workloads, tear it down —
//! so the targets are measured interleaved, under the same drift of the machine, and after
//! each round `--repeat auto` can judge every row on all targets' samples so far. A cycle is
//! one repeat of every workload (`--fresh per-repeat`, the seeds' way), one repeat of one
//! workload (`per-workload`), or the whole run (`once`). A failed setup fails that target's
//! remaining cells and the run goes on; a signal stops the run before the next step and
//! everything measured so far stays in the journal.

mod age;
mod auto;
#[cfg(test)]
mod auto_run_tests;
mod checked;
mod datasets;
mod freefrag;
pub mod lifecycle;
mod observer;
mod ranks;
mod resume;
mod step;

pub use checked::{CheckedPlan, Space};
pub use datasets::dataset_store;
pub use observer::{RunObserver, Silent, Step};
pub use resume::Prior;

use crate::collective::{Collective, Solo, Team};
use crate::dataset::DatasetStore;
use crate::error::WorkloadError;
use crate::journal::{assemble, Event, Journal};
use ranks::stop;
use step::run_step;

use crate::model::*;
use crate::params::{Params, Scale};
use crate::suite::Suite;
use crate::targets::blockstat::DeviceSet;
use crate::targets::{fsinfo, Target};
use crate::workload::{Method, Workload, WorkloadCtx};
use fsbattery_record::aging::AgeSpec;
use fsbattery_record::repeats::{AutoRepeat, StopReason};
use fsbattery_stats::Aggregate;
use std::path::Path;
use std::time::Duration;

pub use fsbattery_record::RESULTS_FILE;

/// A workload with the parameters it will run with.
pub struct PlannedWorkload {
    /// The workload.
    pub workload: &'static dyn Workload,
    /// Resolved parameters.
    pub params: Params,
    /// How it runs: `--method`, else its suite entry's `method`, else native.
    pub method: Method,
    /// Its cache policy, per phase where the suite sets one (`--cache` sets every phase).
    pub cache: crate::cache_plan::WorkloadCache,
}

/// A plan as its builder assembles it: everything is known to exist before the first setup.
/// The runner takes it only as a [`CheckedPlan`], once the workloads' needs fit its targets.
pub struct Plan {
    /// The suite the rows come from.
    pub suite: Suite,
    /// Scale.
    pub scale: Scale,
    /// Repeats per cell.
    pub repeat: u32,
    /// Aggregate shown in tables.
    pub aggregate: Aggregate,
    /// Pause before each test.
    pub pause: Duration,
    /// The run's method (`--method`, else native); each workload's own is
    /// [`PlannedWorkload::method`].
    pub method: Method,
    /// Where the cache policy, pause, methods and fs options came from, for the record.
    pub settings: fsbattery_record::settings::RunSettings,
    /// Lines the run prints before it starts (a shortened pause, the seed's memory applied
    /// or why not), so the user reads what the record keeps.
    pub notes: Vec<String>,
    /// Workloads in run order.
    pub workloads: Vec<PlannedWorkload>,
    /// Table rows (labels rendered).
    pub rows: Vec<RowInfo>,
    /// Targets in column order.
    pub targets: Vec<Box<dyn Target>>,
    /// When targets that make filesystems get a fresh one.
    pub fresh: Fresh,
    /// Source datasets (kernel trees) for the workloads that read one; made by the caller in a
    /// directory outside every target.
    pub datasets: Option<DatasetStore>,
    /// Default targets left out because this machine cannot make them (recorded, no cells).
    pub skipped: Vec<crate::model::SkippedTarget>,
    /// The run's name (`--label`), recorded in [`PlanInfo::label`].
    pub label: Option<String>,
    /// `--repeat auto`: repeat each target × workload until precise (`repeat` is its maximum).
    pub auto: Option<AutoRepeat>,
    /// `--age`: churn each made filesystem to this fill before its workloads.
    pub age: Option<AgeSpec>,
    /// Cache policy before each timed phase (`--cache`), given to every workload's context.
    pub cache: CachePolicy,
    /// `--memory`: run inside a memory cgroup with this limit.
    pub memory: Option<MemoryRequest>,
    /// `--rank-reference`: rank RAM targets (tmpfs) against disks in `--repeat auto`'s
    /// decisions too.
    pub rank_reference: bool,
    /// `--weights`: the composite's group weights the run asked for (recorded; the report
    /// weighs with them).
    pub weights: std::collections::BTreeMap<String, f64>,
}

/// `--memory`: the limit, where it came from, and the work directory its state file goes to
/// (so `fsbattery cleanup --work-dir` removes a cgroup a killed run left).
#[derive(Debug, Clone)]
pub struct MemoryRequest {
    /// Limit in bytes.
    pub limit_bytes: u64,
    /// "--memory", or "seed_memory of SUITE".
    pub source: String,
    /// The run's work directory.
    pub workdir: std::path::PathBuf,
}

/// When a target that makes filesystems is made afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fresh {
    /// A fresh filesystem for each repeat of the whole workload list (the seeds' way).
    #[default]
    PerRepeat,
    /// A fresh filesystem for every workload run.
    PerWorkload,
    /// One filesystem for the whole run on that target.
    Once,
}

impl Plan {
    /// The plan as recorded in the run record.
    pub fn info(&self) -> PlanInfo {
        PlanInfo {
            suite: self.suite.name.clone(),
            scale: self.scale.to_string(),
            repeat: self.repeat,
            aggregate: self.aggregate,
            pause_secs: self.pause.as_secs_f64(),
            method: self.method_text(),
            workloads: self
                .workloads
                .iter()
                .map(|w| WorkloadPlan {
                    name: w.workload.name().into(),
                    params: w.params.to_text(w.workload.params()),
                    param_units: w.params.units(w.workload.params()),
                    metrics: w.workload.metrics(&w.params),
                })
                .collect(),
            rows: self.rows.clone(),
            datasets: Vec::new(),
            skipped_targets: self.skipped.clone(),
            label: self.label.clone(),
            repeat_auto: self.auto,
            age: self.age,
            cache: Some(Box::new(RunCache {
                policy: self.cache,
                memory: None,
            })),
            settings: Some(Box::new(fsbattery_record::settings::RunSettings {
                interleaved: self.fresh != Fresh::Once,
                ..self.settings.clone()
            })),
            weights: self.weights.clone(),
        }
    }

    /// The recorded method: the one every workload ran with, or "mixed" when a suite gave
    /// some workloads their own (each workload's is in the settings and on its samples).
    pub fn method_text(&self) -> String {
        let mut methods = self.workloads.iter().map(|w| w.method);
        match methods.next() {
            Some(first) if methods.all(|m| m == first) => first.to_string(),
            Some(_) => "mixed".into(),
            None => self.method.to_string(),
        }
    }
}

/// How a run ended.
pub struct Outcome {
    /// The assembled record (also written as results.json).
    pub record: RunRecord,
    /// Stopped by SIGINT/SIGTERM.
    pub interrupted: bool,
    /// Cells that failed.
    pub failed_cells: usize,
}

/// Run the plan, writing the journal and results.json into `out_dir` (which must exist).
pub fn execute(
    plan: &mut CheckedPlan,
    out_dir: &Path,
    host: HostInfo,
    obs: &mut dyn RunObserver,
) -> std::io::Result<Outcome> {
    execute_with(plan, out_dir, host, obs, &Solo)
}

/// [`execute`] as one of `comm`'s ranks: every rank runs the same plan in step (see
/// [`crate::collective`]); each works in its own directory `rank-N` under the target's root,
/// and every sample is combined over the ranks. Rank 0's journal is the run's.
pub fn execute_with(
    plan: &mut CheckedPlan,
    out_dir: &Path,
    host: HostInfo,
    obs: &mut dyn RunObserver,
    comm: &dyn Collective,
) -> std::io::Result<Outcome> {
    // Only rank 0's journal is the run's; another rank's lives in memory, so a rank that is
    // killed leaves no directory behind.
    let journal = match comm.rank() {
        0 => Journal::create(out_dir)?,
        _ => Journal::in_memory(),
    };
    execute_in(plan, journal, out_dir, host, obs, comm)
}

/// [`execute_with`] into a journal the caller created (and so claimed `out_dir` with, before
/// saying anything: see [`Journal::create`]).
pub fn execute_in(
    plan: &mut CheckedPlan,
    journal: Journal,
    out_dir: &Path,
    host: HostInfo,
    obs: &mut dyn RunObserver,
    comm: &dyn Collective,
) -> std::io::Result<Outcome> {
    execute_parts(plan, journal, None, out_dir, host, obs, comm)
}

/// Continue an interrupted run (`run --resume`) in its reopened journal
/// ([`Journal::reopen`]): the same plan, whose steps `prior` holds finished are not measured
/// again (their samples still count for `--repeat auto`), the rest measured as in a first run.
/// The caller has checked that `plan` is the plan the journal began with.
pub fn resume_in(
    plan: &mut CheckedPlan,
    journal: Journal,
    prior: &Prior,
    out_dir: &Path,
    host: HostInfo,
    obs: &mut dyn RunObserver,
    comm: &dyn Collective,
) -> std::io::Result<Outcome> {
    execute_parts(plan, journal, Some(prior), out_dir, host, obs, comm)
}

/// A run's first part (`prior` is `None`) or a later one.
fn execute_parts(
    plan: &mut CheckedPlan,
    mut journal: Journal,
    prior: Option<&Prior>,
    out_dir: &Path,
    host: HostInfo,
    obs: &mut dyn RunObserver,
    comm: &dyn Collective,
) -> std::io::Result<Outcome> {
    // The type's promise: only a plan whose room was checked is run (a dry run's never is).
    assert_eq!(
        plan.space(),
        Space::Checked,
        "a dry run's plan is never run"
    );
    let plan = &mut plan.0;
    let team = Team::new(comm);
    // Warnings raised under targets and workloads reach `obs`, not stderr (see `notice`).
    let notices = crate::notice::Capture::begin();
    let mut info = plan.info();
    info.datasets = prepare_datasets(plan, obs)?;
    // Entered after the datasets are made (their generation is not a measurement), left when
    // this guard drops: at the end, on error and after Ctrl-C alike.
    let memcg = enter_memory_cgroup(plan, &mut info)?;
    let boot_id = crate::host::boot_id();
    journal.append(&match prior {
        None => Event::Start {
            schema_version: SCHEMA_VERSION,
            tool: ToolInfo {
                name: "fsbattery".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            started: now(),
            host,
            plan: info,
            boot_id,
        },
        Some(_) => Event::Resumed {
            started: now(),
            host,
            boot_id,
        },
    })?;
    let total = (plan.targets.len() * plan.repeat as usize * plan.workloads.len()) as u64;
    let mut index = 0u64;
    let mut targets = std::mem::take(&mut plan.targets);
    let labels = unique_labels(&targets);
    let mut auto = plan.auto.map(|a| auto_run(plan, a, &targets));
    if let (Some(a), Some(p)) = (auto.as_mut(), prior) {
        resume::restore_decisions(a, p, &labels, &plan.workloads);
    }
    let names: Vec<&str> = plan.workloads.iter().map(|w| w.workload.name()).collect();
    let all = cycles(plan);
    let mut states = vec![TargetState::default(); targets.len()];
    'rounds: for (i, cycle) in all.iter().enumerate() {
        if let Some(a) = auto.as_mut() {
            // Every rank must agree, as the clocks differ.
            if team.agree_stop(!a.round_fits()) {
                let out = a.stop_all(&names, StopReason::Budget, fsbattery_stats::DEFAULT_ALPHA);
                converged(&mut journal, &labels, out)?;
                break;
            }
        }
        for (t, target) in targets.iter_mut().enumerate() {
            if stop(&team) {
                break 'rounds;
            }
            if states[t].dead {
                continue;
            }
            let mut run = TargetRun {
                team: &team,
                plan,
                label: &labels[t],
                t,
                journal: &mut journal,
                obs: &mut *obs,
                notices: &notices,
                index: &mut index,
                total,
                auto: auto.as_mut(),
                memcg: memcg.as_ref(),
                prior,
            };
            run_cycle(&mut run, target.as_mut(), &all, i, &mut states[t])?;
        }
        if let Some(a) = auto.as_mut() {
            let ws: Vec<usize> = cycle.iter().map(|&(_, w)| w).collect();
            let out = a.after_round(&ws, &names, fsbattery_stats::DEFAULT_ALPHA);
            converged(&mut journal, &labels, out)?;
        }
    }
    plan.targets = targets;
    finish(journal, memcg, &notices, obs, out_dir, comm.rank())
}

/// The auto-repeat state of a run: its workloads' headline metrics (those its table shows)
/// and which targets are ranked.
fn auto_run(plan: &Plan, spec: AutoRepeat, targets: &[Box<dyn Target>]) -> auto::AutoRun {
    let headlines = plan
        .workloads
        .iter()
        .map(|w| {
            let shown: Vec<&str> = plan
                .rows
                .iter()
                .filter(|r| r.workload == w.workload.name())
                .map(|r| r.metric.as_str())
                .collect();
            auto::headlines(&w.workload.metrics(&w.params), &shown)
        })
        .collect();
    // A RAM reference (tmpfs) is shown, not ranked against disks, unless asked or unless
    // every target is one; it then repeats alone, to its precision.
    let reference: Vec<bool> = targets
        .iter()
        .map(|t| fsinfo::in_memory(t.as_ref()))
        .collect();
    let rank_all = plan.rank_reference || reference.iter().all(|r| *r);
    let ranked = reference.iter().map(|r| rank_all || !r).collect();
    auto::AutoRun::new(spec, headlines, ranked, plan.fresh == Fresh::Once)
}

/// Journal the auto-repeat decisions made, each under its target's label.
fn converged(
    journal: &mut Journal,
    labels: &[String],
    decisions: Vec<(usize, fsbattery_record::repeats::Convergence)>,
) -> std::io::Result<()> {
    for (t, convergence) in decisions {
        journal.append(&Event::Converged {
            target: labels[t].clone(),
            convergence,
        })?;
    }
    Ok(())
}

/// The end of a run: the memory cgroup's peak, the end event, the observer told, the record
/// assembled from the journal (and written by rank 0).
fn finish(
    mut journal: Journal,
    memcg: Option<crate::targets::MemoryCgroup>,
    notices: &crate::notice::Capture,
    obs: &mut dyn RunObserver,
    out_dir: &Path,
    rank: usize,
) -> std::io::Result<Outcome> {
    if let Some(cg) = &memcg {
        journal.append(&Event::MemoryPeak {
            peak_bytes: cg.peak(),
            peak_cache_bytes: cg.peak_cache(),
        })?;
    }
    drop(memcg);
    let interrupted = crate::interrupt::requested();
    journal.append(&Event::End {
        finished: now(),
        interrupted,
    })?;
    observer::relay(notices, obs);
    obs.finish();
    let events = journal.events().map_err(std::io::Error::other)?;
    let record = assemble(&events).map_err(std::io::Error::other)?;
    if rank == 0 {
        let json = serde_json::to_vec_pretty(&record).map_err(std::io::Error::other)?;
        // Never half a results.json: a full or read-only directory keeps none at all.
        let path = out_dir.join(RESULTS_FILE);
        crate::atomic::write(&path, &json).map_err(|e| {
            std::io::Error::new(e.kind(), format!("writing {}: {e}", path.display()))
        })?;
    }
    let failed_cells = record
        .cells
        .iter()
        .filter(|c| matches!(c.status, CellStatus::Failed { .. }))
        .count();
    Ok(Outcome {
        record,
        interrupted,
        failed_cells,
    })
}

/// One setup/teardown cycle: the (repeat, workload index) steps run on one fresh filesystem.
type Cycle = Vec<(u32, usize)>;

/// Group the target's steps into cycles by the freshness policy.
fn cycles(plan: &Plan) -> Vec<Cycle> {
    let n = plan.workloads.len();
    let repeats = 0..plan.repeat;
    match plan.fresh {
        Fresh::PerRepeat => repeats.map(|r| (0..n).map(|w| (r, w)).collect()).collect(),
        Fresh::PerWorkload => repeats
            .flat_map(|r| (0..n).map(move |w| vec![(r, w)]))
            .collect(),
        Fresh::Once => vec![repeats.flat_map(|r| (0..n).map(move |w| (r, w))).collect()],
    }
}

/// Everything the runner threads through one target's cycle.
struct TargetRun<'a> {
    team: &'a Team<'a>,
    plan: &'a Plan,
    label: &'a str,
    /// The target's index in plan order.
    t: usize,
    journal: &'a mut Journal,
    obs: &'a mut dyn RunObserver,
    notices: &'a crate::notice::Capture,
    index: &'a mut u64,
    total: u64,
    /// `--repeat auto`: every cell's samples and decisions.
    auto: Option<&'a mut auto::AutoRun>,
    /// `--memory`: the cgroup the run is in (its page cache is sampled after each phase).
    memcg: Option<&'a crate::targets::MemoryCgroup>,
    /// `run --resume`: the steps an earlier part finished.
    prior: Option<&'a Prior>,
}

/// What the runner remembers of a target between rounds.
#[derive(Debug, Clone, Copy, Default)]
struct TargetState {
    /// Its record is journaled (after its first setup, or its failure).
    announced: bool,
    /// Its setup failed: its remaining cells are failed, it takes no further round.
    dead: bool,
}

impl TargetRun<'_> {
    /// Workload `w` needs no more repeats on this target (`--repeat auto` decided, or it
    /// failed there).
    fn done(&self, w: usize) -> bool {
        self.auto.as_ref().is_some_and(|a| a.stopped(self.t, w))
    }
}

impl TargetRun<'_> {
    /// Pass on what targets and workloads raised since the last call.
    fn relay(&mut self) {
        observer::relay(self.notices, self.obs);
    }
}

/// Run cycle `i` of `all` on one target: set it up, run the cycle's steps that are still
/// wanted, tear it down. A failed setup (or aging) fails every remaining step of the target.
fn run_cycle(
    run: &mut TargetRun<'_>,
    target: &mut dyn Target,
    all: &[Cycle],
    i: usize,
    state: &mut TargetState,
) -> std::io::Result<()> {
    // A resumed run's steps finished before are counted (and kept for `--repeat auto`),
    // never measured again: a cycle left with nothing to measure makes no filesystem.
    let cycle: Cycle = all[i]
        .iter()
        .copied()
        .filter(|&(r, w)| !resume::replay(run, r, w))
        .collect();
    if cycle.is_empty() {
        return Ok(());
    }
    if cycle.iter().all(|&(_, w)| run.done(w)) {
        *run.index += cycle.len() as u64;
        return Ok(());
    }
    let repeat = cycle[0].0;
    let setup = target.setup(repeat);
    run.relay();
    let mut lifecycle = match setup {
        Ok(lc) => lc,
        Err(e) => {
            let reason = format!("setup of {} failed: {e}", target.spec());
            return fail_rest(run, target, &all[i..], &reason, state);
        }
    };
    if !state.announced {
        let rec = describe(target, run.label);
        run.journal.append(&Event::Target { target: rec })?;
        state.announced = true;
    }
    if let Some(lc) = &lifecycle {
        for (metric, sample) in lifecycle::after_setup(lc, repeat) {
            lifecycle_sample(run, metric, sample)?;
        }
    }
    if let Err(reason) = age_fresh(run, target, lifecycle.as_mut()) {
        teardown(run, target, lifecycle, repeat)?;
        return fail_rest(run, target, &all[i..], &reason, state);
    }
    let devices = DeviceSet::open(&target.block_devices());
    let result = cycle.iter().try_for_each(|&(r, w)| {
        if run.done(w) {
            *run.index += 1;
            return Ok(());
        }
        let step = run_step(run, target, devices.as_ref(), r, w);
        run.relay();
        step
    });
    teardown(run, target, lifecycle, repeat)?;
    result
}

/// `--age`: churn the filesystem just made to the planned fill before any workload (untimed;
/// the churn's record goes with the lifecycle). A target that made no filesystem cannot be
/// aged (the plan refuses it; this keeps a user's directory safe all the same).
fn age_fresh(
    run: &mut TargetRun<'_>,
    target: &dyn Target,
    lifecycle: Option<&mut Lifecycle>,
) -> Result<(), String> {
    let Some(spec) = run.plan.age else {
        return Ok(());
    };
    let Some(lc) = lifecycle else {
        return Err(format!(
            "--age: {} is not a filesystem fsbattery made",
            target.spec()
        ));
    };
    let what = format!(
        "aging {} to {} % (seed {})",
        target.spec(),
        spec.pct,
        spec.seed
    );
    run.obs.message(&what);
    lc.aging = Some(age::age(target.root(), spec)?);
    Ok(())
}

/// Tear down after a cycle; the unmount time becomes a sample and the lifecycle is journaled.
fn teardown(
    run: &mut TargetRun<'_>,
    target: &mut dyn Target,
    lifecycle: Option<Lifecycle>,
    repeat: u32,
) -> std::io::Result<()> {
    let torn = target.teardown();
    run.relay();
    if let Some(mut lc) = lifecycle {
        let umount = torn.as_ref().ok().copied().flatten();
        lc.umount_secs = umount.map(|t| t.elapsed_s);
        lc.umount_cpu = umount.map(|t| t.cpu());
        if let Some(t) = umount {
            lifecycle_sample(run, "umount", t.sample(repeat, t.elapsed_s))?;
        }
        let ev = Event::Lifecycle {
            target: run.label.to_string(),
            lifecycle: lc,
        };
        run.journal.append(&ev)?;
    }
    if let Err(e) = torn {
        run.obs
            .teardown(&format!("teardown of {} failed: {e}", target.spec()));
    }
    Ok(())
}

/// Journal one lifecycle sample as the built-in participant's declaration describes it.
fn lifecycle_sample(run: &mut TargetRun<'_>, metric: &str, sample: Sample) -> std::io::Result<()> {
    let declared = &lifecycle::FILESYSTEM;
    let specs = (declared.metrics)();
    let spec = specs.iter().find(|m| m.name == metric);
    let spec = spec.unwrap_or_else(|| panic!("lifecycle metric {metric} is declared"));
    let method = run.plan.method.to_string();
    let ev = step::sample_event(run.label, declared.name, metric, spec, &method, sample);
    run.journal.append(&ev)
}

/// Setup failed: every remaining step of this target fails with the tool's message; the run
/// goes on with the next target.
fn fail_rest(
    run: &mut TargetRun<'_>,
    target: &dyn Target,
    rest: &[Cycle],
    reason: &str,
    state: &mut TargetState,
) -> std::io::Result<()> {
    run.obs.message(reason);
    state.dead = true;
    if !state.announced {
        state.announced = true;
        let rec = TargetRecord {
            label: run.label.to_string(),
            spec: target.spec().into(),
            options: target.options(),
            error: Some(reason.to_string()),
            ..Default::default()
        };
        run.journal.append(&Event::Target { target: rec })?;
    }
    for &(repeat, w) in rest.iter().flatten() {
        if run.done(w) || resume::finished(run, repeat, w) {
            continue;
        }
        let ev = Event::Failed {
            target: run.label.to_string(),
            workload: run.plan.workloads[w].workload.name().into(),
            repeat,
            reason: reason.to_string(),
        };
        run.journal.append(&ev)?;
        *run.index += 1;
    }
    if let Some(a) = run.auto.as_mut() {
        for w in 0..run.plan.workloads.len() {
            a.fail(run.t, w);
        }
    }
    Ok(())
}

/// Move this process into the `--memory` cgroup, if asked, and say so in the plan record.
fn enter_memory_cgroup(
    plan: &Plan,
    info: &mut PlanInfo,
) -> std::io::Result<Option<crate::targets::MemoryCgroup>> {
    let Some(req) = &plan.memory else {
        return Ok(None);
    };
    let cg = crate::targets::MemoryCgroup::enter(&req.workdir, req.limit_bytes)
        .map_err(std::io::Error::other)?;
    if let Some(c) = info.cache.as_mut() {
        c.memory = Some(MemoryLimit {
            limit_bytes: cg.limit(),
            source: req.source.clone(),
            cgroup: cg.path().display().to_string(),
            version: cg.version().into(),
            peak_bytes: None,
            peak_cache_bytes: None,
        });
    }
    Ok(Some(cg))
}

/// The target as measured now (after setup): filesystem, options, device, capabilities.
fn describe(target: &dyn Target, label: &str) -> TargetRecord {
    let m = fsinfo::describe(target.root());
    TargetRecord {
        fs_facts: Some(fsinfo::facts(target, &m.fs_type)),
        label: label.into(),
        spec: target.spec().into(),
        path: target.root().display().to_string(),
        fs_type: m.fs_type,
        mount_options: m.options,
        device_model: crate::targets::disk_model::of(&m.device, target.root()),
        device: m.device,
        capabilities: target.capabilities(),
        options: target.options(),
        stores: <crate::dataset::Stores as crate::dataset::StoresProbe>::probe(target.root()).ok(),
        lifecycles: Vec::new(),
        convergence: Vec::new(),
        error: None,
        host: None,
    }
}

/// Make every dataset the planned workloads read, before any target is touched, so generation
/// time never falls inside a cell; returns what the record says of them.
fn prepare_datasets(
    plan: &Plan,
    obs: &mut dyn RunObserver,
) -> std::io::Result<Vec<crate::dataset::DatasetInfo>> {
    let Some(store) = &plan.datasets else {
        return Ok(Vec::new());
    };
    for w in &plan.workloads {
        if let Some(spec) = w.workload.dataset(&w.params) {
            obs.message(&format!(
                "preparing the source dataset of {}",
                w.workload.name()
            ));
            store.prepare(&spec).map_err(std::io::Error::other)?;
        }
        if let Some(g) = w.workload.generated(&w.params) {
            obs.message(&format!("generating the source of {}", w.workload.name()));
            store.prepare_generated(&g).map_err(std::io::Error::other)?;
        }
    }
    Ok(store.prepared().iter().map(|d| d.info()).collect())
}

/// Column labels: each target's own, or, where several share one, what sets them apart
/// ([`crate::targets::column_labels`]).
pub fn unique_labels(targets: &[Box<dyn Target>]) -> Vec<String> {
    crate::targets::column_labels(targets)
}

fn now() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
#[path = "observer_tests.rs"]
mod observer_tests;

//! The runner: expands targets × repeats × workloads, drives each target's lifecycle, and
//! journals every result the moment it exists.
//!
//! Order: for each target, for each repeat, set the target up (a fresh filesystem when its
//! kind makes one), run every workload, tear it down. A failed setup fails that target's cells
//! and the run goes on; a signal stops the run before the next step and everything measured
//! so far stays in the journal.

mod observer;

pub use observer::{RunObserver, Silent, Step};

use crate::error::WorkloadError;
use crate::journal::{assemble, Event, Journal};
use crate::model::*;
use crate::params::{Params, Scale};
use crate::suite::Suite;
use crate::target::{fsinfo, Target};
use crate::workload::{Method, Workload, WorkloadCtx};
use fsbattery_stats::Aggregate;
use std::path::Path;
use std::time::Duration;

/// File name of the assembled record inside a run directory.
pub const RESULTS_FILE: &str = "results.json";

/// A workload with the parameters it will run with.
pub struct PlannedWorkload {
    /// The workload.
    pub workload: &'static dyn Workload,
    /// Resolved parameters.
    pub params: Params,
}

/// A validated plan: everything is known to exist and be usable before the first setup.
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
    /// Native or commands.
    pub method: Method,
    /// Workloads in run order.
    pub workloads: Vec<PlannedWorkload>,
    /// Table rows (labels rendered).
    pub rows: Vec<RowInfo>,
    /// Targets in column order.
    pub targets: Vec<Box<dyn Target>>,
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
            method: self.method.to_string(),
            workloads: self
                .workloads
                .iter()
                .map(|w| WorkloadPlan {
                    name: w.workload.name().into(),
                    params: w.params.to_text(w.workload.params()),
                    metrics: w.workload.metrics(&w.params),
                })
                .collect(),
            rows: self.rows.clone(),
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
    plan: &mut Plan,
    out_dir: &Path,
    host: HostInfo,
    obs: &mut dyn RunObserver,
) -> std::io::Result<Outcome> {
    let mut journal = Journal::create(out_dir)?;
    let info = plan.info();
    journal.append(&Event::Start {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo {
            name: "fsbattery".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        started: now(),
        host,
        plan: info,
    })?;
    let total = (plan.targets.len() * plan.repeat as usize * plan.workloads.len()) as u64;
    let mut index = 0u64;
    let mut targets = std::mem::take(&mut plan.targets);
    let labels = unique_labels(&targets);
    for (target, label) in targets.iter_mut().zip(&labels) {
        if crate::interrupt::requested() {
            break;
        }
        run_target(
            plan,
            target.as_mut(),
            label,
            &mut journal,
            obs,
            &mut index,
            total,
        )?;
    }
    plan.targets = targets;
    let interrupted = crate::interrupt::requested();
    journal.append(&Event::End {
        finished: now(),
        interrupted,
    })?;
    obs.finish();
    let events = crate::journal::read(journal.path()).map_err(std::io::Error::other)?;
    let record = assemble(&events).map_err(std::io::Error::other)?;
    let json = serde_json::to_vec_pretty(&record).map_err(std::io::Error::other)?;
    std::fs::write(out_dir.join(RESULTS_FILE), json)?;
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

fn run_target(
    plan: &Plan,
    target: &mut dyn Target,
    label: &str,
    journal: &mut Journal,
    obs: &mut dyn RunObserver,
    index: &mut u64,
    total: u64,
) -> std::io::Result<()> {
    let mut announced = false;
    for repeat in 0..plan.repeat {
        if crate::interrupt::requested() {
            return Ok(());
        }
        let lifecycle = match target.setup(repeat) {
            Ok(lc) => lc,
            Err(e) => {
                let reason = format!("setup of {} failed: {e}", target.spec());
                obs.message(&reason);
                if !announced {
                    let rec = TargetRecord {
                        label: label.to_string(),
                        spec: target.spec().into(),
                        error: Some(reason.clone()),
                        ..Default::default()
                    };
                    journal.append(&Event::Target { target: rec })?;
                }
                for w in &plan.workloads {
                    let ev = Event::Failed {
                        target: label.to_string(),
                        workload: w.workload.name().into(),
                        repeat,
                        reason: reason.clone(),
                    };
                    journal.append(&ev)?;
                }
                *index += plan.workloads.len() as u64 * u64::from(plan.repeat - repeat);
                return Ok(());
            }
        };
        if !announced {
            journal.append(&Event::Target {
                target: describe(target, label),
            })?;
            announced = true;
        }
        let result = run_workloads(plan, target, label, repeat, journal, obs, index, total);
        let torn = target.teardown();
        if let Some(mut lc) = lifecycle {
            lc.umount_secs = torn.as_ref().ok().copied().flatten();
            journal.append(&Event::Lifecycle {
                target: label.to_string(),
                lifecycle: lc,
            })?;
        }
        if let Err(e) = torn {
            obs.message(&format!("teardown of {} failed: {e}", target.spec()));
        }
        result?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_workloads(
    plan: &Plan,
    target: &mut dyn Target,
    label: &str,
    repeat: u32,
    journal: &mut Journal,
    obs: &mut dyn RunObserver,
    index: &mut u64,
    total: u64,
) -> std::io::Result<()> {
    for w in &plan.workloads {
        if crate::interrupt::requested() {
            return Ok(());
        }
        let name = w.workload.name();
        let step = Step {
            index: *index,
            total,
            target: label,
            workload: name,
            repeat,
        };
        obs.step_start(&step);
        let metrics = w.workload.metrics(&w.params);
        let mut write_err: Option<std::io::Error> = None;
        let mut on_sample = |metric: &str, sample: Sample| {
            let spec = metrics.iter().find(|m| m.name == metric);
            let (unit, better) = spec
                .map(|m| (m.unit.clone(), m.better))
                .unwrap_or_else(|| ("s".into(), fsbattery_stats::Better::Lower));
            obs.sample(&step, metric, &unit, &sample);
            let ev = Event::Sample {
                target: label.to_string(),
                workload: name.into(),
                metric: metric.into(),
                unit,
                better,
                method: plan.method.to_string(),
                sample,
            };
            if let Err(e) = journal.append(&ev) {
                write_err.get_or_insert(e);
            }
        };
        let mut ctx = WorkloadCtx::new(
            target.root(),
            repeat,
            plan.method,
            plan.pause,
            &mut on_sample,
        );
        let res = w.workload.run(&mut ctx, &w.params);
        drop(ctx);
        if let Some(e) = write_err {
            return Err(e);
        }
        let error = match &res {
            Ok(()) | Err(WorkloadError::Interrupted) => None,
            Err(e) => Some(e.to_string()),
        };
        if let Some(reason) = &error {
            let ev = Event::Failed {
                target: label.to_string(),
                workload: name.into(),
                repeat,
                reason: reason.clone(),
            };
            journal.append(&ev)?;
        }
        obs.step_end(&step, error.as_deref());
        *index += 1;
    }
    Ok(())
}

/// The target as measured now (after setup): filesystem, options, device, capabilities.
fn describe(target: &dyn Target, label: &str) -> TargetRecord {
    let m = fsinfo::describe(target.root());
    TargetRecord {
        label: label.into(),
        spec: target.spec().into(),
        path: target.root().display().to_string(),
        fs_type: m.fs_type,
        mount_options: m.options,
        device: m.device,
        capabilities: target.capabilities(),
        lifecycles: Vec::new(),
        error: None,
    }
}

/// Column labels: each target's own, with "-2", "-3", ... added to repeats so two targets of
/// the same kind stay distinct columns.
pub fn unique_labels(targets: &[Box<dyn Target>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in targets {
        let base = t.label().to_string();
        let mut label = base.clone();
        let mut n = 2;
        while out.contains(&label) {
            label = format!("{base}-{n}");
            n += 1;
        }
        out.push(label);
    }
    out
}

fn now() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

//! The journal's events and its reader: one JSON object per line, appended by the run as
//! results arrive (the durable writer is `fsbattery_core::journal::Journal`), so a run killed
//! at any moment keeps everything it finished. `results.json` is assembled from the same
//! events at the end, and [`crate::load()`] can assemble it again from a journal alone.

use crate::model::*;
use fsbattery_stats::Better;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One line of the journal.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// First line: everything known before the first target is touched.
    Start {
        /// Layout version.
        schema_version: u32,
        /// Writer.
        tool: ToolInfo,
        /// RFC 3339.
        started: String,
        /// Machine.
        host: HostInfo,
        /// Plan.
        plan: PlanInfo,
    },
    /// A target as measured after its first setup (or with `error` when setup failed).
    Target {
        /// The record; a later event for the same label replaces the earlier one.
        target: TargetRecord,
    },
    /// One make/mount/unmount cycle of a target, written after its teardown.
    Lifecycle {
        /// Target label.
        target: String,
        /// The cycle.
        lifecycle: Lifecycle,
    },
    /// One repeat's value of one metric.
    Sample {
        /// Target label.
        target: String,
        /// Workload.
        workload: String,
        /// Metric.
        metric: String,
        /// Unit.
        unit: String,
        /// Direction.
        better: Better,
        /// Whether targets may be ranked on it ([`MetricSpec::comparable`]).
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        comparable: bool,
        /// native or commands.
        method: String,
        /// The measurement.
        sample: Sample,
    },
    /// A workload (or the target under it) failed for one repeat.
    Failed {
        /// Target label.
        target: String,
        /// Workload.
        workload: String,
        /// Repeat index.
        repeat: u32,
        /// The tool's or kernel's message.
        reason: String,
    },
    /// `--repeat auto` stopped repeating a workload on a target (precision reached, or the
    /// maximum made).
    Converged {
        /// Target label.
        target: String,
        /// The decision.
        convergence: crate::repeats::Convergence,
    },
    /// The memory cgroup's peaks, read when the workloads were done (`run --memory`).
    MemoryPeak {
        /// memory.peak / memory.max_usage_in_bytes.
        peak_bytes: Option<u64>,
        /// Most page cache seen after a workload step.
        peak_cache_bytes: Option<u64>,
    },
    /// Last line of a run that ended (normally or by interruption).
    End {
        /// RFC 3339.
        finished: String,
        /// Cut short by a signal.
        interrupted: bool,
    },
}

/// Read every complete event of a journal; a torn last line (crash mid-write) is ignored,
/// a corrupt line elsewhere is an error naming its line number.
pub fn read(path: &Path) -> Result<Vec<Event>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text, &path.display().to_string())
}

/// The events of journal text, with [`read`]'s rules: blank lines are skipped, a torn last
/// line is ignored, any other corrupt line is an error naming `origin` and its line number.
/// Pure, so the fuzzer and tests can feed it any text.
pub fn parse(text: &str, origin: &str) -> Result<Vec<Event>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut events = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(l) {
            Ok(ev) => events.push(ev),
            Err(_) if i + 1 == lines.len() => break,
            Err(e) => return Err(format!("{origin} line {}: {e}", i + 1)),
        }
    }
    Ok(events)
}

/// Build the run record from journal events. Every planned cell appears, in plan order:
/// `ok` with all repeats, `failed` with the reason, or `incomplete` when interrupted.
pub fn assemble(events: &[Event]) -> Result<RunRecord, String> {
    let Some(Event::Start {
        schema_version,
        tool,
        started,
        host,
        plan,
    }) = events.first()
    else {
        return Err("journal does not begin with a start event".into());
    };
    let mut rec = RunRecord {
        schema_version: *schema_version,
        tool: tool.clone(),
        started: started.clone(),
        finished: None,
        interrupted: false,
        host: host.clone(),
        plan: plan.clone(),
        targets: Vec::new(),
        cells: Vec::new(),
        source: None,
        summary: Vec::new(),
        published: None,
        then_and_now: None,
        composite: None,
    };
    for ev in &events[1..] {
        apply(&mut rec, ev);
    }
    for i in 0..rec.cells.len() {
        let cell = &rec.cells[i];
        // Lifecycle rows have one sample per made filesystem, not per repeat (--fresh once).
        let per_repeat = crate::lifecycle::builtin(&cell.workload).is_none_or(|b| b.per_repeat);
        let expected = rec.expected_samples(&cell.target, &cell.workload);
        let short = expected.is_none_or(|n| cell.samples.len() < n as usize);
        if per_repeat && cell.status == CellStatus::Ok && short {
            rec.cells[i].status = CellStatus::Incomplete;
        }
    }
    Ok(rec)
}

fn apply(rec: &mut RunRecord, ev: &Event) {
    match ev {
        Event::Start { .. } => {}
        Event::Target { target } => {
            let earlier = match rec.targets.iter().position(|t| t.label == target.label) {
                Some(i) => rec.targets.remove(i),
                None => TargetRecord::default(),
            };
            let mut t = target.clone();
            t.lifecycles = earlier.lifecycles;
            t.convergence = earlier.convergence;
            rec.targets.push(t);
            add_planned_cells(rec, &target.label);
        }
        Event::Lifecycle { target, lifecycle } => {
            if let Some(t) = rec.targets.iter_mut().find(|t| t.label == *target) {
                t.lifecycles.push(lifecycle.clone());
            }
        }
        Event::Sample {
            target,
            workload,
            metric,
            unit,
            better,
            comparable,
            method,
            sample,
        } => {
            let cell = cell_mut(rec, target, workload, metric, unit, *better);
            cell.method = method.clone();
            cell.comparable = *comparable;
            cell.samples.push(sample.clone());
        }
        Event::Failed {
            target,
            workload,
            reason,
            ..
        } => {
            for c in rec
                .cells
                .iter_mut()
                .filter(|c| c.target == *target && c.workload == *workload)
            {
                c.status = CellStatus::Failed {
                    reason: reason.clone(),
                };
            }
        }
        Event::Converged {
            target,
            convergence,
        } => {
            if let Some(t) = rec.targets.iter_mut().find(|t| t.label == *target) {
                t.convergence.push(convergence.clone());
            }
        }
        Event::MemoryPeak {
            peak_bytes,
            peak_cache_bytes,
        } => {
            if let Some(m) = rec.plan.cache.as_mut().and_then(|c| c.memory.as_mut()) {
                m.peak_bytes = *peak_bytes;
                m.peak_cache_bytes = *peak_cache_bytes;
            }
        }
        Event::End {
            finished,
            interrupted,
        } => {
            rec.finished = Some(finished.clone());
            rec.interrupted = *interrupted;
        }
    }
}

/// Create every cell the plan expects for a target, so failures and gaps are visible.
fn add_planned_cells(rec: &mut RunRecord, target: &str) {
    for w in rec.plan.workloads.clone() {
        for m in &w.metrics {
            cell_mut(rec, target, &w.name, &m.name, &m.unit, m.better).comparable = m.comparable;
        }
    }
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn cell_mut<'a>(
    rec: &'a mut RunRecord,
    target: &str,
    workload: &str,
    metric: &str,
    unit: &str,
    better: Better,
) -> &'a mut Cell {
    let pos = rec
        .cells
        .iter()
        .position(|c| c.target == target && c.workload == workload && c.metric == metric);
    let i = pos.unwrap_or_else(|| {
        rec.cells.push(Cell {
            target: target.into(),
            workload: workload.into(),
            metric: metric.into(),
            unit: unit.into(),
            better,
            comparable: true,
            method: rec.plan.method.clone(),
            status: CellStatus::Ok,
            samples: Vec::new(),
            stats: None,
        });
        rec.cells.len() - 1
    });
    &mut rec.cells[i]
}

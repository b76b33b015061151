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
        /// The kernel's boot id (absent in older journals).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        boot_id: Option<String>,
    },
    /// `run --resume`: a new part of the run begins in the same journal. Steps failed before
    /// are measured again, and a repeat measured again replaces the earlier part's samples.
    Resumed {
        /// RFC 3339.
        started: String,
        /// The machine as this part found it (kernel, ceiling).
        host: HostInfo,
        /// The kernel's boot id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        boot_id: Option<String>,
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
        boot_id,
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
        parts: Vec::new(),
    };
    let mut parts = Parts::new(started, &host.kernel, boot_id.clone());
    for ev in &events[1..] {
        parts.before(&mut rec, ev);
        apply(&mut rec, ev);
    }
    if parts.list.len() > 1 {
        for c in &mut rec.cells {
            c.samples.sort_by_key(|s| s.repeat);
        }
        rec.parts = parts.list;
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
        Event::Resumed { .. } => {
            // A new part: the run is unfinished again until its own end, and the steps that
            // failed are measured again (failed once more, they say so again).
            rec.finished = None;
            rec.interrupted = false;
            for c in &mut rec.cells {
                if matches!(c.status, CellStatus::Failed { .. }) {
                    c.status = CellStatus::Ok;
                }
            }
        }
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

/// What the assembler keeps of the parts of a resumed run (see [`crate::parts`]).
struct Parts {
    list: Vec<crate::parts::RunPart>,
    /// Per cell (by index in the record), how many of its samples came before the current part.
    floor: Vec<usize>,
    /// The current part's steps, for a quick membership test.
    seen: std::collections::HashSet<crate::parts::PartStep>,
    /// Per target, the lifecycle samples (metric, repeat) of its filesystem made and not yet
    /// torn down: at a new part, that cycle was cut short.
    open_cycle: std::collections::HashMap<String, Vec<(String, u32)>>,
    /// Lifecycle samples (target, metric, repeat) of cycles an earlier part cut short: the
    /// filesystem a later part makes again for the same repeat replaces them, so a repeat's
    /// filesystem is counted once.
    orphans: std::collections::HashSet<(String, String, u32)>,
}

impl Parts {
    fn new(started: &str, kernel: &str, boot_id: Option<String>) -> Parts {
        let first = crate::parts::RunPart {
            started: started.to_string(),
            interrupted: true,
            kernel: kernel.to_string(),
            boot_id,
            ..Default::default()
        };
        Parts {
            list: vec![first],
            floor: Vec::new(),
            seen: Default::default(),
            open_cycle: Default::default(),
            orphans: Default::default(),
        }
    }

    /// Note what `ev` means for the parts, before it is applied to `rec`: a new part, a part's
    /// end, a step measured (and a repeat measured again, which drops the earlier sample).
    fn before(&mut self, rec: &mut RunRecord, ev: &Event) {
        match ev {
            Event::Resumed {
                started,
                host,
                boot_id,
            } => {
                self.floor = rec.cells.iter().map(|c| c.samples.len()).collect();
                self.seen.clear();
                for (target, open) in self.open_cycle.drain() {
                    for (metric, repeat) in open {
                        self.orphans.insert((target.clone(), metric, repeat));
                    }
                }
                self.list.push(crate::parts::RunPart {
                    started: started.clone(),
                    interrupted: true,
                    kernel: host.kernel.clone(),
                    boot_id: boot_id.clone(),
                    ..Default::default()
                });
            }
            Event::End {
                finished,
                interrupted,
            } => {
                let part = self
                    .list
                    .last_mut()
                    .expect("the first part is made at start");
                part.finished = Some(finished.clone());
                part.interrupted = *interrupted;
            }
            Event::Sample {
                target,
                workload,
                metric,
                sample,
                ..
            } => self.sample(rec, target, workload, metric, sample.repeat),
            Event::Lifecycle { target, .. } => {
                self.open_cycle.remove(target);
            }
            _ => {}
        }
    }

    fn sample(
        &mut self,
        rec: &mut RunRecord,
        target: &str,
        workload: &str,
        metric: &str,
        repeat: u32,
    ) {
        let step = crate::parts::PartStep {
            target: target.to_string(),
            workload: workload.to_string(),
            repeat,
        };
        // Lifecycle rows have one sample per made filesystem: a setup made again is another,
        // but for the one that replaces a filesystem an earlier part made and never finished.
        let per_repeat = crate::lifecycle::builtin(workload).is_none_or(|b| b.per_repeat);
        if !per_repeat {
            let key = (target.to_string(), metric.to_string(), repeat);
            if self.orphans.remove(&key) {
                self.drop_earlier(rec, target, workload, metric, repeat, 1);
            }
            let open = self.open_cycle.entry(target.to_string()).or_default();
            open.push((metric.to_string(), repeat));
        }
        if per_repeat && self.list.len() > 1 {
            let dropped = self.drop_earlier(rec, target, workload, metric, repeat, usize::MAX);
            if dropped > 0 {
                let n = self.list.len() - 1;
                for p in &mut self.list[..n] {
                    p.steps.retain(|s| s != &step);
                }
            }
        }
        let part = self
            .list
            .last_mut()
            .expect("the first part is made at start");
        if per_repeat && self.seen.insert(step.clone()) {
            part.steps.push(step);
        }
    }
}

impl Parts {
    /// Remove at most `most` samples of `repeat` that earlier parts left in the cell; how many
    /// were removed.
    fn drop_earlier(
        &mut self,
        rec: &mut RunRecord,
        target: &str,
        workload: &str,
        metric: &str,
        repeat: u32,
        most: usize,
    ) -> usize {
        let pos = rec
            .cells
            .iter()
            .position(|c| c.target == target && c.workload == workload && c.metric == metric);
        let Some(i) = pos else {
            return 0;
        };
        let floor = self.floor.get(i).copied().unwrap_or(0);
        let (mut k, mut dropped) = (0, 0);
        rec.cells[i].samples.retain(|s| {
            k += 1;
            let drop = k <= floor && s.repeat == repeat && dropped < most;
            dropped += usize::from(drop);
            !drop
        });
        if let Some(f) = self.floor.get_mut(i) {
            *f -= dropped;
        }
        dropped
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

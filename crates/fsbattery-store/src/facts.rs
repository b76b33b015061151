//! What the store keeps of a run record: the facts that decide whether two runs are
//! comparable (suite, workload and parameters, filesystem, options, kernel, tool versions,
//! machine, fsbattery version, cache policy, scale) and each cell's samples and summary.
//!
//! Pure functions of the record, so `rebuild` gives back exactly what `add` stored.

use fsbattery_record::{CellStatus, RunRecord, TargetRecord};
use fsbattery_stats::{Better, Summary};
use sha2::{Digest, Sha256};

/// One run's row in the store.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts {
    /// RFC 3339 start time.
    pub started: String,
    /// RFC 3339 end time, when the run finished.
    pub finished: Option<String>,
    /// Cut short by a signal.
    pub interrupted: bool,
    /// Sittings the run was made in: 1, or more for a run continued with `run --resume`.
    pub parts: u32,
    /// `run --label`, or an import's label.
    pub label: Option<String>,
    /// Suite name.
    pub suite: String,
    /// Scale (quick, standard, full; empty for imports).
    pub scale: String,
    /// native, commands, mixed, imported:TOOL.
    pub method: String,
    /// The cache policy (`cold`, `warm`, ...), empty when not stated.
    pub cache_policy: String,
    /// fsbattery's version (an import: the tool's version).
    pub tool_version: String,
    /// fio, bonnie++, iozone for imported records.
    pub source_tool: Option<String>,
    /// Kernel release and version.
    pub kernel: String,
    /// Operating system.
    pub os: String,
    /// See [`machine_id`].
    pub machine_id: String,
    /// CPU model.
    pub cpu_model: String,
    /// Online CPUs.
    pub cores: u32,
    /// Physical memory.
    pub ram_bytes: u64,
}

/// One cell of a run, with the target facts that make it comparable.
#[derive(Debug, Clone, PartialEq)]
pub struct PointFacts {
    /// The target's label in its run.
    pub target: String,
    /// The spec's kind: loop, tmpfs, dir, dev, imported.
    pub target_kind: String,
    /// Filesystem type (empty when unknown, e.g. imports).
    pub fs_type: String,
    /// mkfs and other tool versions, "mkfs.ext4 1.47.0".
    pub fs_version: String,
    /// Options asked for (mkfs, mount, ...) and mount options in effect.
    pub options: String,
    /// Model of the device under the filesystem; empty: the record does not state it.
    pub device_model: String,
    /// The kernel the target was measured on when the run's targets were measured on
    /// several (`vm:` targets of several kernels); empty: the run's [`RunFacts::kernel`].
    pub kernel: String,
    /// Workload name.
    pub workload: String,
    /// Workload parameters, "k=v,k=v" sorted by name.
    pub params: String,
    /// Metric name.
    pub metric: String,
    /// Unit of the values.
    pub unit: String,
    /// Which direction is better.
    pub better: Better,
    /// False for values that describe the target rather than measure it.
    pub comparable: bool,
    /// Sample values in repeat order (empty for a cell that failed, or that is incomplete in
    /// a run that finished).
    pub samples: Vec<f64>,
    /// Mean, and the 95 % Student-t interval (absent with one sample).
    pub mean: Option<f64>,
    /// Low end of the 95 % interval.
    pub ci_low: Option<f64>,
    /// High end of the 95 % interval.
    pub ci_high: Option<f64>,
}

/// A machine's id: the first 16 hex digits of SHA-256 over its CPU model, core count and
/// memory rounded to GiB. Derived from hardware only (no host name, no user), so records
/// from one machine group together whatever it is called, and a kernel upgrade (which moves
/// MemTotal by a few MiB) does not make it a new machine.
pub fn machine_id(cpu_model: &str, cores: u32, ram_bytes: u64) -> String {
    let gib = (ram_bytes + (1 << 29)) >> 30;
    let digest = Sha256::digest(format!("{cpu_model}\n{cores}\n{gib}").as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

impl PointFacts {
    /// The kernel the point was measured on: its target's, else its run's.
    pub fn kernel<'a>(&'a self, run: &'a RunFacts) -> &'a str {
        match self.kernel.as_str() {
            "" => &run.kernel,
            k => k,
        }
    }
}

impl RunFacts {
    /// How a run that is not simply finished is shown beside it: "interrupted" (it did not
    /// finish; shown only when asked for with `--include-partial`), or "resumed" (finished in
    /// several sittings); `None` for a run finished in one.
    pub fn flag(&self) -> Option<&'static str> {
        if self.interrupted || self.finished.is_none() {
            Some("interrupted")
        } else if self.parts > 1 {
            Some("resumed")
        } else {
            None
        }
    }

    /// The start time, followed by the run's [`RunFacts::flag`] in parentheses when it has one.
    pub fn started_flagged(&self) -> String {
        match self.flag() {
            Some(f) => format!("{} ({f})", self.started),
            None => self.started.clone(),
        }
    }

    /// The run-wide facts of `record`.
    pub fn of(record: &RunRecord) -> RunFacts {
        let h = &record.host;
        RunFacts {
            started: record.started.clone(),
            finished: record.finished.clone(),
            // A run killed outright has no end and says nothing of a signal: unfinished all
            // the same, and the store says so.
            interrupted: record.interrupted || record.finished.is_none(),
            parts: record.parts.len().max(1) as u32,
            label: record.plan.label.clone(),
            suite: record.plan.suite.clone(),
            scale: record.plan.scale.clone(),
            method: record.plan.method.clone(),
            cache_policy: record
                .plan
                .cache
                .as_ref()
                .map(|c| c.policy.to_string())
                .unwrap_or_default(),
            tool_version: record.tool.version.clone(),
            source_tool: record.source.as_ref().map(|s| s.tool.clone()),
            kernel: h.kernel.clone(),
            os: h.os.clone(),
            machine_id: machine_id(&h.cpu_model, h.cores, h.ram_bytes),
            cpu_model: h.cpu_model.clone(),
            cores: h.cores,
            ram_bytes: h.ram_bytes,
        }
    }
}

/// Every cell of `record` as a point, with its target's facts.
pub fn points(record: &RunRecord) -> Vec<PointFacts> {
    record
        .cells
        .iter()
        .map(|cell| {
            let target = record.targets.iter().find(|t| t.label == cell.target);
            // An unfinished run's incomplete cells keep what they measured: history shows
            // them only when asked (`--include-partial`), flagged as interrupted.
            let kept = match cell.status {
                CellStatus::Ok => true,
                CellStatus::Incomplete => record.unfinished(),
                _ => false,
            };
            let samples: Vec<f64> = match kept {
                true => cell.samples.iter().map(|s| s.value).collect(),
                false => Vec::new(),
            };
            let summary = Summary::from_samples(&samples, cell.better);
            let half = summary.as_ref().and_then(|s| s.ci95_half_width);
            let mean = summary.as_ref().map(|s| s.mean);
            PointFacts {
                target: cell.target.clone(),
                target_kind: target.map(target_kind).unwrap_or_default(),
                fs_type: target.map(|t| t.fs_type.clone()).unwrap_or_default(),
                fs_version: target.map(fs_version).unwrap_or_default(),
                options: target.map(options).unwrap_or_default(),
                device_model: target.map(|t| t.device_model.clone()).unwrap_or_default(),
                kernel: target
                    .and_then(|t| t.host.as_ref())
                    .map(|h| h.kernel.clone())
                    .unwrap_or_default(),
                workload: cell.workload.clone(),
                params: params(record, &cell.workload),
                metric: cell.metric.clone(),
                unit: cell.unit.clone(),
                better: cell.better,
                comparable: cell.comparable,
                mean,
                ci_low: mean.zip(half).map(|(m, h)| m - h),
                ci_high: mean.zip(half).map(|(m, h)| m + h),
                samples,
            }
        })
        .collect()
}

/// The spec's kind, the word before its colon: `loop:ext4` → `loop`, `tmpfs` → `tmpfs`.
fn target_kind(t: &TargetRecord) -> String {
    t.spec
        .split([':', ','])
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The tools that made the filesystem, with versions, from its first lifecycle. The kernel
/// the lifecycle also lists is left out: it is a dimension of its own.
fn fs_version(t: &TargetRecord) -> String {
    t.lifecycles
        .first()
        .map(|l| {
            l.tool_versions
                .iter()
                .filter(|(k, _)| k.as_str() != "kernel")
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

/// What the spec asked for that shapes the filesystem, then the mount options in effect:
/// `mkfs=-O ^has_journal mount=sync | rw,sync,relatime` (options left empty are not named).
fn options(t: &TargetRecord) -> String {
    let asked: Vec<String> = t
        .options
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("{} | {}", asked.join(" "), t.mount_options)
}

/// A workload's parameters as `k=v,k=v`, sorted by name (empty when the plan lacks it).
fn params(record: &RunRecord, workload: &str) -> String {
    record
        .plan
        .workloads
        .iter()
        .find(|w| w.name == workload)
        .map(|w| {
            w.params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

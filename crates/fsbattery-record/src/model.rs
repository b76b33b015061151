//! The run record: the one canonical artefact of a run.
//!
//! Everything `report`, `compare` and the charts show is read back from these types, so they
//! are versioned (`SCHEMA_VERSION`) and documented in `docs/run-record.md`. Invariants: a
//! cell is identified by `(target, workload, metric)`; its `samples` are in repeat order;
//! a cell whose status is not `ok` carries no numbers that a renderer may rank.

use fsbattery_stats::Better;
use serde::{Deserialize, Serialize};

/// Version of the JSON layout below; bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Every layout version this build reads (records and journals).
pub const READABLE_SCHEMA_VERSIONS: &[u32] = &[1];

/// Refuse a layout version this build cannot read, saying which ones it can.
pub fn check_schema_version(version: u32) -> Result<(), String> {
    if READABLE_SCHEMA_VERSIONS.contains(&version) {
        return Ok(());
    }
    let readable: Vec<String> = READABLE_SCHEMA_VERSIONS
        .iter()
        .map(u32::to_string)
        .collect();
    Err(format!(
        "schema version {version} is not supported (this build reads {}): \
         use the fsbattery release that wrote it",
        readable.join(", ")
    ))
}

/// A whole run: what was planned, where it ran, and every cell measured.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// Layout version of this record (see [`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The tool that wrote the record.
    pub tool: ToolInfo,
    /// RFC 3339 start time.
    pub started: String,
    /// RFC 3339 end time; `None` when the run was cut short before it finished.
    pub finished: Option<String>,
    /// True when the run was interrupted (SIGINT/SIGTERM) and is incomplete.
    #[serde(default)]
    pub interrupted: bool,
    /// The machine the run was made on.
    pub host: HostInfo,
    /// What the user asked for, after defaults were applied.
    pub plan: PlanInfo,
    /// One entry per target, in plan order.
    pub targets: Vec<TargetRecord>,
    /// One entry per target × workload × metric, in plan order.
    pub cells: Vec<Cell>,
    /// Set when the record was made by `fsbattery import` from another tool's output rather
    /// than measured by fsbattery. Absent in native records (and in records written before it
    /// existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ImportSource>,
}

/// Where an imported record's numbers came from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ImportSource {
    /// The tool that measured: "fio", "bonnie++", "iozone".
    pub tool: String,
    /// Its version as it printed it, e.g. "fio-3.33", "2.00a".
    pub version: String,
    /// The files imported, one per repeat (sample `repeat` i came from `files[i]`).
    pub files: Vec<String>,
    /// RFC 3339 time of the import.
    pub imported_at: String,
}

/// Name and version of the program that wrote a record.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolInfo {
    /// Always "fsbattery".
    pub name: String,
    /// Cargo package version.
    pub version: String,
}

/// The host: enough to tell two machines or two kernels apart.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct HostInfo {
    /// Host name.
    pub hostname: String,
    /// Kernel release and version (uname -r, -v).
    pub kernel: String,
    /// Operating system (PRETTY_NAME of /etc/os-release).
    pub os: String,
    /// CPU model name from /proc/cpuinfo.
    pub cpu_model: String,
    /// Online CPUs.
    pub cores: u32,
    /// Physical memory in bytes.
    pub ram_bytes: u64,
    /// Whether the run had root privileges.
    pub root: bool,
}

/// The validated plan as recorded: what was run, at which scale, how aggregated.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PlanInfo {
    /// Suite name (a preset name or the file it came from).
    pub suite: String,
    /// Scale: quick, standard or full.
    pub scale: String,
    /// Repeats per cell.
    pub repeat: u32,
    /// Aggregate shown in tables: mean, best or median.
    pub aggregate: fsbattery_stats::Aggregate,
    /// Pause before each test, seconds.
    pub pause_secs: f64,
    /// How workloads ran: "native" system calls or seed "commands".
    pub method: String,
    /// Workloads with the parameters they ran with.
    pub workloads: Vec<WorkloadPlan>,
    /// Table rows: label → (workload, metric), in suite order.
    pub rows: Vec<RowInfo>,
    /// Source datasets (kernel trees) the run prepared, with their content hashes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub datasets: Vec<crate::dataset::DatasetInfo>,
    /// Default targets this machine could not make (a tool or kernel support missing), with
    /// the reason and the fix; they have no column and no cells.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_targets: Vec<SkippedTarget>,
    /// The run's name (`run --label`), which `report` shows for it by default: a name, not
    /// a condition of the measurement, so `compare` never weighs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A default target left out of a run because this machine cannot make it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SkippedTarget {
    /// The spec that would have run, e.g. "loop:xfs".
    pub spec: String,
    /// Why it cannot be made here, e.g. "mkfs.xfs not found: install xfsprogs (...)".
    pub reason: String,
    /// The command that fixes it, when one does (no package adds a filesystem to a kernel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl SkippedTarget {
    /// One line: "loop:xfs skipped: REASON; fix: FIX".
    pub fn line(&self) -> String {
        match &self.fix {
            Some(fix) => format!("{} skipped: {}; fix: {fix}", self.spec, self.reason),
            None => format!("{} skipped: {}", self.spec, self.reason),
        }
    }
}

/// The unit of a parameter whose value is a size in bytes ([`WorkloadPlan::param_units`]).
pub const BYTES: &str = "B";

/// One workload of the plan and its resolved parameters.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WorkloadPlan {
    /// Registry name of the workload.
    pub name: String,
    /// Parameter name → value as text (sizes in bytes).
    pub params: std::collections::BTreeMap<String, String>,
    /// Parameter name → unit of its value, for the parameters that have one: [`BYTES`] for
    /// sizes, so a report prints `size=64MiB` as the user typed it while `params` keeps the
    /// exact number (comparisons read that). Empty in records written before it existed.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub param_units: std::collections::BTreeMap<String, String>,
    /// Metrics it produces with these parameters, in report order.
    pub metrics: Vec<MetricSpec>,
}

/// One row of the suite's table.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RowInfo {
    /// Row label as the study printed it, e.g. "Touch 10,000 Files".
    pub label: String,
    /// Workload that produces the row.
    pub workload: String,
    /// Metric of that workload.
    pub metric: String,
    /// Set when the row's workload does not exist yet: shown, never dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<String>,
    /// The row's own aggregate (e.g. S2's min and max rows), overriding the table's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<fsbattery_stats::Aggregate>,
}

/// What a target was, as measured (not as requested).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TargetRecord {
    /// Short label used as the column name, unique within a run.
    pub label: String,
    /// The spec the user gave, e.g. `dir:/mnt/x` or `loop:xfs`.
    pub spec: String,
    /// Directory the workloads ran in.
    pub path: String,
    /// Filesystem type from statfs (and /proc/mounts when found).
    pub fs_type: String,
    /// Mount options in effect, from /proc/mounts.
    pub mount_options: String,
    /// Backing device (/proc/mounts source), if any.
    pub device: String,
    /// Capabilities probed before the run.
    pub capabilities: Capabilities,
    /// What the spec asked for that shapes the filesystem, resolved with defaults: `fs`,
    /// `size`, `mkfs`, `mount`, ... (empty for `dir:`). `compare` refuses runs whose targets
    /// differ here. Absent in records written before it existed (read as empty).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub options: std::collections::BTreeMap<String, String>,
    /// What the filesystem stores of a tree (permission bits, case in names, symlinks, hard
    /// links), probed on it after its first setup; tree cells are verified within it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stores: Option<crate::dataset::Stores>,
    /// One entry per make/mount cycle (empty for targets fsbattery does not make).
    #[serde(default)]
    pub lifecycles: Vec<Lifecycle>,
    /// Set when the target could not be prepared: its cells are failed with this reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a target can do; checked before the first cell runs.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Capabilities {
    /// Making or mounting it needs root.
    pub needs_root: bool,
    /// The page cache can be dropped between tests (root + writable drop_caches).
    pub drop_caches: bool,
    /// open(O_DIRECT) succeeds on it.
    pub direct_io: bool,
    /// O_DIRECT is accepted but does not bypass the page cache (tmpfs).
    pub direct_io_bypasses_cache: bool,
}

/// The record of making, mounting and unmounting a filesystem once.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Lifecycle {
    /// Repeat this filesystem was made for (0-based).
    pub repeat: u32,
    /// The mkfs command line, as run.
    pub mkfs_command: String,
    /// Combined stdout/stderr of mkfs.
    pub mkfs_output: String,
    /// Wall seconds of mkfs.
    pub mkfs_secs: f64,
    /// CPU of mkfs alone (absent in older records, and for tmpfs which has no mkfs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mkfs_cpu: Option<CpuSecs>,
    /// The mount command (or mount(2) call) as run.
    pub mount_command: String,
    /// Wall seconds of the mount.
    pub mount_secs: f64,
    /// CPU of the mount alone (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_cpu: Option<CpuSecs>,
    /// Options in effect after mounting (/proc/mounts).
    pub mount_options: String,
    /// Wall seconds of the unmount; `None` until unmounted.
    pub umount_secs: Option<f64>,
    /// CPU of the unmount alone (absent in older records and until unmounted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub umount_cpu: Option<CpuSecs>,
    /// statvfs total bytes right after formatting.
    pub total_bytes: u64,
    /// statvfs bytes available to an unprivileged user right after formatting.
    pub avail_bytes: u64,
    /// Tool name → version string.
    pub tool_versions: std::collections::BTreeMap<String, String>,
}

/// CPU seconds of one phase: this process and the children it reaped during that phase.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuSecs {
    /// User CPU seconds.
    pub user_s: f64,
    /// System CPU seconds.
    pub sys_s: f64,
}

/// Whether a cell's numbers may be shown.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum CellStatus {
    /// Every sample measured.
    Ok,
    /// The workload failed; the reason is the tool's or the kernel's own message.
    Failed {
        /// Why.
        reason: String,
    },
    /// The row's workload is not implemented yet.
    Pending {
        /// Why.
        reason: String,
    },
    /// The run was interrupted before every repeat finished.
    Incomplete,
    /// No value exists, for the reason given (an imported tool printed none, e.g. bonnie++'s
    /// "+++++" for a test too fast to measure): shown as missing, never as zero.
    Missing {
        /// Why.
        reason: String,
    },
}

/// One target × workload × metric, with every repeat's sample.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Cell {
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Metric name within the workload.
    pub metric: String,
    /// Unit of `Sample::value`, e.g. "s", "MB/s", "files/s".
    pub unit: String,
    /// Which direction wins.
    pub better: Better,
    /// Whether values of different targets may be ranked against each other (see
    /// [`MetricSpec::comparable`]). Absent in older records: comparable.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub comparable: bool,
    /// "native" or "commands".
    pub method: String,
    /// Whether the samples may be ranked.
    pub status: CellStatus,
    /// Every repeat's measurement, in order.
    pub samples: Vec<Sample>,
}

/// One repeat's measurement of one metric.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// Repeat index (0-based).
    pub repeat: u32,
    /// The metric's value in the cell's unit.
    pub value: f64,
    /// Wall seconds of the measured phase (CLOCK_MONOTONIC).
    pub elapsed_s: f64,
    /// User CPU seconds (self + children).
    pub user_s: f64,
    /// System CPU seconds (self + children).
    pub sys_s: f64,
    /// (user + sys) / elapsed × 100, as seed S1 reports it.
    pub cpu_pct: f64,
    /// Under MPI, each rank's own value and elapsed time, in rank order; `value` and
    /// `elapsed_s` above are then the aggregate over all ranks (stonewall: first start to last
    /// end). Empty for a single process.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<RankSample>,
}

/// One rank's part of an MPI sample.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct RankSample {
    /// The rank's value of the metric.
    pub value: f64,
    /// The rank's elapsed seconds from the common start to its end.
    pub elapsed_s: f64,
}

/// Static description of a metric a workload produces.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MetricSpec {
    /// Metric name, unique within the workload.
    pub name: String,
    /// Unit of the value.
    pub unit: String,
    /// Which direction wins.
    pub better: Better,
    /// One line for `fsbattery list workloads`.
    pub help: String,
    /// `false` for a value that describes the target rather than measures the filesystem
    /// (space available after mkfs follows the size the target was given: a RAM-sized tmpfs
    /// against a 1 GiB image): shown, but never ranked, marked or scored.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub comparable: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl MetricSpec {
    /// A wall-time metric in seconds (lower is better).
    pub fn seconds(name: &str, help: &str) -> Self {
        Self {
            name: name.into(),
            unit: "s".into(),
            better: Better::Lower,
            help: help.into(),
            comparable: true,
        }
    }
    /// A throughput or rate metric (higher is better).
    pub fn rate(name: &str, unit: &str, help: &str) -> Self {
        Self {
            name: name.into(),
            unit: unit.into(),
            better: Better::Higher,
            help: help.into(),
            comparable: true,
        }
    }
    /// The same metric, marked as a property of the target that is not ranked across targets.
    pub fn not_comparable(mut self) -> Self {
        self.comparable = false;
        self
    }
}

impl RunRecord {
    /// Cell by its key, if present.
    pub fn cell(&self, target: &str, workload: &str, metric: &str) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.target == target && c.workload == workload && c.metric == metric)
    }
}

impl Cell {
    /// The sample values, for statistics.
    pub fn values(&self) -> Vec<f64> {
        self.samples.iter().map(|s| s.value).collect()
    }
}

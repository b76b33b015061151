//! The run record: the one canonical artefact of a run.
//!
//! Everything `report`, `compare` and the charts show is read back from these types, so they
//! are versioned (`SCHEMA_VERSION`) and documented in `docs/src/run-record.md`. Invariants: a
//! cell is identified by `(target, workload, metric)`; its `samples` are in repeat order;
//! a cell whose status is not `ok` carries no numbers that a renderer may rank.

use fsbattery_stats::Better;
use serde::{Deserialize, Serialize};

pub use crate::cache::*;

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
    /// The run's closing summary, the lines the terminal ends with: per workload what was
    /// decided, then each ranked row's verdict in one sentence. Derived like
    /// [`Cell::stats`]: written with them, absent while running and in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<String>,
    /// The seed's published numbers when the run is a preset's (`suites/published/`): put in
    /// by the run so its reports stand beside the original. Absent otherwise and in older
    /// records (reports then look them up by the plan's suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<Box<crate::published::Published>>,
    /// Then and now: the seed's values and ranks beside this run's, per table Kendall's tau
    /// and the rank flips. Derived like `summary`: written with it, absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then_and_now: Option<Box<crate::then_now::ThenAndNow>>,
    /// The composite answer ([`crate::composite`]). Derived like `summary`: written with it,
    /// absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub composite: Option<Box<crate::composite::Composite>>,
    /// The sittings a resumed run was made in (`run --resume`), first the original; empty
    /// for a run made in one (and in older records).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<crate::parts::RunPart>,
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
    /// fsbattery's own per-operation ceiling on this machine, measured once at the start of
    /// the run (absent with `--no-ceiling`, in imports and in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_ceiling: Option<ToolCeiling>,
    /// The virtual machine the cells ran in (`vm:` targets): the machine above is then the
    /// guest as it saw itself. Absent for runs on the host and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest: Option<Box<crate::guest::GuestInfo>>,
}

/// The fastest fsbattery can go on the machine it ran on: a rate within
/// [`TOOL_BOUND_FRACTION`] of it measures the tool, not the filesystem.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ToolCeiling {
    /// Operations per second of the cheapest loop through the engine's driver.
    pub null_ops_per_s: f64,
    /// What that loop did, in words (e.g. which engine, which file).
    pub null_method: String,
    /// 4 KiB random reads per second of a file held in the page cache on tmpfs, through the
    /// same driver and the sync engine workloads use by default.
    pub read_4k_ops_per_s: f64,
    /// The file both loops used.
    pub file: String,
    /// Wall seconds the measurement took.
    pub secs: f64,
}

/// A rate at or above this fraction of its ceiling is tool-bound ("within 20 %").
pub const TOOL_BOUND_FRACTION: f64 = 0.8;

impl ToolCeiling {
    /// The ceiling a rate in `unit` is held against: I/O operations ("ops/s") against 4 KiB
    /// cached reads, other operation counts ("files/s") against the null loop. Byte rates
    /// have none: the tool's cost per byte depends on the block size, which a cell does not
    /// carry. Times (and every lower-is-better unit) have none either.
    pub fn for_unit(&self, unit: &str) -> Option<f64> {
        let count = unit.strip_suffix("/s")?;
        let bytes = ["B", "KB", "MB", "GB", "KiB", "MiB", "GiB", "kB"];
        match count {
            "ops" | "IOPS" | "iops" => Some(self.read_4k_ops_per_s),
            c if bytes.contains(&c) => None,
            _ => Some(self.null_ops_per_s),
        }
    }

    /// Whether a higher-is-better `value` in `unit` is within 20 % of (or above) its ceiling.
    pub fn bounds(&self, unit: &str, better: Better, value: f64) -> bool {
        better == Better::Higher
            && self
                .for_unit(unit)
                .is_some_and(|c| c > 0.0 && value >= TOOL_BOUND_FRACTION * c)
    }
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
    /// `--repeat auto`: its bounds and precision (`repeat` then holds the maximum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_auto: Option<crate::repeats::AutoRepeat>,
    /// `--age`: the fill and seed of the churn made on every filesystem before its workloads;
    /// like the label, a name of the run that `compare` shows rather than a difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age: Option<crate::aging::AgeSpec>,
    /// The cache policy and memory limit the run used (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Box<crate::cache::RunCache>>,
    /// Where the cache policy, pause, methods, mkfs/mount options and memory limit came from
    /// (suite, command line, default); absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Box<crate::settings::RunSettings>>,
    /// The composite's group weights the run asked for (`--weights GROUP=W`); a group not
    /// named weighs 1, the lifecycle rows 0. Empty in older records and by default.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub weights: std::collections::BTreeMap<String, f64>,
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
    /// Row label with this run's sizes and counts, e.g. "Touch 2,000 Files" at quick scale.
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
    /// The seed's own wording of the row, with the sizes the seed measured ("Datei 16 GB
    /// schreiben [MB/s]"), where the suite gives it: `label` names this run's sizes, this
    /// what the seed's table said. Absent in records written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
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
    /// The model of the disk the data ends on (a loop image's: the disk holding the image),
    /// as sysfs names it; empty for RAM and FUSE filesystems and in older records.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub device_model: String,
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
    /// `--repeat auto`: per workload, how many repeats it took and whether the precision
    /// was reached (empty for fixed repeats).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub convergence: Vec<crate::repeats::Convergence>,
    /// Set when the target could not be prepared: its cells are failed with this reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the filesystem kinds table says of the filesystem, from the run that recorded
    /// it; absent in records written before it existed (read through [`TargetRecord::facts`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs_facts: Option<FsFacts>,
    /// The machine this target was measured on, when the run's targets were measured on more
    /// than one (`vm:` targets of several kernels, one guest each): its kernel, guest and
    /// tool ceiling. Absent when the run's [`RunRecord::host`] holds for every target (and in
    /// older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<Box<HostInfo>>,
}

/// Facts of a target's filesystem that renderers and decisions need, recorded from the
/// kinds table so nothing downstream recognises a filesystem by its name.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct FsFacts {
    /// Its files live in RAM (tmpfs, ramfs): a reference for what the kernel does without a
    /// device, not a contender against disks.
    pub in_memory: bool,
    /// It keeps a journal or log that makes it crash-safe (ext2 and tmpfs do not): S2 also
    /// marks the best journaling filesystem when one without a journal wins a row.
    pub journaling: bool,
}

impl FsFacts {
    /// The facts of a record written before they were recorded, inferred from the names it
    /// holds (the measured filesystem type, the spec, the label). The one place a filesystem
    /// is recognised by name after the run: every reader goes through
    /// [`TargetRecord::facts`].
    pub fn inferred(fs_type: &str, spec: &str, label: &str) -> FsFacts {
        let in_ram = |s: &str| matches!(s, "tmpfs" | "ramfs");
        let unjournaled = |s: &str| matches!(s.to_ascii_lowercase().as_str(), "ext2" | "tmpfs");
        FsFacts {
            in_memory: in_ram(fs_type) || spec == "tmpfs" || spec.starts_with("tmpfs:"),
            journaling: !(unjournaled(label) || unjournaled(fs_type)),
        }
    }
}

impl TargetRecord {
    /// The machine the target was measured on: its own when it has one, else the run's.
    pub fn host<'a>(&'a self, run: &'a RunRecord) -> &'a HostInfo {
        self.host.as_deref().unwrap_or(&run.host)
    }

    /// What is known of the target's filesystem: as recorded, or for an older record
    /// inferred ([`FsFacts::inferred`]).
    pub fn facts(&self) -> FsFacts {
        self.fs_facts
            .unwrap_or_else(|| FsFacts::inferred(&self.fs_type, &self.spec, &self.label))
    }

    /// Whether the target's filesystem lives in RAM (tmpfs, ramfs, or a `tmpfs:` spec): a
    /// reference for what the kernel does without a device, not a contender against disks.
    /// Known from the measured type, so `dir:/dev/shm/x` counts as well as `tmpfs:`.
    pub fn in_memory(&self) -> bool {
        self.facts().in_memory
    }

    /// Whether the target's filesystem keeps a journal ([`FsFacts::journaling`]).
    pub fn journaling(&self) -> bool {
        self.facts().journaling
    }
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
    /// What the plan checked the workloads against, probed once when it was built (absent in
    /// older records): O_DIRECT offset alignment in bytes, whether io_uring can be set up,
    /// bytes and inodes the target holds (image or tmpfs size, statvfs of a directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct_io_align: Option<u64>,
    /// See `direct_io_align`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_uring: Option<bool>,
    /// See `direct_io_align`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space_bytes: Option<u64>,
    /// See `direct_io_align`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inodes: Option<u64>,
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
    /// The block devices the filesystem was made on, with their roles (empty for tmpfs and
    /// for targets fsbattery does not make; absent in older records).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block_devices: Vec<BlockDevice>,
    /// `--age`: the churn made on this filesystem before its workloads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aging: Option<crate::aging::Aging>,
}

/// One block device of a target and what the filesystem uses it for.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct BlockDevice {
    /// Device node, e.g. /dev/loop3.
    pub path: String,
    /// "data", or "journal" for an external journal (ext3/4) or log (xfs).
    pub role: String,
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
    /// The samples' summary and the cell's verdict, filled when the record is written out
    /// (results.json, `--format json`); absent while running and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<crate::cell_stats::CellStats>,
}

/// One repeat's measurement of one metric.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
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
    /// What the target's block devices did during the phase (absent for targets without block
    /// devices, for lifecycle samples, and in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_io: Option<DeviceIo>,
    /// The page cache as the phase found it (absent in older records, imports, and phases
    /// whose own files held no data to measure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<crate::cache::PhaseCache>,
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

/// Block-device counters of one timed phase, summed over every device of the target (fields
/// as in the kernel's Documentation/block/stat.rst), and the bytes the workload handed the
/// filesystem in the same phase, so write amplification can be derived.
///
/// "After" is read once the phase's dirty data reached the devices: the runner calls
/// `sync(2)` when the stopwatch stops (untimed). Writes the kernel defers past a sync
/// (jbd2 checkpointing of an ext3/4 journal into place, btrfs background work) fall into
/// whichever later phase they happen in.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct DeviceIo {
    /// Bytes read at the devices (sectors read × 512).
    pub read_bytes: u64,
    /// Bytes written at the devices (sectors written × 512).
    pub write_bytes: u64,
    /// Read requests completed.
    pub read_ios: u64,
    /// Write requests completed.
    pub write_ios: u64,
    /// Flush requests completed; `None` on kernels before 5.5, whose stat has no flush field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flushes: Option<u64>,
    /// Of `write_bytes`, those written to a separate journal or log device (`None`: the
    /// filesystem has none; an internal journal is counted with the data device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_write_bytes: Option<u64>,
    /// Block devices summed.
    pub devices: u32,
    /// Bytes fsbattery (and the children it reaped) passed to write-family system calls in the
    /// phase: `wchar` of /proc/self/io. io_uring and mmap writes are not counted there.
    pub given_bytes: u64,
}

impl DeviceIo {
    /// Device bytes written ÷ bytes the workload wrote; `None` when it wrote nothing (a
    /// metadata-only phase has device writes but no ratio).
    pub fn write_amplification(&self) -> Option<f64> {
        (self.given_bytes > 0).then(|| self.write_bytes as f64 / self.given_bytes as f64)
    }

    /// Two phases of one measurement back to back.
    pub fn plus(&self, o: &DeviceIo) -> DeviceIo {
        let opt = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        DeviceIo {
            read_bytes: self.read_bytes + o.read_bytes,
            write_bytes: self.write_bytes + o.write_bytes,
            read_ios: self.read_ios + o.read_ios,
            write_ios: self.write_ios + o.write_ios,
            flushes: opt(self.flushes, o.flushes),
            journal_write_bytes: opt(self.journal_write_bytes, o.journal_write_bytes),
            devices: self.devices.max(o.devices),
            given_bytes: self.given_bytes + o.given_bytes,
        }
    }
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
    /// What it measures, for renderers ([`crate::meta`]). Absent in records written before
    /// it existed: [`RunRecord::metric_meta`] derives it from their naming conventions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<crate::meta::MetricMeta>,
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
            meta: Some(crate::meta::MetricMeta::of_kind(
                crate::meta::MetricKind::Time,
            )),
        }
    }
    /// A higher-is-better metric: a throughput or rate, or a size or count, as `unit` says.
    pub fn rate(name: &str, unit: &str, help: &str) -> Self {
        Self {
            name: name.into(),
            unit: unit.into(),
            better: Better::Higher,
            help: help.into(),
            comparable: true,
            meta: Some(crate::meta::MetricMeta::from_unit(unit)),
        }
    }
    /// Statistic `stat` of the latency distribution of `of`, in milliseconds (lower is
    /// better).
    pub fn latency_ms(name: &str, of: &str, stat: crate::meta::Stat, help: &str) -> Self {
        Self {
            name: name.into(),
            unit: "ms".into(),
            better: Better::Lower,
            help: help.into(),
            comparable: true,
            meta: Some(crate::meta::MetricMeta::latency(of, stat)),
        }
    }
    /// The same metric as the point of the sweep `of` at `dims` (see [`crate::meta::Dim`]).
    pub fn point(mut self, of: &str, dims: Vec<crate::meta::Dim>) -> Self {
        let meta = self
            .meta
            .take()
            .unwrap_or_else(|| crate::meta::MetricMeta::from_unit(&self.unit));
        self.meta = Some(meta.point(of, dims));
        self
    }
    /// The same metric, marked as a property of the target that is not ranked across targets.
    pub fn not_comparable(mut self) -> Self {
        self.comparable = false;
        self
    }
}

impl RunRecord {
    /// What `workload`'s `metric` measures: as its workload declared it in the plan, else as
    /// its name, `unit` and `better` imply by older records' conventions ([`crate::meta::derive`]).
    pub fn metric_meta(
        &self,
        workload: &str,
        metric: &str,
        unit: &str,
        better: Better,
    ) -> crate::meta::MetricMeta {
        self.declared_meta(workload, metric)
            .cloned()
            .unwrap_or_else(|| crate::meta::derive(workload, metric, unit, better))
    }

    /// The metadata `workload` declared for `metric` in this record's plan, if any.
    pub fn declared_meta(&self, workload: &str, metric: &str) -> Option<&crate::meta::MetricMeta> {
        self.plan
            .workloads
            .iter()
            .filter(|w| w.name == workload)
            .flat_map(|w| &w.metrics)
            .find(|m| m.name == metric)
            .and_then(|m| m.meta.as_ref())
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_is_held_against_its_matching_ceiling() {
        let c = ToolCeiling {
            null_ops_per_s: 1000.0,
            read_4k_ops_per_s: 100.0,
            ..ToolCeiling::default()
        };
        assert_eq!(c.for_unit("ops/s"), Some(100.0));
        assert_eq!(c.for_unit("files/s"), Some(1000.0));
        assert_eq!(c.for_unit("MB/s"), None);
        assert_eq!(c.for_unit("s"), None);
        assert!(
            c.bounds("ops/s", Better::Higher, 80.0),
            "exactly 20 % below"
        );
        assert!(
            c.bounds("ops/s", Better::Higher, 150.0),
            "above the ceiling"
        );
        assert!(!c.bounds("ops/s", Better::Higher, 79.9));
        assert!(!c.bounds("files/s", Better::Higher, 799.0));
        assert!(c.bounds("files/s", Better::Higher, 800.0));
        assert!(
            !c.bounds("ops/s", Better::Lower, 1e9),
            "times are never tool-bound"
        );
        assert!(
            !ToolCeiling::default().bounds("ops/s", Better::Higher, 1.0),
            "no ceiling"
        );
    }
}

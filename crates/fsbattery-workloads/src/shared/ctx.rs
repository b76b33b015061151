//! What a workload sees of the run: where to work, which repeat, and how to time a phase.
//!
//! `phase` is the only way a workload measures, so every number in a record went through the
//! same quiesce → stopwatch → sample path. The cache state is part of that path: the
//! context prepares the cache as its [`CacheMode`] says, measures how much of the phase's
//! files is resident just before the clock starts, and attaches that to every sample the
//! phase records.

use crate::cache::CacheMode;
use crate::collective::{Fault, Team};
use crate::dataset::DatasetStore;
use crate::error::WorkloadError;
use crate::measure::{Stopwatch, Timing};
use crate::model::{PhaseCache, RankSample, Sample};
use crate::targets::blockstat::{DeviceSet, Probe};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Whether workloads use system calls in process or spawn the seeds' commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// System calls from fsbattery itself: measures the filesystem, not process spawning.
    #[default]
    Native,
    /// The seeds' own commands (touch, find, rm, cp, tar, ...) as child processes.
    Commands,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Native => "native",
            Method::Commands => "commands",
        })
    }
}

/// The context of one workload run (one target, one repeat).
pub struct WorkloadCtx<'a> {
    root: PathBuf,
    repeat: u32,
    method: Method,
    pause: Duration,
    on_sample: &'a mut dyn FnMut(&str, Sample),
    datasets: Option<&'a DatasetStore>,
    devices: Option<&'a DeviceSet>,
    cache: CacheState,
    team: Option<&'a Team<'a>>,
    /// The directory every rank shares (the target's root); `root` is this rank's own.
    shared_root: PathBuf,
    /// The last sample's value over all ranks, combined as a rate (see [`Self::last_rate`]).
    last_rate: f64,
    /// Set when an exchange with the other ranks failed: from then on this rank neither
    /// exchanges nor measures, it only hurries to the cell's end where the others wait.
    fault: Option<Fault>,
}

/// The context's cache handling: the mode, whether the target's medium is memory, and what
/// the last phase found (attached to the samples recorded after it).
#[derive(Default)]
struct CacheState {
    mode: CacheMode,
    memory_medium: bool,
    last: Option<PhaseCache>,
    /// The suite's policy for single phases, by the metric they record.
    phases: std::collections::BTreeMap<String, crate::model::CachePolicy>,
    /// The metric the next phase records, when the workload said (see [`WorkloadCtx::timed`]).
    next: Option<String>,
}

impl CacheState {
    /// The mode of the phase about to start: the suite's policy for it if it set one.
    fn take_mode(&mut self) -> CacheMode {
        let next = self.next.take();
        match next.and_then(|m| self.phases.get(&m).copied()) {
            Some(policy) => CacheMode {
                policy,
                ..self.mode
            },
            None => self.mode,
        }
    }
}

impl<'a> WorkloadCtx<'a> {
    /// A context rooted at `root`; every recorded sample is handed to `on_sample` at once.
    pub fn new(
        root: &Path,
        repeat: u32,
        method: Method,
        pause: Duration,
        on_sample: &'a mut dyn FnMut(&str, Sample),
    ) -> Self {
        WorkloadCtx {
            root: root.to_path_buf(),
            repeat,
            method,
            pause,
            on_sample,
            datasets: None,
            devices: None,
            cache: CacheState {
                memory_medium: crate::residency::in_memory(root),
                ..Default::default()
            },
            team: None,
            shared_root: root.to_path_buf(),
            last_rate: 0.0,
            fault: None,
        }
    }

    /// Run as one rank of many: phases start and end together, samples are gathered;
    /// `shared_root` is the directory all ranks share (this rank's own is `root`).
    pub fn with_team(mut self, team: &'a Team<'a>, shared_root: &Path) -> Self {
        self.team = Some(team).filter(|t| t.is_parallel());
        self.shared_root = shared_root.to_path_buf();
        self
    }

    /// (this rank, number of ranks): (0, 1) for a single process.
    pub fn ranks(&self) -> (usize, usize) {
        self.team
            .map_or((0, 1), |t| (t.comm().rank(), t.comm().size()))
    }

    /// The other ranks, for a workload that must exchange with them inside a timed phase
    /// (IO500's stonewall wear-out); `None` for a single process.
    pub fn team(&self) -> Option<&'a Team<'a>> {
        self.team
    }

    /// The directory every rank shares (for one process, the same as [`Self::root`]).
    pub fn shared_root(&self) -> &Path {
        &self.shared_root
    }

    /// The last recorded sample as a rate over all ranks (IOR's stonewall: every rank's
    /// amount over the first start to the last end); for one process, its value.
    pub fn last_rate(&self) -> f64 {
        self.last_rate
    }

    /// Every rank's `count` of `what`, in rank order (`[count]` for one process): what each
    /// rank did before a stonewall deadline, so the phases after it use the others' files.
    pub fn share_count(&mut self, what: &str, count: u64) -> Result<Vec<u64>, WorkloadError> {
        if let Some(fault) = &self.fault {
            return Err(fault.clone().into());
        }
        let Some(team) = self.team else {
            return Ok(vec![count]);
        };
        // Counts below 2^53 travel exactly as f64 (file and transfer counts are far below).
        match team.gather(what, count as f64, 0.0) {
            Ok(parts) => Ok(parts.iter().map(|p| p.value as u64).collect()),
            Err(fault) => {
                self.fault = Some(fault.clone());
                Err(fault.into())
            }
        }
    }

    /// The exchange that failed, if any (the cell fails with it).
    pub fn fault(&self) -> Option<&Fault> {
        self.fault.as_ref()
    }

    /// Read these block devices' counters around every phase (block-backed targets).
    pub fn with_devices(mut self, devices: Option<&'a DeviceSet>) -> Self {
        self.devices = devices;
        self
    }

    /// The suite's cache policy for single phases, by the metric each records.
    pub fn with_phase_cache(
        mut self,
        phases: &std::collections::BTreeMap<String, crate::model::CachePolicy>,
    ) -> Self {
        self.cache.phases = phases.clone();
        self
    }

    /// Name the metric the next [`Self::phase`] records, so a suite's `phase_cache` for it
    /// applies ([`Self::timed`] does this itself).
    pub fn next_phase(&mut self, metric: &str) {
        self.cache.next = Some(metric.to_string());
    }

    /// Run the phases under `mode` (cold unless given; `with_phase_cache` names exceptions).
    pub fn with_cache(mut self, mode: CacheMode) -> Self {
        self.cache.mode = mode;
        self
    }

    /// Give workloads the run's source datasets (tree, tree4).
    pub fn with_datasets(mut self, store: &'a DatasetStore) -> Self {
        self.datasets = Some(store);
        self
    }

    /// The run's source datasets, if the runner made a store. Returns `&'a` so the store can
    /// be used while the context is borrowed mutably for timing.
    pub fn datasets(&self) -> Option<&'a DatasetStore> {
        self.datasets
    }

    /// The directory on the target where the workload may create its scratch directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Repeat index (0-based).
    pub fn repeat(&self) -> u32 {
        self.repeat
    }

    /// Native or commands.
    pub fn method(&self) -> Method {
        self.method
    }

    /// Prepare the cache over `evict` (the phase's files) as the mode says, measure how much
    /// of `evict` is resident, pause, then time `f`.
    /// Fails with `Interrupted` if a signal arrives before the phase starts.
    /// On a block-backed target the devices' counters are read after the quiesce and, once
    /// the stopwatch stopped, after a `sync(2)` (both outside the timing).
    pub fn phase<T>(
        &mut self,
        evict: &[&Path],
        f: impl FnOnce() -> Result<T, WorkloadError>,
    ) -> Result<(T, Timing), WorkloadError> {
        if let Some(fault) = &self.fault {
            return Err(fault.clone().into());
        }
        let team = self.team;
        // As one rank of many: every rank is done with what came before before its node's
        // leader drops the cache, and every rank starts timing after the drop.
        self.barrier(Team::phase_start)?;
        let leader = team.is_none_or(|t| t.comm().node_leader());
        let mode = self.cache.take_mode();
        let prep = mode.prepare_as(evict, leader);
        self.cache.last = crate::residency::measure(evict).map(|(r, probe)| PhaseCache {
            policy: mode.effective(),
            prep,
            resident_bytes: r.resident_bytes,
            file_bytes: r.file_bytes,
            probe,
            memory_medium: self.cache.memory_medium,
        });
        // The walk loaded dentries and inodes even where it found no data (empty files).
        if leader && evict.iter().any(|p| p.exists()) {
            mode.after_measuring(prep);
        }
        // The pause comes after the walk: the walk opened and closed every file, and the
        // kernel frees what that allocated after the fact; paused first, that work fell
        // into the clock (bonnie's seq_stat of 131,072 files 9 % slower, 2026-11-24).
        let paused = self.pause_interruptibly();
        self.barrier(Team::phase_start)?;
        // In command mode the children's wchar counts their output to /dev/null and pipes
        // (find's names), not data given to the target: no amplification from it.
        let counts_writes = self.method() == Method::Native;
        let probe = self.devices.map(|d| Probe::start(d, counts_writes));
        let sw = Stopwatch::start();
        let out = paused.and_then(|()| f());
        let mut t = sw.stop();
        if let Some(team) = team {
            let ended = team.phase_end(out.is_ok());
            if out.is_ok() {
                self.check(ended)?;
            }
        }
        let out = out?;
        t.io = probe.and_then(Probe::finish);
        Ok((out, t))
    }

    /// One exchange with the other ranks (none for a single process).
    fn barrier(&mut self, step: fn(&Team<'a>) -> Result<(), Fault>) -> Result<(), WorkloadError> {
        match self.team {
            Some(team) => self.check(step(team)),
            None => Ok(()),
        }
    }

    /// Keep the first failed exchange, so the workload stops exchanging from there on.
    fn check(&mut self, res: Result<(), Fault>) -> Result<(), WorkloadError> {
        res.map_err(|fault| {
            self.fault.get_or_insert(fault.clone());
            fault.into()
        })
    }

    /// Time `f` as one phase and record its elapsed seconds as `metric`.
    pub fn timed(
        &mut self,
        metric: &str,
        evict: &[&Path],
        f: impl FnOnce() -> Result<(), WorkloadError>,
    ) -> Result<Timing, WorkloadError> {
        self.next_phase(metric);
        let ((), t) = self.phase(evict, f)?;
        self.record(metric, &t, t.elapsed_s);
        Ok(t)
    }

    /// Record a value every rank derived alike from values already combined over the ranks
    /// (IO500's scores): kept as it is, neither gathered nor combined again.
    pub fn record_derived(&mut self, metric: &str, timing: &Timing, value: f64) {
        if self.fault.is_none() {
            (self.on_sample)(metric, timing.sample(self.repeat, value));
        }
    }

    /// Record `value` for `metric`, with the CPU accounting of `timing` and the cache state
    /// the last phase found. As one rank of many, every rank's value and time are gathered
    /// into the sample.
    pub fn record(&mut self, metric: &str, timing: &Timing, value: f64) {
        let mut sample = timing.sample(self.repeat, value);
        sample.cache = self.cache.last;
        self.last_rate = value;
        if let Some(team) = self.team {
            if self.fault.is_some() {
                return;
            }
            match team.gather(metric, value, timing.elapsed_s) {
                Ok(parts) => {
                    let all = fsbattery_stats::stonewall(&parts, fsbattery_stats::Combine::Rate);
                    self.last_rate = all.map_or(0.0, |a| a.value);
                    sample.ranks = parts
                        .iter()
                        .map(|p| RankSample {
                            value: p.value,
                            elapsed_s: p.elapsed_s,
                        })
                        .collect();
                }
                Err(fault) => {
                    self.fault = Some(fault);
                    return;
                }
            }
        }
        (self.on_sample)(metric, sample);
    }

    fn pause_interruptibly(&self) -> Result<(), WorkloadError> {
        crate::sleep_interruptibly(self.pause)
    }
}

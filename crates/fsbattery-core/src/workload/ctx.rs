//! What a workload sees of the run: where to work, which repeat, and how to time a phase.
//!
//! `phase` is the only way a workload measures, so every number in a record went through the
//! same quiesce → stopwatch → sample path. The cache state is part of that path: the
//! context prepares the cache as its [`CacheMode`] says, measures how much of the phase's
//! files is resident just before the clock starts, and attaches that to every sample the
//! phase records.

use crate::cache::CacheMode;
use crate::dataset::DatasetStore;
use crate::error::WorkloadError;
use crate::measure::{Stopwatch, Timing};
use crate::model::{PhaseCache, Sample};
use crate::target::blockstat::{DeviceSet, Probe};
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
}

/// The context's cache handling: the mode, whether the target's medium is memory, and what
/// the last phase found (attached to the samples recorded after it).
#[derive(Default)]
struct CacheState {
    mode: CacheMode,
    memory_medium: bool,
    last: Option<PhaseCache>,
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
        }
    }

    /// Read these block devices' counters around every phase (block-backed targets).
    pub fn with_devices(mut self, devices: Option<&'a DeviceSet>) -> Self {
        self.devices = devices;
        self
    }

    /// Run the phases under `mode` (cold unless given).
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

    /// Prepare the cache over `evict` (the phase's files) as the mode says, pause, measure
    /// how much of `evict` is resident, then time `f`.
    /// Fails with `Interrupted` if a signal arrives before the phase starts.
    /// On a block-backed target the devices' counters are read after the quiesce and, once
    /// the stopwatch stopped, after a `sync(2)` (both outside the timing).
    pub fn phase<T>(
        &mut self,
        evict: &[&Path],
        f: impl FnOnce() -> Result<T, WorkloadError>,
    ) -> Result<(T, Timing), WorkloadError> {
        let prep = self.cache.mode.prepare(evict);
        self.pause_interruptibly()?;
        self.cache.last = crate::residency::measure(evict).map(|(r, probe)| PhaseCache {
            policy: self.cache.mode.effective(),
            prep,
            resident_bytes: r.resident_bytes,
            file_bytes: r.file_bytes,
            probe,
            memory_medium: self.cache.memory_medium,
        });
        // The walk loaded dentries and inodes even where it found no data (empty files).
        if evict.iter().any(|p| p.exists()) {
            self.cache.mode.after_measuring(prep);
        }
        let probe = self.devices.map(Probe::start);
        let sw = Stopwatch::start();
        let out = f()?;
        let mut t = sw.stop();
        t.io = probe.and_then(Probe::finish);
        Ok((out, t))
    }

    /// Time `f` as one phase and record its elapsed seconds as `metric`.
    pub fn timed(
        &mut self,
        metric: &str,
        evict: &[&Path],
        f: impl FnOnce() -> Result<(), WorkloadError>,
    ) -> Result<Timing, WorkloadError> {
        let ((), t) = self.phase(evict, f)?;
        self.record(metric, &t, t.elapsed_s);
        Ok(t)
    }

    /// Record `value` for `metric`, with the CPU accounting of `timing` and the cache state
    /// the last phase found.
    pub fn record(&mut self, metric: &str, timing: &Timing, value: f64) {
        let mut sample = timing.sample(self.repeat, value);
        sample.cache = self.cache.last;
        (self.on_sample)(metric, sample);
    }

    fn pause_interruptibly(&self) -> Result<(), WorkloadError> {
        let step = Duration::from_millis(100);
        let mut left = self.pause;
        loop {
            if crate::interrupt::requested() {
                return Err(WorkloadError::Interrupted);
            }
            if left.is_zero() {
                return Ok(());
            }
            let d = left.min(step);
            std::thread::sleep(d);
            left -= d;
        }
    }
}

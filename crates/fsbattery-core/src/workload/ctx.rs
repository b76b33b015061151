//! What a workload sees of the run: where to work, which repeat, and how to time a phase.
//!
//! `phase` is the only way a workload measures, so every number in a record went through the
//! same quiesce → stopwatch → sample path.

use crate::cache;
use crate::dataset::DatasetStore;
use crate::error::WorkloadError;
use crate::measure::{Stopwatch, Timing};
use crate::model::Sample;
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
        }
    }

    /// Read these block devices' counters around every phase (block-backed targets).
    pub fn with_devices(mut self, devices: Option<&'a DeviceSet>) -> Self {
        self.devices = devices;
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

    /// Quiesce (sync, drop caches or fadvise `evict`, pause), then time `f`.
    /// Fails with `Interrupted` if a signal arrives before the phase starts.
    /// On a block-backed target the devices' counters are read after the quiesce and, once
    /// the stopwatch stopped, after a `sync(2)` (both outside the timing).
    pub fn phase<T>(
        &mut self,
        evict: &[&Path],
        f: impl FnOnce() -> Result<T, WorkloadError>,
    ) -> Result<(T, Timing), WorkloadError> {
        cache::quiesce(evict);
        self.pause_interruptibly()?;
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

    /// Record `value` for `metric`, with the CPU accounting of `timing`.
    pub fn record(&mut self, metric: &str, timing: &Timing, value: f64) {
        (self.on_sample)(metric, timing.sample(self.repeat, value));
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

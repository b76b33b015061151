//! Shared machinery of the many-file workloads (`ffsb`, `postmark*`, the filebench
//! personalities): parameter helpers, a per-thread IO port over the engine, per-operation
//! statistics and the "target full" failure.
//!
//! Invariants:
//! - Every byte goes through an [`Engine`] owned by the thread that uses it, driven by the
//!   engine's one [`Driver`] (a [`Port`]); files are opened with std and handed to the engine's
//!   file table, so sync, io_uring and null run the same flows. A transfer either moves every
//!   byte or fails; the driver reaps what is in flight before an error returns, and polls
//!   Ctrl-C as every loop does.
//! - ENOSPC and EDQUOT, from a write, an fsync, a create or a mkdir, and a short write all
//!   become one message, "target full after N bytes (…) and F files written in DIR: …", counted
//!   by a [`Tally`] shared by every thread of the workload.
//! - Threads run on the engine's one pool ([`crate::engine::run_pool`]): a common start line,
//!   the first real error wins over the "interrupted" and "stopped" of the others.

use crate::engine::{
    BufferPool, Completion, Driver, Engine, EngineSpec, Fill, LatencyHistogram, OpKind, Transfer,
    UringOptions, XorShift,
};
use crate::error::{is_full, WorkloadError};
use crate::measure::Timing;
use crate::model::{MetricSpec, Stat};
use crate::params::{ParamSpec, MAX_THREADS};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::WorkloadCtx;

// The parameter constructors and engine names are blockio's: one definition for every
// engine-driven workload.
pub(crate) use super::blockio::{count, percent, request_size, MAX_FILES};

/// A size parameter (bytes, binary suffixes accepted), never scaled to RAM.
pub(crate) const fn bytes(
    name: &'static str,
    help: &'static str,
    quick: u64,
    standard: u64,
) -> ParamSpec {
    super::blockio::bytes(name, help, quick, standard, false)
}

/// The `threads` parameter's range: 0 (one per CPU) to [`MAX_THREADS`].
pub(crate) const THREADS_RANGE: (u64, u64) = (0, MAX_THREADS);

/// Threads to run for a `threads` parameter of `n`, 0 meaning one per CPU.
pub(crate) fn threads(n: u64) -> usize {
    match n {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n as usize,
    }
}

/// The engine the `engine` and `depth` parameters ask for (a bad depth is refused as blockio
/// refuses it). Registering files pays only when files stay open (ffsb); workloads that open
/// and close a file per operation would pay an extra system call per open and close instead.
pub(crate) fn engine_spec(
    workload: &str,
    io: &super::io::IoGroup,
    register_files: bool,
) -> Result<EngineSpec, WorkloadError> {
    io.engine(
        workload,
        UringOptions {
            registered_buffers: false,
            registered_files: register_files,
            batch: 1,
            ..UringOptions::default()
        },
    )
}

/// Bytes and files written so far by every thread of one workload run, for the message of a
/// full target.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    bytes: AtomicU64,
    files: AtomicU64,
}

impl Tally {
    /// Count `n` bytes written.
    #[inline]
    pub fn wrote(&self, n: u64) {
        self.bytes.fetch_add(n, Ordering::Relaxed);
    }

    /// Count one file created.
    #[inline]
    pub fn created(&self) {
        self.files.fetch_add(1, Ordering::Relaxed);
    }

    /// The "target full" failure, after `what` (operation and path) failed with `cause`.
    pub fn full(&self, what: &str, cause: &str) -> WorkloadError {
        let b = self.bytes.load(Ordering::Relaxed);
        let f = self.files.load(Ordering::Relaxed);
        crate::error::target_full(
            b,
            &format!(" and {f} files written"),
            &format!("{what}: {cause}"),
            "give the target more room or make the workload smaller (fewer or smaller files)",
        )
    }

    /// `e` from `what` as a workload error: "target full" for ENOSPC and EDQUOT.
    pub fn io(&self, what: String, e: std::io::Error) -> WorkloadError {
        if is_full(&e) {
            self.full(&what, &e.to_string())
        } else {
            WorkloadError::io(what, e)
        }
    }
}

/// One thread's engine behind the one [`Driver`]: transfers are [`Transfer`]s.
pub(crate) struct Port {
    driver: Driver<Box<dyn Engine>>,
}

impl Port {
    /// An engine of `spec` whose slots hold `slot_len` bytes aligned to `align`, filled with
    /// incompressible bytes from `seed` (what written files contain).
    pub fn new(
        spec: &EngineSpec,
        slot_len: usize,
        align: usize,
        seed: u64,
    ) -> Result<Port, WorkloadError> {
        let depth = spec.depth().max(1) as usize;
        let mut pool = BufferPool::new(depth, slot_len, align);
        let mut base = vec![0u8; slot_len];
        Fill::Random.generate(seed, &mut base);
        pool.fill_all(&base);
        let engine = spec.build(pool)?;
        Ok(Port {
            driver: Driver::new(engine, 1),
        })
    }

    /// Hand an open file to the engine; operations name it by the returned index.
    pub fn add(&mut self, file: File) -> Result<u32, WorkloadError> {
        Ok(self.driver.engine_mut().add_file(file)?)
    }

    /// Take file `id` back from the engine and close it.
    pub fn close(&mut self, id: u32) {
        drop(self.driver.engine_mut().remove_file(id));
    }

    /// Move `len` bytes at `offset` of file `id` (`site` names it in errors) in slot-sized
    /// chunks, up to the engine's depth in flight. Writes are counted in the site's tally.
    pub fn transfer(
        &mut self,
        kind: OpKind,
        id: u32,
        offset: u64,
        len: u64,
        site: Site<'_>,
    ) -> Result<(), WorkloadError> {
        let chunk = self.driver.engine_mut().buffers().slot_len() as u32;
        let mut t = Transfer::new(kind, id, offset, len, chunk, |c: &Completion| {
            check(c, site)
        });
        self.driver.run(&mut t).map(|_| ())
    }

    /// fsync file `id`.
    pub fn fsync(&mut self, id: u32, site: Site<'_>) -> Result<(), WorkloadError> {
        self.transfer(OpKind::Fsync, id, 0, 0, site)
    }
}

/// Where a transfer happens, for its error messages and its byte count.
#[derive(Clone, Copy)]
pub(crate) struct Site<'a> {
    /// The file.
    pub path: &'a Path,
    /// Written bytes are counted here.
    pub tally: &'a Tally,
}

/// A completion's failure, if any: kernel errors with the offset and file, ENOSPC and short
/// writes as "target full", short reads as a file shorter than the workload wrote.
fn check(c: &Completion, site: Site<'_>) -> Result<(), WorkloadError> {
    let op = &c.op;
    let what = || {
        format!(
            "{} of {} B at offset {} of {}",
            op.kind.name(),
            op.len,
            op.offset,
            site.path.display()
        )
    };
    if c.result < 0 {
        let e = std::io::Error::from_raw_os_error(-c.result);
        return Err(site.tally.io(what(), e));
    }
    let got = c.result as u32;
    match op.kind {
        OpKind::Write if got < op.len => Err(site
            .tally
            .full(&what(), &format!("short write: {got} of {} bytes", op.len))),
        OpKind::Read if got < op.len => Err(WorkloadError::Failed(format!(
            "{}: short read, {got} of {} bytes: the file is shorter than the workload wrote it",
            what(),
            op.len
        ))),
        OpKind::Write => {
            site.tally.wrote(u64::from(got));
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Count, bytes and latency of one kind of operation.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpStat {
    /// Operations completed.
    pub ops: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Their latency in nanoseconds.
    pub lat: LatencyHistogram,
}

impl OpStat {
    /// Count one operation that started at `t0` and moved `bytes`.
    #[inline]
    pub fn done(&mut self, t0: Instant, bytes: u64) {
        self.ops += 1;
        self.bytes += bytes;
        self.lat.record(t0.elapsed().as_nanos() as u64);
    }

    /// Count one operation that ran from `t0` to `end` and moved `bytes`.
    #[inline]
    pub fn done_at(&mut self, t0: Instant, end: Instant, bytes: u64) {
        self.ops += 1;
        self.bytes += bytes;
        self.lat
            .record(end.saturating_duration_since(t0).as_nanos() as u64);
    }

    /// Add another thread's counts.
    pub fn merge(&mut self, o: &OpStat) {
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.lat.merge(&o.lat);
    }
}

/// Merge per-thread rows of per-kind statistics into one row.
pub(crate) fn merge_rows(rows: &[Vec<OpStat>], kinds: usize) -> Vec<OpStat> {
    let mut out = vec![OpStat::default(); kinds];
    for row in rows {
        for (o, s) in out.iter_mut().zip(row) {
            o.merge(s);
        }
    }
    out
}

/// Latency statistics reported per quantity: suffix and what it is.
const LAT: [(&str, &str); 4] = [
    ("lat_mean", "mean"),
    ("lat_p50", "median"),
    ("lat_p99", "99th percentile"),
    ("lat_max", "largest"),
];

/// The latency metrics `<prefix>_lat_mean`, `_p50`, `_p99`, `_max` (ms, lower is better).
pub(crate) fn lat_specs(prefix: &str, what: &str) -> Vec<MetricSpec> {
    LAT.iter()
        .map(|(suffix, stat)| {
            let of = format!("{prefix}_lat");
            let s = suffix.strip_prefix("lat_").and_then(Stat::parse);
            MetricSpec::latency_ms(
                &format!("{prefix}_{suffix}"),
                &of,
                s.expect("LAT names statistics"),
                &format!("{stat} latency of {what}"),
            )
        })
        .collect()
}

/// Record the latency metrics of [`lat_specs`] from `h`.
pub(crate) fn record_lat(
    ctx: &mut WorkloadCtx<'_>,
    prefix: &str,
    t: &Timing,
    h: &LatencyHistogram,
) {
    let s = h.summary();
    let ms = |ns: f64| ns / 1e6;
    let values = [
        ms(s.mean_ns),
        ms(s.p50_ns as f64),
        ms(s.p99_ns as f64),
        ms(s.max_ns as f64),
    ];
    for ((suffix, _), v) in LAT.iter().zip(values) {
        ctx.record(&format!("{prefix}_{suffix}"), t, v);
    }
}

/// Whether a thread should stop issuing: the deadline passed, another thread failed, or a
/// signal came (then the thread fails with `Interrupted`).
#[inline]
pub(crate) fn should_stop(deadline: Instant, stop: &AtomicBool) -> Result<bool, WorkloadError> {
    Ok(halted(stop)? || Instant::now() >= deadline)
}

/// Whether another thread failed (`Ok(true)`) or a signal came (`Interrupted`).
#[inline]
pub(crate) fn halted(stop: &AtomicBool) -> Result<bool, WorkloadError> {
    if crate::interrupt::requested() {
        return Err(WorkloadError::Interrupted);
    }
    Ok(stop.load(Ordering::Relaxed))
}

/// Uniform in (0, 1): never exactly 0, so logarithms stay finite.
#[inline]
fn unit(rng: &mut XorShift) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// A gamma-distributed value with `shape` and mean `mean` (Marsaglia & Tsang 2000), as
/// filebench's `cvar-gamma` draws file sizes.
pub(crate) fn gamma(rng: &mut XorShift, shape: f64, mean: f64) -> f64 {
    let scale = mean / shape;
    if shape < 1.0 {
        // Boost: Gamma(k) = Gamma(k + 1) · U^(1/k).
        let u = unit(rng);
        return gamma(rng, shape + 1.0, (shape + 1.0) * scale) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        // Box–Muller: one standard normal.
        let x = (-2.0 * unit(rng).ln()).sqrt() * (std::f64::consts::TAU * unit(rng)).cos();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = unit(rng);
        if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v * scale;
        }
    }
}

/// Create directory `path`, mapping a full filesystem to the "target full" failure.
pub(crate) fn mkdir(path: &Path, tally: &Tally) -> Result<(), WorkloadError> {
    std::fs::create_dir(path).map_err(|e| tally.io(format!("mkdir {}", path.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_has_the_asked_mean_and_spread() {
        let mut rng = XorShift::new(5);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| gamma(&mut rng, 1.5, 16384.0)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean / 16384.0 - 1.0).abs() < 0.01, "mean {mean}");
        // Var = k θ² = mean² / k.
        let want = 16384.0f64.powi(2) / 1.5;
        assert!((var / want - 1.0).abs() < 0.03, "variance {var} vs {want}");
        assert!(xs.iter().all(|&x| x > 0.0));
        let small = gamma(&mut rng, 0.5, 100.0);
        assert!(small > 0.0 && small.is_finite());
    }

    #[test]
    fn port_moves_bytes_and_reports_a_short_read() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        let tally = Tally::default();
        let site = Site {
            path: &path,
            tally: &tally,
        };
        let mut port = Port::new(&EngineSpec::Sync, 4096, 4096, 1).unwrap();
        let f = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        let id = port.add(f).unwrap();
        port.transfer(OpKind::Write, id, 0, 10_000, site).unwrap();
        port.fsync(id, site).unwrap();
        port.transfer(OpKind::Read, id, 0, 10_000, site).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 10_000);
        assert_eq!(tally.bytes.load(Ordering::Relaxed), 10_000);
        let e = port
            .transfer(OpKind::Read, id, 8192, 4096, site)
            .unwrap_err();
        assert!(e.to_string().contains("short read"), "{e}");
        port.close(id);
    }

    #[test]
    fn full_message_counts_what_was_written() {
        let t = Tally::default();
        t.wrote(5000);
        t.created();
        let e = t.io(
            "write x".into(),
            std::io::Error::from_raw_os_error(libc::ENOSPC),
        );
        let m = e.to_string();
        assert!(m.starts_with("target full after 5000 bytes"), "{m}");
        assert!(m.contains("and 1 files written"), "{m}");
        let other = t.io("x".into(), std::io::Error::from_raw_os_error(libc::EIO));
        assert!(!other.to_string().contains("target full"));
    }
}

#[cfg(test)]
#[path = "fileset_tests.rs"]
mod workload_tests;

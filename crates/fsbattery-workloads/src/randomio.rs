//! `randomio`: seed S4's `randomio bigfile 10 .25 .01 2048 60 1` — lay out a SIZE file, then
//! THREADS threads do random REQUEST-byte reads and writes on it for RUNTIME seconds, a
//! WRITE_PCT share of them writes, a SYNC_PCT share of writes followed by fsync, with O_DIRECT.
//!
//! It follows randomio 1.3's arguments and fio 3.33's semantics for what they leave open (the
//! agreement test holds its IOPS to fio's within 10%): `--thread` jobs sharing one file,
//! `ioengine=psync` (one pread/pwrite at a time per thread), `direct=1`, `norandommap`
//! (offsets drawn with replacement), `invalidate=1` (the file evicted with fadvise before the
//! job, nothing else dropped: the workload's tool cache), `rwmixwrite` = WRITE_PCT.
//!
//! Metrics: `create` (MB/s of laying the file out; S4's "create 4GB file MB/s" row is the `dd`
//! that made randomio's file, see suites/zfs2007.toml), `iops` (reads
//! and writes per second, fsyncs not counted, as randomio), and per-kind latency in ms: mean
//! and standard deviation (S4's rows) plus percentiles and max from the engine's histograms.
//! With SYNC_PCT above 0, `sync_lat_*` is the fsync calls' own latency (fio's `sync:` line):
//! the cost of a commit, which no write latency includes.
//!
//! Differences from randomio 1.3, deliberate and documented:
//! - the file is laid out by fsbattery (buffered 1 MiB writes, fsync in the clock), where S4
//!   made it beforehand; the random phase then uses O_DIRECT as randomio's last argument asks;
//! - each thread draws its offsets from its own 1/THREADS region of the file (the engine keeps
//!   threads from writing the same block at once); uniform random offsets over disjoint regions
//!   cover the file exactly as uniform offsets over the whole file do;
//! - REQUEST is never changed behind the user's back: if O_DIRECT needs larger alignment
//!   (2048 B on a 4 KiB-sector device), the cell fails and says which value would work;
//! - under MPI `layout=shared` puts every rank's SIZE in one file, laid out interleaved by
//!   rank (IOR without `-F`), and every rank's random requests range over all of it.

use super::blockio::{self, BlockFile, FillKind, IoDefaults, IoGroup, IoSettings, Open};
use super::layout::{Layout, LayoutDefaults, LayoutSettings, SharedDir};
use super::{Scratch, WorkloadCtx};
use crate::engine::{
    run_job, EngineSpec, FileMode, JobResult, JobSpec, OpKind, OpStats, Pattern, Stop,
};
use crate::error::{IoContext, WorkloadError};
use crate::measure::Timing;
use crate::model::{MetricSpec, Stat};
use crate::params::{MAX_RUNTIME, MAX_THREADS};
use crate::settings::Bytes;
use crate::TypedWorkload;
use std::path::Path;
use std::time::Duration;

/// The randomio workload.
pub struct RandomIo;

/// Block size of the layout pass.
const CREATE_BLOCK: u64 = 1 << 20;

crate::settings! {
    /// randomio's settings.
    pub struct Config {
        /// Threads issuing IO.
        pub threads: u64 = blockio::count(
            "threads",
            "threads issuing IO (randomio's nr_threads)",
            10,
            10,
        )
        .range(1, MAX_THREADS),
        /// Percent of requests that are writes.
        pub write_pct: u64 = blockio::percent(
            "write_pct",
            "percent of requests that are writes (randomio's write fraction .25 = 25)",
            25,
        ),
        /// Percent of writes followed by an fsync.
        pub sync_pct: u64 = blockio::percent(
            "sync_pct",
            "percent of writes followed by an fsync (randomio's fsync fraction .01 = 1)",
            1,
        ),
        /// Bytes per read or write.
        pub request: Bytes = blockio::request_size(
            "request",
            "bytes per read or write (randomio's io_size)",
            2048,
        ),
        /// Random IO for this long.
        pub runtime: Duration =
            blockio::count("runtime", "seconds of random IO", 3, 60).range(1, MAX_RUNTIME),
        // Not 2 x RAM at full scale: the random phase is O_DIRECT, so the cache cannot hold it.
        /// Bytes of the file.
        pub size: Bytes = blockio::file_size(
            "size",
            "size of the file (whole requests)",
            64 << 20,
            4 << 30,
            false,
        ),
        /// Engine, depth, reap batch, O_DIRECT, fill.
        pub io: IoGroup => IO,
        /// Where MPI ranks put the file.
        pub layout: LayoutSettings => LayoutDefaults::Layout,
    }
}

/// randomio's IO group: O_DIRECT and random blocks by default, and the reap batch under its
/// older name (`batch` is accepted for it, see `params::ALIASES`).
const IO: IoDefaults = IoDefaults {
    batch: Some((
        BATCH,
        "io_uring: completions each wait asks for (at most depth); 0 = auto, a quarter of the \
         depth shared among the threads (1 to 16). Every ready completion is reaped and every freed slot refilled in \
         one call whatever the value; 1 wakes on the first, larger values mean fewer wake-ups \
         and larger submit batches",
    )),
    ..IoDefaults::BLOCK.direct_on().filled(FillKind::Random)
};

/// The metric of the achieved queue depth (the HTML latency table shows it by this name).
const QUEUE_DEPTH: &str = "queue_depth";

/// The parameter of the io_uring reap batch.
const BATCH: &str = "uring.batch";

/// Latency statistics per kind, metric suffix and what it is.
const LATENCY: [(&str, &str); 7] = [
    ("mean", "mean"),
    ("stddev", "standard deviation"),
    ("p50", "median"),
    ("p90", "90th percentile"),
    ("p99", "99th percentile"),
    ("p99.9", "99.9th percentile"),
    ("max", "maximum"),
];

impl TypedWorkload for RandomIo {
    type Settings = Config;
    fn needs(&self, c: &Config) -> super::needs::Needs {
        super::needs::Needs::space(c.size.get(), 2, "size")
            .engine(&c.io)
            .direct(&c.io, "false", true, &[("request", c.request.get())])
    }
    fn name(&self) -> &'static str {
        "randomio"
    }
    /// Its phases run in step on every MPI rank (see [`crate::collective`]).
    fn runs_on_ranks(&self) -> bool {
        true
    }
    fn summary(&self) -> &'static str {
        "follows randomio 1.3's arguments (S4: randomio bigfile 10 .25 .01 2048 60 1) with fio \
         3.33's semantics (threads, psync, direct, norandommap, invalidate): lay out a file, \
         then random O_DIRECT reads and writes from 10 threads for 60 s; IO/s and latency"
    }
    /// As fio (`invalidate=1`), which the agreement tests hold it to: the job's file is
    /// evicted with fadvise before each job, nothing else is dropped.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Invalidate
    }
    fn reference(&self) -> &'static str {
        "randomio 1.3 (fio)"
    }
    fn check(&self, c: &Config) -> Result<(), WorkloadError> {
        let (batch, depth) = (c.io.batch, c.io.depth);
        // Only io_uring reaps in batches: the sync and null engines complete each operation
        // as it is submitted (the null engine once counted as asynchronous here).
        if c.io.uses_uring() && batch > depth {
            return Err(WorkloadError::Failed(format!(
                "randomio.{BATCH}={batch} exceeds randomio.depth={depth}: a reap cannot wait \
                 for more operations than are in flight; use {BATCH} <= depth"
            )));
        }
        blockio::whole_chunks("randomio", c.size.get(), c.request.get(), "request").map(drop)
    }
    fn metrics(&self, c: &Config) -> Vec<MetricSpec> {
        let mut m = vec![
            MetricSpec::rate(
                "create",
                "MB/s",
                "lay the file out: buffered 1 MiB writes, fsync included",
            ),
            MetricSpec::rate("iops", "ops/s", "reads + writes per second (fsyncs apart)"),
            MetricSpec::rate(
                QUEUE_DEPTH,
                "ops",
                "achieved queue depth: time-weighted mean of each thread's operations in flight \
                 (compare with depth; sync engine: 1)",
            )
            .not_comparable(),
        ];
        for (kind, on) in kinds(c).into_iter().take(2) {
            if on {
                m.push(MetricSpec::rate(
                    &format!("{kind}_iops"),
                    "ops/s",
                    &format!("{kind}s per second"),
                ));
            }
        }
        for (kind, on) in kinds(c) {
            if !on {
                continue;
            }
            for (suffix, what) in LATENCY {
                let stat = Stat::parse(suffix).expect("LATENCY names statistics");
                m.push(MetricSpec::latency_ms(
                    &format!("{kind}_lat_{suffix}"),
                    &format!("{kind}_lat"),
                    stat,
                    &format!("{kind} latency, {what}"),
                ));
            }
        }
        m.extend(blockio::direct_metric(&c.io));
        m
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        // Ranges are the specs' data; checked again for values that were not resolved from
        // text (library callers, tests).
        crate::settings::within(self.name(), c)?;
        let (write_pct, sync_pct) = (c.write_pct, c.sync_pct);
        let (threads, runtime) = (c.threads, c.runtime);
        let request = c.request.get();
        let size = blockio::whole_chunks("randomio", c.size.get(), request, "request")?;
        let scratch = Scratch::create(ctx.root(), "randomio")?;
        // Under MPI with layout=shared: one file of every rank's SIZE, laid out interleaved
        // by rank, and every rank's random requests over all of it (IOR without -F, -z).
        let layout = Layout::of(ctx, &c.layout);
        let dir = SharedDir::make(ctx, &layout, "randomio", scratch.path())?;
        let path = dir.path().join("bigfile");
        let io = IoSettings::resolve("randomio", &c.io, dir.path())?;
        if io.direct {
            // Fail before a long layout pass if O_DIRECT cannot take REQUEST-sized transfers.
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .ctx(|| format!("create {}", path.display()))?;
            blockio::require_dio_multiple(&path, request, "randomio.request")?;
        }
        let seed = 0x5eed_0000 ^ u64::from(ctx.repeat());
        let t = ctx.phase(&[dir.path()], || {
            lay_out(&path, size, request, &io.buffered(), seed, &layout)
        })?;
        ctx.record("create", &t.1, blockio::mb_per_s(size, t.1.elapsed_s));
        let size = match layout.shared {
            true => size * layout.ranks as u64,
            false => size,
        };

        let spec = JobSpec {
            pattern: Pattern::Random,
            write_fraction: write_pct as f64 / 100.0,
            fsync_fraction: sync_pct as f64 / 100.0,
            direct: io.direct,
            engine: with_batch(io.engine, c.io.batch),
            jobs: threads as u32,
            stop: Stop::Runtime(runtime),
            fill: io.fill,
            file_mode: FileMode::Existing,
            seed,
            ..JobSpec::new(&path, size, request as u32)
        };
        let (res, t) = ctx.phase(&[dir.path()], || {
            run_job(&spec).map_err(|e| blockio::job_error(e, &path))
        })?;
        record(ctx, c, &res, &t);
        blockio::record_direct(ctx, &c.io, &io);
        Ok(())
    }
}

/// `engine` waiting for `batch` completions per reap (io_uring; the sync and null engines
/// complete each operation as it is submitted).
fn with_batch(engine: EngineSpec, batch: u64) -> EngineSpec {
    engine.with_batch(u32::try_from(batch).unwrap_or(u32::MAX))
}

/// Which latency kinds a run has: reads unless every request writes, writes unless none does,
/// fsyncs when some writes are followed by one.
fn kinds(c: &Config) -> [(&'static str, bool); 3] {
    let w = c.write_pct;
    [
        ("read", w < 100),
        ("write", w > 0),
        ("sync", w > 0 && c.sync_pct > 0),
    ]
}

/// Write the whole file sequentially through the cache and fsync it (the clock includes the
/// fsync, so the rate is what reached the device).
fn lay_out(
    path: &Path,
    size: u64,
    request: u64,
    io: &IoSettings,
    seed: u64,
    layout: &Layout,
) -> Result<(), WorkloadError> {
    // 1 MiB writes when the size allows, else request-sized ones (size is whole requests).
    let block = if size.is_multiple_of(CREATE_BLOCK) {
        CREATE_BLOCK
    } else {
        request
    };
    if layout.shared {
        // This rank's blocks of the one file, interleaved with the others'; nobody truncates.
        let mut f = BlockFile::open(path, Open::Create, io, block as u32, seed)?;
        for i in 0..size / block {
            f.write_at(layout.offset(layout.rank, i, block), i * block)?;
        }
        return f.fsync();
    }
    let mut f = BlockFile::open(path, Open::Truncate, io, block as u32, seed)?;
    f.stream(OpKind::Write, size)?;
    f.fsync()
}

/// Record the random phase's rates and latencies (ns → ms).
fn record(ctx: &mut WorkloadCtx<'_>, c: &Config, res: &JobResult, t: &Timing) {
    ctx.record("iops", t, res.iops);
    ctx.record(QUEUE_DEPTH, t, res.queue_depth);
    let per_s = |s: &OpStats| crate::measure::per_s(s.ops as f64, res.elapsed_s);
    let [(_, reads), (_, writes), (_, syncs)] = kinds(c);
    let stats = [
        (reads, "read", &res.read),
        (writes, "write", &res.write),
        (syncs, "sync", &res.fsync),
    ];
    for &(on, kind, s) in &stats[..2] {
        if on {
            ctx.record(&format!("{kind}_iops"), t, per_s(s));
        }
    }
    for &(on, kind, s) in &stats {
        if !on {
            continue;
        }
        let l = &s.latency;
        let ms = |ns: f64| ns / 1e6;
        let values = [
            l.mean_ns,
            l.stddev_ns,
            l.p50_ns as f64,
            l.p90_ns as f64,
            l.p99_ns as f64,
            l.p999_ns as f64,
            l.max_ns as f64,
        ];
        for ((suffix, _), v) in LATENCY.iter().zip(values) {
            ctx.record(&format!("{kind}_lat_{suffix}"), t, ms(v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockio::testutil::{direct_ok, run_typed as run_native, uring_ok, values};

    fn params(over: &[(&str, u64)]) -> Config {
        let defaults = [
            ("threads", 3),
            ("write_pct", 25),
            ("sync_pct", 1),
            ("request", 4096),
            ("runtime", 1),
            ("size", 4 << 20),
            ("direct", 0),
            ("buffered_fallback", 0),
            ("engine", 0),
            ("depth", 4),
            ("uring.batch", 0),
            ("fill", 1),
            ("compress_pct", 50),
            ("layout", 0),
        ];
        crate::blockio::testutil::settings_of(&defaults, over)
    }

    fn check_positive(p: &Config) -> std::collections::BTreeMap<String, f64> {
        let (samples, _tmp) = run_native(&RandomIo, p).unwrap();
        let v = values(&samples);
        for (m, x) in &v {
            assert!(*x > 0.0, "{m} = {x}");
        }
        v
    }

    #[test]
    fn mixed_run_reports_rates_and_ordered_latencies() {
        let v = check_positive(&params(&[]));
        let total = v["read_iops"] + v["write_iops"];
        assert!((total - v["iops"]).abs() <= 1e-6 * v["iops"], "{v:?}");
        // About a quarter of the requests are writes.
        let share = v["write_iops"] / v["iops"];
        assert!((0.15..0.35).contains(&share), "write share {share}");
        for k in ["read", "write"] {
            let q = |s: &str| v[&format!("{k}_lat_{s}")];
            assert!(q("p50") <= q("p90") && q("p90") <= q("p99") && q("p99") <= q("p99.9"));
            assert!(q("p99.9") <= q("max") * 1.001, "{v:?}");
        }
    }

    #[test]
    fn read_only_and_write_only_declare_only_their_latencies() {
        let v = check_positive(&params(&[("write_pct", 0)]));
        assert!(v.contains_key("read_lat_mean") && !v.contains_key("write_lat_mean"));
        let v = check_positive(&params(&[("write_pct", 100), ("sync_pct", 0)]));
        assert!(!v.contains_key("read_lat_mean") && v.contains_key("write_lat_mean"));
        assert!(!v.contains_key("sync_lat_mean"), "{v:?}");
    }

    #[test]
    fn every_write_synced_reports_the_fsync_latency_apart() {
        let v = check_positive(&params(&[("write_pct", 100), ("sync_pct", 100)]));
        let q = |s: &str| v[&format!("sync_lat_{s}")];
        assert!(
            q("p50") <= q("p99") && q("p99") <= q("max") * 1.001,
            "{v:?}"
        );
        // An fsync after a write costs more than handing the write to the page cache.
        assert!(q("p50") > v["write_lat_p50"], "{v:?}");
    }

    #[test]
    fn direct_and_io_uring() {
        if !direct_ok() {
            return;
        }
        let mut cases = vec![params(&[("direct", 1)])];
        if uring_ok() {
            cases.push(params(&[("direct", 1), ("engine", 1), ("depth", 8)]));
            cases.push(params(&[("engine", 1), ("depth", 8), ("uring.batch", 8)]));
        }
        for p in cases {
            let v = check_positive(&p);
            // The engine keeps its queue full: the mean in flight is at most the depth.
            let io = p.io;
            let depth = if io.uses_uring() { io.depth } else { 1 };
            assert!(v[QUEUE_DEPTH] <= depth as f64 + 1e-9, "{v:?}");
        }
    }

    #[test]
    fn a_batch_deeper_than_the_queue_is_refused_with_the_fix() {
        let p = params(&[("engine", 1), ("depth", 4), ("uring.batch", 5)]);
        let e = RandomIo.check(&p).unwrap_err().to_string();
        assert!(e.contains("uring.batch=5") && e.contains("<= depth"), "{e}");
        // The sync engine has no reap batch: nothing to refuse.
        RandomIo.check(&params(&[("uring.batch", 5)])).unwrap();
    }

    #[test]
    fn misaligned_direct_request_fails_and_names_the_fix() {
        if !direct_ok() {
            return;
        }
        let e = run_native(&RandomIo, &params(&[("direct", 1), ("request", 1000)])).unwrap_err();
        assert!(e.contains("multiples of") && e.contains("direct=0"), "{e}");
    }

    #[test]
    fn bad_fractions_are_refused() {
        let e = run_native(&RandomIo, &params(&[("write_pct", 101)])).unwrap_err();
        assert!(e.contains("write_pct"), "{e}");
    }
}

//! `ffsb`: seed S4's FFSB 5.2.1 rows — multithreaded read, write, mixed and "mixed huge" IO/s
//! — natively: a pool of files laid out first, then four profiles of THREADS threads doing
//! weighted random requests for RUNTIME seconds each, every profile its own timed phase.
//!
//! Invariants:
//! - File `i` belongs to thread `i mod THREADS` only, as the engine's job regions do: no two
//!   threads touch one file, so appends need no lock and a run is reproducible from its seed.
//! - A request is `block` bytes (`huge_block` in the huge profile) at a block-aligned offset,
//!   so O_DIRECT works whenever the filesystem takes it; IO/s counts requests.
//! - Every profile starts from the same pool: files the write profile appended to are cut back
//!   to FILE_SIZE before the next profile, outside the timed phase. During the write profile
//!   a file that would grow past 1.25 × FILE_SIZE is cut back first (inside that append's
//!   latency), so the space used stays below 1.25 × the pool whatever the runtime.
//! - Rates use the window from the common start of the threads to the end of the last one.

use super::fileset::{
    self, bytes, count, halted, lat_specs, merge_rows, percent, record_lat, request_size, OpStat,
    Port, Site, Tally, MAX_FILES, THREADS_RANGE,
};
use super::io::{DirectDecl, IoDefaults, IoGroup};
use super::{Scratch, WorkloadCtx};
use crate::engine::run_pool;
use crate::engine::{dio_alignment, OpKind, XorShift};
use crate::error::WorkloadError;
use crate::measure::per_s;
use crate::model::MetricSpec;
use crate::params::{MAX_RUNTIME, MAX_SIZE};
use crate::units::format_bytes;
use crate::TypedWorkload;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The ffsb workload.
pub struct Ffsb;

crate::settings! {
    /// ffsb's settings as declared (sizes in bytes); [`Config`] checks them and derives what a
    /// run uses.
    pub struct Settings {
        /// Files in the pool.
        pub files: u64 = count(
            "files",
            "files in the pool (at least one per thread)",
            64,
            64,
        )
        .range(1, MAX_FILES),
        /// Bytes of each pool file.
        pub file_size: u64 = bytes("file_size", "size of each pool file", 2 << 20, 64 << 20).range(4 << 10, MAX_SIZE),
        /// Threads asked for; 0 = one per CPU.
        pub threads: u64 = count(
            "threads",
            "threads per profile (0 = one per CPU, at most one per file)",
            0,
            0,
        )
        .range(THREADS_RANGE.0, THREADS_RANGE.1),
        /// Seconds each profile runs.
        pub runtime: u64 = count("runtime", "seconds each profile runs", 1, 30).range(1, MAX_RUNTIME),
        /// Bytes per request (read, write, mixed).
        pub block: u64 = request_size(
            "block",
            "request size of the read, write and mixed profiles",
            4 << 10,
        ),
        /// Bytes per request of the huge profile.
        pub huge_block: u64 = request_size("huge_block", "request size of the huge profile", 1 << 20),
        /// Percent of reads in the mixed and huge profiles.
        pub read_pct: u64 = percent(
            "read_pct",
            "percent of reads in the mixed and huge profiles (the rest are writes)",
            50,
        ),
        /// Engine, depth, O_DIRECT (`direct`: off/on).
        pub io: IoGroup => IO,
        /// Seed of file, offset and operation choices.
        pub seed: u64 = count("seed", "seed of file, offset and operation choices", 1, 1).range(0, u64::MAX),
    }
}

/// ffsb's IO group: the file-set engine and depth, and `direct` spelled off/on (its records
/// always did), on at standard scale as S4's patched FFSB ran, with no buffered fallback.
const IO: IoDefaults = IoDefaults {
    direct: Some(DirectDecl {
        help: "open with O_DIRECT, as S4's patched FFSB did (standard scale); set off where \
               the filesystem refuses it",
        quick: false,
        standard: true,
        words: true,
    }),
    ..IoDefaults::FILE_SET
};

/// What a request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Random record read.
    Read,
    /// Random record overwrite.
    Write,
    /// Record appended at the end of the file.
    Append,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Append => "append",
        }
    }
}

/// One profile: its name (the metric prefix) and its operation kinds.
struct Profile {
    name: &'static str,
    kinds: &'static [Kind],
    help: &'static str,
}

const PROFILES: [Profile; 4] = [
    Profile {
        name: "read",
        kinds: &[Kind::Read],
        help: "random BLOCK reads",
    },
    Profile {
        name: "write",
        kinds: &[Kind::Write, Kind::Append],
        help: "random BLOCK overwrites and BLOCK appends, half each",
    },
    Profile {
        name: "mixed",
        kinds: &[Kind::Read, Kind::Write],
        help: "random BLOCK reads (READ_PCT %) and overwrites",
    },
    Profile {
        name: "huge",
        kinds: &[Kind::Read, Kind::Write],
        help: "random HUGE_BLOCK reads (READ_PCT %) and overwrites",
    },
];

impl TypedWorkload for Ffsb {
    type Settings = Settings;
    /// FFSB 5.2.1 syncs after laying out its files (its "Syncing()..." line) and drops nothing.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Sync
    }
    fn reference(&self) -> &'static str {
        "FFSB 5.2.1"
    }
    fn needs(&self, s: &Settings) -> super::needs::Needs {
        // Files grow to 1.25 x file_size before they are cut back.
        let (files, size) = (s.files, s.file_size);
        let bytes = super::needs::files_bytes(files, size.saturating_add(size / 4));
        super::needs::Needs::space(bytes, files + 2, "files and file_size")
            .engine(&s.io)
            .direct(
                &s.io,
                "off",
                false,
                &[("block", s.block), ("huge_block", s.huge_block)],
            )
    }
    fn name(&self) -> &'static str {
        "ffsb"
    }
    fn summary(&self) -> &'static str {
        "FFSB 5.2.1 multithreaded IO/s (S4 'ffsb read, write, mixed, huge'). Flow: lay out FILES \
         files of FILE_SIZE (file i owned by thread i mod THREADS, all threads writing), then \
         four timed profiles of RUNTIME s each, THREADS threads (default one per CPU up to \
         FILES, --jobs N), every request at a random aligned offset of a random file of the thread: \
         read = BLOCK reads; write = BLOCK overwrites and appends, half each (a file growing \
         past 1.25 x FILE_SIZE is cut back); mixed = READ_PCT % BLOCK reads, the rest overwrites; \
         huge = mixed with HUGE_BLOCK (1 MiB) requests. The pool is restored between profiles. \
         Reports per profile IO/s, MB/s and latency, overall and per request kind."
    }
    fn metrics(&self, _: &Settings) -> Vec<MetricSpec> {
        let mut m = vec![MetricSpec::rate(
            "create_mbps",
            "MB/s",
            "lay out the pool: every file written sequentially, all threads",
        )];
        for p in &PROFILES {
            let name = p.name;
            m.push(MetricSpec::rate(
                &format!("{name}_iops"),
                "ops/s",
                &format!("{name} profile: requests per second ({})", p.help),
            ));
            m.push(MetricSpec::rate(
                &format!("{name}_mbps"),
                "MB/s",
                &format!("{name} profile: bytes moved per second"),
            ));
            m.extend(lat_specs(name, &format!("every {name}-profile request")));
            if p.kinds.len() > 1 {
                for k in p.kinds {
                    let prefix = format!("{name}_{}", k.name());
                    let what = format!("{} requests of the {name} profile", k.name());
                    m.push(MetricSpec::rate(
                        &format!("{prefix}_iops"),
                        "ops/s",
                        &format!("{what} per second"),
                    ));
                    m.extend(lat_specs(&prefix, &what));
                }
            }
        }
        m
    }
    fn check(&self, s: &Settings) -> Result<(), WorkloadError> {
        Config::check(s).map(drop)
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &Settings) -> Result<(), WorkloadError> {
        let cfg = Config::new(ctx.root(), s)?;
        let scratch = Scratch::create(ctx.root(), "ffsb")?;
        let pool = Pool::new(scratch.path(), &cfg);
        let tally = Tally::default();
        let (secs, t) = ctx.phase(&[scratch.path()], || layout(&cfg, &pool, &tally))?;
        let total = cfg.files as f64 * cfg.file_size as f64;
        ctx.record("create_mbps", &t, per_s(total, secs) / 1e6);
        for profile in &PROFILES {
            pool.restore(cfg.file_size)?;
            let (res, t) = ctx.phase(&[scratch.path()], || {
                run_profile(&cfg, &pool, profile, &tally)
            })?;
            res.record(ctx, profile, &t);
        }
        Ok(())
    }
}

/// Parameters resolved and checked before any file is made.
struct Config {
    files: usize,
    file_size: u64,
    threads: usize,
    runtime: Duration,
    block: u64,
    huge_block: u64,
    read_pct: u64,
    direct: bool,
    align: usize,
    engine: crate::engine::EngineSpec,
    seed: u64,
}

impl Config {
    /// Resolve and validate: every thread needs a file, every size whole requests, and
    /// O_DIRECT a filesystem that takes it.
    fn new(root: &Path, s: &Settings) -> Result<Config, WorkloadError> {
        let (files, threads) = Self::check(s)?;
        let (block, huge_block, file_size) = (s.block, s.huge_block, s.file_size);
        // The one O_DIRECT decision every engine-driven workload makes (no fallback here).
        let direct = s.io.decide_direct("ffsb", root)?.on();
        let bad = |m: String| Err(WorkloadError::Failed(format!("ffsb: {m}")));
        let mut align = 4096;
        if direct {
            let a = dio_alignment(root);
            if !block.is_multiple_of(a.offset as u64) || !huge_block.is_multiple_of(a.offset as u64)
            {
                return bad(format!(
                    "O_DIRECT on {} needs requests in multiples of {} B",
                    root.display(),
                    a.offset
                ));
            }
            align = a.mem.max(4096);
        }
        let per_thread = files.div_ceil(threads);
        Ok(Config {
            files,
            file_size,
            threads,
            runtime: Duration::from_secs(s.runtime.max(1)),
            block,
            huge_block,
            read_pct: s.read_pct.min(100),
            direct,
            align,
            engine: fileset::engine_spec("ffsb", &s.io, per_thread <= 1024)?,
            seed: s.seed,
        })
    }

    /// The checks that need no directory: every thread a file, every size whole requests.
    /// Returns (files, threads).
    fn check(s: &Settings) -> Result<(usize, usize), WorkloadError> {
        let files = s.files as usize;
        // The CPU-count default never asks for more threads than there are files; an explicit
        // count that does is refused below.
        let threads = match s.threads {
            0 => fileset::threads(0).min(files.max(1)),
            n => fileset::threads(n),
        };
        let (block, huge_block, file_size) = (s.block, s.huge_block, s.file_size);
        let bad = |m: String| Err(WorkloadError::Failed(format!("ffsb: {m}")));
        if files < threads {
            return bad(format!(
                "{threads} threads need at least {threads} files (files={files}): raise \
                 ffsb.files or lower --jobs"
            ));
        }
        let req = block.max(huge_block);
        if block == 0 || huge_block == 0 || file_size < req {
            return bad(format!(
                "file_size {} must hold at least one request of {} (block and huge_block > 0)",
                format_bytes(file_size),
                format_bytes(req)
            ));
        }
        if !file_size.is_multiple_of(block) || !file_size.is_multiple_of(huge_block) {
            return bad(format!(
                "file_size {} must be a multiple of block {} and huge_block {}",
                format_bytes(file_size),
                format_bytes(block),
                format_bytes(huge_block)
            ));
        }
        Ok((files, threads))
    }

    fn open(&self, path: &Path, create: bool) -> std::io::Result<File> {
        let mut o = OpenOptions::new();
        o.read(true).write(true).create_new(create);
        if self.direct {
            o.custom_flags(libc::O_DIRECT);
        }
        o.open(path)
    }
}

/// The pool's file names, in index order.
struct Pool {
    paths: Vec<PathBuf>,
}

impl Pool {
    fn new(dir: &Path, cfg: &Config) -> Pool {
        Pool {
            paths: (0..cfg.files)
                .map(|i| dir.join(format!("file{i:06}")))
                .collect(),
        }
    }

    /// Files of thread `t`.
    fn of(&self, t: usize, threads: usize) -> impl Iterator<Item = &PathBuf> {
        self.paths.iter().skip(t).step_by(threads)
    }

    /// Cut every file back to `size` (appends of the write profile).
    fn restore(&self, size: u64) -> Result<(), WorkloadError> {
        for path in &self.paths {
            let what = || format!("truncate {}", path.display());
            let len = std::fs::metadata(path)
                .map_err(|e| WorkloadError::io(what(), e))?
                .len();
            if len != size {
                let f = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| WorkloadError::io(what(), e))?;
                f.set_len(size).map_err(|e| WorkloadError::io(what(), e))?;
            }
        }
        Ok(())
    }
}

/// Write the pool, each thread its own files; returns the window in seconds.
fn layout(cfg: &Config, pool: &Pool, tally: &Tally) -> Result<f64, WorkloadError> {
    let stop = AtomicBool::new(false);
    let slot = cfg.huge_block.max(cfg.block) as usize;
    let setup = |t: usize| Port::new(&cfg.engine, slot, cfg.align, cfg.seed ^ t as u64);
    let body = |t: usize, mut port: Port, _: Instant| {
        for path in pool.of(t, cfg.threads) {
            if halted(&stop)? {
                break;
            }
            let f = cfg
                .open(path, true)
                .map_err(|e| tally.io(format!("create {}", path.display()), e))?;
            tally.created();
            let id = port.add(f)?;
            let site = Site { path, tally };
            port.transfer(OpKind::Write, id, 0, cfg.file_size, site)?;
            port.close(id);
        }
        Ok(())
    };
    let (_, secs) = run_pool::<_, _, WorkloadError>(cfg.threads, &stop, setup, body)?;
    Ok(secs)
}

/// One open pool file of a thread.
struct OpenFile<'a> {
    id: u32,
    path: &'a Path,
    size: u64,
    /// A second descriptor to cut the file back with, while the engine owns the first.
    handle: File,
}

/// Per-kind statistics of one profile, merged over the threads, and its window.
struct ProfileResult {
    stats: Vec<OpStat>,
    secs: f64,
}

/// Run `profile` on every thread for the runtime.
fn run_profile(
    cfg: &Config,
    pool: &Pool,
    profile: &Profile,
    tally: &Tally,
) -> Result<ProfileResult, WorkloadError> {
    let stop = AtomicBool::new(false);
    let block = if profile.name == "huge" {
        cfg.huge_block
    } else {
        cfg.block
    };
    let setup = |t: usize| {
        let mut port = Port::new(&cfg.engine, block as usize, cfg.align, cfg.seed ^ t as u64)?;
        let mut files = Vec::new();
        for path in pool.of(t, cfg.threads) {
            let what = || format!("open {}", path.display());
            let f = cfg
                .open(path, false)
                .map_err(|e| WorkloadError::io(what(), e))?;
            let handle = f.try_clone().map_err(|e| WorkloadError::io(what(), e))?;
            files.push(OpenFile {
                id: port.add(f)?,
                path,
                size: cfg.file_size,
                handle,
            });
        }
        Ok((port, files))
    };
    let body = |t: usize, (mut port, mut files): (Port, Vec<OpenFile>), start: Instant| {
        let mut rng = XorShift::new(cfg.seed.wrapping_mul(1000).wrapping_add(t as u64));
        let mut stats = vec![OpStat::default(); profile.kinds.len()];
        let deadline = start + cfg.runtime;
        // One clock read per request: its end is the next one's start and the deadline check
        // (four reads were ~5 % of a 10-thread read profile on tmpfs, in perf).
        let mut now = Instant::now();
        while !halted(&stop)? && now < deadline {
            let n = files.len() as u64;
            let f = &mut files[rng.below(n) as usize];
            let k = pick(profile, cfg.read_pct, &mut rng);
            let t0 = now;
            request(&mut port, profile.kinds[k], f, block, cfg, &mut rng, tally)?;
            now = Instant::now();
            stats[k].done_at(t0, now, block);
        }
        for f in files {
            port.close(f.id);
        }
        Ok(stats)
    };
    let (rows, secs) = run_pool::<_, _, WorkloadError>(cfg.threads, &stop, setup, body)?;
    Ok(ProfileResult {
        stats: merge_rows(&rows, profile.kinds.len()),
        secs,
    })
}

/// Index into `profile.kinds` of the next request.
#[inline]
fn pick(profile: &Profile, read_pct: u64, rng: &mut XorShift) -> usize {
    match profile.kinds {
        [_] => 0,
        [Kind::Read, _] => usize::from(rng.below(100) >= read_pct),
        _ => rng.below(profile.kinds.len() as u64) as usize,
    }
}

/// Largest size appends may grow a pool file of `size` to: a quarter more, so the write
/// profile needs at most 1.25 × the pool's space whatever its runtime and speed.
fn cap(size: u64) -> u64 {
    size + size / 4
}

/// One request of `kind` on `f`.
fn request(
    port: &mut Port,
    kind: Kind,
    f: &mut OpenFile<'_>,
    block: u64,
    cfg: &Config,
    rng: &mut XorShift,
    tally: &Tally,
) -> Result<(), WorkloadError> {
    let site = Site {
        path: f.path,
        tally,
    };
    let random = |rng: &mut XorShift| rng.below(f.size / block) * block;
    match kind {
        Kind::Read => port.transfer(OpKind::Read, f.id, random(rng), block, site),
        Kind::Write => port.transfer(OpKind::Write, f.id, random(rng), block, site),
        Kind::Append => {
            if f.size + block > cap(cfg.file_size) {
                f.handle
                    .set_len(cfg.file_size)
                    .map_err(|e| tally.io(format!("truncate {}", f.path.display()), e))?;
                f.size = cfg.file_size;
            }
            port.transfer(OpKind::Write, f.id, f.size, block, site)?;
            f.size += block;
            Ok(())
        }
    }
}

impl ProfileResult {
    /// Record the profile's metrics (names as in [`Ffsb::metrics`]).
    fn record(&self, ctx: &mut WorkloadCtx<'_>, profile: &Profile, t: &crate::measure::Timing) {
        let name = profile.name;
        let mut all = OpStat::default();
        for s in &self.stats {
            all.merge(s);
        }
        ctx.record(&format!("{name}_iops"), t, per_s(all.ops as f64, self.secs));
        let mbps = per_s(all.bytes as f64, self.secs) / 1e6;
        ctx.record(&format!("{name}_mbps"), t, mbps);
        record_lat(ctx, name, t, &all.lat);
        if profile.kinds.len() > 1 {
            for (k, s) in profile.kinds.iter().zip(&self.stats) {
                let prefix = format!("{name}_{}", k.name());
                ctx.record(&format!("{prefix}_iops"), t, per_s(s.ops as f64, self.secs));
                record_lat(ctx, &prefix, t, &s.lat);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{check_direct, DirectIo};
    use crate::model::Sample;
    use crate::Method;
    use std::collections::BTreeMap;

    /// Quick-scale settings with `overrides`.
    pub(crate) fn params(overrides: &[(&str, u64)]) -> Settings {
        crate::settings::with_pairs(overrides)
    }

    fn run(dir: &Path, p: &Settings) -> Result<BTreeMap<String, f64>, WorkloadError> {
        let mut got = BTreeMap::new();
        let mut on = |m: &str, s: Sample| {
            got.insert(m.to_string(), s.value);
        };
        let mut ctx = WorkloadCtx::new(dir, 0, Method::Native, Duration::ZERO, &mut on);
        Ffsb.run(&mut ctx, p)?;
        drop(ctx);
        Ok(got)
    }

    fn small(threads: u64) -> Settings {
        params(&[
            ("files", 8),
            ("file_size", 1 << 20),
            ("huge_block", 256 << 10),
            ("threads", threads),
        ])
    }

    #[test]
    fn every_metric_is_positive_and_ops_add_up_with_1_and_4_threads() {
        for threads in [1, 4] {
            let tmp = tempfile::tempdir().unwrap();
            let got = run(tmp.path(), &small(threads)).unwrap();
            let declared = Ffsb.metrics(&small(threads));
            for m in &declared {
                let v = got.get(&m.name).copied();
                assert!(
                    v.is_some_and(|v| v > 0.0),
                    "{threads} threads: {} = {v:?}",
                    m.name
                );
            }
            assert_eq!(got.len(), declared.len());
            for p in PROFILES.iter().filter(|p| p.kinds.len() > 1) {
                let sum: f64 = p
                    .kinds
                    .iter()
                    .map(|k| got[&format!("{}_{}_iops", p.name, k.name())])
                    .sum();
                let total = got[&format!("{}_iops", p.name)];
                assert!(
                    (sum / total - 1.0).abs() < 1e-9,
                    "{}: {sum} vs {total}",
                    p.name
                );
            }
            let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
            assert!(left.is_empty(), "scratch left behind: {left:?}");
        }
    }

    #[test]
    fn profile_counts_are_per_kind_and_appends_stay_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let p = small(2);
        let cfg = Config::new(tmp.path(), &p).unwrap();
        let pool = Pool::new(tmp.path(), &cfg);
        let tally = Tally::default();
        layout(&cfg, &pool, &tally).unwrap();
        let r = run_profile(&cfg, &pool, &PROFILES[1], &tally).unwrap();
        assert!(r.stats.iter().all(|s| s.ops > 0 && s.ops == s.lat.len()));
        for path in &pool.paths {
            assert!(std::fs::metadata(path).unwrap().len() <= cap(cfg.file_size));
        }
        pool.restore(cfg.file_size).unwrap();
        for path in &pool.paths {
            assert_eq!(std::fs::metadata(path).unwrap().len(), cfg.file_size);
        }
    }

    #[test]
    fn direct_io_and_io_uring_run_where_available() {
        let tmp = tempfile::tempdir().unwrap();
        if matches!(check_direct(tmp.path()), DirectIo::Supported) {
            let p = params(&[
                ("files", 4),
                ("file_size", 1 << 20),
                ("threads", 2),
                ("direct", 1),
            ]);
            run(tmp.path(), &p).unwrap();
        } else {
            eprintln!("SKIP: O_DIRECT unsupported in {}", tmp.path().display());
        }
        if crate::engine::probe_uring().is_ok() {
            let p = params(&[
                ("files", 4),
                ("file_size", 1 << 20),
                ("threads", 2),
                ("engine", 1),
                ("depth", 4),
            ]);
            let got = run(tmp.path(), &p).unwrap();
            assert!(got["huge_iops"] > 0.0);
        } else {
            eprintln!("SKIP: io_uring unavailable");
        }
    }

    #[test]
    fn impossible_configurations_are_refused_before_any_file() {
        let tmp = tempfile::tempdir().unwrap();
        let e = run(tmp.path(), &params(&[("files", 2), ("threads", 4)])).unwrap_err();
        assert!(e.to_string().contains("at least 4 files"), "{e}");
        let e = run(tmp.path(), &params(&[("file_size", (3 << 20) + 4096)])).unwrap_err();
        assert!(e.to_string().contains("multiple of"), "{e}");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        // The one-per-CPU default stops at one thread per file instead of failing.
        let cfg = Config::new(tmp.path(), &params(&[("files", 1), ("threads", 0)])).unwrap();
        assert_eq!(cfg.threads, 1);
    }
}

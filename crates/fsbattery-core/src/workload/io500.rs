//! `io500`: the IO500 benchmark's phases and scores, run by every rank (MPI) or one process.
//!
//! Phases in IO500's order, each timed between barriers and combined over the ranks as IOR
//! does (all ranks' bytes or files over the first start to the last end):
//! - ior-easy write/read: each rank writes its own file sequentially in `easy_transfer`
//!   pieces, fsync at the end (IOR `-F -e`); read back rank-shifted (rank r reads rank r+1's
//!   file, IOR `-C`), so a client's cache of what it wrote does not serve the read;
//! - ior-hard write/read: one shared file, 47,008-byte transfers interleaved by rank
//!   (transfer i of rank r at offset (i × ranks + r) × 47,008), read rank-shifted;
//! - mdtest-easy write/stat/delete: empty files, each rank in its own directory (mdtest `-u`);
//! - mdtest-hard write/stat/read/delete: 3,901-byte files, all ranks in one shared directory,
//!   read rank-shifted;
//! - find: every rank walks its own easy directory and its part of the shared one.
//!
//! Scores as IO500 computes them: bandwidth = geometric mean of the four ior phases in GiB/s,
//! metadata = geometric mean of the mdtest phases and find in kIOPS, total = √(bandwidth ×
//! metadata). Sizes follow `--scale`.
//!
//! Stonewall deadline (`stonewall_s`, IO500's 300 s; IOR `-D`): each write phase stops on
//! every rank once that many seconds have passed since the phase's common start, and each
//! rank counts what it did; the counts are shared, so every later phase reads, stats and
//! removes exactly what was made (the rank-shifted read takes the next rank's count). 0 (the
//! quick default) lets every rank do its set amount. The value is in the cell's parameters.

use super::blockio::{BlockFile, IoSettings, Open};
use super::{poll, Scratch, Workload, WorkloadCtx};
use crate::engine::{EngineSpec, Fill, OpKind};
use crate::error::{IoContext, WorkloadError};
use crate::measure::Stopwatch;
use crate::model::MetricSpec;
use crate::params::{ParamKind, ParamSpec, Params};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The io500 workload.
pub struct Io500;

/// IO500's ior-hard transfer size.
const HARD_TRANSFER: u64 = 47_008;
/// IO500's mdtest-hard file size.
const MD_HARD_BYTES: usize = 3_901;
const GIB: f64 = (1u64 << 30) as f64;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "easy_size",
        help: "bytes each rank writes to its own file in ior-easy",
        kind: ParamKind::Bytes,
        quick: 32 << 20,
        standard: 1 << 30,
        full_twice_ram: false,
        min: 1 << 20,
        max: crate::params::MAX_SIZE,
    },
    ParamSpec {
        name: "easy_transfer",
        help: "bytes per write/read call in ior-easy (IO500: 2 MiB)",
        kind: ParamKind::Bytes,
        quick: 2 << 20,
        standard: 2 << 20,
        full_twice_ram: false,
        min: 4096,
        max: 1 << 30,
    },
    ParamSpec {
        name: "hard_transfers",
        help: "47,008-byte transfers each rank makes to the shared file in ior-hard",
        kind: ParamKind::Count,
        quick: 1_000,
        standard: 20_000,
        full_twice_ram: false,
        min: 1,
        max: 100_000_000,
    },
    ParamSpec {
        name: "md_easy_files",
        help: "empty files each rank makes in its own directory (mdtest-easy)",
        kind: ParamKind::Count,
        quick: 1_000,
        standard: 20_000,
        full_twice_ram: false,
        min: 1,
        max: super::blockio::MAX_FILES,
    },
    ParamSpec {
        name: "stonewall_s",
        help: "seconds after which every write phase stops and counts what each rank did \
               (IOR's stonewall deadline, IO500: 300); 0 = every rank does its set amount",
        kind: ParamKind::Count,
        quick: 0,
        standard: 300,
        full_twice_ram: false,
        min: 0,
        max: 86_400,
    },
    ParamSpec {
        name: "md_hard_files",
        help: "3,901-byte files each rank makes in the one shared directory (mdtest-hard)",
        kind: ParamKind::Count,
        quick: 500,
        standard: 10_000,
        full_twice_ram: false,
        min: 1,
        max: super::blockio::MAX_FILES,
    },
];

/// The phases: (metric, unit, what).
const PHASES: &[(&str, &str, &str)] = &[
    (
        "ior_easy_write",
        "GiB/s",
        "sequential writes, one file per rank, fsync at the end",
    ),
    (
        "mdtest_easy_write",
        "kops/s",
        "empty files made, one directory per rank",
    ),
    (
        "ior_hard_write",
        "GiB/s",
        "47,008-byte writes interleaved by rank in one shared file",
    ),
    (
        "mdtest_hard_write",
        "kops/s",
        "3,901-byte files made in one shared directory",
    ),
    (
        "find",
        "kops/s",
        "entries found walking the easy and hard directories",
    ),
    (
        "ior_easy_read",
        "GiB/s",
        "sequential reads of another rank's file",
    ),
    ("mdtest_easy_stat", "kops/s", "stat of every easy file"),
    (
        "ior_hard_read",
        "GiB/s",
        "47,008-byte reads of another rank's part of the shared file",
    ),
    ("mdtest_hard_stat", "kops/s", "stat of every hard file"),
    ("mdtest_easy_delete", "kops/s", "unlink of every easy file"),
    (
        "mdtest_hard_read",
        "kops/s",
        "3,901-byte reads of another rank's hard files",
    ),
    ("mdtest_hard_delete", "kops/s", "unlink of every hard file"),
];

/// io500's parameters, read once from the resolved [`Params`] (sizes in bytes).
struct Config {
    /// Bytes of each rank's ior-easy file.
    easy_size: u64,
    /// Bytes per ior-easy transfer.
    easy_transfer: u64,
    /// ior-hard transfers per rank.
    hard_transfers: u64,
    /// mdtest-easy files per rank.
    md_easy_files: u64,
    /// mdtest-hard files per rank.
    md_hard_files: u64,
    /// Seconds after which a write phase stops; 0 = none.
    stonewall_s: u64,
}

impl Config {
    fn of(p: &Params) -> Config {
        Config {
            easy_size: p.get("easy_size"),
            easy_transfer: p.get("easy_transfer"),
            hard_transfers: p.get("hard_transfers"),
            md_easy_files: p.get("md_easy_files"),
            md_hard_files: p.get("md_hard_files"),
            stonewall_s: p.get("stonewall_s"),
        }
    }
}

impl Workload for Io500 {
    /// The io500 app runs its phases back to back: no sync, no drop between them.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn needs(&self, p: &Params) -> super::needs::Needs {
        let c = Config::of(p);
        // One process's share (each rank adds its own): its ior-easy file, its part of the
        // shared ior-hard file, its mdtest files (the easy ones empty).
        let (easy, hard) = (c.md_easy_files, c.md_hard_files);
        let bytes = c
            .easy_size
            .saturating_add(c.hard_transfers.saturating_mul(HARD_TRANSFER))
            .saturating_add(super::needs::files_bytes(hard, MD_HARD_BYTES as u64))
            .saturating_add(super::needs::files_bytes(easy, 0));
        super::needs::Needs::space(bytes, easy + hard + 8, "easy_size")
    }
    fn name(&self) -> &'static str {
        "io500"
    }
    fn summary(&self) -> &'static str {
        "IO500's ior-easy/hard, mdtest-easy/hard and find phases with its scores; under mpirun \
         every rank takes part (shared file and directory, rank-shifted reads)"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self, _: &Params) -> Vec<MetricSpec> {
        let mut m: Vec<MetricSpec> = PHASES
            .iter()
            .map(|(name, unit, help)| MetricSpec::rate(name, unit, help))
            .collect();
        m.push(MetricSpec::rate(
            "score_bw",
            "GiB/s",
            "geometric mean of the ior phases",
        ));
        m.push(MetricSpec::rate(
            "score_md",
            "kops/s",
            "geometric mean of mdtest and find",
        ));
        m.push(MetricSpec::rate(
            "score",
            "score",
            "√(bandwidth score × metadata score)",
        ));
        m
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, p: &Params) -> Result<(), WorkloadError> {
        let (rank, ranks) = ctx.ranks();
        let own = Scratch::create(ctx.root(), "io500")?;
        // The shared directory (ior files, mdtest-hard): made by rank 0 before the first
        // phase, whose barrier orders it before anyone uses it; removed by rank 0 on every
        // exit path.
        let shared = ctx.shared_root().join("fsbattery-io500-shared");
        let _guard = if rank == 0 {
            std::fs::create_dir(&shared)
                .ctx(|| format!("create shared directory {}", shared.display()))?;
            let guard = Remove(shared.clone());
            let hard = shared.join("ior-hard");
            File::create(&hard).ctx(|| format!("create {}", hard.display()))?;
            Some(guard)
        } else {
            None
        };
        let layout = Layout {
            rank,
            ranks,
            easy_dir: own.join("mdt-easy"),
            shared,
        };
        let dir = &layout.easy_dir;
        std::fs::create_dir(dir).ctx(|| format!("mkdir {}", dir.display()))?;
        run_phases(ctx, &layout, p)
    }
}

/// Removes a directory made by rank 0 when dropped.
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where each rank's files are.
struct Layout {
    rank: usize,
    ranks: usize,
    /// This rank's own mdtest-easy directory (mdtest `-u`).
    easy_dir: PathBuf,
    /// The directory every rank shares.
    shared: PathBuf,
}

impl Layout {
    /// The rank whose data this rank reads back (IOR `-C`: the next one).
    fn next_rank(&self) -> usize {
        (self.rank + 1) % self.ranks
    }
    /// Rank r's ior-easy file: one file per process in the shared directory, as IOR `-F`.
    fn easy_file(&self, rank: usize) -> PathBuf {
        self.shared.join(format!("ior-easy.{rank:08}"))
    }
    fn hard_file(&self) -> PathBuf {
        self.shared.join("ior-hard")
    }
    fn md_hard(&self, rank: usize, i: u64) -> PathBuf {
        self.shared.join(format!("file.r{rank}.{i}"))
    }
}

type Body<'a> = &'a dyn Fn() -> Result<u64, WorkloadError>;

/// When the write phases stop (IOR's stonewall deadline), from each phase's common start.
#[derive(Clone, Copy)]
struct Deadline(Option<std::time::Duration>);

impl Deadline {
    /// Whether a phase started at `start` is past the deadline.
    fn passed(self, start: std::time::Instant) -> bool {
        self.0.is_some_and(|d| start.elapsed() >= d)
    }
}

/// One phase: timed between barriers; `f` returns how many units (bytes, files) this rank
/// did, `unit` turns one into the phase's amount (GiB or thousands of files). Records the
/// amount over the elapsed time and returns the rate over all ranks (for the scores) and the
/// units done.
fn phase(
    ctx: &mut WorkloadCtx<'_>,
    metric: &str,
    unit: f64,
    f: Body<'_>,
) -> Result<(f64, u64), WorkloadError> {
    let (done, t) = ctx.phase(&[], f)?;
    let value = done as f64 * unit / t.elapsed_s.max(1e-9);
    ctx.record(metric, &t, value);
    Ok((ctx.last_rate(), done))
}

/// A write phase under the deadline: its rate, and every rank's count (shared, so the later
/// phases use what each rank really made).
fn write_phase(
    ctx: &mut WorkloadCtx<'_>,
    metric: &str,
    unit: f64,
    f: Body<'_>,
) -> Result<(f64, Vec<u64>), WorkloadError> {
    let (rate, done) = phase(ctx, metric, unit, f)?;
    Ok((rate, ctx.share_count(metric, done)?))
}

fn run_phases(ctx: &mut WorkloadCtx<'_>, l: &Layout, p: &Params) -> Result<(), WorkloadError> {
    let c = Config::of(p);
    let (easy_size, transfer) = (c.easy_size, c.easy_transfer);
    let (hard_n, md_easy, md_hard) = (c.hard_transfers, c.md_easy_files, c.md_hard_files);
    let secs = c.stonewall_s;
    let wall = Deadline((secs > 0).then(|| std::time::Duration::from_secs(secs)));
    let (byte, file) = (1.0 / GIB, 1e-3);
    let (me, next) = (l.rank, l.next_rank());
    let all = Stopwatch::start();
    let (own_easy, next_easy) = (l.easy_file(me), l.easy_file(next));
    let easy = |i: u64| l.easy_dir.join(format!("f{i}"));
    let hard = |i: u64| l.md_hard(me, i);
    let (r, easy_bytes) = write_phase(ctx, "ior_easy_write", byte, &|| {
        write_seq(&own_easy, easy_size, transfer, wall)
    })?;
    let mut bw = vec![r];
    let (r, easy_n) = write_phase(ctx, "mdtest_easy_write", file, &|| {
        each_until(md_easy, wall, |i| create(&easy(i)))
    })?;
    let mut md = vec![r];
    let (r, hard_b) = write_phase(ctx, "ior_hard_write", byte, &|| hard_write(l, hard_n, wall))?;
    bw.push(r);
    let (r, hard_f) = write_phase(ctx, "mdtest_hard_write", file, &|| {
        each_until(md_hard, wall, |i| write_small(&hard(i)))
    })?;
    md.push(r);
    let (easy_mine, hard_mine) = (easy_n[me], hard_f[me]);
    let mut go = |metric: &str, unit: f64, f: Body<'_>| phase(ctx, metric, unit, f).map(|r| r.0);
    md.push(go("find", file, &|| find(l, easy_mine, hard_mine))?);
    bw.push(go("ior_easy_read", byte, &|| {
        read_seq(&next_easy, easy_bytes[next], transfer)
    })?);
    md.push(go("mdtest_easy_stat", file, &|| {
        each(easy_mine, |i| stat(&easy(i)))
    })?);
    bw.push(go("ior_hard_read", byte, &|| {
        hard_read(l, hard_b[next], next)
    })?);
    md.push(go("mdtest_hard_stat", file, &|| {
        each(hard_mine, |i| stat(&hard(i)))
    })?);
    md.push(go("mdtest_easy_delete", file, &|| {
        each(easy_mine, |i| remove(&easy(i)))
    })?);
    md.push(go("mdtest_hard_read", file, &|| {
        each(hard_f[next], |i| read_small(&l.md_hard(next, i)))
    })?);
    md.push(go("mdtest_hard_delete", file, &|| {
        each(hard_mine, |i| remove(&hard(i)))
    })?);
    let t = all.stop();
    let (score_bw, score_md) = (geomean(&bw), geomean(&md));
    // Every rank derived the same scores from the combined phase rates.
    ctx.record_derived("score_bw", &t, score_bw);
    ctx.record_derived("score_md", &t, score_md);
    ctx.record_derived("score", &t, (score_bw * score_md).sqrt());
    Ok(())
}

/// `f(i)` for i in 0..n, polling for Ctrl-C; returns n.
fn each(n: u64, f: impl Fn(u64) -> Result<(), WorkloadError>) -> Result<u64, WorkloadError> {
    each_until(n, Deadline(None), f)
}

/// `f(i)` for i in 0..n until the deadline passes; returns how many were done.
fn each_until(
    n: u64,
    wall: Deadline,
    f: impl Fn(u64) -> Result<(), WorkloadError>,
) -> Result<u64, WorkloadError> {
    let start = std::time::Instant::now();
    for i in 0..n {
        poll(i)?;
        if wall.passed(start) {
            return Ok(i);
        }
        f(i)?;
    }
    Ok(n)
}

fn create(path: &Path) -> Result<(), WorkloadError> {
    File::create(path)
        .map(drop)
        .ctx(|| format!("create {}", path.display()))
}

/// Geometric mean of positive values (IO500's score); 0 when any phase measured nothing.
pub fn geomean(xs: &[f64]) -> f64 {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
        return 0.0;
    }
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

/// The bytes of the ior phases move through the engine (sync, buffered: IOR's POSIX API),
/// as every workload's do: chunks of `transfer` bytes, incompressible data.
fn io_file(path: &Path, how: Open, transfer: u64, seed: u64) -> Result<BlockFile, WorkloadError> {
    let io = IoSettings {
        engine: EngineSpec::Sync,
        fill: Fill::Random,
        direct: false,
        fell_back: false,
    };
    let chunk = u32::try_from(transfer).unwrap_or(u32::MAX);
    BlockFile::open(path, how, &io, chunk, seed)
}

/// ior-easy write: the rank's own file from offset 0 in `transfer` pieces until `size` or
/// the deadline, fsync at the end (IOR `-e`); returns the bytes written.
fn write_seq(path: &Path, size: u64, transfer: u64, wall: Deadline) -> Result<u64, WorkloadError> {
    let mut f = io_file(path, Open::Truncate, transfer, size)?;
    let start = std::time::Instant::now();
    let mut done = 0;
    while done < size && !wall.passed(start) {
        done += f.stream_from(OpKind::Write, done, transfer.min(size - done))?;
    }
    f.fsync()?;
    Ok(done)
}

/// ior-easy read: `size` bytes of another rank's file from offset 0.
fn read_seq(path: &Path, size: u64, transfer: u64) -> Result<u64, WorkloadError> {
    if size == 0 {
        return Ok(0);
    }
    io_file(path, Open::Existing, transfer, size)?.stream(OpKind::Read, size)
}

/// ior-hard write: this rank's transfers i = 0, 1, … until `n` or the deadline, transfer i at
/// [`hard_offset`] of the shared file rank 0 made before the first phase; returns the bytes.
fn hard_write(l: &Layout, n: u64, wall: Deadline) -> Result<u64, WorkloadError> {
    let mut f = io_file(&l.hard_file(), Open::Existing, HARD_TRANSFER, l.rank as u64)?;
    let start = std::time::Instant::now();
    let mut i = 0;
    // Ctrl-C is polled by the engine's driver, as for every transfer.
    while i < n && !wall.passed(start) {
        f.write_at(hard_offset(l, i, l.rank), i * HARD_TRANSFER)?;
        i += 1;
    }
    f.fsync()?;
    Ok(i * HARD_TRANSFER)
}

/// ior-hard read: the `bytes` that `of_rank` wrote, transfer by transfer.
fn hard_read(l: &Layout, bytes: u64, of_rank: usize) -> Result<u64, WorkloadError> {
    let mut f = io_file(
        &l.hard_file(),
        Open::Existing,
        HARD_TRANSFER,
        of_rank as u64,
    )?;
    let n = bytes / HARD_TRANSFER;
    for i in 0..n {
        f.read_at(hard_offset(l, i, of_rank))?;
    }
    Ok(n * HARD_TRANSFER)
}

/// Where `rank`'s transfer i lies in the shared ior-hard file (IOR without `-F` with one
/// transfer per block: segment i holds every rank's block, in rank order).
fn hard_offset(l: &Layout, i: u64, rank: usize) -> u64 {
    (i * l.ranks as u64 + rank as u64) * HARD_TRANSFER
}

fn stat(path: &Path) -> Result<(), WorkloadError> {
    std::fs::symlink_metadata(path)
        .map(drop)
        .ctx(|| format!("stat {}", path.display()))
}

fn remove(path: &Path) -> Result<(), WorkloadError> {
    std::fs::remove_file(path).ctx(|| format!("unlink {}", path.display()))
}

fn write_small(path: &Path) -> Result<(), WorkloadError> {
    std::fs::write(path, [0x3cu8; MD_HARD_BYTES]).ctx(|| format!("write {}", path.display()))
}

fn read_small(path: &Path) -> Result<(), WorkloadError> {
    let data = std::fs::read(path).ctx(|| format!("read {}", path.display()))?;
    if data.len() != MD_HARD_BYTES {
        return Err(WorkloadError::Failed(format!(
            "{} holds {} bytes, expected {MD_HARD_BYTES}",
            path.display(),
            data.len()
        )));
    }
    Ok(())
}

/// find: this rank's easy files, and its own files among the shared directory's entries;
/// fails when the count is not what was made (a lost file must not look fast).
fn find(l: &Layout, easy: u64, hard: u64) -> Result<u64, WorkloadError> {
    let seen = super::fsops::walk(&l.easy_dir)? - 1;
    let mine = format!("file.r{}.", l.rank);
    let mut own = 0u64;
    for e in std::fs::read_dir(&l.shared).ctx(|| format!("readdir {}", l.shared.display()))? {
        let e = e.ctx(|| format!("readdir {}", l.shared.display()))?;
        if e.file_name().to_string_lossy().starts_with(&mine) {
            std::fs::symlink_metadata(e.path()).ctx(|| format!("stat {}", e.path().display()))?;
            own += 1;
        }
    }
    if (seen, own) != (easy, hard) {
        return Err(WorkloadError::Failed(format!(
            "find saw {seen} easy and {own} hard files of rank {}, expected {easy} and {hard}",
            l.rank
        )));
    }
    Ok(easy + hard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_geometric_means_as_io500_computes_them() {
        assert!((geomean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
        assert!((geomean(&[2.0, 8.0, 4.0]) - 4.0).abs() < 1e-12);
        assert_eq!(geomean(&[1.0, 0.0]), 0.0);
        assert_eq!(geomean(&[]), 0.0);
    }
}

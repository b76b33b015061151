//! `io500`: the IO500 benchmark's phases and scores, run by every rank (MPI) or one process.
//!
//! Phases in IO500's order, each timed between barriers and combined over the ranks as IOR
//! does (all ranks' bytes or files over the first start to the last end), with the options
//! the io500 app passes its tools:
//! - ior-easy write/read: each rank writes its own file sequentially in `easy_transfer`
//!   pieces, fsync at the end (IOR `-F -e -g`); read back by IOR's `-C -Q 1` rule;
//! - ior-hard write/read: one shared file, 47,008-byte transfers interleaved by rank
//!   (transfer i of rank r at offset (i × ranks + r) × 47,008), `-g` barriers, `-C -Q 1`;
//! - mdtest-easy write/stat/delete: empty files, each rank in its own directory (mdtest `-u`),
//!   sync after the writes (`-Y`), the other steps shifted as mdtest `-N 1`;
//! - mdtest-hard write/stat/read/delete: 3,901-byte files, all ranks in one directory, sync
//!   after the writes (`-Y`); every mdtest item and the end of each mdtest phase as mdtest
//!   makes them, call for call (see [`mdtest`]);
//! - find: pfind's query over the whole data directory (see [`find`]);
//! - the data: IOR's timestamp pattern (`--dataPacketType=timestamp`) in every ior transfer
//!   and mdtest-hard file, checked on every read inside the timing as IOR's `-R` and mdtest's
//!   `-X` check it (see [`data_check`]); a read that does not return what was written fails
//!   its phase.
//!
//! The layout and the read shifts are [`layout`]'s; the stonewall (IOR's `-D` with
//! `stoneWallingWearOut=1`, mdtest's `-W`) is [`stonewall`]'s: the write phases stop at the
//! deadline and every rank then continues to the count of the rank that did most (`wearout`;
//! off: each rank stops at its own count). The counts are shared, so every later phase reads,
//! stats and removes exactly what was made. `stonewall_s` 0 (the quick default) lets every
//! rank do its set amount; such a run is not a valid IO500 run (the app requires 300 s), and
//! the report says so.
//!
//! Scores as IO500 computes them: bandwidth = geometric mean of the four ior phases in GiB/s,
//! metadata = geometric mean of the mdtest phases and find in kIOPS, a phase ≤ 0 left out of
//! its group; total = √(bandwidth × metadata). Sizes follow `--scale`.

mod data_check;
mod find;
mod find_query;
mod find_work;
mod layout;
mod mdtest;
mod mdtest_names;
mod name_match;
mod peers;
mod stonewall;

use super::blockio::{bytes, choice, count, BlockFile, IoSettings, Open};
use super::WorkloadCtx;
use crate::engine::{EngineSpec, Fill, OpKind};
use crate::error::{IoContext, WorkloadError};
use crate::measure::Stopwatch;
use crate::model::MetricSpec;
use crate::settings::Choice;
use crate::TypedWorkload;
use layout::Layout;
use mdtest::Names;
use peers::Peers;
use std::path::{Path, PathBuf};
use std::time::Duration;
use stonewall::Stonewall;

/// The io500 workload.
pub struct Io500;

/// IO500's ior-hard transfer size.
const HARD_TRANSFER: u64 = 47_008;
const GIB: f64 = (1u64 << 30) as f64;

crate::choice! {
    /// Whose data a rank reads back (`read_shift`).
    pub enum ReadShift {
        /// The next node's (IOR -C -Q 1, mdtest -N 1): on one node its own.
        Node = "node",
        /// Always the next rank's.
        Rank = "rank",
    }
}

crate::settings! {
    /// io500's settings (sizes in bytes).
    pub struct Config {
        /// Bytes each rank writes in ior-easy.
        pub easy_size: u64 = bytes(
            "easy_size",
            "bytes each rank writes to its own file in ior-easy",
            32 << 20,
            1 << 30,
            false,
        )
        .range(1 << 20, crate::params::MAX_SIZE),
        /// Bytes per call in ior-easy.
        pub easy_transfer: u64 = bytes(
            "easy_transfer",
            "bytes per write/read call in ior-easy (IO500: 2 MiB)",
            2 << 20,
            2 << 20,
            false,
        )
        .range(4096, 1 << 30),
        /// Transfers each rank makes in ior-hard.
        pub hard_transfers: u64 = count(
            "hard_transfers",
            "47,008-byte transfers each rank makes to the shared file in ior-hard",
            1_000,
            20_000,
        )
        .range(1, 100_000_000),
        /// Files each rank makes in mdtest-easy.
        pub md_easy_files: u64 = count(
            "md_easy_files",
            "empty files each rank makes in its own directory (mdtest-easy)",
            1_000,
            20_000,
        )
        .range(1, super::blockio::MAX_FILES),
        /// Stonewall deadline, seconds; 0 = none.
        pub stonewall_s: u64 = count(
            "stonewall_s",
            "seconds after which every write phase stops and counts what each rank did \
                   (IOR's stonewall deadline, IO500: 300); 0 = every rank does its set amount",
            0,
            300,
        )
        .range(0, 86_400),
        /// Ranks continue to the most any did after the deadline.
        pub wearout: bool = super::blockio::flag(
            "wearout",
            "after the stonewall deadline every rank continues until it has done as much as the \
             rank that did most (IOR's stoneWallingWearOut=1, as the io500 app); false: each rank \
             stops at its own count",
            1,
        ),
        /// Whose data a rank reads back.
        pub read_shift: ReadShift = choice(
            "read_shift",
            "whose data a rank reads back: node (IOR -C -Q 1 and mdtest -N 1, as the io500 \
                   app: on one node IOR reads its own) or rank (always the next rank's)",
            ReadShift::NAMES,
            0,
            0,
        ),
        /// Sleep before each mdtest phase.
        pub mdtest_sleep: Duration = count(
            "mdtest_sleep_s",
            "seconds every rank sleeps before each mdtest phase, outside its clock, as mdtest \
             does before its test (sleep(1) in mdtest_run, so in every mdtest phase of the io500 \
             app); on a virtual machine a phase after an idle second can run slower (stat, read \
             and delete 7-26 % here); 0 = run it straight after the phase before",
            0,
            1,
        )
        .range(0, 3_600),
        /// Files each rank makes in mdtest-hard.
        pub md_hard_files: u64 = count(
            "md_hard_files",
            "3,901-byte files each rank makes in the one shared directory (mdtest-hard)",
            500,
            10_000,
        )
        .range(1, super::blockio::MAX_FILES),
    }
}

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
        "files looked at by pfind's query (-newer, -size 3901c, -name *01*) over the data",
    ),
    (
        "ior_easy_read",
        "GiB/s",
        "sequential reads of the ior-easy files (IOR -C)",
    ),
    ("mdtest_easy_stat", "kops/s", "stat of every easy file"),
    (
        "ior_hard_read",
        "GiB/s",
        "47,008-byte reads of the shared file (IOR -C)",
    ),
    ("mdtest_hard_stat", "kops/s", "stat of every hard file"),
    ("mdtest_easy_delete", "kops/s", "unlink of every easy file"),
    (
        "mdtest_hard_read",
        "kops/s",
        "3,901-byte reads of the hard files (mdtest -N 1)",
    ),
    ("mdtest_hard_delete", "kops/s", "unlink of every hard file"),
];

impl TypedWorkload for Io500 {
    type Settings = Config;
    /// The io500 app runs its phases back to back: no sync, no drop between them.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "the io500 app (IOR, mdtest, pfind)"
    }
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // One process's share (each rank adds its own): its ior-easy file, its part of the
        // shared ior-hard file, its mdtest files (the easy ones empty).
        let (easy, hard) = (c.md_easy_files, c.md_hard_files);
        let bytes = c
            .easy_size
            .saturating_add(c.hard_transfers.saturating_mul(HARD_TRANSFER))
            .saturating_add(super::needs::files_bytes(hard, mdtest::HARD_BYTES as u64))
            .saturating_add(super::needs::files_bytes(easy, 0));
        super::needs::Needs::space(bytes, easy + hard + 8, "easy_size")
    }
    fn name(&self) -> &'static str {
        "io500"
    }
    /// Its phases run in step on every MPI rank (see [`crate::collective`]).
    fn runs_on_ranks(&self) -> bool {
        true
    }
    fn summary(&self) -> &'static str {
        "IO500's ior-easy/hard, mdtest-easy/hard and find phases with its scores; under mpirun \
         every rank takes part (shared file and directory, rank-shifted reads)"
    }
    fn metrics(&self, _: &Config) -> Vec<MetricSpec> {
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
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        let (rank, ranks) = ctx.ranks();
        let peers = Peers::new(ctx.team());
        let (on_node0, block) = peers.node_layout()?;
        let by_rank = c.read_shift == ReadShift::Rank;
        let l = Layout {
            rank,
            ranks,
            // The app's tree lives in its data directory, which every rank shares.
            top: ctx.shared_root().join("fsbattery-io500"),
            ior_shift: if by_rank {
                1
            } else {
                peers::ior_read_offset(ranks, on_node0, block)
            },
            md_stride: if by_rank { 0 } else { 1 },
        };
        // Made by rank 0 before the first phase, whose barrier orders it before anyone uses
        // it; removed by rank 0 on every exit path.
        let _guard = if rank == 0 {
            if layout::exists(&l.top) {
                return Err(WorkloadError::Failed(format!(
                    "{} exists (left by an earlier run?): remove it first",
                    l.top.display()
                )));
            }
            let guard = Remove(l.top.clone());
            l.make()?;
            Some(guard)
        } else {
            None
        };
        let wall = Stonewall {
            deadline: Some(c.stonewall_s)
                .filter(|&s| s > 0)
                .map(Duration::from_secs),
            wearout: c.wearout,
        };
        run_phases(ctx, &Run { l, peers, wall }, c)
    }
}

/// Removes a directory made by rank 0 when dropped.
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What every phase of one run works with.
struct Run<'a> {
    l: Layout,
    peers: Peers<'a>,
    wall: Stonewall,
}

type Body<'a> = &'a dyn Fn() -> Result<u64, WorkloadError>;

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

/// A write phase under the stonewall: its rate, and every rank's count (shared, so the later
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

/// What the write phases made, per rank: ior-easy bytes, mdtest-easy files, ior-hard
/// bytes, mdtest-hard files.
struct Made {
    easy_bytes: Vec<u64>,
    easy_files: Vec<u64>,
    hard_bytes: Vec<u64>,
    hard_files: Vec<u64>,
}

fn run_phases(ctx: &mut WorkloadCtx<'_>, r: &Run<'_>, c: &Config) -> Result<(), WorkloadError> {
    let all = Stopwatch::start();
    let (made, mut bw, mut md) = write_phases(ctx, r, c)?;
    let (l, transfer) = (&r.l, c.easy_transfer);
    let (byte, file) = (1.0 / GIB, 1e-3);
    let found = std::cell::Cell::new(0);
    let mut go = |metric: &str, unit: f64, f: Body<'_>| phase(ctx, metric, unit, f).map(|r| r.0);
    // pfind's stack is allocated and zeroed before its clock starts.
    let queue = std::cell::RefCell::new(find_work::Queue::new());
    md.push(go("find", file, &|| {
        let q = find_query::io500_query(&l.timestamp())?;
        let seen = find::find(&l.data(), &q, &r.peers, &mut queue.borrow_mut())?;
        found.set(seen.found);
        Ok(seen.total)
    })?);
    drop(queue);
    let src = l.ior_source();
    bw.push(go("ior_easy_read", byte, &|| {
        read_seq(r, (&l.easy_file(src), src), made.easy_bytes[src], transfer)
    })?);
    let (stat_of, read_of, rm_of) = (l.md_source(1), l.md_source(2), l.md_source(3));
    let p = r.peers;
    mdtest::sleep_before_test(c.mdtest_sleep)?;
    md.push(go("mdtest_easy_stat", file, &|| {
        let n = made.easy_files[stat_of];
        mdtest::each(
            p,
            "mdtest-easy-stat",
            n,
            (l.md_easy(stat_of)?, Names::looked_up),
            mdtest::stat,
        )
    })?);
    bw.push(go("ior_hard_read", byte, &|| {
        hard_read(r, made.hard_bytes[src], src)
    })?);
    mdtest::sleep_before_test(c.mdtest_sleep)?;
    md.push(go("mdtest_hard_stat", file, &|| {
        let n = made.hard_files[stat_of];
        mdtest::each(
            p,
            "mdtest-hard-stat",
            n,
            (l.md_hard(stat_of)?, Names::looked_up),
            mdtest::stat,
        )
    })?);
    mdtest::sleep_before_test(c.mdtest_sleep)?;
    md.push(go("mdtest_easy_delete", file, &|| {
        let n = made.easy_files[rm_of];
        mdtest::each(
            p,
            "mdtest-easy-delete",
            n,
            (l.md_easy(rm_of)?, Names::made),
            mdtest::remove,
        )
    })?);
    mdtest::sleep_before_test(c.mdtest_sleep)?;
    md.push(go("mdtest_hard_read", file, &|| {
        let n = made.hard_files[read_of];
        let bad = std::cell::Cell::new(0);
        let done = mdtest::each(
            p,
            "mdtest-hard-read",
            n,
            (l.md_hard(read_of)?, Names::looked_up),
            |path| mdtest::read(path, read_of).map(|ok| bad.set(bad.get() + u64::from(!ok))),
        )?;
        verified("mdtest-hard-read", &l.data(), bad.get())?;
        Ok(done)
    })?);
    mdtest::sleep_before_test(c.mdtest_sleep)?;
    md.push(go("mdtest_hard_delete", file, &|| {
        let n = made.hard_files[rm_of];
        mdtest::each(
            p,
            "mdtest-hard-delete",
            n,
            (l.md_hard(rm_of)?, Names::made),
            mdtest::remove,
        )
    })?);
    check_found(ctx, &made.hard_files, found.get())?;
    let t = all.stop();
    let (score_bw, score_md) = (geomean(&bw), geomean(&md));
    // Every rank derived the same scores from the combined phase rates.
    ctx.record_derived("score_bw", &t, score_bw);
    ctx.record_derived("score_md", &t, score_md);
    ctx.record_derived("score", &t, (score_bw * score_md).sqrt());
    Ok(())
}

/// The four write phases and the timestamp between them, in the app's order; returns what
/// each rank made and the bandwidth and metadata rates so far.
fn write_phases(
    ctx: &mut WorkloadCtx<'_>,
    r: &Run<'_>,
    c: &Config,
) -> Result<(Made, Vec<f64>, Vec<f64>), WorkloadError> {
    let (l, wall, peers) = (&r.l, r.wall, r.peers);
    let (easy_size, transfer) = (c.easy_size, c.easy_transfer);
    let (byte, file) = (1.0 / GIB, 1e-3);
    let me = l.rank;
    let (rate, easy_bytes) = write_phase(ctx, "ior_easy_write", byte, &|| {
        write_seq(r, &l.easy_file(me), easy_size, transfer)
    })?;
    let mut bw = vec![rate];
    mdtest::sleep_before_test(c.mdtest_sleep)?;
    let (rate, easy_files) = write_phase(ctx, "mdtest_easy_write", file, &|| {
        let n = c.md_easy_files;
        let mut names = l.md_easy(me)?;
        let done = wall.run(peers, "io500-wearout-mdtest-easy", n, |i| {
            mdtest::create(names.made(i))
        })?;
        // mdtest -Y: sync once the files are made, inside the timing.
        mdtest::end_of_writes(peers, "mdtest-easy-write")?;
        Ok(done)
    })?;
    let mut md = vec![rate];
    // The app's timestamp phase: find looks for files newer than this.
    if me == 0 {
        l.stamp()?;
    }
    let (rate, hard_bytes) = write_phase(ctx, "ior_hard_write", byte, &|| {
        hard_write(r, c.hard_transfers)
    })?;
    bw.push(rate);
    mdtest::sleep_before_test(c.mdtest_sleep)?;
    let (rate, hard_files) = write_phase(ctx, "mdtest_hard_write", file, &|| {
        let n = c.md_hard_files;
        let mut names = l.md_hard(me)?;
        let buf = mdtest::hard_buffer(me);
        let done = wall.run(peers, "io500-wearout-mdtest-hard", n, |i| {
            mdtest::create_written(names.made(i), &buf)
        })?;
        mdtest::end_of_writes(peers, "mdtest-hard-write")?;
        Ok(done)
    })?;
    md.push(rate);
    let made = Made {
        easy_bytes,
        easy_files,
        hard_bytes,
        hard_files,
    };
    Ok((made, bw, md))
}

/// Fail when find's matches over all ranks are not the mdtest-hard files whose names hold
/// "01" (a lost or unseen file must not look fast; the app calls a find that found nothing
/// invalid).
fn check_found(
    ctx: &mut WorkloadCtx<'_>,
    hard_files: &[u64],
    mine: u64,
) -> Result<(), WorkloadError> {
    let found: u64 = ctx.share_count("io500-find-found", mine)?.iter().sum();
    let expected: u64 = hard_files
        .iter()
        .enumerate()
        .map(|(rank, &n)| layout::matching(rank, n))
        .sum::<Result<u64, _>>()?;
    if found != expected {
        return Err(WorkloadError::Failed(format!(
            "find matched {found} files, expected the {expected} mdtest-hard files whose names \
             hold \"01\""
        )));
    }
    Ok(())
}

/// Geometric mean of the positive values, as IO500's `calc_score`: a phase ≤ 0 (or not a
/// number) is left out of its group; 0 when none is left.
pub fn geomean(xs: &[f64]) -> f64 {
    let kept: Vec<f64> = xs
        .iter()
        .copied()
        .filter(|&x| x > 0.0 && x.is_finite())
        .collect();
    if kept.is_empty() {
        return 0.0;
    }
    (kept.iter().map(|x| x.ln()).sum::<f64>() / kept.len() as f64).exp()
}

/// An ior file: its bytes move through the engine (sync, buffered: IOR's POSIX API), as
/// every workload's do, in chunks of `transfer` bytes, each holding IOR's buffer as `rank`
/// writes it ([`data_check`]). IOR's POSIX backend seeks before every transfer (`lseek64`,
/// then `read` or `write`) where the engine's sync path calls `pread`/`pwrite`; the seek is
/// made on a second descriptor of the file, so each transfer costs IOR's two calls.
struct IorFile {
    io: BlockFile,
    seek: std::fs::File,
}

impl IorFile {
    fn open(path: &Path, how: Open, transfer: u64, rank: usize) -> Result<IorFile, WorkloadError> {
        // The fill is not used: every chunk holds `base` below.
        let io = IoSettings {
            engine: EngineSpec::Sync,
            fill: Fill::Random,
            direct: false,
            fell_back: false,
        };
        let chunk = usize::try_from(transfer.min(u64::from(u32::MAX))).unwrap_or(usize::MAX);
        let mut base = vec![0u8; chunk];
        data_check::fill(&mut base, rank);
        let io = BlockFile::open_holding(path, how, &io, &base, false)?;
        let seek = std::fs::File::open(path).ctx(|| format!("open {}", path.display()))?;
        Ok(IorFile { io, seek })
    }

    /// `POSIX_Xfer`'s `lseek64(fd, offset, SEEK_SET)`.
    fn seek(&self, at: u64) -> Result<(), WorkloadError> {
        let to = i64::try_from(at).unwrap_or(i64::MAX);
        nix::unistd::lseek(&self.seek, to, nix::unistd::Whence::SeekSet)
            .map(drop)
            .map_err(std::io::Error::from)
            .ctx(|| format!("lseek {}", self.io.path().display()))
    }

    /// One write of `len` bytes at `at`, the file's bytes before it (a sequential file's).
    fn write(&mut self, at: u64, len: u64) -> Result<(), WorkloadError> {
        self.seek(at)?;
        self.io.stream_from(OpKind::Write, at, len).map(drop)
    }

    /// One whole transfer at `at` of a shared file; `written` (this rank's bytes so far, not
    /// `at`) only feeds the "target full" message.
    fn write_transfer(&mut self, at: u64, written: u64) -> Result<(), WorkloadError> {
        self.seek(at)?;
        self.io.write_at(at, written)
    }

    /// One read of `len` bytes at `at` checked as IOR's `-R` checks it: the buffer's first
    /// byte flipped before, every byte compared with what `writer` wrote after; false when
    /// it differs.
    fn read_checked(&mut self, at: u64, len: u64, writer: usize) -> Result<bool, WorkloadError> {
        data_check::invalidate(self.io.last_buffer());
        self.seek(at)?;
        self.io.stream_from(OpKind::Read, at, len)?;
        Ok(data_check::holds(
            &self.io.last_buffer()[..len as usize],
            writer,
            at,
        ))
    }
}

/// A read phase's reads (IOR transfers, mdtest files) that did not hold what was written: the
/// phase fails, as the app counts the run invalid when IOR or mdtest report data errors.
fn verified(what: &str, path: &Path, bad: u64) -> Result<(), WorkloadError> {
    if bad == 0 {
        return Ok(());
    }
    Err(WorkloadError::Failed(format!(
        "io500 {what}: {bad} reads in {} did not return what was written (the app's -R/-X \
         data check)",
        path.display()
    )))
}

/// ior-easy write: the rank's own file from offset 0 in `transfer` pieces until `size` or
/// the stonewall, fsync at the end (IOR `-e`), `-g` barriers after the open and the
/// transfers; returns the bytes written.
fn write_seq(r: &Run<'_>, path: &Path, size: u64, transfer: u64) -> Result<u64, WorkloadError> {
    let mut f = IorFile::open(path, Open::Truncate, transfer, r.l.rank)?;
    r.peers.barrier("io500-ior-easy-write-open")?;
    let n = size.div_ceil(transfer);
    let done = r.wall.run(r.peers, "io500-wearout-ior-easy", n, |i| {
        let at = i * transfer;
        f.write(at, transfer.min(size - at))
    })?;
    r.peers.barrier("io500-ior-easy-write-done")?;
    f.io.fsync()?;
    Ok((done * transfer).min(size))
}

/// ior-easy read: `size` bytes of `writer`'s file from offset 0, transfer by transfer, each
/// checked (IOR `-R`); `-g` barriers as the write.
fn read_seq(
    r: &Run<'_>,
    (path, writer): (&Path, usize),
    size: u64,
    transfer: u64,
) -> Result<u64, WorkloadError> {
    let mut f = IorFile::open(path, Open::Existing, transfer, writer)?;
    r.peers.barrier("io500-ior-easy-read-open")?;
    let mut bad = 0;
    let mut at = 0;
    while at < size {
        crate::poll(at / transfer)?;
        let len = transfer.min(size - at);
        bad += u64::from(!f.read_checked(at, len, writer)?);
        at += len;
    }
    r.peers.barrier("io500-ior-easy-read-done")?;
    verified("ior-easy-read", path, bad)?;
    Ok(size)
}

/// ior-hard write: this rank's transfers i = 0, 1, … until `n` or the stonewall, transfer
/// i at [`hard_offset`] of the shared file rank 0 made before the first phase; returns the
/// bytes.
fn hard_write(r: &Run<'_>, n: u64) -> Result<u64, WorkloadError> {
    let l = &r.l;
    let mut f = IorFile::open(&l.hard_file(), Open::Existing, HARD_TRANSFER, l.rank)?;
    r.peers.barrier("io500-ior-hard-write-open")?;
    let done = r.wall.run(r.peers, "io500-wearout-ior-hard", n, |i| {
        f.write_transfer(hard_offset(l, i, l.rank), i * HARD_TRANSFER)
    })?;
    r.peers.barrier("io500-ior-hard-write-done")?;
    f.io.fsync()?;
    Ok(done * HARD_TRANSFER)
}

/// ior-hard read: the `bytes` that `of_rank` wrote, transfer by transfer, each checked (IOR
/// `-R`).
fn hard_read(r: &Run<'_>, bytes: u64, of_rank: usize) -> Result<u64, WorkloadError> {
    let l = &r.l;
    let path = l.hard_file();
    let mut f = IorFile::open(&path, Open::Existing, HARD_TRANSFER, of_rank)?;
    r.peers.barrier("io500-ior-hard-read-open")?;
    let n = bytes / HARD_TRANSFER;
    let mut bad = 0;
    for i in 0..n {
        crate::poll(i)?;
        let at = hard_offset(l, i, of_rank);
        bad += u64::from(!f.read_checked(at, HARD_TRANSFER, of_rank)?);
    }
    r.peers.barrier("io500-ior-hard-read-done")?;
    verified("ior-hard-read", &path, bad)?;
    Ok(n * HARD_TRANSFER)
}

/// Where `rank`'s transfer i lies in the shared ior-hard file (IOR without `-F` with one
/// transfer per block: segment i holds every rank's block, in rank order).
fn hard_offset(l: &Layout, i: u64, rank: usize) -> u64 {
    (i * l.ranks as u64 + rank as u64) * HARD_TRANSFER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transfer_reads_back_checked_against_its_writer_and_a_changed_byte_is_caught() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("ior_file_easy");
        let transfer = 3 * 4096 + 5;
        let mut w = IorFile::open(&path, Open::Truncate, transfer, 1).unwrap();
        for i in 0..3 {
            w.write(i * transfer, transfer).unwrap();
        }
        drop(w);
        let mut r = IorFile::open(&path, Open::Existing, transfer, 1).unwrap();
        assert!(r.read_checked(transfer, transfer, 1).unwrap());
        assert!(
            !r.read_checked(transfer, transfer, 0).unwrap(),
            "rank 0 wrote none"
        );
        // One byte changed on disk, in the last transfer.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[(3 * transfer - 2) as usize] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        assert!(r.read_checked(0, transfer, 1).unwrap());
        assert!(!r.read_checked(2 * transfer, transfer, 1).unwrap());
        let e = verified("ior-easy-read", &path, 1).unwrap_err().to_string();
        assert!(
            e.contains("1 reads in") && e.contains("ior_file_easy"),
            "{e}"
        );
        verified("ior-easy-read", &path, 0).unwrap();
    }

    #[test]
    fn scores_are_geometric_means_as_io500_computes_them() {
        assert!((geomean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
        assert!((geomean(&[2.0, 8.0, 4.0]) - 4.0).abs() < 1e-12);
        // A phase <= 0 is left out of its group, as IO500's calc_score.
        assert!((geomean(&[4.0, 0.0, 1.0]) - 2.0).abs() < 1e-12);
        assert!((geomean(&[3.0, -1.0]) - 3.0).abs() < 1e-12);
        assert_eq!(geomean(&[0.0, 0.0]), 0.0);
        assert_eq!(geomean(&[]), 0.0);
    }
}

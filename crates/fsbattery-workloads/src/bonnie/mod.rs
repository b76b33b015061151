//! `bonnie`: follows bonnie++ 2.00a (Debian 12) with `-f` (no per-character tests), as seeds
//! S2 (bonnie++ 1.96, `-s 16384m:256k -n 128:1999:0:1 -f`) and S4 (bonnie++ 1.03a defaults) ran
//! it.
//!
//! Big-file tests on one file of SIZE in CHUNK-sized transfers: `seq_write` (block output),
//! `rewrite` (read a chunk, dirty a word, write it back in place: S4's "mixed"), `seq_read`
//! (block input), `seeks` (SEEKERS threads sharing SEEKS tickets; each seek reads one chunk at
//! a random chunk offset and every tenth dirties and writes it back); the big file is then
//! removed untimed, as bonnie++ does (S2's "Datei 16 GB löschen" rows are `bigfile`'s).
//! Small-file tests (`files`): create, stat, delete FILES files in name order and in
//! random order, as `-n`, with bonnie++ 2.00a's system calls, names and clocks.
//!
//! Cache: the workload's tool cache is "nothing", so under the default `--cache tool` no
//! phase drops or reads anything first, as bonnie++ (the small-file stat pass finds the inodes
//! create just made); `--cache cold` drops caches before every pass instead.
//!
//! Deliberate differences from bonnie++, each a parameter or documented:
//! - one file of SIZE, not bonnie's 1 GiB pieces (a 32-bit `off_t` limit of its time);
//! - with `fsync=1` (default) the write and rewrite clocks stop after a closing fsync, as
//!   bonnie++'s do (2.00a fsyncs the file on close before it reads the timer), so a file
//!   smaller than 2 × RAM still measures the device; `fsync=0` stops them at the last write,
//!   which bonnie++ never does (a page-cache rate);
//! - FILES counts files (bonnie's `-n N` means N × 1024);
//! - MB/s are 10^6 bytes/s (bonnie++ prints K/sec of 1024 bytes: multiply by 1.024 / 1000).
//!
//! Invariants: every file lives in the scratch directory and is removed on every path; the big
//! file is a whole number of chunks; a pass ends within a few hundred chunks of Ctrl-C (the
//! engine driver's polling); the seekers run on the engine's one pool.

use super::blockio::{self, BlockFile, IoSettings, Open};
use super::{poll, Scratch, WorkloadCtx};

mod files;
mod names;
use super::blockio::{FillKind, IoDefaults, IoGroup};
use crate::engine::{run_pool, OpKind, XorShift};
use crate::error::{IoContext, WorkloadError};
use crate::model::MetricSpec;
use crate::params::{MAX_REQUEST, MAX_SIZE, MAX_THREADS};
use crate::TypedWorkload;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The bonnie workload.
pub struct Bonnie;

crate::settings! {
    /// bonnie's settings (sizes in bytes).
    pub struct Config {
        /// Bytes of the block-IO file; 0 skips those tests.
        pub size: u64 = blockio::bytes(
            "size",
            "big file size (bonnie -s); 0 skips the big-file tests",
            64 << 20,
            1 << 30,
            true,
        )
        .range(0, MAX_SIZE),
        /// Bytes per write and read.
        pub chunk: u64 = blockio::request_size(
            "chunk",
            "bytes per read/write of the big-file tests (bonnie -s SIZE:CHUNK; S2 256k, \
             bonnie's default 8k)",
            256 << 10,
        ),
        /// Seeks in all.
        pub seeks: u64 = blockio::count(
            "seeks",
            "random seeks in total over all seekers (bonnie++ 2.00a: 8192, 1.03: 8000)",
            1000,
            8000,
        ),
        /// Processes seeking at once.
        pub seekers: u64 = blockio::count(
            "seekers",
            "concurrent seeker threads (bonnie++ 2.00a: 5 processes, 1.03: 3)",
            3,
            3,
        )
        .range(1, MAX_THREADS),
        /// fsync after every write (bonnie++ -b).
        pub fsync: bool = blockio::flag(
            "fsync",
            "true: write and rewrite clocks include a closing fsync, as bonnie++'s; false: they \
             stop at the last write",
            1,
        ),
        /// Small files; 0 skips those tests.
        pub files: u64 = blockio::count(
            "files",
            "files of the create/stat/delete tests (bonnie -n 128 = 131072); 0 skips them",
            2048,
            131_072,
        )
        .range(0, blockio::MAX_FILES),
        // Plain byte counts, not sizes: 1999 must read as 1999, not "2.0KiB".
        /// Largest small file, bytes.
        pub max_size: u64 = blockio::count(
            "max_size",
            "bytes of the largest small file (bonnie -n N:MAX)",
            1999,
            1999,
        )
        .range(0, MAX_REQUEST),
        /// Smallest small file, bytes.
        pub min_size: u64 = blockio::count(
            "min_size",
            "bytes of the smallest small file (bonnie -n N:MAX:MIN)",
            0,
            0,
        )
        .range(0, MAX_REQUEST),
        /// Directories the small files are spread over.
        pub dirs: u64 = blockio::count(
            "dirs",
            "directories the small files are spread over (bonnie -n N:MAX:MIN:DIRS; 0 and 1 both \
             mean one directory)",
            1,
            1,
        )
        .range(0, blockio::MAX_FILES),
        /// Engine, depth, O_DIRECT, fill.
        pub io: IoGroup => IoDefaults::BLOCK.filled(FillKind::Random),
    }
}

impl TypedWorkload for Bonnie {
    type Settings = Config;
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // The big file, then (after it is removed) the small files: uniform sizes from
        // min_size to max_size, so each holds the mean and less than a block of rounding on
        // average, and never more than max_size's blocks. The big file is exact.
        let (files, dirs) = (c.files, c.dirs);
        let (lo, hi) = (c.min_size, c.max_size.max(c.min_size));
        let most = super::needs::files_bytes(1, hi);
        let each = (lo / 2 + hi / 2 + super::needs::BLOCK).min(most);
        let bytes = c.size.max(files.saturating_mul(each));
        super::needs::Needs::space(bytes, files + dirs + 2, "size, files and max_size")
            .uncertain(c.size)
            .engine(&c.io)
            .direct(&c.io, "false", true, &[("chunk", c.chunk)])
    }
    fn name(&self) -> &'static str {
        "bonnie"
    }
    fn summary(&self) -> &'static str {
        "follows bonnie++ 2.00a (-f): block write, rewrite, block read, random seeks on a big \
         file, then its six small-file tests (create/stat/delete in name and random order, \
         its system calls, names and clocks, no cache drop between them); seeds S2, S4"
    }
    /// bonnie++ never touches the cache: its stat phase finds the inodes its create phase
    /// just made.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "bonnie++"
    }
    fn check(&self, c: &Config) -> Result<(), WorkloadError> {
        if c.size > 0 {
            blockio::whole_chunks("bonnie", c.size, c.chunk, "chunk")?;
        }
        files::check(c)
    }
    fn metrics(&self, c: &Config) -> Vec<MetricSpec> {
        let mut m = Vec::new();
        if c.size > 0 {
            let mb = |n: &str, h: &str| MetricSpec::rate(n, "MB/s", h);
            m.push(mb(
                "seq_write",
                "block write of the big file (bonnie Block Output)",
            ));
            m.push(mb(
                "rewrite",
                "read, dirty and rewrite every chunk in place (bonnie Rewrite)",
            ));
            m.push(mb(
                "seq_read",
                "block read of the big file (bonnie Block Input)",
            ));
            m.push(MetricSpec::rate(
                "seeks",
                "seeks/s",
                "random chunk reads by concurrent seekers, 10% rewritten (bonnie Random Seeks)",
            ));
        }
        if c.files > 0 {
            m.extend(files::metrics());
        }
        if c.size > 0 {
            m.extend(blockio::direct_metric(&c.io));
        }
        m
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        let scratch = Scratch::create(ctx.root(), "bonnie")?;
        let seed = 0xb0_0000 ^ u64::from(ctx.repeat());
        let io = if c.size > 0 {
            let io = IoSettings::resolve("bonnie", &c.io, scratch.path())?;
            big_file(ctx, c, &io, &scratch.join("Bonnie.big"), seed)?;
            Some(io)
        } else {
            None
        };
        if c.files > 0 {
            files::run(ctx, c, scratch.path(), seed)?;
        }
        if let Some(io) = io {
            blockio::record_direct(ctx, &c.io, &io);
        }
        Ok(())
    }
}

/// The big-file tests in bonnie's order, each a quiesced phase.
fn big_file(
    ctx: &mut WorkloadCtx<'_>,
    c: &Config,
    io: &IoSettings,
    path: &Path,
    seed: u64,
) -> Result<(), WorkloadError> {
    let chunk = c.chunk;
    let size = blockio::whole_chunks("bonnie", c.size, chunk, "chunk")?;
    let chunk = chunk as u32;
    let fsync = c.fsync;
    let dir = path.parent().unwrap_or(path);
    let evict = [dir];

    let ((), t) = ctx.phase(&evict, || {
        let mut f = BlockFile::open(path, Open::Truncate, io, chunk, seed)?;
        f.stream(OpKind::Write, size)?;
        finish(&mut f, fsync)
    })?;
    ctx.record("seq_write", &t, blockio::mb_per_s(size, t.elapsed_s));

    let ((), t) = ctx.phase(&evict, || {
        let mut f = BlockFile::open(path, Open::Existing, io, chunk, seed)?;
        f.rewrite(size)?;
        finish(&mut f, fsync)
    })?;
    ctx.record("rewrite", &t, blockio::mb_per_s(size, t.elapsed_s));

    let (_, t) = ctx.phase(&evict, || {
        BlockFile::open(path, Open::Existing, io, chunk, seed)?.stream(OpKind::Read, size)
    })?;
    ctx.record("seq_read", &t, blockio::mb_per_s(size, t.elapsed_s));

    let (seekers, seeks) = (c.seekers, c.seeks);
    if seekers == 0 || seeks == 0 {
        return Err(WorkloadError::Failed(
            "bonnie.seeks and bonnie.seekers must be at least 1".into(),
        ));
    }
    let plan = SeekPlan {
        path,
        io,
        chunk,
        chunks: size / u64::from(chunk),
        total: seeks,
        seed,
    };
    let ((), t) = ctx.phase(&evict, || plan.run(seekers))?;
    ctx.record(
        "seeks",
        &t,
        crate::measure::per_s(seeks as f64, t.elapsed_s),
    );

    // bonnie++ removes its big file untimed (it prints no such figure); S2's "Datei 16 GB
    // löschen" rows are a test of their own, the `bigfile` workload.
    std::fs::remove_file(path).ctx(|| format!("unlink {}", path.display()))
}

/// End a write pass: fsync if the clock should include it (the file closes on drop).
fn finish(f: &mut BlockFile, fsync: bool) -> Result<(), WorkloadError> {
    if fsync {
        f.fsync()?;
    }
    Ok(())
}

/// bonnie's seek test: `total` tickets shared by the seekers, one chunk read per ticket.
struct SeekPlan<'a> {
    path: &'a Path,
    io: &'a IoSettings,
    chunk: u32,
    chunks: u64,
    total: u64,
    seed: u64,
}

/// bonnie's UpdateSeek: every tenth seek also rewrites its chunk.
const UPDATE_EVERY: u64 = 10;

impl SeekPlan<'_> {
    /// Run `seekers` threads on the pool, each with its own open file and engine, until the
    /// tickets are used up or one of them fails.
    fn run(&self, seekers: u64) -> Result<(), WorkloadError> {
        let tickets = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let seed = |t: usize| self.seed ^ ((t as u64 + 1) << 40);
        let setup = |t| BlockFile::open(self.path, Open::Existing, self.io, self.chunk, seed(t));
        let body = |t, mut f: BlockFile, _| self.seeker(&mut f, seed(t), &tickets, &stop);
        run_pool(seekers as usize, &stop, setup, body).map(|_| ())
    }

    fn seeker(
        &self,
        f: &mut BlockFile,
        seed: u64,
        tickets: &AtomicU64,
        stop: &AtomicBool,
    ) -> Result<(), WorkloadError> {
        let mut rng = XorShift::new(seed);
        let chunk = u64::from(f.chunk());
        loop {
            let n = tickets.fetch_add(1, Ordering::Relaxed);
            poll(n)?;
            if n >= self.total || stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let offset = rng.below(self.chunks) * chunk;
            f.read_at(offset)?;
            if n.is_multiple_of(UPDATE_EVERY) {
                f.dirty();
                f.write_at(offset, offset)?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockio::testutil::{direct_ok, run_typed as run_native, uring_ok, values};

    pub(crate) fn params(over: &[(&str, u64)]) -> Config {
        let defaults = [
            ("size", 8 << 20),
            ("chunk", 64 << 10),
            ("seeks", 200),
            ("seekers", 3),
            ("fsync", 1),
            ("files", 300),
            ("max_size", 1999),
            ("min_size", 0),
            ("dirs", 1),
            ("direct", 0),
            ("buffered_fallback", 0),
            ("engine", 0),
            ("depth", 4),
            ("fill", 1),
            ("compress_pct", 50),
        ];
        crate::blockio::testutil::settings_of(&defaults, over)
    }

    #[test]
    fn every_metric_is_positive() {
        let (samples, _tmp) = run_native(&Bonnie, &params(&[])).unwrap();
        let v = values(&samples);
        assert_eq!(v.len(), 10, "{v:?}");
        for (m, x) in &v {
            assert!(*x > 0.0, "{m} = {x}");
        }
    }

    #[test]
    fn size_zero_and_files_zero_skip_their_halves() {
        let (s, _t) = run_native(&Bonnie, &params(&[("size", 0)])).unwrap();
        assert!(s
            .iter()
            .all(|(m, _)| !m.starts_with("seq_w") && m != "seeks"));
        let (s, _t) = run_native(&Bonnie, &params(&[("files", 0)])).unwrap();
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn direct_io_uring_and_bonnie_clock() {
        let mut cases = vec![params(&[("files", 0), ("fsync", 0)])];
        if direct_ok() {
            cases.push(params(&[("files", 0), ("direct", 1)]));
        }
        if uring_ok() {
            cases.push(params(&[("files", 0), ("engine", 1), ("depth", 8)]));
        }
        for p in cases {
            let (samples, _tmp) = run_native(&Bonnie, &p).unwrap();
            let v = values(&samples);
            assert!(v.values().all(|x| *x > 0.0), "{v:?}");
        }
    }

    #[test]
    fn small_files_in_several_directories_in_several_chunks() {
        let over = [
            ("size", 0),
            ("files", 200),
            ("dirs", 3),
            ("min_size", 5000),
            ("max_size", 20_000),
        ];
        let (samples, _tmp) = run_native(&Bonnie, &params(&over)).unwrap();
        let v = values(&samples);
        assert_eq!(v.len(), 6, "{v:?}");
        assert!(v.iter().all(|(_, x)| *x > 0.0), "{v:?}");
    }

    #[test]
    fn chunk_larger_than_the_file_fails_clearly() {
        let e = run_native(&Bonnie, &params(&[("size", 1000), ("files", 0)])).unwrap_err();
        assert!(e.contains("smaller than one chunk"), "{e}");
    }
}

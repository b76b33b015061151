//! `iozone`: seed S3 — `iozone -Ra -I -+u -y 8k -q 16m -g 2G -n 2G`: one file of SIZE, record
//! sizes MIN_RECORD..MAX_RECORD doubling, all 13 iozone tests, O_DIRECT, CPU per cell.
//!
//! Per record size, as iozone's auto mode does: prepare the cache once as the run's policy
//! says (under `--cache tool` nothing, as iozone, whose `-p` purges the CPU cache, not the
//! page cache), then run the 13 tests back to back in iozone's order, each timed on its own.
//! The cache is never dropped between two tests of one record size because iozone never
//! does: reread and freread exist to measure what the first pass left in the cache.
//!
//! | test           | how (iozone function)                                               |
//! |----------------|---------------------------------------------------------------------|
//! | write          | engine, sequential, new file (`write_perf_test`, pass 1)            |
//! | rewrite        | engine, sequential, over the existing file (pass 2)                 |
//! | read, reread   | engine, sequential, twice (`read_perf_test`)                        |
//! | random_read    | engine, one random block per record of the file, with repeats, the  |
//! | random_write   | same sequence for both (`lrand48` after `srand48(0)` in iozone)     |
//! | backward_read  | engine, last block to first (`reverse_perf_test`)                   |
//! | record_rewrite | engine, one record rewritten in place once per record of the file,  |
//! |                | in a second file (`rewriterec_perf_test`)                           |
//! | stride_read    | engine, STRIDE records apart, every block once: the engine's stride |
//! |                | (iozone's `read_stride_perf_test` wraps to the next lane similarly) |
//! | fwrite, frewrite, fread, freread | user-space stdio stream (`stdio`)                |
//!
//! Engine tests honour `direct` (iozone's `-I`); the stdio tests are buffered, in iozone too
//! (`fopen` takes no O_DIRECT), so fread/freread measure the page cache fwrite filled.
//!
//! Metrics: `<test>@<record bytes>` (e.g. `write@8192`), unit KB/s — iozone's kBytes/sec,
//! 1 KB = 1024 bytes — higher is better; reports group them into iozone's per-test tables by
//! this name. A value is the bytes moved over the time of the I/O loop alone (iozone starts its
//! timer after the open); a sample's CPU fields come from a stopwatch around the whole test
//! (iozone's `-+u`). Written data is fsynced after each writing test, outside its time, as
//! iozone does after closing the file; no test includes an fsync in its time (no `-e`).
//!
//! Invariants: the scratch directory guard removes the files on every path, and the files are
//! removed after each record size (iozone's write test starts from a new file); a write that
//! runs out of space fails with "target full after N bytes"; `direct = 1` where O_DIRECT fails
//! fails the cell unless `buffered_fallback = 1`. The command method runs natively as well:
//! fsbattery does not drive an iozone binary.

mod stdio;

use super::blockio::{bytes, count};
use super::io::{DirectDecl, IoDefaults, IoGroup};
use super::{Scratch, WorkloadCtx};
use crate::engine::{
    dio_alignment, run_job, EngineError, EngineSpec, FileMode, Fill, JobSpec, Pattern, Stop,
};
use crate::error::{IoContext, WorkloadError};
use crate::measure::{Stopwatch, Timing};
use crate::model::{Dim, MetricSpec};
use crate::params::MAX_SIZE;
use crate::units::format_bytes;
use crate::TypedWorkload;
use std::path::{Path, PathBuf};
use stdio::Stream;

/// The iozone workload.
pub struct Iozone;

crate::settings! {
    /// iozone's settings (sizes in bytes).
    pub struct Config {
        /// Bytes of the file.
        pub size: u64 = bytes(
            "size",
            "size of the test file (iozone -n/-g)",
            64 << 20,
            2 << 30,
            false,
        )
        .range(4 << 10, MAX_SIZE),
        /// Smallest record, bytes.
        pub min_record: u64 = bytes(
            "min_record",
            "smallest record size, bytes per call (iozone -y)",
            8 << 10,
            8 << 10,
            false,
        )
        .range(512, MAX_RECORD),
        /// Largest record, bytes.
        pub max_record: u64 = bytes(
            "max_record",
            "largest record size (iozone -q); sizes double from min_record, none beyond size",
            1 << 20,
            16 << 20,
            false,
        )
        .range(512, MAX_RECORD),
        /// Engine and depth of the engine tests, O_DIRECT.
        pub io: IoGroup => IO,
        /// Records between two stride reads.
        pub stride: u64 = count(
            "stride",
            "stride read: records between two reads (iozone -j, default 17)",
            17,
            17,
        )
        .range(1, 1_000_000),
        /// Bytes of the stdio tests' user-space buffer.
        pub stdio_buffer: u64 = bytes(
            "stdio_buffer",
            "buffer of the fwrite/fread stream; 0 = one record, as iozone's setvbuf(reclen)",
            0,
            0,
            false,
        )
        .range(0, MAX_RECORD),
    }
}

/// iozone's IO group: O_DIRECT on (iozone -I), no fill, and the depth under its older name
/// (`depth` is accepted for it, see `params::ALIASES`).
const IO: IoDefaults = IoDefaults {
    direct: Some(DirectDecl {
        help: "true: O_DIRECT for the engine tests (iozone -I); the stdio tests stay buffered",
        quick: true,
        standard: true,
        words: false,
    }),
    buffered_fallback: Some(
        "true: where O_DIRECT fails, run buffered instead of failing (the target \
               record's capabilities.direct_io says which)",
    ),
    engine: Some("IO engine of the non-stdio tests"),
    depth: Some((
        "uring.depth",
        "operations in flight with engine io_uring (iozone itself issues one at a time)",
        1,
    )),
    batch: None,
    fill: None,
};

/// Order of the blocks an engine test visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Sequential,
    Random,
    Backward,
    Stride,
}

/// How a test moves its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// An engine job over the test file, one pass of `size / record` operations.
    Engine {
        access: Access,
        write: bool,
        mode: FileMode,
    },
    /// The same record of a second file, rewritten `size / record` times.
    RecordRewrite,
    /// Stdio writes: "w+" (`truncate`) or "r+".
    Fwrite { truncate: bool },
    /// Stdio reads from the start.
    Fread,
}

/// One iozone test.
struct Test {
    /// Metric prefix (the reports' convention).
    name: &'static str,
    /// Title of iozone's Excel table, for help texts.
    report: &'static str,
    how: How,
}

const fn eng(access: Access, write: bool, mode: FileMode) -> How {
    How::Engine {
        access,
        write,
        mode,
    }
}

/// iozone's tests in its own order (`-i 0` .. `-i 7`).
const TESTS: [Test; 13] = [
    Test {
        name: "write",
        report: "Writer report",
        how: eng(Access::Sequential, true, FileMode::Truncate),
    },
    Test {
        name: "rewrite",
        report: "Re-writer report",
        how: eng(Access::Sequential, true, FileMode::Existing),
    },
    Test {
        name: "read",
        report: "Reader report",
        how: eng(Access::Sequential, false, FileMode::Existing),
    },
    Test {
        name: "reread",
        report: "Re-Reader report",
        how: eng(Access::Sequential, false, FileMode::Existing),
    },
    Test {
        name: "random_read",
        report: "Random read report",
        how: eng(Access::Random, false, FileMode::Existing),
    },
    Test {
        name: "random_write",
        report: "Random write report",
        how: eng(Access::Random, true, FileMode::Existing),
    },
    Test {
        name: "backward_read",
        report: "Backward read report",
        how: eng(Access::Backward, false, FileMode::Existing),
    },
    Test {
        name: "record_rewrite",
        report: "Record rewrite report",
        how: How::RecordRewrite,
    },
    Test {
        name: "stride_read",
        report: "Stride read report",
        how: eng(Access::Stride, false, FileMode::Existing),
    },
    Test {
        name: "fwrite",
        report: "Fwrite report",
        how: How::Fwrite { truncate: true },
    },
    Test {
        name: "frewrite",
        report: "Re-Fwrite report",
        how: How::Fwrite { truncate: false },
    },
    Test {
        name: "fread",
        report: "Fread report",
        how: How::Fread,
    },
    Test {
        name: "freread",
        report: "Re-Fread report",
        how: How::Fread,
    },
];

/// One seed for every job: random read and random write then visit the same blocks, as
/// iozone's `srand48(0)` before each, and every job writes the content the reads can verify.
/// The test name of an iozone `-R` report title ("Writer report" → "write"), for imports.
pub fn test_of_report(title: &str) -> Option<&'static str> {
    TESTS.iter().find(|t| t.report == title).map(|t| t.name)
}

const SEED: u64 = 0;

/// Largest record the engine's 32-bit operation length allows comfortably.
const MAX_RECORD: u64 = 1 << 30;

/// Record sizes of a run: `min_record` doubling up to `max_record`, none larger than `size`.
fn records(c: &Config) -> Vec<u64> {
    let (size, max) = (c.size, c.max_record);
    let mut out = Vec::new();
    let mut r = c.min_record;
    while r > 0 && r <= max && r <= size && r <= MAX_RECORD {
        out.push(r);
        r = match r.checked_mul(2) {
            Some(n) => n,
            None => break,
        };
    }
    out
}

/// The metric name of `test` at `record` bytes.
fn metric(test: &str, record: u64) -> String {
    format!("{test}@{record}")
}

/// iozone's kBytes/sec.
fn kb_per_s(bytes: u64, secs: f64) -> f64 {
    // A loop too fast for the clock still moved its bytes: iozone clamps to its timer
    // resolution in the same way.
    crate::measure::per_s(bytes as f64 / 1024.0, secs.max(1e-9))
}

impl TypedWorkload for Iozone {
    type Settings = Config;
    /// Iozone drops nothing (its -p purges the CPU cache, not the page cache); -I bypasses it.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "iozone"
    }
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // The test file and the record-rewrite test's file of one record (max_record at
        // most). Records double from min_record: an aligned min_record aligns them all.
        let bytes = c.size.saturating_add(c.max_record);
        super::needs::Needs::space(bytes, 3, "size and max_record")
            .engine(&c.io)
            .direct(&c.io, "false", true, &[("min_record", c.min_record)])
    }
    fn name(&self) -> &'static str {
        "iozone"
    }
    fn summary(&self) -> &'static str {
        "iozone's 13 tests (write .. freread) over one SIZE file at record sizes MIN_RECORD.. \
         MAX_RECORD, O_DIRECT, KB/s and CPU per cell (S3)"
    }
    fn metrics(&self, c: &Config) -> Vec<MetricSpec> {
        records(c)
            .into_iter()
            .flat_map(|r| {
                TESTS.iter().map(move |t| {
                    let help = format!(
                        "{} at {} records: kBytes/s (1 KB = 1024 B), as iozone prints it",
                        t.report,
                        format_bytes(r)
                    );
                    MetricSpec::rate(&metric(t.name, r), "KB/s", &help).point(
                        t.name,
                        vec![Dim::bytes("record", r), Dim::bytes("file", c.size)],
                    )
                })
            })
            .collect()
    }
    fn check(&self, c: &Config) -> Result<(), WorkloadError> {
        check_params(c, &records(c))
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        let records = records(c);
        check_params(c, &records)?;
        let scratch = Scratch::create(ctx.root(), "iozone")?;
        let dir = scratch.path();
        // The one O_DIRECT decision every engine-driven workload makes.
        let direct = c.io.decide_direct("iozone", dir)?.on();
        if direct {
            check_alignment(dir, records[0])?;
        }
        let setup = Setup::new(&scratch, c, direct)?;
        for &rec in &records {
            setup.run_record(ctx, rec)?;
        }
        Ok(())
    }
}

/// Refuse parameters no run can honour, with the fix.
fn check_params(c: &Config, records: &[u64]) -> Result<(), WorkloadError> {
    let bad = |m: String| Err(WorkloadError::Failed(format!("iozone: {m}")));
    let (size, min, max) = (c.size, c.min_record, c.max_record);
    if min < 512 {
        return bad(format!(
            "min_record {min} B: use at least 512 B (the smallest O_DIRECT block)"
        ));
    }
    if max > MAX_RECORD {
        return bad(format!(
            "max_record {}: use at most 1GiB",
            format_bytes(max)
        ));
    }
    if c.stride == 0 {
        return bad("stride 0: use at least 1 record".into());
    }
    if records.is_empty() {
        return bad(format!(
            "no record size from min_record {} to max_record {} fits in size {}: raise size \
             or lower min_record",
            format_bytes(min),
            format_bytes(max),
            format_bytes(size)
        ));
    }
    Ok(())
}

/// O_DIRECT moves whole logical blocks: every record (a multiple of the smallest) must be one.
fn check_alignment(dir: &Path, min_record: u64) -> Result<(), WorkloadError> {
    let a = dio_alignment(dir);
    if !min_record.is_multiple_of(a.offset as u64) {
        return Err(WorkloadError::Failed(format!(
            "iozone: O_DIRECT on {} moves blocks of {} B, so min_record {} B cannot be used: \
             raise min_record to a multiple of {}",
            dir.display(),
            a.offset,
            min_record,
            a.offset
        )));
    }
    Ok(())
}

/// Everything the tests of one run share.
struct Setup {
    dir: PathBuf,
    /// The test file (iozone -f).
    file: PathBuf,
    /// The record-rewrite test's own file (iozone's `dummyfile`).
    rec_file: PathBuf,
    size: u64,
    direct: bool,
    engine: EngineSpec,
    stride: u64,
    stdio_buffer: u64,
    /// Check every engine read against what the writes put there (tests only: it costs a
    /// comparison per block).
    verify: bool,
}

impl Setup {
    fn new(scratch: &Scratch, c: &Config, direct: bool) -> Result<Setup, WorkloadError> {
        // Resolved as every engine-driven workload resolves it (a bad value is refused, never
        // replaced by sync).
        let engine = c.io.engine("iozone", Default::default())?;
        Ok(Setup {
            dir: scratch.path().to_path_buf(),
            file: scratch.join("iozone.tmp"),
            rec_file: scratch.join("iozone.DUMMY"),
            size: c.size,
            direct,
            engine,
            stride: c.stride,
            stdio_buffer: c.stdio_buffer,
            verify: false,
        })
    }

    /// Quiesce once, run the 13 tests at `rec`, record what finished, remove the files.
    fn run_record(&self, ctx: &mut WorkloadCtx<'_>, rec: u64) -> Result<(), WorkloadError> {
        let mut done = Vec::with_capacity(TESTS.len());
        let res = ctx.phase(&[self.dir.as_path()], || self.run_tests(rec, &mut done));
        // Tests that finished before a failure keep their numbers.
        for (name, timing, value) in &done {
            ctx.record(&metric(name, rec), timing, *value);
        }
        self.remove_files();
        res.map(|_| ())
    }

    /// The 13 tests back to back, each pushed to `done` as (name, timing, KB/s).
    fn run_tests(
        &self,
        rec: u64,
        done: &mut Vec<(&'static str, Timing, f64)>,
    ) -> Result<(), WorkloadError> {
        let mut data = vec![0u8; rec as usize];
        Fill::Random.generate(SEED, &mut data);
        for t in &TESTS {
            if crate::interrupt::requested() {
                return Err(WorkloadError::Interrupted);
            }
            let (timing, value) = self.run_test(t.how, rec, &mut data)?;
            done.push((t.name, timing, value));
        }
        Ok(())
    }

    fn run_test(
        &self,
        how: How,
        rec: u64,
        data: &mut [u8],
    ) -> Result<(Timing, f64), WorkloadError> {
        let (timing, bytes) = match how {
            How::Engine { .. } | How::RecordRewrite => return self.engine_test(how, rec),
            How::Fwrite { truncate } => {
                let r = self
                    .stream(rec)
                    .write(truncate, data)
                    .map_err(|e| self.full(e))?;
                self.fsync(&self.file)?;
                r
            }
            How::Fread => self.stream(rec).read(data)?,
        };
        Ok((timing, kb_per_s(bytes, timing.elapsed_s)))
    }

    /// The stdio stream over the test file at `rec`.
    fn stream(&self, rec: u64) -> Stream<'_> {
        Stream {
            path: &self.file,
            records: self.size / rec,
            record: rec as usize,
            buffer: match self.stdio_buffer {
                0 => rec as usize,
                b => b as usize,
            },
        }
    }

    /// One engine job; the value is timed by the engine's loop, the CPU by a stopwatch.
    fn engine_test(&self, how: How, rec: u64) -> Result<(Timing, f64), WorkloadError> {
        let spec = self.job(how, rec);
        let sw = Stopwatch::start();
        let r = run_job(&spec).map_err(|e| self.engine_error(e))?;
        let timing = sw.stop();
        if spec.write_fraction > 0.0 {
            self.fsync(&spec.path)?;
        }
        Ok((timing, kb_per_s(r.bytes, r.elapsed_s)))
    }

    /// The engine job of an engine test at `rec`.
    fn job(&self, how: How, rec: u64) -> JobSpec {
        let n = self.size / rec;
        let (path, file_size, access, write, mode) = match how {
            How::Engine {
                access,
                write,
                mode,
            } => (&self.file, n * rec, access, write, mode),
            How::RecordRewrite => (
                &self.rec_file,
                rec,
                Access::Sequential,
                true,
                FileMode::Truncate,
            ),
            How::Fwrite { .. } | How::Fread => unreachable!("stdio tests use no engine"),
        };
        let mut spec = JobSpec::new(path, file_size, rec as u32);
        spec.pattern = match access {
            Access::Sequential => Pattern::Sequential,
            Access::Random => Pattern::Random,
            Access::Backward => Pattern::Backward,
            Access::Stride => Pattern::Stride(self.stride),
        };
        spec.write_fraction = if write { 1.0 } else { 0.0 };
        spec.direct = self.direct;
        spec.engine = self.engine;
        // One operation per record of the file: iozone's numrecs, whatever the pattern.
        spec.stop = Stop::Ops(n);
        spec.fill = Fill::Random;
        spec.file_mode = mode;
        spec.verify = self.verify && !write;
        spec.seed = SEED;
        spec
    }

    /// Make written data durable outside the timed loop, as iozone does when it closes.
    fn fsync(&self, path: &Path) -> Result<(), WorkloadError> {
        let f = std::fs::File::open(path).ctx(|| format!("open {}", path.display()))?;
        f.sync_all()
            .ctx(|| format!("fsync {}", path.display()))
            .map_err(|e| self.full(e))
    }

    fn engine_error(&self, e: EngineError) -> WorkloadError {
        match e {
            // A regular file takes a short write only when the filesystem ran out of room.
            EngineError::Short { kind: "write", .. } => self.full_because(&e.to_string()),
            other => self.full(other.into()),
        }
    }

    /// `e`, or "target full after N bytes" when `e` is ENOSPC or EDQUOT.
    fn full(&self, e: WorkloadError) -> WorkloadError {
        match &e {
            WorkloadError::Io { source, .. } if crate::error::is_full(source) => {
                self.full_because(&e.to_string())
            }
            _ => e,
        }
    }

    fn full_because(&self, why: &str) -> WorkloadError {
        crate::error::target_full(
            bytes_in(&self.dir),
            "",
            why,
            "lower iozone.size or use a bigger target",
        )
    }

    fn remove_files(&self) {
        for f in [&self.file, &self.rec_file] {
            // Missing is fine (a failure before the file was made); the guard retries the rest.
            let _ = std::fs::remove_file(f);
        }
    }
}

/// Bytes held by the regular files directly in `dir` (what the workload wrote).
fn bytes_in(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;

//! Block IO shared by `dd`, `randomio` and `bonnie`: their common parameters (engine, queue
//! depth, fill, O_DIRECT and its fallback), one file driven through the engine's one
//! [`Driver`] in chunks (sequential passes with the queue kept full, single operations for
//! rewrite and seeks, each a [`Transfer`]: no submit/reap loop of its own), and
//! the "target full" failure (ENOSPC or EDQUOT, as [`crate::error::is_full`] says).
//!
//! Invariants:
//! - O_DIRECT is never dropped silently: when the directory refuses it the cell fails with the
//!   probe's reason, unless `buffered_fallback=1`, and then the `direct_used` metric says 0.
//! - Every chunk completes in full or the pass fails: a negative result is the kernel's errno,
//!   a short or ENOSPC write is "target full after N bytes", a short read names the offset.
//! - The interruption flag is polled by the driver, as everywhere (every 256 operations, counted
//!   across passes); operations still in flight are reaped before an error returns.
//! - Sizes are whole chunks: callers round down (and fail when not even one chunk fits).

use crate::engine::{
    dio_alignment, BufferPool, Completion, Driver, Engine, EngineError, EngineSpec, Fill, OpKind,
    Transfer, UringOptions,
};
use crate::error::{is_full, IoContext, WorkloadError};
use crate::measure::{per_s, Timing};
use crate::model::MetricSpec;

use std::fs::OpenOptions;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::WorkloadCtx;

// The parameter builders are `specs`'s, re-exported so the workloads reach them where they
// always did.
pub(crate) use super::specs::{
    bytes, choice, count, file_size, flag, percent, request_size, MAX_FILES,
};

// The shared IO group is declared in `io`; these are its names as the workloads know them.
pub(crate) use super::io::{FillKind, IoDefaults, IoGroup};

/// How a workload moves its bytes, resolved from its parameters and its directory.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IoSettings {
    /// Engine and queue depth.
    pub engine: EngineSpec,
    /// Content of written blocks.
    pub fill: Fill,
    /// O_DIRECT in effect.
    pub direct: bool,
    /// O_DIRECT was asked for, refused, and the workload runs buffered instead.
    pub fell_back: bool,
}

impl IoSettings {
    /// Resolve the group's engine, depth, fill and O_DIRECT, probing O_DIRECT in `dir` when
    /// it is asked for (the one decision, [`IoGroup::decide_direct`]).
    pub fn resolve(
        workload: &str,
        group: &IoGroup,
        dir: &Path,
    ) -> Result<IoSettings, WorkloadError> {
        let engine = group.engine(workload, UringOptions::default())?;
        let fill = group.fill(workload)?;
        let decided = group.decide_direct(workload, dir)?;
        Ok(IoSettings {
            engine,
            fill,
            direct: decided.on(),
            fell_back: decided == super::io::Direct::FellBack,
        })
    }

    /// The same settings without O_DIRECT (phases that lay files out through the cache).
    pub fn buffered(&self) -> IoSettings {
        IoSettings {
            direct: false,
            ..self.clone()
        }
    }
}

/// The `direct_used` metric, declared when a fallback to buffered IO is allowed (the only case
/// in which it can be 0).
pub(crate) fn direct_metric(group: &IoGroup) -> Option<MetricSpec> {
    group.may_fall_back().then(|| {
        MetricSpec::rate(
            "direct_used",
            "flag",
            "1 if O_DIRECT was in effect, 0 if the target refused it and the workload ran \
             buffered (buffered_fallback=1)",
        )
    })
}

/// Record `direct_used` if [`direct_metric`] declared it.
pub(crate) fn record_direct(ctx: &mut WorkloadCtx<'_>, group: &IoGroup, io: &IoSettings) {
    if direct_metric(group).is_some() {
        let none = Timing {
            elapsed_s: 0.0,
            user_s: 0.0,
            sys_s: 0.0,
            io: None,
        };
        ctx.record("direct_used", &none, if io.fell_back { 0.0 } else { 1.0 });
    }
}

/// `bytes` over `secs` in MB/s (10^6 bytes per second, as fio's MB/s).
pub(crate) fn mb_per_s(bytes: u64, secs: f64) -> f64 {
    per_s(bytes as f64, secs) / 1e6
}

/// The failure of a workload that filled its target after writing `written` bytes.
pub(crate) fn target_full(path: &Path, written: u64, cause: &str) -> WorkloadError {
    crate::error::target_full(
        written,
        &format!(" written to {}", path.display()),
        cause,
        "free space on the target or lower the workload's size",
    )
}

/// Map an engine job's error, turning ENOSPC and short writes into [`target_full`] with the
/// bytes the file holds (the job itself does not count them).
pub(crate) fn job_error(e: EngineError, path: &Path) -> WorkloadError {
    let held = || {
        std::fs::metadata(path)
            .map(|m| m.blocks() * 512)
            .unwrap_or(0)
    };
    match &e {
        EngineError::Io { source, .. } if is_full(source) => {
            target_full(path, held(), &e.to_string())
        }
        EngineError::Short { kind: "write", .. } => target_full(path, held(), &e.to_string()),
        _ => e.into(),
    }
}

/// How [`BlockFile::open`] opens its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Open {
    /// Create or truncate to zero (a new file written from the start).
    Truncate,
    /// The file exists; read it, or overwrite its blocks in place.
    Existing,
    /// Create it if missing, keep what is there (a file several ranks write into).
    Create,
}

/// One file driven through the engine's [`Driver`] in chunks of one size.
pub(crate) struct BlockFile {
    driver: Driver<Box<dyn Engine>>,
    file: u32,
    path: PathBuf,
    chunk: u32,
    stamps: bool,
    slot: u16,
}

impl BlockFile {
    /// Open `path` read-write as `how` says, with `io`'s engine, O_DIRECT and fill. Fails with
    /// the fix when O_DIRECT needs a larger alignment than `chunk`.
    pub fn open(
        path: &Path,
        how: Open,
        io: &IoSettings,
        chunk: u32,
        seed: u64,
    ) -> Result<BlockFile, WorkloadError> {
        let mut base = vec![0u8; chunk as usize];
        io.fill.generate(seed, &mut base);
        BlockFile::open_holding(path, how, io, &base, io.fill.stamps())
    }

    /// As [`BlockFile::open`], every write carrying `base` (its length is the chunk), stamped
    /// with its offset when `stamps` is set.
    pub fn open_holding(
        path: &Path,
        how: Open,
        io: &IoSettings,
        base: &[u8],
        stamps: bool,
    ) -> Result<BlockFile, WorkloadError> {
        let chunk = u32::try_from(base.len()).expect("a chunk fits in u32");
        let mut o = OpenOptions::new();
        o.read(true).write(true);
        match how {
            Open::Truncate => o.create(true).truncate(true),
            Open::Create => o.create(true).truncate(false),
            Open::Existing => &mut o,
        };
        if io.direct {
            o.custom_flags(libc::O_DIRECT);
        }
        let how_s = if io.direct { " with O_DIRECT" } else { "" };
        let file = o
            .open(path)
            .ctx(|| format!("open{how_s} {}", path.display()))?;
        let mem_align = if io.direct {
            require_dio_multiple(path, u64::from(chunk), "chunk")?
        } else {
            4096
        };
        let depth = io.engine.depth() as usize;
        let mut pool = BufferPool::new(depth, chunk as usize, mem_align);
        pool.fill_all(base);
        let mut engine = io.engine.build(pool)?;
        let id = engine.add_file(file)?;
        Ok(BlockFile {
            driver: Driver::new(engine, 1),
            file: id,
            path: path.to_path_buf(),
            chunk,
            stamps,
            slot: 0,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes per operation.
    pub fn chunk(&self) -> u32 {
        self.chunk
    }

    /// One sequential pass of `kind` (read or write) over `bytes` from offset 0, keeping the
    /// engine's queue full. Returns the bytes moved (= `bytes`, a multiple of the chunk).
    pub fn stream(&mut self, kind: OpKind, bytes: u64) -> Result<u64, WorkloadError> {
        self.pass(kind, 0, bytes, 0, self.stamps)
    }

    /// A sequential pass of `kind` over `bytes` from `offset` (a piece of a longer stream that
    /// a deadline may cut short). Returns the bytes moved.
    pub fn stream_from(
        &mut self,
        kind: OpKind,
        offset: u64,
        bytes: u64,
    ) -> Result<u64, WorkloadError> {
        self.pass(kind, offset, bytes, offset, self.stamps)
    }

    /// bonnie's rewrite: for every chunk, read it, dirty one word, write it back in place.
    /// Returns the bytes of file covered.
    pub fn rewrite(&mut self, bytes: u64) -> Result<u64, WorkloadError> {
        let chunk = u64::from(self.chunk);
        let mut off = 0;
        while off < bytes {
            self.read_at(off)?;
            self.dirty();
            self.write_at(off, off)?;
            off += chunk;
        }
        Ok(off)
    }

    /// Read one chunk at `offset` and wait for it.
    pub fn read_at(&mut self, offset: u64) -> Result<(), WorkloadError> {
        let len = u64::from(self.chunk);
        self.pass(OpKind::Read, offset, len, 0, false).map(|_| ())
    }

    /// Write the chunk last read (or slot 0), unstamped, at `offset` and wait for it;
    /// `written` (bytes written so far) only feeds the "target full" message.
    pub fn write_at(&mut self, offset: u64, written: u64) -> Result<(), WorkloadError> {
        let len = u64::from(self.chunk);
        self.pass(OpKind::Write, offset, len, written, false)
            .map(|_| ())
    }

    /// Change one word of the chunk last read, as bonnie's `dirty_buffer` does before writing
    /// a block back (the driver's LIFO free list gives the next single write the same slot).
    pub fn dirty(&mut self) {
        let b = self.last_buffer();
        if b.len() >= 4 {
            let w = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]).wrapping_add(1);
            b[..4].copy_from_slice(&w.to_ne_bytes());
        }
    }

    /// The buffer of the chunk last read (or slot 0): what a read left there, for a check of
    /// it, or to change before the next read into it (with one slot, every read uses it).
    pub fn last_buffer(&mut self) -> &mut [u8] {
        let slot = usize::from(self.slot);
        self.driver.engine_mut().buffers_mut().slot_mut(slot)
    }

    /// fsync the file and wait for it.
    pub fn fsync(&mut self) -> Result<(), WorkloadError> {
        self.pass(OpKind::Fsync, 0, 0, 0, false).map(|_| ())
    }

    /// One [`Transfer`] of `len` bytes of `kind` at `offset` through the driver; `written`
    /// (bytes written before it) feeds the "target full" message. Returns the bytes moved.
    fn pass(
        &mut self,
        kind: OpKind,
        offset: u64,
        len: u64,
        written: u64,
        stamped: bool,
    ) -> Result<u64, WorkloadError> {
        let path = &self.path;
        let mut moved = 0;
        let check = |c: &Completion| {
            moved += check(path, c, written + moved)?;
            Ok::<(), WorkloadError>(())
        };
        let mut t = Transfer::new(kind, self.file, offset, len, self.chunk, check).stamped(stamped);
        let res = self.driver.run(&mut t);
        self.slot = t.last_slot();
        res?;
        Ok(moved)
    }
}

/// Bytes moved by `c` on `path`, or the failure it reports; `written` feeds "target full".
fn check(path: &Path, c: &Completion, written: u64) -> Result<u64, WorkloadError> {
    let op = c.op;
    let want = if op.kind == OpKind::Fsync { 0 } else { op.len };
    if c.result >= 0 && c.result as u32 == want {
        return Ok(u64::from(want));
    }
    let what = format!(
        "{} of {} bytes at offset {} of {}",
        op.kind.name(),
        op.len,
        op.offset,
        path.display()
    );
    if c.result < 0 {
        let err = std::io::Error::from_raw_os_error(-c.result);
        if is_full(&err) {
            return Err(target_full(path, written, &format!("{what}: {err}")));
        }
        return Err(WorkloadError::io(what, err));
    }
    if op.kind == OpKind::Write {
        let cause = format!("{what}: only {} bytes written", c.result);
        return Err(target_full(path, written + c.result as u64, &cause));
    }
    Err(WorkloadError::Failed(format!(
        "short {what}: got {} bytes; the file is shorter than the workload expects",
        c.result
    )))
}

/// Check that `len` (the parameter `what`) is a multiple of O_DIRECT's offset alignment on
/// `path`; returns the memory alignment buffers need.
pub(crate) fn require_dio_multiple(
    path: &Path,
    len: u64,
    what: &str,
) -> Result<usize, WorkloadError> {
    let a = dio_alignment(path);
    if len == 0 || !len.is_multiple_of(a.offset as u64) {
        return Err(WorkloadError::Failed(format!(
            "O_DIRECT on {} needs transfers that are multiples of {} B (the device's logical \
             block size{}), but {what} is {len} B: choose a multiple of {} B, or direct=0",
            path.display(),
            a.offset,
            if a.reported {
                ", reported by statx"
            } else {
                ", assumed"
            },
            a.offset
        )));
    }
    Ok(a.mem)
}

/// Round `size` down to whole `chunk`s; fails when not even one fits.
pub(crate) fn whole_chunks(
    workload: &str,
    size: u64,
    chunk: u64,
    chunk_name: &str,
) -> Result<u64, WorkloadError> {
    if chunk == 0 || size < chunk {
        return Err(WorkloadError::Failed(format!(
            "{workload}: size {size} B is smaller than one {chunk_name} of {chunk} B: raise \
             {workload}.size or lower {workload}.{chunk_name}"
        )));
    }
    if chunk > u64::from(u32::MAX) {
        return Err(WorkloadError::Failed(format!(
            "{workload}.{chunk_name}={chunk} B: use less than 4 GiB"
        )));
    }
    Ok(size - size % chunk)
}

/// Helpers for the tests of the workloads built on this module.
#[cfg(test)]
pub(crate) mod testutil {
    use crate::model::Sample;
    use crate::{Method, WorkloadCtx};
    use std::collections::BTreeMap;
    use std::path::Path;

    /// The quick defaults of `S` with `defaults`, then `over`, laid over them.
    pub fn settings_of<S: crate::settings::Settings>(
        defaults: &[(&str, u64)],
        over: &[(&str, u64)],
    ) -> S {
        let all: Vec<(&str, u64)> = defaults.iter().chain(over).copied().collect();
        crate::settings::with_pairs(&all)
    }

    /// Run `w` natively once in a fresh tempdir with settings `s`; the error is the
    /// workload's message.
    pub fn run_typed<W: crate::TypedWorkload>(
        w: &W,
        s: &W::Settings,
    ) -> Result<(Vec<(String, Sample)>, tempfile::TempDir), String> {
        let tmp = tempfile::tempdir().unwrap();
        let mut samples = Vec::new();
        let mut on = |m: &str, s: Sample| samples.push((m.to_string(), s));
        let mut ctx = WorkloadCtx::new(
            tmp.path(),
            0,
            Method::Native,
            std::time::Duration::ZERO,
            &mut on,
        );
        let res = w.run(&mut ctx, s);
        drop(ctx);
        assert_clean(tmp.path());
        res.map_err(|e| e.to_string())?;
        let names: Vec<String> = samples.iter().map(|s| s.0.clone()).collect();
        let want: Vec<String> = w.metrics(s).into_iter().map(|m| m.name).collect();
        assert_eq!(names, want, "every declared metric once, in order");
        Ok((samples, tmp))
    }

    /// Metric → value.
    pub fn values(samples: &[(String, Sample)]) -> BTreeMap<String, f64> {
        samples.iter().map(|(m, s)| (m.clone(), s.value)).collect()
    }

    /// Nothing is left in `dir` (the scratch directory is gone).
    pub fn assert_clean(dir: &Path) {
        let left: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    /// Whether io_uring works here; otherwise skip (or fail in CI).
    pub fn uring_ok() -> bool {
        match crate::engine::probe_uring() {
            Ok(()) => true,
            Err(e) => {
                if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
                    panic!("io_uring is required (FSBATTERY_REQUIRE_PRIVILEGED=1): {e}");
                }
                eprintln!("skipping io_uring case: {e}");
                false
            }
        }
    }

    /// Whether O_DIRECT works in the temp directory; otherwise skip (or fail in CI).
    pub fn direct_ok() -> bool {
        let tmp = tempfile::tempdir().unwrap();
        match crate::engine::check_direct(tmp.path()) {
            crate::engine::DirectIo::Unsupported(why) => {
                if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
                    panic!("O_DIRECT in the temp dir is required: {why}");
                }
                eprintln!("skipping O_DIRECT case: {why}");
                false
            }
            _ => true,
        }
    }
}

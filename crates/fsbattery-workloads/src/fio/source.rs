//! One clone of a fio job as an [`OpSource`] for the engine's [`Driver`]: which file (the
//! `file_service_type`), which direction (`rwmixread`), how many bytes (`bs`, `bsrange`,
//! `bssplit`), where (sequential, or random by the distribution), the syncs fio owes after
//! every N writes, rate limits and think time; then its completions into per-kind latency
//! histograms (read, write, sync).
//!
//! Invariants (fio 3.33's `io_u.c` and `backend.c`, which the agreement test holds it to):
//! - a sync comes before an operation whenever the writes so far are a nonzero multiple of
//!   `fsync` (`fdatasync`) and the operation before was not a sync, and only when another
//!   operation follows (fio issues 1023 syncs for 1024 writes with fsync=1). A read after
//!   the Nth write is preceded by one too: measured from fio 3.33, randrw with fsync=1 issued
//!   237 syncs for 125 reads and 115 writes, with fsync=2 258 for 242 + 269, with fsync=4
//!   231 for 454 + 488 (randwrite fsync=2: 146 for 292);
//! - the syncs of end_fsync and fsync_on_close count in the clone's time but not in its
//!   sync latency (fio 3.33's JSON: `sync.lat_ns.N` 0 for a job with end_fsync only);
//! - nothing is recorded before the ramp ends; the clone's time runs from the ramp's end to
//!   its last completion, so bandwidth and IOPS are fio's (bytes, operations over runtime);
//! - a sleep for a rate limit or think time moves the next operation's issue stamp past it,
//!   so it never counts as latency;
//! - offsets are whole multiples of the smallest block size and every operation stays inside
//!   its file (a last block is shortened to the file's end, as fio does at a file's tail);
//! - with `invalidate=1` and buffered I/O, a new pass over the files (time_based, or another
//!   of `loops`) first evicts them from the page cache, inside the clock, as fio's
//!   `loop_cache_invalidate` (io_u.c) and its per-loop reopen (ioengines.c) do: without it a
//!   time-based random read job read the cache from its second pass on (read clat p50
//!   2.5 µs against fio's 17 µs, IOPS 1.12-1.57 x fio's, 2026-11-28).

use super::options::{Bs, FileService, JobOpts};
use super::rand::Picker;
use crate::engine::{
    BufferPool, Completion, EngineError, Fill, LatencyHistogram, Op, OpKind, OpSource, XorShift,
};
use std::path::PathBuf;
use std::time::Duration;

/// One file of a clone, as the source tracks it.
#[derive(Debug)]
pub struct FileState {
    /// Engine file id while open.
    pub id: Option<u32>,
    /// Its size in bytes.
    pub size: u64,
    /// Next sequential offset.
    pos: u64,
    /// Bytes issued to it in this pass.
    done: u64,
    /// Random draws in this pass (the random map's position).
    draws: u64,
    /// Block-size units in it (random offsets are multiples of the smallest block size).
    units: u64,
    /// Its random picker.
    picker: Picker,
}

impl FileState {
    fn finished(&self) -> bool {
        self.done >= self.size
    }
}

/// What one clone measured.
#[derive(Debug, Default)]
pub struct CloneResult {
    /// Latency per kind: read, write, sync.
    pub hist: [LatencyHistogram; 3],
    /// Operations per kind.
    pub ops: [u64; 3],
    /// Bytes per kind.
    pub bytes: [u64; 3],
    /// From the ramp's end to the last completion, ns.
    pub elapsed_ns: u64,
}

/// After the data: syncs of these files (end_fsync, fsync_on_close).
#[derive(Debug, Default)]
struct Tail {
    ids: Vec<u32>,
}

/// One clone's operations.
pub struct FioSource<'a> {
    o: &'a JobOpts,
    /// Every file of the clone.
    pub files: Vec<FileState>,
    /// Indices into `files` of the open ones, in service order.
    pub open: Vec<usize>,
    cur: usize,
    on_cur: u32,
    rng: XorShift,
    align: u64,
    budget: u64,
    issued: u64,
    deadline_ns: u64,
    writes: u64,
    last_sync: bool,
    dir_bytes: [u64; 2],
    dir_ops: [u64; 2],
    since_think: u32,
    fill: Fill,
    refills: u64,
    tail: Option<Tail>,
    /// Set when the open files are done for this pass and others wait (openfiles).
    pub rotate: bool,
    /// The files to evict at each new pass (`invalidate=1`, buffered); empty otherwise.
    evict: Vec<PathBuf>,
    /// What it measured.
    pub res: CloneResult,
}

impl<'a> FioSource<'a> {
    /// A clone over `files` (path sizes), seeded by `seed`.
    pub fn new(o: &'a JobOpts, sizes: &[u64], io_size: u64, seed: u64) -> Self {
        let min_bs = |d: usize| o.bs[d].bounds().0;
        let align = match (o.read, o.write) {
            (true, true) => min_bs(0).min(min_bs(1)),
            (true, false) => min_bs(0),
            _ => min_bs(1),
        }
        .max(1);
        let seed = if o.randrepeat {
            o.randseed ^ seed
        } else {
            seed ^ now_seed()
        };
        let map = !o.norandommap;
        let files = sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                let units = (size / align).max(1);
                FileState {
                    id: None,
                    size,
                    pos: 0,
                    done: 0,
                    draws: 0,
                    units,
                    picker: Picker::new(o.distribution, units, map, seed ^ i as u64),
                }
            })
            .collect();
        let budget = if o.time_based {
            u64::MAX
        } else {
            io_size.saturating_mul(u64::from(o.loops))
        };
        let deadline_ns = match o.runtime_ns {
            Some(r) => o.ramp_ns.saturating_add(r),
            None => u64::MAX,
        };
        let fill = if o.zero_buffers {
            Fill::Zeros
        } else if let Some(c) = o.compress_pct {
            Fill::Compressible(f64::from(100 - c) / 100.0)
        } else {
            Fill::Random
        };
        FioSource {
            o,
            files,
            open: Vec::new(),
            cur: 0,
            on_cur: 0,
            rng: XorShift::new(seed),
            align,
            budget,
            issued: 0,
            deadline_ns,
            writes: 0,
            last_sync: false,
            dir_bytes: [0; 2],
            dir_ops: [0; 2],
            since_think: 0,
            fill,
            refills: 0,
            tail: None,
            rotate: false,
            evict: Vec::new(),
            res: CloneResult::default(),
        }
    }

    /// Evict `paths` (the clone's files) from the page cache at every new pass, when the job
    /// invalidates (its default) and does buffered I/O, as fio does.
    pub fn invalidating(mut self, paths: &[PathBuf]) -> Self {
        if self.o.invalidate && !self.o.direct {
            self.evict = paths.to_vec();
        }
        self
    }

    /// The fill its buffers start with.
    pub fn fill(&self) -> Fill {
        self.fill
    }

    /// Next, sync these engine files (one `fsync` each) and nothing else.
    pub fn sync_files(&mut self, ids: Vec<u32>) {
        self.tail = Some(Tail { ids });
    }

    /// Back to data after a sync pass.
    pub fn end_tail(&mut self) {
        self.tail = None;
    }

    /// Whether the data part is over (budget or time used up).
    pub fn exhausted(&self, now: u64) -> bool {
        self.issued >= self.budget || now >= self.deadline_ns
    }

    /// The open file to use next, per `file_service_type`; `None` when every open file is
    /// done for this pass (then a new pass starts, or `rotate` asks for the waiting files).
    fn pick_file(&mut self) -> Option<usize> {
        if self.open.is_empty() {
            return None;
        }
        let n = self.open.len();
        let (stay, random) = match self.o.file_service {
            FileService::RoundRobin(k) => (self.on_cur < k, false),
            FileService::Sequential => (true, false),
            FileService::Random(k) => (self.on_cur < k, true),
        };
        if stay && !self.files[self.open[self.cur % n]].finished() {
            self.on_cur += 1;
            return Some(self.open[self.cur % n]);
        }
        let start = if random {
            self.rng.below(n as u64) as usize
        } else {
            self.cur + 1
        };
        for k in 0..n {
            let c = (start + k) % n;
            if !self.files[self.open[c]].finished() {
                self.cur = c;
                self.on_cur = 1;
                return Some(self.open[c]);
            }
        }
        None
    }

    /// Start a new pass over every file (time based, or more loops to go).
    fn new_pass(&mut self) {
        for f in &mut self.files {
            (f.pos, f.done, f.draws) = (0, 0, 0);
        }
        for p in &self.evict {
            crate::cache::evict_file(p);
        }
    }

    /// Bytes of the next operation in direction `d`.
    fn block(&mut self, d: usize) -> u64 {
        match &self.o.bs[d] {
            Bs::Fixed(b) => *b,
            Bs::Range(a, b) => a * (1 + self.rng.below(b / a)),
            Bs::Split(v) => {
                let mut p = self.rng.below(100) as u32;
                for (bs, pct) in v {
                    if p < *pct {
                        return *bs;
                    }
                    p -= pct;
                }
                v.last().map_or(4096, |e| e.0)
            }
        }
    }

    /// Offset and length of the next operation of `len` bytes on file `fi`.
    fn place(&mut self, fi: usize, len: u64) -> (u64, u64) {
        let align = self.align;
        let f = &mut self.files[fi];
        let offset = if self.o.random {
            let i = f.picker.pick(f.draws, f.units, &mut self.rng);
            f.draws += 1;
            let off = i * align;
            if off + len > f.size {
                f.size.saturating_sub(len) / align * align
            } else {
                off
            }
        } else {
            let off = f.pos;
            f.pos += len;
            off
        };
        let len = len.min(f.size - offset.min(f.size)).max(1);
        f.done += len;
        (offset, len)
    }

    /// Sleep as the rate limits and think time ask before an operation in direction `d` of
    /// `len` bytes at `now`.
    fn throttle(&mut self, d: usize, len: u64, now: u64) {
        let o = self.o;
        let mut wait = 0u64;
        if o.rate[d] > 0 {
            let due =
                (u128::from(self.dir_bytes[d]) * 1_000_000_000 / u128::from(o.rate[d])) as u64;
            wait = wait.max(due.saturating_sub(now));
        }
        if o.rate_iops[d] > 0 {
            let due =
                (u128::from(self.dir_ops[d]) * 1_000_000_000 / u128::from(o.rate_iops[d])) as u64;
            wait = wait.max(due.saturating_sub(now));
        }
        self.dir_bytes[d] += len;
        self.dir_ops[d] += 1;
        if o.thinktime_ns > 0 {
            self.since_think += 1;
            if self.since_think > o.thinktime_blocks {
                self.since_think = 1;
                wait = wait.max(o.thinktime_ns);
            }
        }
        if wait > 0 {
            std::thread::sleep(Duration::from_nanos(wait));
        }
    }

    /// The sync due before the next operation (see the module's invariants for fio's
    /// cadence); it goes to the file the file service picked for that turn, as fio's does.
    fn due_sync(&self) -> Option<OpKind> {
        let (o, w) = (self.o, self.writes);
        if self.last_sync || w == 0 {
            return None;
        }
        if o.fsync > 0 && w.is_multiple_of(o.fsync) {
            Some(OpKind::Fsync)
        } else if o.fdatasync > 0 && w.is_multiple_of(o.fdatasync) {
            Some(OpKind::Fdatasync)
        } else {
            None
        }
    }

    fn sync_op(kind: OpKind, file: u32, slot: u16, now: u64) -> Op {
        Op {
            kind,
            offset: 0,
            len: 0,
            slot,
            file,
            issued_ns: now,
        }
    }
}

/// A seed from the clock, for `randrepeat=0`.
fn now_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

impl OpSource for FioSource<'_> {
    type Error = EngineError;

    fn next(&mut self, slot: u16, bufs: &mut BufferPool, now: u64) -> Option<Op> {
        if let Some(t) = &mut self.tail {
            return t
                .ids
                .pop()
                .map(|id| Self::sync_op(OpKind::Fsync, id, slot, now));
        }
        if self.exhausted(now) || self.rotate {
            return None;
        }
        // As fio: the file comes first (a sync takes a turn of the file service too), then
        // whether the operation is a sync or which data direction.
        let fi = match self.pick_file() {
            Some(f) => f,
            None if self.files.iter().all(FileState::finished) => {
                self.new_pass();
                self.pick_file()?
            }
            None => {
                // Files wait outside the window: the body closes the finished ones.
                self.rotate = true;
                return None;
            }
        };
        let id = self.files[fi].id?;
        if let Some(kind) = self.due_sync() {
            self.last_sync = true;
            return Some(Self::sync_op(kind, id, slot, now));
        }
        self.last_sync = false;
        let o = self.o;
        let d = match (o.read, o.write) {
            (true, true) => usize::from(self.rng.below(100) >= u64::from(o.rwmixread)),
            (true, false) => 0,
            _ => 1,
        };
        let want = self.block(d);
        let (offset, len) = self.place(fi, want);
        self.issued += len;
        // The sleep ends before the driver stamps the issue time: not in the latency.
        self.throttle(d, len, now);
        let kind = if d == 0 { OpKind::Read } else { OpKind::Write };
        if kind == OpKind::Write {
            self.writes += 1;
            if o.refill_buffers {
                self.refills += 1;
                let buf = bufs.slot_mut(usize::from(slot));
                self.fill.generate(self.refills ^ offset, buf);
            }
        }
        Some(Op {
            kind,
            offset,
            len: len as u32,
            slot,
            file: id,
            issued_ns: now,
        })
    }

    fn complete(
        &mut self,
        c: &Completion,
        now: u64,
        _bufs: &BufferPool,
    ) -> Result<(), EngineError> {
        let op = c.op;
        let want = if op.kind.is_sync() { 0 } else { op.len as i32 };
        if c.result != want {
            return Err(failure(c));
        }
        if now < self.o.ramp_ns || op.issued_ns < self.o.ramp_ns {
            return Ok(());
        }
        self.res.elapsed_ns = now - self.o.ramp_ns;
        if self.tail.is_some() {
            // end_fsync and fsync_on_close take time, not a place in the sync latency (fio
            // runs them in its TD_FSYNCING state, outside its `sync:` statistics).
            return Ok(());
        }
        let k = op.kind.index();
        self.res.hist[k].record(now.saturating_sub(op.issued_ns));
        self.res.ops[k] += 1;
        self.res.bytes[k] += c.result as u64;
        Ok(())
    }
}

#[cold]
fn failure(c: &Completion) -> EngineError {
    let what = format!(
        "fio job {} of {} bytes at offset {}",
        c.op.kind.name(),
        c.op.len,
        c.op.offset
    );
    if c.result < 0 {
        EngineError::Invalid(format!(
            "{what}: {}",
            std::io::Error::from_raw_os_error(-c.result)
        ))
    } else {
        EngineError::Invalid(format!("{what}: moved only {} bytes", c.result))
    }
}

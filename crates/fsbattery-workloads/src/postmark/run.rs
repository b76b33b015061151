//! One PostMark 1.53 run (`cli_run` with buffered IO, its default), system call for system
//! call as glibc's stdio issues them for PostMark's fopen/fwrite/fread/fclose:
//!
//! - create: `openat(dir, "sD/N", O_WRONLY|O_CREAT|O_TRUNC, 0666)` (fopen "w"), `fstat` (stdio
//!   sizes its buffer by st_blksize, at most BUFSIZ, on the first fwrite), `write`s of a buffer and one
//!   of the rest (PostMark's 512-byte fwrites gathered in that buffer), `close`;
//! - read: `openat(O_RDONLY)`, `fstat`, `read`s of a buffer until the file's size is in (the
//!   last one comes back short), `close`;
//! - append: `openat(O_WRONLY|O_CREAT|O_APPEND, 0666)`, `lseek(0, SEEK_END)` (fopen "a"),
//!   `fstat`, `write`s as for a create, `close`;
//! - delete: `unlinkat(dir, "sD/N")` (remove).
//!
//! Names are relative, as PostMark's are to its working directory: every call starts its
//! lookup at the run's directory (a directory descriptor, so the process's cwd is left
//! alone), never at `/`. The data are PostMark's: a source of 2 × SIZE_HIGH printable bytes
//! drawn first, every write copying from its start. The table of 2 × FILES slots, the free-slot
//! search, the rejection-sampled choice of a used file, the order of the random draws and the
//! final deletion in slot order are PostMark's too, so with [`Mt`] the run touches the very
//! files PostMark touches for the same seed. Only O_CLOEXEC is added to the open flags.

use super::mt::Mt;
use super::Config;
use crate::error::WorkloadError;
use crate::fileset::Tally;
use crate::measure::{per_s, Timing};
use crate::poll;
use crate::WorkloadCtx;
use nix::fcntl::{openat, OFlag};
use nix::sys::stat::{fstat, Mode};
use nix::unistd::{lseek, unlinkat, UnlinkatFlags, Whence};
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Write};
use std::time::Instant;

/// Counts and phase times of one run.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Counters {
    pub created: u64,
    pub deleted: u64,
    pub read: u64,
    pub appended: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub transactions: u64,
    pub pool: u64,
    pub deleted_alone: u64,
    pub create_secs: f64,
    pub tx_secs: f64,
    pub delete_secs: f64,
}

impl Counters {
    /// PostMark's `elapsed`: creation, transactions and deletion.
    fn total_secs(&self) -> f64 {
        self.create_secs + self.tx_secs + self.delete_secs
    }

    /// Every metric of the workload, each over the time base PostMark's report divides by.
    pub fn record(&self, ctx: &mut WorkloadCtx<'_>, t: &Timing) {
        let (total, tx) = (self.total_secs(), self.tx_secs);
        let mixed_created = self.created - self.pool;
        let mixed_deleted = self.deleted - self.deleted_alone;
        let values = [
            ("transactions", per_s(self.transactions as f64, tx)),
            ("created", per_s(self.created as f64, total)),
            ("created_alone", per_s(self.pool as f64, self.create_secs)),
            ("created_mixed", per_s(mixed_created as f64, tx)),
            ("read", per_s(self.read as f64, tx)),
            ("appended", per_s(self.appended as f64, tx)),
            ("deleted", per_s(self.deleted as f64, total)),
            (
                "deleted_alone",
                per_s(self.deleted_alone as f64, self.delete_secs),
            ),
            ("deleted_mixed", per_s(mixed_deleted as f64, tx)),
            ("read_kbps", per_s(self.bytes_read as f64 / 1024.0, total)),
            (
                "write_kbps",
                per_s(self.bytes_written as f64 / 1024.0, total),
            ),
        ];
        for (name, v) in values {
            ctx.record(name, t, v);
        }
    }
}

/// One slot of PostMark's file table: a name relative to the run's directory and the file's
/// size, 0 for a free slot (PostMark's sizes are never 0).
#[derive(Default)]
struct Slot {
    name: String,
    size: u64,
}

/// One PostMark run in `dir` (its subdirectories made): creation, transactions, deletion.
pub(super) fn session(
    cfg: &Config,
    dir: &std::path::Path,
    tally: &Tally,
) -> Result<Counters, WorkloadError> {
    let base =
        File::open(dir).map_err(|e| WorkloadError::io(format!("open {}", dir.display()), e))?;
    let mut pm = Pm::new(cfg, (dir, base), tally);
    let t0 = Instant::now();
    for i in 0..cfg.files {
        poll(i)?;
        pm.create()?;
    }
    pm.c.pool = pm.c.created;
    let t1 = Instant::now();
    for i in 0..cfg.transactions {
        poll(i)?;
        pm.transaction(i)?;
    }
    let t2 = Instant::now();
    let before = pm.c.deleted;
    for i in 0..pm.table.len() {
        poll(i as u64)?;
        pm.delete(i)?;
    }
    pm.c.deleted_alone = pm.c.deleted - before;
    let t3 = Instant::now();
    pm.c.create_secs = (t1 - t0).as_secs_f64();
    pm.c.tx_secs = (t2 - t1).as_secs_f64();
    pm.c.delete_secs = (t3 - t2).as_secs_f64();
    Ok(pm.c)
}

/// The state of one run.
struct Pm<'a> {
    cfg: &'a Config,
    /// The run's directory (for messages) and a descriptor of it (every name's start).
    dir: &'a std::path::Path,
    base: File,
    tally: &'a Tally,
    rng: Mt,
    source: Vec<u8>,
    buf: Vec<u8>,
    table: Vec<Slot>,
    /// PostMark's `file_allocated`: the slot after the last one handed out.
    allocated: usize,
    /// The free slots, so the lowest is found without PostMark's scan from slot 0 (same
    /// slot; the scan is microseconds in PostMark's C but tens of them in a debug build).
    free: BTreeSet<usize>,
    c: Counters,
}

impl<'a> Pm<'a> {
    /// Seed the generator and draw the data source first, as `cli_run` does.
    fn new(cfg: &'a Config, (dir, base): (&'a std::path::Path, File), tally: &'a Tally) -> Pm<'a> {
        let mut rng = Mt::new(cfg.seed as u32);
        let source = (0..2 * cfg.high).map(|_| 32 + rng.rnd(95) as u8).collect();
        let mut table = Vec::new();
        table.resize_with(2 * cfg.files as usize, Slot::default);
        let free = (0..table.len()).collect();
        Pm {
            cfg,
            dir,
            base,
            tally,
            rng,
            source,
            buf: Vec::new(),
            table,
            allocated: 0,
            free,
            c: Counters::default(),
        }
    }

    /// `run_transactions`' body: read or append, then create or delete.
    fn transaction(&mut self, i: u64) -> Result<(), WorkloadError> {
        if self.c.created == self.c.deleted {
            return Err(WorkloadError::Failed(format!(
                "postmark ran out of files after {i} transactions: raise files or lower \
                 transactions"
            )));
        }
        if self.rng.rnd(10) < self.cfg.bias_read {
            let f = self.find_used();
            self.read(f)?;
        } else {
            let f = self.find_used();
            self.append(f)?;
        }
        if self.rng.rnd(10) < self.cfg.bias_create {
            self.create()?;
        } else {
            let f = self.find_used();
            self.delete(f)?;
        }
        self.c.transactions += 1;
        Ok(())
    }

    /// `find_free_file`: the next slot if free, else the lowest free one.
    fn find_free(&mut self) -> Option<usize> {
        let i = if self.free.contains(&self.allocated) {
            self.allocated
        } else {
            *self.free.first()?
        };
        self.free.remove(&i);
        self.allocated = i + 1;
        Some(i)
    }

    /// `find_used_file`: random slots until one holds a file (callers know one does).
    fn find_used(&mut self) -> usize {
        loop {
            let i = self.rng.rnd(self.table.len() as u64) as usize;
            if self.table[i].size != 0 {
                return i;
            }
        }
    }

    /// `create_file`: name (subdirectory drawn first), size, then the file; nothing when the
    /// table is full.
    fn create(&mut self) -> Result<(), WorkloadError> {
        let Some(slot) = self.find_free() else {
            return Ok(());
        };
        let sub = (self.cfg.subdirs > 1).then(|| self.rng.rnd(self.cfg.subdirs));
        self.c.created += 1;
        let name = match sub {
            Some(d) => format!("s{d}/{}", self.c.created),
            None => self.c.created.to_string(),
        };
        let size = self.cfg.low + self.rng.rnd(self.cfg.high - self.cfg.low);
        self.table[slot] = Slot { name, size };
        let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_TRUNC;
        let f = self.open(slot, flags)?;
        self.tally.created();
        self.write_out(f, slot, size)
    }

    /// `read_file`: the whole file through a st_blksize buffer.
    fn read(&mut self, slot: usize) -> Result<(), WorkloadError> {
        let mut f = self.open(slot, OFlag::O_RDONLY)?;
        let size = self.table[slot].size;
        let bs = self.blksize(&f, slot)?;
        self.buf.resize(bs, 0);
        let mut got = 0;
        while got < size {
            let n = f
                .read(&mut self.buf)
                .map_err(|e| self.err("read", slot, e))?;
            if n == 0 {
                return Err(WorkloadError::Failed(format!(
                    "read {}: {got} of {size} bytes: the file is shorter than postmark wrote it",
                    self.dir.join(&self.table[slot].name).display()
                )));
            }
            got += n as u64;
        }
        self.close(f, slot)?;
        self.c.read += 1;
        self.c.bytes_read += size;
        Ok(())
    }

    /// `append_file`: 1..=(SIZE_HIGH − size) bytes at the end, unless the file is full.
    fn append(&mut self, slot: usize) -> Result<(), WorkloadError> {
        let size = self.table[slot].size;
        if size >= self.cfg.high {
            return Ok(());
        }
        let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_APPEND;
        let f = self.open(slot, flags)?;
        lseek(&f, 0, Whence::SeekEnd).map_err(|e| self.err("lseek", slot, e.into()))?;
        let block = self.rng.rnd(self.cfg.high - size) + 1;
        self.write_out(f, slot, block)?;
        self.table[slot].size += block;
        self.c.appended += 1;
        Ok(())
    }

    /// `delete_file`: unlink the slot's file, if it holds one.
    fn delete(&mut self, slot: usize) -> Result<(), WorkloadError> {
        if self.table[slot].size == 0 {
            return Ok(());
        }
        let name = self.table[slot].name.as_str();
        unlinkat(&self.base, name, UnlinkatFlags::NoRemoveDir)
            .map_err(|e| self.err("unlink", slot, e.into()))?;
        self.table[slot].size = 0;
        self.free.insert(slot);
        self.c.deleted += 1;
        Ok(())
    }

    /// `fwrite_blocks` then `fclose`: `len` bytes from the source's start, st_blksize at a
    /// time (the stdio buffer), the rest at close.
    fn write_out(&mut self, mut f: File, slot: usize, len: u64) -> Result<(), WorkloadError> {
        let bs = self.blksize(&f, slot)?;
        for chunk in self.source[..len as usize].chunks(bs) {
            f.write_all(chunk).map_err(|e| self.err("write", slot, e))?;
            self.tally.wrote(chunk.len() as u64);
        }
        self.close(f, slot)?;
        self.c.bytes_written += len;
        Ok(())
    }

    /// `fclose`'s close(2). Explicit because dropping a `File` in a debug build (the tests')
    /// adds an fcntl(F_GETFD) per close, 17,000 extra calls in a 10,000-transaction run.
    fn close(&self, f: File, slot: usize) -> Result<(), WorkloadError> {
        nix::unistd::close(f).map_err(|e| self.err("close", slot, e.into()))
    }

    /// Open the slot's file relative to the run's directory.
    fn open(&self, slot: usize, flags: OFlag) -> Result<File, WorkloadError> {
        let name = self.table[slot].name.as_str();
        let mode = Mode::from_bits_truncate(0o666);
        openat(&self.base, name, flags | OFlag::O_CLOEXEC, mode)
            .map(File::from)
            .map_err(|e| self.err("open", slot, e.into()))
    }

    /// The stdio buffer glibc's `_IO_file_doallocate` sizes from `fstat`: st_blksize when it
    /// is positive and below BUFSIZ (8 KiB), BUFSIZ otherwise (4 KiB on ext4, 8 KiB on ZFS).
    fn blksize(&self, f: &File, slot: usize) -> Result<usize, WorkloadError> {
        const BUFSIZ: usize = 8192;
        let st = fstat(f).map_err(|e| self.err("fstat", slot, e.into()))?;
        let b = st.st_blksize;
        Ok(if b > 0 && (b as usize) < BUFSIZ {
            b as usize
        } else {
            BUFSIZ
        })
    }

    /// `e` from `op` on the slot's file; a full target says how much went in.
    fn err(&self, op: &str, slot: usize, e: std::io::Error) -> WorkloadError {
        self.tally.io(format!("{op} {}", self.table[slot].name), e)
    }
}

//! The `sync` engine: `pread`/`pwrite`/`fsync` straight through libc, one operation at a time;
//! and its no-I/O twin, the `null` engine ([`SyncEngine::null`]).
//!
//! Invariants: `submit` always answers [`Submit::Completed`] (never queues, never busy), so
//! `reap` has nothing to return; the hot path is one system call with no allocation and no
//! error wrapping (the raw result goes back in the completion, as io_uring does). The engine
//! owns its files and a one-slot (or `slots`-slot) aligned buffer pool.
//!
//! The null engine makes no system call: every operation completes at once, in full
//! (`result = len`, 0 for fsync), and buffers stay as they are. It serves deterministic tests
//! of everything above the engine (driver, op sources, pool) and the "tool ceiling", the
//! per-operation cost of fsbattery itself, measured through the same driver that moves real
//! bytes. It is the sync engine with one predictable branch, so both share one file table and
//! one buffer pool handling.

use super::entry::{Caps, EngineEntry};
use super::files::FileTable;
use super::thread::run_threads;
use super::{BufferPool, Completion, Engine, EngineError, Op, OpKind, Submit};
use std::fs::File;

/// The sync engine's registry entry (fio calls it `psync`).
pub(crate) const SYNC: EngineEntry = EngineEntry {
    name: "sync",
    aliases: &["psync", "pvsync"],
    help: "pread/pwrite, one operation at a time",
    caps: Caps {
        queued: false,
        no_io: false,
        io_uring: false,
    },
    options: &[],
    build: |pool, _| Ok(Box::new(SyncEngine::new(pool))),
    run: |plans, align, _| run_threads(plans, align, |pool| Ok(SyncEngine::new(pool))),
};

/// The null engine's registry entry: no I/O, fsbattery's own cost.
pub(crate) const NULL: EngineEntry = EngineEntry {
    name: "null",
    aliases: &[],
    help: "no I/O: every operation completes at once (fsbattery's own cost)",
    caps: Caps {
        queued: false,
        no_io: true,
        io_uring: false,
    },
    options: &[],
    build: |pool, _| Ok(Box::new(SyncEngine::null(pool))),
    run: |plans, align, _| run_threads(plans, align, |pool| Ok(SyncEngine::null(pool))),
};

/// Synchronous engine (or, made with [`SyncEngine::null`], the null engine).
#[derive(Debug)]
pub struct SyncEngine {
    files: FileTable,
    pool: BufferPool,
    null: bool,
}

impl SyncEngine {
    /// An engine using `pool` (one slot is enough; more are allowed) and no file yet.
    pub fn new(pool: BufferPool) -> Self {
        SyncEngine {
            files: FileTable::default(),
            pool,
            null: false,
        }
    }

    /// The null engine over `pool`: no I/O, every operation completes at once (see the module).
    pub fn null(pool: BufferPool) -> Self {
        SyncEngine {
            null: true,
            ..SyncEngine::new(pool)
        }
    }

    /// Run `op` now; the kernel's result (bytes or -errno).
    #[inline]
    fn execute(&mut self, op: &Op) -> i32 {
        let fd = self.files.fd(op.file);
        let len = (op.len as usize).min(self.pool.slot_len());
        if self.null {
            return if op.kind.is_sync() { 0 } else { len as i32 };
        }
        let ptr = self.pool.slot_ptr(op.slot as usize);
        // SAFETY: ptr points at a live slot of at least `len` bytes that we own exclusively
        // (&mut self); the fd is open for the engine's lifetime.
        let rc = unsafe {
            match op.kind {
                OpKind::Read => libc::pread(fd, ptr.cast(), len, op.offset as libc::off_t),
                OpKind::Write => libc::pwrite(fd, ptr.cast(), len, op.offset as libc::off_t),
                OpKind::Fsync => libc::fsync(fd) as isize,
                OpKind::Fdatasync => libc::fdatasync(fd) as isize,
            }
        };
        if rc < 0 {
            -std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        } else {
            rc as i32
        }
    }
}

impl Engine for SyncEngine {
    fn name(&self) -> &'static str {
        if self.null {
            NULL.name
        } else {
            SYNC.name
        }
    }

    fn depth(&self) -> usize {
        1
    }

    fn in_flight(&self) -> usize {
        0
    }

    fn buffers(&self) -> &BufferPool {
        &self.pool
    }

    fn buffers_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    fn add_file(&mut self, file: File) -> Result<u32, EngineError> {
        Ok(self.files.insert(file))
    }

    fn remove_file(&mut self, id: u32) -> Option<File> {
        self.files.remove(id)
    }

    #[inline]
    fn submit(&mut self, op: Op) -> Result<Submit, EngineError> {
        if op.slot as usize >= self.pool.slots() {
            return Err(EngineError::Invalid(format!(
                "slot {} out of range (pool has {})",
                op.slot,
                self.pool.slots()
            )));
        }
        let result = self.execute(&op);
        Ok(Submit::Completed(Completion { op, result }))
    }

    fn reap(&mut self, _min: usize, _out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use crate::{run_job, EngineSpec, JobSpec, Stop};

    #[test]
    fn null_engine_completes_every_op_of_a_job_without_io() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(1 << 20)
            .unwrap();
        let mut spec = JobSpec::new(&path, 1 << 20, 4096);
        spec.engine = EngineSpec::Null;
        spec.write_fraction = 0.5;
        spec.fsync_fraction = 0.25;
        spec.jobs = 2;
        spec.stop = Stop::Ops(1001);
        let r = run_job(&spec).unwrap();
        assert_eq!(r.engine, "null");
        assert_eq!(r.ops, 1001);
        assert_eq!(r.read.ops + r.write.ops, 1001);
        assert_eq!(r.bytes, 1001 * 4096);
        assert!(
            r.write.ops > 0 && r.read.ops > 0 && r.fsync.ops > 0,
            "{r:?}"
        );
        // Nothing reached the file: it is still a hole of zeros.
        assert!(std::fs::read(&path).unwrap().iter().all(|&b| b == 0));
    }
}

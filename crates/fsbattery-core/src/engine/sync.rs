//! The `sync` engine: `pread`/`pwrite`/`fsync` straight through libc, one operation at a time.
//!
//! Invariants: `submit` always answers [`Submit::Completed`] (never queues, never busy), so
//! `reap` has nothing to return; the hot path is one system call with no allocation and no
//! error wrapping (the raw result goes back in the completion, as io_uring does). The engine
//! owns its files and a one-slot (or `slots`-slot) aligned buffer pool.

use super::files::FileTable;
use super::{BufferPool, Completion, Engine, EngineError, Op, OpKind, Submit};
use std::fs::File;

/// Synchronous engine.
#[derive(Debug)]
pub struct SyncEngine {
    files: FileTable,
    pool: BufferPool,
}

impl SyncEngine {
    /// An engine using `pool` (one slot is enough; more are allowed) and no file yet.
    pub fn new(pool: BufferPool) -> Self {
        SyncEngine {
            files: FileTable::default(),
            pool,
        }
    }

    /// Run `op` now; the kernel's result (bytes or -errno).
    #[inline]
    fn execute(&mut self, op: &Op) -> i32 {
        let fd = self.files.fd(op.file);
        let len = (op.len as usize).min(self.pool.slot_len());
        let ptr = self.pool.slot_ptr(op.slot as usize);
        // SAFETY: ptr points at a live slot of at least `len` bytes that we own exclusively
        // (&mut self); the fd is open for the engine's lifetime.
        let rc = unsafe {
            match op.kind {
                OpKind::Read => libc::pread(fd, ptr.cast(), len, op.offset as libc::off_t),
                OpKind::Write => libc::pwrite(fd, ptr.cast(), len, op.offset as libc::off_t),
                OpKind::Fsync => libc::fsync(fd) as isize,
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
        "sync"
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

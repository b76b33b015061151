//! A contiguous transfer as an [`OpSource`]: `kind` over a byte range of one file in chunks
//! of at most one buffer slot, or one fsync. Every workload that moves a file's bytes in order
//! (dd, bonnie, randomio's layout, the file-set workloads' reads, writes and appends, bonnie's
//! single-chunk seeks and rewrites) runs one through the [`Driver`](super::Driver).
//!
//! Invariants: chunks are issued in offset order, all of `chunk` bytes but the last, which
//! holds the rest; a stamped write carries the fill's offset stamp ([`super::buffer`]'s
//! `stamp`, the one the jobs use) so no two blocks are equal; every completion goes to the
//! caller's check, whose error ends the pass.

use super::buffer::stamp;
use super::driver::OpSource;
use super::{BufferPool, Completion, EngineError, Op, OpKind};

/// `kind` over `offset..offset + len` of `file`, chunk by chunk; see the module.
pub struct Transfer<F> {
    kind: OpKind,
    file: u32,
    next: u64,
    end: u64,
    chunk: u32,
    stamp: bool,
    fsync_due: bool,
    slot: u16,
    check: F,
}

impl<F> Transfer<F> {
    /// `len` bytes of `kind` at `offset` of file `file` in chunks of `chunk` bytes (for
    /// [`OpKind::Fsync`], one fsync: offset and len are ignored); `check` sees every
    /// completion.
    pub fn new(kind: OpKind, file: u32, offset: u64, len: u64, chunk: u32, check: F) -> Self {
        Transfer {
            kind,
            file,
            next: offset,
            end: offset.saturating_add(len),
            chunk: chunk.max(1),
            stamp: false,
            fsync_due: kind == OpKind::Fsync,
            slot: 0,
            check,
        }
    }

    /// Stamp every written chunk with its offset when `on`.
    pub fn stamped(mut self, on: bool) -> Self {
        self.stamp = on;
        self
    }

    /// The buffer slot of the last operation issued.
    pub fn last_slot(&self) -> u16 {
        self.slot
    }
}

impl<F, Er> OpSource for Transfer<F>
where
    F: FnMut(&Completion) -> Result<(), Er>,
    Er: From<EngineError>,
{
    type Error = Er;

    #[inline]
    fn next(&mut self, slot: u16, bufs: &mut BufferPool, now: u64) -> Option<Op> {
        let len = if self.kind == OpKind::Fsync {
            if !std::mem::take(&mut self.fsync_due) {
                return None;
            }
            0
        } else {
            if self.next >= self.end {
                return None;
            }
            (self.end - self.next).min(u64::from(self.chunk)) as u32
        };
        let offset = if self.kind == OpKind::Fsync {
            0
        } else {
            self.next
        };
        self.next += u64::from(len);
        if self.kind == OpKind::Write && self.stamp {
            stamp(bufs.slot_mut(usize::from(slot)), offset);
        }
        self.slot = slot;
        Some(Op {
            kind: self.kind,
            offset,
            len,
            slot,
            file: self.file,
            issued_ns: now,
        })
    }

    #[inline]
    fn complete(&mut self, c: &Completion, _now: u64, _bufs: &BufferPool) -> Result<(), Er> {
        (self.check)(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BufferPool, Driver, Engine, SyncEngine};

    /// A driver over the null engine with one file: deterministic, no I/O.
    fn null_driver() -> Driver<SyncEngine> {
        let mut e = SyncEngine::null(BufferPool::new(1, 4096, 4096));
        let f = tempfile::tempfile().unwrap();
        assert_eq!(e.add_file(f).unwrap(), 0);
        Driver::new(e, 1)
    }

    #[test]
    fn chunks_cover_the_range_in_order_and_the_last_holds_the_rest() {
        let mut d = null_driver();
        let mut seen = Vec::new();
        let check = |c: &Completion| {
            seen.push((c.op.offset, c.op.len, c.result));
            Ok::<(), EngineError>(())
        };
        let mut t = Transfer::new(OpKind::Write, 0, 100, 10_000, 4096, check).stamped(true);
        d.run(&mut t).unwrap();
        assert_eq!(
            seen,
            [(100, 4096, 4096), (4196, 4096, 4096), (8292, 1808, 1808)]
        );
        // The last write carried its offset stamp.
        let head = &d.engine_mut().buffers().slot(0)[..8];
        assert_eq!(head, 8292u64.to_le_bytes());
        let mut n = 0;
        let mut f = Transfer::new(OpKind::Fsync, 0, 7, 7, 4096, |_: &Completion| {
            n += 1;
            Ok::<(), EngineError>(())
        });
        d.run(&mut f).unwrap();
        assert_eq!(n, 1, "an fsync transfer is one fsync");
    }

    #[test]
    fn a_failed_check_ends_the_pass_and_the_driver_stays_usable() {
        let mut d = null_driver();
        let mut calls = 0;
        let mut t = Transfer::new(OpKind::Read, 0, 0, 1 << 20, 4096, |_: &Completion| {
            calls += 1;
            Err(EngineError::Invalid("stop here".into()))
        });
        let e = d.run(&mut t).unwrap_err();
        assert!(e.to_string().ends_with("stop here"), "{e}");
        assert_eq!(calls, 1);
        let mut ok = Transfer::new(OpKind::Read, 0, 0, 8192, 4096, |_: &Completion| {
            Ok::<(), EngineError>(())
        });
        d.run(&mut ok).unwrap();
    }
}

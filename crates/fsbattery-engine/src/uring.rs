//! The `io_uring` engine: up to `depth` operations in flight on one ring per thread.
//!
//! Invariants:
//! - `submit` only writes a submission entry into shared memory (no system call); `reap` does
//!   one `io_uring_enter` that both submits everything queued and waits, so a steady state at
//!   depth N costs one system call per batch of completions, not one per operation.
//! - The slot of an operation is its `user_data` and indexes the in-flight table; a slot is
//!   never in flight twice (a caller doing so gets an error, not corruption).
//! - Buffers and files may be registered with the ring (`uring.registered_buffers`,
//!   `uring.registered_files`), saving the kernel a page-pinning walk and an fd lookup per IO;
//!   the registered file table mirrors the engine's `FileTable` index for index.
//! - Drop waits for every operation still in flight before the buffers are freed, and the
//!   ring is declared before the pool so it is torn down first.

use super::entry::{Caps, EngineEntry, EngineOption};
use super::files::FileTable;
use super::thread::run_threads;
use super::uring_options::UringOptions;
use super::{BufferPool, Completion, Engine, EngineError, Op, OpKind, Submit};
use io_uring::{opcode, squeue, types, IoUring};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::OnceLock;

/// The io_uring engine's registry entry.
pub(crate) const IO_URING: EngineEntry = EngineEntry {
    name: "io_uring",
    aliases: &["uring"],
    help: "io_uring: `depth` operations in flight per thread",
    caps: Caps {
        queued: true,
        no_io: false,
        io_uring: true,
    },
    options: &[
        EngineOption {
            name: "depth",
            help: "operations in flight per thread, 1..=4096",
        },
        EngineOption {
            name: "batch",
            help: "completions each wait asks for; 0 = auto (a quarter of the depth)",
        },
        EngineOption {
            name: "registered_buffers",
            help: "register the buffer pool and use READ_FIXED/WRITE_FIXED",
        },
        EngineOption {
            name: "registered_files",
            help: "register the files with the ring",
        },
    ],
    build: |pool, opts| Ok(Box::new(UringEngine::new(pool, *opts)?)),
    run: |plans, align, opts| run_threads(plans, align, |pool| UringEngine::new(pool, *opts)),
};

/// Files a ring can have registered at once (`uring.registered_files`): a sparse table is
/// registered up front and filled as files are added. The kernel also caps it at the
/// RLIMIT_NOFILE soft limit.
pub const MAX_REGISTERED_FILES: u32 = 1024;

/// The registered file table size: [`MAX_REGISTERED_FILES`] or the fd limit, if lower.
fn registered_capacity() -> u32 {
    let Ok((soft, _)) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
    else {
        return 64;
    };
    u32::try_from(soft)
        .unwrap_or(u32::MAX)
        .clamp(1, MAX_REGISTERED_FILES)
}

/// io_uring engine.
pub struct UringEngine {
    // Field order matters: the ring must go before the buffers it may still point at.
    ring: IoUring,
    files: FileTable,
    pool: BufferPool,
    opts: UringOptions,
    ops: Vec<Option<Op>>,
    in_flight: usize,
    registered_files: u32,
}

impl std::fmt::Debug for UringEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UringEngine")
            .field("files", &self.files)
            .field("opts", &self.opts)
            .field("in_flight", &self.in_flight)
            .finish()
    }
}

/// A ring with `entries` entries, with the cheapest completion delivery the kernel has:
/// single issuer + deferred task work (6.1+: completions are run in batches when we wait,
/// and the waiter is woken once per `min` completions, not once per completion), else single
/// issuer + cooperative task work (5.19+), else a plain ring.
fn build_ring(entries: u32) -> Result<IoUring, EngineError> {
    IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .setup_taskrun_flag()
        .build(entries)
        .or_else(|_| {
            IoUring::builder()
                .setup_single_issuer()
                .setup_coop_taskrun()
                .build(entries)
        })
        .or_else(|_| IoUring::new(entries))
        .map_err(|e| EngineError::UringUnavailable(format!("io_uring_setup: {e}")))
}

/// Whether io_uring can be used in this process (kernel support, sysctl, seccomp). Probe once
/// when a plan is validated.
pub fn probe_uring() -> Result<(), EngineError> {
    let mut ring = build_ring(2)?;
    let nop = opcode::Nop::new().build().user_data(7);
    // SAFETY: a NOP references no memory.
    unsafe { ring.submission().push(&nop) }
        .map_err(|_| EngineError::UringUnavailable("submission queue full".into()))?;
    ring.submit_and_wait(1)
        .map_err(|e| EngineError::UringUnavailable(format!("io_uring_enter: {e}")))?;
    let cqe = ring.completion().next();
    match cqe {
        Some(c) if c.user_data() == 7 && c.result() >= 0 => Ok(()),
        other => Err(EngineError::UringUnavailable(format!(
            "NOP did not complete ({other:?})"
        ))),
    }
}

/// Whether io_uring can be set up here: probed once per process (the first plan asks),
/// `Err` with the kernel's reason. Targets report it as a capability; the plan refuses an
/// io_uring workload where it is `Err`.
pub fn uring_available() -> &'static Result<(), String> {
    static PROBED: OnceLock<Result<(), String>> = OnceLock::new();
    PROBED.get_or_init(|| probe_uring().map_err(|e| e.to_string()))
}

fn ring_err(what: &str) -> impl FnOnce(std::io::Error) -> EngineError + '_ {
    move |source| EngineError::Ring {
        what: what.to_string(),
        source,
    }
}

impl UringEngine {
    /// An engine with `pool` as its buffers (at least `opts.depth` slots) and no file yet.
    /// Create it on the thread that will use it.
    pub fn new(mut pool: BufferPool, opts: UringOptions) -> Result<Self, EngineError> {
        let depth = opts.depth as usize;
        if !(1..=4096).contains(&depth) || pool.slots() < depth {
            return Err(EngineError::Invalid(format!(
                "uring.depth {depth} must be 1..=4096 and the pool needs that many slots (has {})",
                pool.slots()
            )));
        }
        let ring = build_ring(opts.depth.next_power_of_two())?;
        if opts.registered_buffers {
            let iov = pool.iovecs();
            // SAFETY: the iovecs point into `pool`, which the engine owns and frees only after
            // the ring (field order, and Drop drains in-flight operations first).
            unsafe { ring.submitter().register_buffers(&iov) }
                .map_err(ring_err("register_buffers (raise RLIMIT_MEMLOCK?)"))?;
        }
        let registered_files = if opts.registered_files {
            registered_capacity()
        } else {
            0
        };
        if opts.registered_files {
            ring.submitter()
                .register_files_sparse(registered_files)
                .map_err(ring_err("register_files_sparse (kernel < 5.19?)"))?;
        }
        Ok(UringEngine {
            ring,
            files: FileTable::default(),
            pool,
            opts,
            ops: vec![None; depth],
            in_flight: 0,
            registered_files,
        })
    }

    /// The submission entry for `op`.
    #[inline]
    fn entry(&mut self, op: &Op) -> squeue::Entry {
        let ptr = self.pool.slot_ptr(op.slot as usize);
        let len = op.len.min(self.pool.slot_len() as u32);
        let fixed_buf = self.opts.registered_buffers;
        macro_rules! build {
            ($fd:expr) => {
                match (op.kind, fixed_buf) {
                    (OpKind::Read, true) => opcode::ReadFixed::new($fd, ptr, len, op.slot)
                        .offset(op.offset)
                        .build(),
                    (OpKind::Read, false) => {
                        opcode::Read::new($fd, ptr, len).offset(op.offset).build()
                    }
                    (OpKind::Write, true) => opcode::WriteFixed::new($fd, ptr, len, op.slot)
                        .offset(op.offset)
                        .build(),
                    (OpKind::Write, false) => {
                        opcode::Write::new($fd, ptr, len).offset(op.offset).build()
                    }
                    (OpKind::Fsync, _) => opcode::Fsync::new($fd).build(),
                    (OpKind::Fdatasync, _) => opcode::Fsync::new($fd)
                        .flags(types::FsyncFlags::DATASYNC)
                        .build(),
                }
            };
        }
        let e = if self.opts.registered_files {
            build!(types::Fixed(op.file))
        } else {
            build!(types::Fd(self.files.fd(op.file)))
        };
        e.user_data(u64::from(op.slot))
    }

    /// One io_uring_enter: submit what is queued, wait for `want` completions.
    fn enter(&mut self, want: usize) -> Result<(), EngineError> {
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // Completion queue full: the caller drains it, then waits again.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Ok(()),
                Err(e) => return Err(ring_err("io_uring_enter")(e)),
            }
        }
    }

    /// Move every available completion to `out`.
    fn drain(&mut self, out: &mut Vec<Completion>) -> usize {
        let mut n = 0;
        for cqe in self.ring.completion() {
            let slot = cqe.user_data() as usize;
            if let Some(op) = self.ops.get_mut(slot).and_then(Option::take) {
                out.push(Completion {
                    op,
                    result: cqe.result(),
                });
                n += 1;
            }
        }
        self.in_flight -= n;
        n
    }
}

impl Engine for UringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn depth(&self) -> usize {
        self.ops.len()
    }

    fn in_flight(&self) -> usize {
        self.in_flight
    }

    fn buffers(&self) -> &BufferPool {
        &self.pool
    }

    fn buffers_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    fn add_file(&mut self, file: File) -> Result<u32, EngineError> {
        let fd = file.as_raw_fd();
        let id = self.files.insert(file);
        if self.opts.registered_files {
            let registered = if id < self.registered_files {
                self.ring.submitter().register_files_update(id, &[fd])
            } else {
                Err(std::io::Error::from_raw_os_error(libc::EMFILE))
            };
            if let Err(e) = registered {
                self.files.remove(id);
                return Err(ring_err("register_files_update")(e));
            }
        }
        Ok(id)
    }

    fn remove_file(&mut self, id: u32) -> Option<File> {
        let f = self.files.remove(id)?;
        if self.opts.registered_files {
            // -1 clears the registered slot; a failure leaves a stale entry no op will name.
            let _ = self.ring.submitter().register_files_update(id, &[-1]);
        }
        Some(f)
    }

    #[inline]
    fn submit(&mut self, op: Op) -> Result<Submit, EngineError> {
        if self.in_flight == self.ops.len() {
            return Ok(Submit::Busy);
        }
        match self.ops.get(op.slot as usize) {
            Some(None) => {}
            _ => {
                return Err(EngineError::Invalid(format!(
                    "slot {} is out of range or already in flight (depth {})",
                    op.slot,
                    self.ops.len()
                )))
            }
        }
        let entry = self.entry(&op);
        // SAFETY: the entry points into a pool slot that stays allocated and untouched by us
        // until its completion is reaped (slot ownership passes to the kernel meanwhile).
        if unsafe { self.ring.submission().push(&entry) }.is_err() {
            return Ok(Submit::Busy);
        }
        self.ops[op.slot as usize] = Some(op);
        self.in_flight += 1;
        Ok(Submit::Queued)
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        let want = min.min(self.in_flight);
        let mut got = 0;
        loop {
            self.enter(want - got)?;
            got += self.drain(out);
            if got >= want {
                return Ok(got);
            }
        }
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        let mut sink = Vec::new();
        while self.in_flight > 0 {
            if self.ring.submit_and_wait(1).is_err() && self.drain(&mut sink) == 0 {
                break;
            }
            self.drain(&mut sink);
        }
    }
}

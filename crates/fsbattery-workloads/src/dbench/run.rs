//! One dbench run: NPROCS processes (threads here) of `--clients-per-process` clients each
//! replay the loadfile from a common start, while a monitor ticks once a second as dbench's
//! SIGALRM handler (`sig_alarm` in dbench.c) does.
//!
//! Invariants (dbench 4.0's child.c and dbench.c):
//! - a client replays the loadfile in a loop, re-reading each line (see `loadfile`), and
//!   stops at the first line after the monitor says done; then it deletes its files
//!   (`clients/clientN`) unless `--skip-cleanup`;
//! - every line is preceded by dbench's liveness probe of its parent (kill(pid, 0)) and by
//!   the rate step: with `-R` a sleep that holds the client to the rate, else the time since
//!   the previous step counts toward the latency dbench reports; a line with a leading time
//!   waits for it instead;
//! - an operation's latency runs from just before its system calls to just after; the
//!   monitor's `max_latency` is the worst, over its ticks, of the longest step between lines
//!   and the time the current operation has run so far;
//! - warmup: the first tick past `warmup` seconds at which every client has moved bytes
//!   restarts the clock, zeroes the byte counts, the per-operation table and the worst
//!   latency; the run ends at the first tick past `timelimit` seconds after that;
//!   throughput is MB (10^6 B) read and written since, over the seconds since, as of the
//!   last tick before the end.

use super::args::Config;
use super::fileio::Client;
use super::loadfile::{parse_line, tokenize, Loadfile};
use crate::error::WorkloadError;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

/// One operation's count and latencies, ns.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct OpStat {
    /// Times done.
    pub count: u64,
    /// Sum of latencies.
    pub total_ns: u64,
    /// Largest latency.
    pub max_ns: u64,
}

/// What one client shares with the monitor.
#[derive(Default)]
struct Shared {
    bytes: AtomicU64,
    /// Start of the current operation, ns since the run's epoch.
    lasttime: AtomicU64,
    /// Longest step since the monitor's last tick, ns.
    max_latency: AtomicU64,
    ops: Mutex<[OpStat; 17]>,
}

/// What a run measured, as dbench's closing lines report it.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// MB/s.
    pub throughput: f64,
    /// Worst latency, ms.
    pub max_latency_ms: f64,
    /// Per timed operation, in report order.
    pub ops: [OpStat; 17],
}

/// The run's shared state.
struct Run<'a> {
    cfg: &'a Config,
    lf: &'a Loadfile,
    /// dbench's working directory (the scratch directory).
    root: String,
    epoch: Instant,
    done: AtomicBool,
    failed: Mutex<Option<String>>,
    clients: Vec<Shared>,
}

impl Run<'_> {
    fn ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
}

/// Run dbench as `cfg` says with `root` as its working directory (`-D` inside it exists),
/// until done or interrupted.
pub fn run(cfg: &Config, lf: &Loadfile, root: &str) -> Result<Summary, WorkloadError> {
    let n = cfg.clients() as usize;
    let r = Run {
        cfg,
        lf,
        root: root.to_string(),
        epoch: Instant::now(),
        done: AtomicBool::new(false),
        failed: Mutex::new(None),
        clients: (0..n).map(|_| Shared::default()).collect(),
    };
    let per = cfg.clients_per_process as usize;
    let start = Barrier::new(cfg.nprocs as usize + 1);
    let monitored = std::thread::scope(|s| {
        for p in 0..cfg.nprocs as usize {
            let (r, start) = (&r, &start);
            std::thread::Builder::new()
                .name(format!("dbench-{p}"))
                .spawn_scoped(s, move || {
                    if let Err(e) = process(r, p * per..(p + 1) * per, start) {
                        r.failed
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_or_insert(e);
                        r.done.store(true, Relaxed);
                    }
                })
                .expect("spawn a dbench client thread");
        }
        start.wait();
        let out = monitor(&r);
        r.done.store(true, Relaxed);
        out
    });
    if let Some(e) = r.failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(WorkloadError::Failed(format!("dbench: {e}")));
    }
    let (throughput, worst) = monitored?;
    let mut ops = [OpStat::default(); 17];
    for c in &r.clients {
        let o = c.ops.lock().unwrap_or_else(|e| e.into_inner());
        for (sum, one) in ops.iter_mut().zip(o.iter()) {
            sum.count += one.count;
            sum.total_ns += one.total_ns;
            sum.max_ns = sum.max_ns.max(one.max_ns);
        }
    }
    Ok(Summary {
        throughput,
        max_latency_ms: worst as f64 / 1e6,
        ops,
    })
}

/// Sleep a second in slices, or stop early on a signal or a failed client.
fn tick_sleep(r: &Run<'_>) -> Result<(), WorkloadError> {
    let end = Instant::now() + Duration::from_secs(1);
    loop {
        if crate::interrupt::requested() {
            return Err(WorkloadError::Interrupted);
        }
        if r.failed.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(WorkloadError::Failed("a client failed".into()));
        }
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        std::thread::sleep(left.min(Duration::from_millis(100)));
    }
}

/// dbench's sig_alarm, once a second until the end: (throughput MB/s, worst latency ns).
fn monitor(r: &Run<'_>) -> Result<(f64, u64), WorkloadError> {
    let n = r.clients.len();
    let (mut tv_start, mut warmup) = (Instant::now(), r.cfg.warmup() as f64);
    let (mut warm, mut worst, mut throughput) = (vec![0u64; n], 0u64, 0.0);
    // dbench would wait forever for a client that moves no bytes; stop and say so.
    let give_up = 60.0 + 10.0 * (r.cfg.timelimit as f64 + warmup);
    loop {
        tick_sleep(r)?;
        let now = Instant::now();
        let bytes: Vec<u64> = r.clients.iter().map(|c| c.bytes.load(Relaxed)).collect();
        let total: u64 = bytes.iter().zip(&warm).map(|(b, w)| b - w).sum();
        let idle = bytes.iter().position(|b| *b == 0);
        let t = (now - tv_start).as_secs_f64();
        if idle.is_none() && warmup > 0.0 && t > warmup {
            (tv_start, warmup, worst) = (now, 0.0, 0);
            warm = bytes;
            for c in &r.clients {
                *c.ops.lock().unwrap_or_else(|e| e.into_inner()) = Default::default();
            }
            continue;
        }
        if let (Some(i), true) = (idle, t > give_up) {
            return Err(WorkloadError::Failed(format!(
                "dbench: client {i} moved no bytes in {t:.0} s (dbench would wait for it forever): \
                 does the loadfile read or write?"
            )));
        }
        let in_warmup = idle.is_some() || t < warmup;
        if !in_warmup && t > r.cfg.timelimit as f64 {
            return Ok((throughput, worst));
        }
        if t < 1.0 {
            continue;
        }
        let now_ns = r.ns();
        let latency = r
            .clients
            .iter()
            .map(|c| {
                let step = c.max_latency.swap(0, Relaxed);
                step.max(now_ns.saturating_sub(c.lasttime.load(Relaxed)))
            })
            .max()
            .unwrap_or(0);
        worst = worst.max(latency);
        if !in_warmup {
            throughput = 1e-6 * total as f64 / t;
        }
    }
}

/// The rate step's state (dbench's `child->rate` and `starttime`).
struct Pace {
    last_bytes: u64,
    last_time: Instant,
    start: Instant,
}

impl Pace {
    fn new() -> Self {
        let now = Instant::now();
        Pace {
            last_bytes: 0,
            last_time: now,
            start: now,
        }
    }

    /// nb_target_rate: hold `rate` MB/s (0: none), else note the step as latency.
    fn target_rate(&mut self, r: &Run<'_>, c: &Shared, bytes: u64, rate: f64) {
        let now = Instant::now();
        if self.last_bytes == 0 {
            (self.last_bytes, self.last_time) = (bytes, now);
            return;
        }
        let since = (now - self.last_time).as_secs_f64();
        let tdelay = if rate != 0.0 {
            (bytes - self.last_bytes) as f64 / (1e6 * rate) - since
        } else {
            -since
        };
        if tdelay > 0.0 && rate != 0.0 {
            sleep_unless_done(r, tdelay);
        } else {
            c.max_latency.fetch_max((-tdelay * 1e9) as u64, Relaxed);
        }
        (self.last_time, self.last_bytes) = (Instant::now(), bytes);
    }

    /// nb_time_delay: wait for the line's time `targett`, or note how late it is.
    fn time_delay(&mut self, r: &Run<'_>, c: &Shared, targett: f64) {
        let elapsed = self.start.elapsed().as_secs_f64();
        if targett > elapsed {
            sleep_unless_done(r, targett - elapsed);
        } else {
            c.max_latency
                .fetch_max(((elapsed - targett) * 1e9) as u64, Relaxed);
        }
    }
}

fn sleep_unless_done(r: &Run<'_>, secs: f64) {
    let end = Instant::now() + Duration::from_secs_f64(secs.min(3600.0));
    while !r.done.load(Relaxed) {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

/// The directory this thread's clients name their files from, as dbench does: `-D` as given
/// (default "."), relative to the working directory, which this thread takes as its own
/// (unshare(CLONE_FS) gives a thread a current directory of its own, as a forked dbench
/// process has). Absolute paths walk every component above the target on every call, which
/// dbench's relative names do not; only if the kernel refuses is `-D` joined to the root.
fn base_directory(r: &Run<'_>) -> String {
    let root = std::ffi::CString::new(r.root.as_str()).unwrap_or_default();
    // SAFETY: unshare(CLONE_FS) only detaches this thread's cwd/root/umask; chdir takes a
    // NUL-terminated path.
    let own = unsafe { libc::unshare(libc::CLONE_FS) == 0 && libc::chdir(root.as_ptr()) == 0 };
    if own {
        r.cfg.directory.clone()
    } else {
        format!("{}/{}", r.root, r.cfg.directory)
    }
}

/// One dbench process: its clients replay the loadfile together, line by line.
fn process(r: &Run<'_>, ids: std::ops::Range<usize>, start: &Barrier) -> Result<(), String> {
    let dir = base_directory(r);
    let mut clients: Vec<(usize, String, Client<'_>, Pace)> = ids
        .map(|id| {
            (
                id,
                format!("client{id}"),
                Client::new(r.cfg, &dir),
                Pace::new(),
            )
        })
        .collect();
    start.wait();
    let (mut words, mut scratch) = (Vec::new(), String::new());
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    let outcome = 'passes: loop {
        for c in clients.iter_mut() {
            c.3 = Pace::new();
        }
        for (li, line) in r.lf.lines.iter().enumerate() {
            if r.done.load(Relaxed) {
                break 'passes Ok(());
            }
            // dbench checks its parent is alive before every line.
            // SAFETY: signal 0 only checks the process exists.
            unsafe { libc::kill(me, 0) };
            let n = tokenize(line, &mut words, &mut scratch);
            let Ok(Some(op)) = parse_line(&words[..n]) else {
                continue;
            };
            for (id, cname, client, pace) in clients.iter_mut() {
                let name = |p: Option<&str>| {
                    p.map_or(String::new(), |p| {
                        format!("{dir}{p}").replace("client1", cname)
                    })
                };
                let (f1, f2) = (name(op.path1), name(op.path2));
                let shared = &r.clients[*id];
                if r.cfg.target_rate != 0.0 || op.targett == 0.0 {
                    pace.target_rate(r, shared, client.bytes, r.cfg.target_rate);
                } else {
                    pace.time_delay(r, shared, op.targett);
                }
                let t0 = r.ns();
                shared.lasttime.store(t0, Relaxed);
                if let Err(e) = client.run(&op, &f1, &f2) {
                    break 'passes Err(format!("{} line {}: client {id}: {e}", r.lf.path, li + 1));
                }
                let dt = r.ns().saturating_sub(t0);
                if let Some(k) = op.kind.index() {
                    let mut ops = shared.ops.lock().unwrap_or_else(|e| e.into_inner());
                    let s = &mut ops[k];
                    s.count += 1;
                    s.total_ns += dt;
                    s.max_ns = s.max_ns.max(dt);
                }
                shared.bytes.store(client.bytes, Relaxed);
            }
        }
    };
    for (id, _, client, _) in clients.iter_mut() {
        if r.cfg.skip_cleanup {
            client.close_all();
        } else {
            client.cleanup(*id);
        }
    }
    outcome
}

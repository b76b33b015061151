//! `fileserver`, `varmail`, `webserver`: filebench's application personalities, natively.
//!
//! Each is filebench's documented flow (fileserver.f, varmail.f, webserver.f) run by THREADS
//! threads for RUNTIME seconds over a file set of FILES entries whose sizes are drawn from
//! filebench's `cvar-gamma` (shape 1.5, mean MEAN_SIZE), PREALLOC percent of them created
//! before the timed phase, spread over directories of DIRWIDTH entries. Whole-file reads and
//! writes move IO_SIZE (1 MiB) per request; appends add a uniformly random 1..=APPEND_SIZE
//! bytes, as filebench's `appendfilerand`. Like filebench, every flowop is one operation:
//! ops/s counts opens, closes and stats too, and each kind has its own latency.
//!
//! Entries are picked as filebench's `fileset_pick` picks them: in rotation, the first free
//! entry at or after a rotor that then moves past it, wrapping to the lowest; one rotor for
//! existing entries shared by every flowop and thread (these flows pick with thread id 0) and
//! one for absent entries. Which entries are made first is drawn per entry, PREALLOC percent,
//! as filebench's pre-allocation does, so the absent ones lie all over the directories.
//!
//! Invariants:
//! - An entry is held by one thread at a time while it is created, written, appended to or
//!   deleted (taken out of the shared lists, put back after), as filebench marks entries busy;
//!   webserver's read-only set is read by any number of threads at once.
//! - A flowop that finds no entry (all busy, or none absent to create) is skipped, not
//!   counted; the sizes the set keeps are only changed by the thread holding the entry.
//! - Files only exist under the scratch directory, which goes on every exit path.

mod needs;
mod settings;

use super::fileset::{
    self, halted, lat_specs, merge_rows, record_lat, should_stop, OpStat, Port, Site, Tally,
};
use super::{poll, Scratch, WorkloadCtx};
use crate::engine::run_pool;
use crate::engine::{EngineSpec, OpKind, XorShift};
use crate::error::WorkloadError;
use crate::measure::per_s;
use crate::measure::Timing;
use crate::model::MetricSpec;
use crate::params::ParamSpec;
use crate::settings::Group;
use crate::TypedWorkload;
use settings::Settings;
use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// One filebench personality.
pub struct Personality {
    kind: Kind,
}

/// `fileserver`.
pub const FILESERVER: Personality = Personality {
    kind: Kind::Fileserver,
};
/// `varmail`.
pub const VARMAIL: Personality = Personality {
    kind: Kind::Varmail,
};
/// `webserver`.
pub const WEBSERVER: Personality = Personality {
    kind: Kind::Webserver,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Fileserver,
    Varmail,
    Webserver,
}

/// Operation kinds (filebench flowops), indexing the statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Create,
    Write,
    Open,
    Append,
    Read,
    Close,
    Delete,
    Stat,
    Fsync,
}

/// Number of [`Op`] kinds.
const KINDS: usize = 9;

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Create => "create",
            Op::Write => "write",
            Op::Open => "open",
            Op::Append => "append",
            Op::Read => "read",
            Op::Close => "close",
            Op::Delete => "delete",
            Op::Stat => "stat",
            Op::Fsync => "fsync",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Op::Create => "createfile (open O_CREAT|O_EXCL)",
            Op::Write => "writewholefile (the entry's size in IO_SIZE requests)",
            Op::Open => "openfile",
            Op::Append => "appendfilerand (1..=APPEND_SIZE bytes at the end)",
            Op::Read => "readwholefile (IO_SIZE requests)",
            Op::Close => "closefile",
            Op::Delete => "deletefile (unlink)",
            Op::Stat => "statfile",
            Op::Fsync => "fsync",
        }
    }
}

static FILESERVER_SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();
static VARMAIL_SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();
static WEBSERVER_SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();

impl Kind {
    /// The operation kinds of the flow, in flow order (metric order).
    fn ops(self) -> &'static [Op] {
        match self {
            Kind::Fileserver => &[
                Op::Create,
                Op::Write,
                Op::Close,
                Op::Open,
                Op::Append,
                Op::Read,
                Op::Delete,
                Op::Stat,
            ],
            Kind::Varmail => &[
                Op::Delete,
                Op::Create,
                Op::Append,
                Op::Fsync,
                Op::Close,
                Op::Open,
                Op::Read,
            ],
            Kind::Webserver => &[Op::Open, Op::Read, Op::Close, Op::Append],
        }
    }
}

impl TypedWorkload for Personality {
    type Settings = Settings;
    /// Filebench 1.5 drops no page cache after preallocating (fileset.c: F_NOCACHE on macOS only).
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "filebench"
    }
    fn needs(&self, s: &Settings) -> super::needs::Needs {
        use self::needs::{needs, Flow};
        let flow = match self.kind {
            Kind::Fileserver => Flow::Fileserver,
            Kind::Varmail => Flow::Varmail,
            Kind::Webserver => Flow::Webserver,
        };
        needs(flow, s).engine(&s.io)
    }
    fn name(&self) -> &'static str {
        match self.kind {
            Kind::Fileserver => "fileserver",
            Kind::Varmail => "varmail",
            Kind::Webserver => "webserver",
        }
    }
    fn summary(&self) -> &'static str {
        match self.kind {
            Kind::Fileserver => {
                "filebench fileserver: THREADS threads (filebench: 50) for RUNTIME s over FILES \
                 entries (10,000, mean 128 KiB, 20 per directory, 80 % made first). Flow per \
                 loop: create a file, write it whole, close; open one, append, close; open one, \
                 read it whole, close; delete one; stat one. Reports ops/s, MB/s and per \
                 operation ops/s and latency (mean, p50, p99, max)."
            }
            Kind::Varmail => {
                "filebench varmail (mail server): THREADS threads (filebench: 16) for RUNTIME s \
                 over FILES entries (1,000, mean 16 KiB, one directory, 80 % made first). Flow \
                 per loop: delete a mail; create one, append, fsync, close; open one, read it \
                 whole, append, fsync, close; open one, read it whole, close. Reports ops/s, \
                 MB/s and per operation ops/s and latency (mean, p50, p99, max)."
            }
            Kind::Webserver => {
                "filebench webserver: THREADS threads (filebench: 100) for RUNTIME s over FILES \
                 read-only entries (1,000, mean 16 KiB, 20 per directory, all made first). \
                 Flow per loop: ten times open a file, read it whole, close; then append \
                 1..=APPEND_SIZE bytes to one shared log. Reports ops/s, MB/s and per \
                 operation ops/s and latency (mean, p50, p99, max)."
            }
        }
    }
    fn params(&self) -> &'static [ParamSpec] {
        let (specs, defaults) = match self.kind {
            Kind::Fileserver => (&FILESERVER_SPECS, settings::FILESERVER),
            Kind::Varmail => (&VARMAIL_SPECS, settings::VARMAIL),
            Kind::Webserver => (&WEBSERVER_SPECS, settings::WEBSERVER),
        };
        specs.get_or_init(|| <Settings as Group>::specs(&defaults))
    }
    fn metrics(&self, _: &Settings) -> Vec<MetricSpec> {
        let mut m = vec![
            MetricSpec::rate("ops", "ops/s", "operations (every flowop) per second"),
            MetricSpec::rate("mbps", "MB/s", "bytes read and written per second"),
        ];
        for op in self.kind.ops() {
            let name = op.name();
            m.push(MetricSpec::rate(
                &format!("{name}_ops"),
                "ops/s",
                &format!("{} per second", op.help()),
            ));
            m.extend(lat_specs(name, op.help()));
        }
        m
    }
    fn check(&self, s: &Settings) -> Result<(), WorkloadError> {
        Config::new(self.kind, s).map(drop)
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &Settings) -> Result<(), WorkloadError> {
        let cfg = Config::new(self.kind, s)?;
        let scratch = Scratch::create(ctx.root(), self.name())?;
        let tally = Tally::default();
        let set = Fileset::new(scratch.join("set"), &cfg);
        let log = (cfg.kind == Kind::Webserver).then(|| scratch.join("logfile"));
        prepare(&cfg, &set, log.as_deref(), &tally)?;
        let (res, t) = ctx.phase(&[scratch.path()], || {
            run_flow(&cfg, &set, log.as_deref(), &tally)
        })?;
        res.record(ctx, self.kind, &t);
        Ok(())
    }
}

/// Parameters, resolved.
struct Config {
    kind: Kind,
    files: u32,
    mean: u64,
    dirwidth: u64,
    prealloc: u64,
    threads: usize,
    runtime: Duration,
    io_size: u64,
    append_size: u64,
    engine: EngineSpec,
    seed: u64,
}

impl Config {
    fn new(kind: Kind, s: &Settings) -> Result<Config, WorkloadError> {
        let files = s.files;
        if files == 0 || files > u64::from(u32::MAX) || s.io_size == 0 {
            return Err(WorkloadError::Failed(format!(
                "files must be 1..={} and io_size at least 1 (files={files})",
                u32::MAX
            )));
        }
        Ok(Config {
            kind,
            files: files as u32,
            mean: s.mean_size.max(1),
            dirwidth: s.dirwidth.max(1),
            prealloc: s.prealloc.min(100),
            threads: fileset::threads(s.threads),
            runtime: Duration::from_secs(s.runtime.max(1)),
            io_size: s.io_size,
            append_size: s.append_size.max(1),
            engine: fileset::engine_spec(Personality { kind }.name(), &s.io, false)?,
            seed: s.seed,
        })
    }

    fn port(&self, t: usize) -> Result<Port, WorkloadError> {
        Port::new(
            &self.engine,
            self.io_size as usize,
            4096,
            self.seed ^ t as u64,
        )
    }
}

/// Entries that exist and entries that do not, neither counting those held by a thread, and
/// the rotor of each: the index its next pick starts from.
struct Lists {
    existing: BTreeSet<u32>,
    absent: BTreeSet<u32>,
    existing_rotor: u32,
    absent_rotor: u32,
}

/// The file set: names, intended sizes, current sizes and who may take what.
struct Fileset {
    root: PathBuf,
    dirwidth: u64,
    target: Vec<u64>,
    size: Vec<AtomicU64>,
    lists: Mutex<Lists>,
}

impl Fileset {
    /// FILES entries with gamma-distributed sizes; none exists yet.
    fn new(root: PathBuf, cfg: &Config) -> Fileset {
        let mut rng = XorShift::new(cfg.seed);
        let target: Vec<u64> = (0..cfg.files)
            .map(|_| {
                fileset::gamma(&mut rng, 1.5, cfg.mean as f64)
                    .round()
                    .max(1.0) as u64
            })
            .collect();
        Fileset {
            root,
            dirwidth: cfg.dirwidth,
            size: target.iter().map(|_| AtomicU64::new(0)).collect(),
            target,
            lists: Mutex::new(Lists {
                existing: BTreeSet::new(),
                absent: (0..cfg.files).collect(),
                existing_rotor: 0,
                absent_rotor: 0,
            }),
        }
    }

    fn dir(&self, d: u64) -> PathBuf {
        self.root.join(format!("d{d:05}"))
    }

    fn path(&self, i: u32) -> PathBuf {
        self.dir(u64::from(i) / self.dirwidth).join(format!("f{i}"))
    }

    /// Take the next existing (or absent) entry in rotation, holding it until
    /// [`Fileset::put`].
    fn take(&self, existing: bool) -> Option<u32> {
        let mut guard = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        let l = &mut *guard;
        let (set, rotor) = if existing {
            (&mut l.existing, &mut l.existing_rotor)
        } else {
            (&mut l.absent, &mut l.absent_rotor)
        };
        let i = next_in(set, *rotor)?;
        set.remove(&i);
        *rotor = i.wrapping_add(1);
        Some(i)
    }

    /// The next existing entry in rotation, without holding it (read-only sets).
    fn peek(&self) -> Option<u32> {
        let mut l = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        let i = next_in(&l.existing, l.existing_rotor)?;
        l.existing_rotor = i.wrapping_add(1);
        Some(i)
    }

    /// Give entry `i` back, as existing or absent.
    fn put(&self, i: u32, existing: bool) {
        let mut l = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        if existing {
            l.existing.insert(i);
        } else {
            l.absent.insert(i);
        }
    }
}

/// filebench's `fileset_find_entry`: the entry at `from`, else the next higher one, else the
/// lowest.
fn next_in(set: &BTreeSet<u32>, from: u32) -> Option<u32> {
    set.range(from..).next().or_else(|| set.first()).copied()
}

/// The entries made before the timed phase: each on its own draw, PREALLOC percent, as
/// filebench's pre-allocation draws `rand()` per entry.
fn preallocated(cfg: &Config) -> Vec<u32> {
    let mut rng = XorShift::new(cfg.seed ^ 0x9e37_79b9_7f4a_7c15);
    (0..cfg.files)
        .filter(|_| rng.below(100) < cfg.prealloc)
        .collect()
}

/// Make the directories, the PREALLOC percent of entries (all threads) and webserver's log.
fn prepare(
    cfg: &Config,
    set: &Fileset,
    log: Option<&Path>,
    tally: &Tally,
) -> Result<(), WorkloadError> {
    fileset::mkdir(&set.root, tally)?;
    for d in 0..u64::from(cfg.files).div_ceil(cfg.dirwidth) {
        poll(d)?;
        fileset::mkdir(&set.dir(d), tally)?;
    }
    let made = preallocated(cfg);
    let stop = AtomicBool::new(false);
    let threads = cfg.threads.min(made.len().max(1));
    let setup = |t: usize| cfg.port(t);
    let body = |t: usize, port: Port, _: Instant| {
        let mut w = Worker::new(cfg, set, port, t, tally);
        for &i in made.iter().skip(t).step_by(threads) {
            if halted(&stop)? {
                break;
            }
            let id = w.create(i)?;
            w.write_whole(id, i)?;
            w.close(id);
        }
        Ok(())
    };
    run_pool::<_, _, WorkloadError>(threads, &stop, setup, body)?;
    {
        let mut l = set.lists.lock().unwrap_or_else(|p| p.into_inner());
        l.existing = made.iter().copied().collect();
        l.absent = (0..cfg.files).filter(|i| !l.existing.contains(i)).collect();
    }
    if let Some(log) = log {
        let mut port = cfg.port(0)?;
        let f = create_file(log, tally)?;
        let id = port.add(f)?;
        let site = Site { path: log, tally };
        port.transfer(OpKind::Write, id, 0, cfg.mean, site)?;
        port.close(id);
    }
    Ok(())
}

fn create_file(path: &Path, tally: &Tally) -> Result<File, WorkloadError> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| tally.io(format!("create {}", path.display()), e))?;
    tally.created();
    Ok(f)
}

/// The shared log of webserver: its path and where the next append goes.
struct Log<'a> {
    path: &'a Path,
    end: AtomicU64,
}

/// Per-kind statistics, merged over the threads, and the window.
struct FlowResult {
    stats: Vec<OpStat>,
    secs: f64,
}

/// Run the personality's flow on every thread until the runtime is over.
fn run_flow(
    cfg: &Config,
    set: &Fileset,
    log: Option<&Path>,
    tally: &Tally,
) -> Result<FlowResult, WorkloadError> {
    let stop = AtomicBool::new(false);
    let log = log.map(|path| Log {
        path,
        end: AtomicU64::new(cfg.mean),
    });
    let setup = |t: usize| {
        let mut port = cfg.port(t)?;
        let log_id = match &log {
            Some(l) => {
                let f = OpenOptions::new()
                    .write(true)
                    .open(l.path)
                    .map_err(|e| WorkloadError::io(format!("open {}", l.path.display()), e))?;
                Some(port.add(f)?)
            }
            None => None,
        };
        Ok((port, log_id))
    };
    let body = |t: usize, (port, log_id): (Port, Option<u32>), start: Instant| {
        let mut w = Worker::new(cfg, set, port, t, tally);
        let log = log.as_ref().zip(log_id);
        let deadline = start + cfg.runtime;
        while !should_stop(deadline, &stop)? {
            match cfg.kind {
                Kind::Fileserver => w.fileserver()?,
                Kind::Varmail => w.varmail()?,
                Kind::Webserver => w.webserver(log.expect("webserver has a log"))?,
            }
        }
        // The log stays open for the whole run, as filebench's fd=11: closing it is teardown,
        // not a flowop.
        if let Some((_, id)) = log {
            w.port.close(id);
        }
        Ok(w.stats)
    };
    let (rows, secs) = run_pool::<_, _, WorkloadError>(cfg.threads, &stop, setup, body)?;
    Ok(FlowResult {
        stats: merge_rows(&rows, KINDS),
        secs,
    })
}

/// One thread of a personality: its engine, its append sizes and its statistics.
struct Worker<'a> {
    set: &'a Fileset,
    port: Port,
    rng: XorShift,
    stats: Vec<OpStat>,
    tally: &'a Tally,
    append_size: u64,
}

impl<'a> Worker<'a> {
    fn new(cfg: &Config, set: &'a Fileset, port: Port, t: usize, tally: &'a Tally) -> Self {
        Worker {
            set,
            port,
            rng: XorShift::new(cfg.seed.wrapping_mul(7919).wrapping_add(t as u64 + 1)),
            stats: vec![OpStat::default(); KINDS],
            tally,
            append_size: cfg.append_size,
        }
    }

    /// fileserver.f: create, write whole, close; open, append, close; open, read whole,
    /// close; delete; stat.
    fn fileserver(&mut self) -> Result<(), WorkloadError> {
        if let Some(i) = self.set.take(false) {
            let id = self.create(i)?;
            self.write_whole(id, i)?;
            self.close(id);
            self.set.put(i, true);
        }
        if let Some(i) = self.set.take(true) {
            let id = self.open(i)?;
            self.append(id, i)?;
            self.close(id);
            self.set.put(i, true);
        }
        if let Some(i) = self.set.take(true) {
            let id = self.open(i)?;
            self.read_whole(id, i)?;
            self.close(id);
            self.set.put(i, true);
        }
        if let Some(i) = self.set.take(true) {
            self.delete(i)?;
            self.set.put(i, false);
        }
        if let Some(i) = self.set.take(true) {
            self.stat(i)?;
            self.set.put(i, true);
        }
        Ok(())
    }

    /// varmail.f: delete; create, append, fsync, close; open, read whole, append, fsync,
    /// close; open, read whole, close.
    fn varmail(&mut self) -> Result<(), WorkloadError> {
        if let Some(i) = self.set.take(true) {
            self.delete(i)?;
            self.set.put(i, false);
        }
        if let Some(i) = self.set.take(false) {
            let id = self.create(i)?;
            self.append(id, i)?;
            self.fsync(id, i)?;
            self.close(id);
            self.set.put(i, true);
        }
        if let Some(i) = self.set.take(true) {
            let id = self.open(i)?;
            self.read_whole(id, i)?;
            self.append(id, i)?;
            self.fsync(id, i)?;
            self.close(id);
            self.set.put(i, true);
        }
        if let Some(i) = self.set.take(true) {
            let id = self.open(i)?;
            self.read_whole(id, i)?;
            self.close(id);
            self.set.put(i, true);
        }
        Ok(())
    }

    /// webserver.f: ten times open, read whole, close (shared read-only set); append to the
    /// log.
    fn webserver(&mut self, (log, id): (&Log<'_>, u32)) -> Result<(), WorkloadError> {
        for _ in 0..10 {
            if let Some(i) = self.set.peek() {
                let id = self.open_read(i)?;
                self.read_whole(id, i)?;
                self.close(id);
            }
        }
        let n = 1 + self.rng.below(self.append_size);
        let at = log.end.fetch_add(n, Ordering::Relaxed);
        let t0 = Instant::now();
        let site = Site {
            path: log.path,
            tally: self.tally,
        };
        self.port.transfer(OpKind::Write, id, at, n, site)?;
        self.stats[Op::Append as usize].done(t0, n);
        Ok(())
    }

    fn create(&mut self, i: u32) -> Result<u32, WorkloadError> {
        let t0 = Instant::now();
        let f = create_file(&self.set.path(i), self.tally)?;
        let id = self.port.add(f)?;
        self.set.size[i as usize].store(0, Ordering::Relaxed);
        self.stats[Op::Create as usize].done(t0, 0);
        Ok(id)
    }

    fn open(&mut self, i: u32) -> Result<u32, WorkloadError> {
        self.open_as(i, true)
    }

    /// Open read-only, as filebench opens the files of a read-only set.
    fn open_read(&mut self, i: u32) -> Result<u32, WorkloadError> {
        self.open_as(i, false)
    }

    fn open_as(&mut self, i: u32, write: bool) -> Result<u32, WorkloadError> {
        let t0 = Instant::now();
        let path = self.set.path(i);
        let f = OpenOptions::new()
            .read(true)
            .write(write)
            .open(&path)
            .map_err(|e| WorkloadError::io(format!("open {}", path.display()), e))?;
        let id = self.port.add(f)?;
        self.stats[Op::Open as usize].done(t0, 0);
        Ok(id)
    }

    fn close(&mut self, id: u32) {
        let t0 = Instant::now();
        self.port.close(id);
        self.stats[Op::Close as usize].done(t0, 0);
    }

    /// Move `len` bytes at `offset` of entry `i` (open as `id`), counted as `op`.
    fn io(&mut self, op: Op, id: u32, i: u32, offset: u64, len: u64) -> Result<(), WorkloadError> {
        let t0 = Instant::now();
        let path = self.set.path(i);
        let site = Site {
            path: &path,
            tally: self.tally,
        };
        let kind = if op == Op::Read {
            OpKind::Read
        } else {
            OpKind::Write
        };
        self.port.transfer(kind, id, offset, len, site)?;
        self.stats[op as usize].done(t0, len);
        Ok(())
    }

    fn write_whole(&mut self, id: u32, i: u32) -> Result<(), WorkloadError> {
        let size = self.set.target[i as usize];
        self.io(Op::Write, id, i, 0, size)?;
        self.set.size[i as usize].store(size, Ordering::Relaxed);
        Ok(())
    }

    fn read_whole(&mut self, id: u32, i: u32) -> Result<(), WorkloadError> {
        let size = self.set.size[i as usize].load(Ordering::Relaxed);
        self.io(Op::Read, id, i, 0, size)
    }

    fn append(&mut self, id: u32, i: u32) -> Result<(), WorkloadError> {
        let n = 1 + self.rng.below(self.append_size);
        let size = self.set.size[i as usize].load(Ordering::Relaxed);
        self.io(Op::Append, id, i, size, n)?;
        self.set.size[i as usize].store(size + n, Ordering::Relaxed);
        Ok(())
    }

    fn fsync(&mut self, id: u32, i: u32) -> Result<(), WorkloadError> {
        let t0 = Instant::now();
        let path = self.set.path(i);
        let site = Site {
            path: &path,
            tally: self.tally,
        };
        self.port.fsync(id, site)?;
        self.stats[Op::Fsync as usize].done(t0, 0);
        Ok(())
    }

    fn delete(&mut self, i: u32) -> Result<(), WorkloadError> {
        let t0 = Instant::now();
        let path = self.set.path(i);
        std::fs::remove_file(&path)
            .map_err(|e| WorkloadError::io(format!("unlink {}", path.display()), e))?;
        self.stats[Op::Delete as usize].done(t0, 0);
        Ok(())
    }

    fn stat(&mut self, i: u32) -> Result<(), WorkloadError> {
        let t0 = Instant::now();
        let path = self.set.path(i);
        std::fs::metadata(&path)
            .map_err(|e| WorkloadError::io(format!("stat {}", path.display()), e))?;
        self.stats[Op::Stat as usize].done(t0, 0);
        Ok(())
    }
}

impl FlowResult {
    /// Record every metric of [`Personality::metrics`].
    fn record(&self, ctx: &mut WorkloadCtx<'_>, kind: Kind, t: &Timing) {
        let ops: u64 = self.stats.iter().map(|s| s.ops).sum();
        let bytes: u64 = self.stats.iter().map(|s| s.bytes).sum();
        ctx.record("ops", t, per_s(ops as f64, self.secs));
        ctx.record("mbps", t, per_s(bytes as f64, self.secs) / 1e6);
        for &op in kind.ops() {
            let s = &self.stats[op as usize];
            ctx.record(
                &format!("{}_ops", op.name()),
                t,
                per_s(s.ops as f64, self.secs),
            );
            record_lat(ctx, op.name(), t, &s.lat);
        }
    }
}

#[cfg(test)]
mod tests;

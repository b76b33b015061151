//! The fio options fsbattery covers, as one table ([`OPTIONS`]): each entry's name, aliases,
//! one line of help (what `fsbattery list fio-options` prints) and the setter that reads its
//! value into the typed [`JobOpts`]. An option that is not in the table is refused by the
//! caller, naming it and its line: nothing is ignored silently.
//!
//! Defaults are fio 3.33's (`options.c`): rw=read, bs=4k, iodepth=1, ioengine=psync,
//! rwmixread=50, invalidate=1, randrepeat=1, fallocate=native, fadvise_hint=1,
//! file_service_type=roundrobin.

use super::units;

/// Block sizes of one direction.
#[derive(Debug, Clone, PartialEq)]
pub enum Bs {
    /// Every operation this size.
    Fixed(u64),
    /// Uniform between the two (multiples of the smaller, as fio's `bsrange` with the
    /// default `bs_unaligned=0`).
    Range(u64, u64),
    /// `bssplit`: sizes with their percentages (adding up to 100).
    Split(Vec<(u64, u32)>),
}

impl Bs {
    /// Smallest and largest size.
    pub fn bounds(&self) -> (u64, u64) {
        match self {
            Bs::Fixed(b) => (*b, *b),
            Bs::Range(a, b) => (*a, *b),
            Bs::Split(v) => (
                v.iter().map(|e| e.0).min().unwrap_or(0),
                v.iter().map(|e| e.0).max().unwrap_or(0),
            ),
        }
    }
}

/// `random_distribution`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Uniform.
    Random,
    /// zipf with its theta.
    Zipf(f64),
    /// pareto with its h.
    Pareto(f64),
    /// normal with its deviation in percent of the file.
    Normal(f64),
}

/// `file_service_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileService {
    /// Next file after every N operations.
    RoundRobin(u32),
    /// Each file to its end before the next.
    Sequential,
    /// A random file after every N operations.
    Random(u32),
}

/// `fallocate`: how a file is preallocated when it is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallocate {
    /// Nothing.
    None,
    /// fallocate(2) mode 0 (fio's `native`, its Linux default; also `1`).
    Native,
    /// posix_fallocate(3) (also `posix`).
    Posix,
    /// fallocate(2) with FALLOC_FL_KEEP_SIZE.
    Keep,
    /// ftruncate(2) to the size.
    Truncate,
}

/// `fadvise_hint`: the access pattern a file is advised with when the job opens it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fadvise {
    /// No advice (`0`).
    None,
    /// By the job's pattern (`1`, fio's default): random jobs `POSIX_FADV_RANDOM`, others
    /// `POSIX_FADV_SEQUENTIAL`.
    Type,
    /// `POSIX_FADV_RANDOM`.
    Random,
    /// `POSIX_FADV_SEQUENTIAL`.
    Sequential,
    /// `POSIX_FADV_NOREUSE`.
    Noreuse,
}

/// `sync`: how files are opened for writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncMode {
    /// Plain.
    None,
    /// O_SYNC (`sync=1` or `sync=sync`).
    Sync,
    /// O_DSYNC (`sync=dsync`).
    Dsync,
}

/// One job's options, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct JobOpts {
    /// The job's name (its section, or `name=`).
    pub name: String,
    /// It reads.
    pub read: bool,
    /// It writes.
    pub write: bool,
    /// Random offsets (else sequential).
    pub random: bool,
    /// Percent of a mixed job's operations that read.
    pub rwmixread: u32,
    /// Block sizes for reads and writes.
    pub bs: [Bs; 2],
    /// Bytes of IO per loop, over all its files (`size`).
    pub size: Option<u64>,
    /// Each file's size, or a range to draw it from (`filesize`).
    pub filesize: Option<(u64, u64)>,
    /// Files per job.
    pub nrfiles: u32,
    /// Most files open at once (0: all).
    pub openfiles: u32,
    /// How the next file is chosen.
    pub file_service: FileService,
    /// Clones of the job.
    pub numjobs: u32,
    /// Operations in flight per clone.
    pub iodepth: u32,
    /// fio's engine name as written (psync, libaio, ...).
    pub ioengine: String,
    /// O_DIRECT.
    pub direct: bool,
    /// fsync after every N writes (0: never).
    pub fsync: u64,
    /// fdatasync after every N writes (0: never).
    pub fdatasync: u64,
    /// fsync every file when the job ends.
    pub end_fsync: bool,
    /// fsync a file when it is closed.
    pub fsync_on_close: bool,
    /// O_SYNC / O_DSYNC.
    pub sync: SyncMode,
    /// Create files when the job opens them, not in the layout before it.
    pub create_on_open: bool,
    /// Preallocation of created files.
    pub fallocate: Fallocate,
    /// The advice each opened file gets.
    pub fadvise: Fadvise,
    /// Lay files out (written) before a write job, as for reads.
    pub overwrite: bool,
    /// Remove the job's files when it ends.
    pub unlink: bool,
    /// Stop after this long (ns), ramp included in fio's sense (runtime after ramp).
    pub runtime_ns: Option<u64>,
    /// Keep going until the runtime ends, wrapping around the files.
    pub time_based: bool,
    /// Run this long (ns) before measuring.
    pub ramp_ns: u64,
    /// Passes over the files (not time based).
    pub loops: u32,
    /// Pause after each `thinktime_blocks` operations (ns).
    pub thinktime_ns: u64,
    /// Operations between pauses.
    pub thinktime_blocks: u32,
    /// Bytes per second per direction (0: unlimited).
    pub rate: [u64; 2],
    /// Operations per second per direction (0: unlimited).
    pub rate_iops: [u64; 2],
    /// Wait for the jobs before it, and start a new reporting group.
    pub stonewall: bool,
    /// Evict the job's files from the page cache before it starts.
    pub invalidate: bool,
    /// Same offsets every run (seeded by `randseed`).
    pub randrepeat: bool,
    /// The random seed.
    pub randseed: u64,
    /// Offsets drawn with replacement (else every block once per pass).
    pub norandommap: bool,
    /// Which blocks random offsets favour.
    pub distribution: Distribution,
    /// New buffer content for every write.
    pub refill_buffers: bool,
    /// Share of each buffer that compresses.
    pub compress_pct: Option<u32>,
    /// Buffers of zeros.
    pub zero_buffers: bool,
    /// Folder of the job's files, relative to the target's.
    pub directory: Option<String>,
    /// The job's files by name (`:`-separated), shared by its clones.
    pub filename: Option<String>,
}

impl Default for JobOpts {
    fn default() -> Self {
        JobOpts {
            name: String::new(),
            read: true,
            write: false,
            random: false,
            rwmixread: 50,
            bs: [Bs::Fixed(4096), Bs::Fixed(4096)],
            size: None,
            filesize: None,
            nrfiles: 1,
            openfiles: 0,
            file_service: FileService::RoundRobin(1),
            numjobs: 1,
            iodepth: 1,
            ioengine: "psync".into(),
            direct: false,
            fsync: 0,
            fdatasync: 0,
            end_fsync: false,
            fsync_on_close: false,
            sync: SyncMode::None,
            create_on_open: false,
            fallocate: Fallocate::Native,
            fadvise: Fadvise::Type,
            overwrite: false,
            unlink: false,
            runtime_ns: None,
            time_based: false,
            ramp_ns: 0,
            loops: 1,
            thinktime_ns: 0,
            thinktime_blocks: 1,
            rate: [0, 0],
            rate_iops: [0, 0],
            stonewall: false,
            invalidate: true,
            randrepeat: true,
            randseed: 0x5eed_f10f,
            norandommap: false,
            distribution: Distribution::Random,
            refill_buffers: false,
            compress_pct: None,
            zero_buffers: false,
            directory: None,
            filename: None,
        }
    }
}

/// A setter: reads the value (`None` for a bare key) into the options.
type Setter = fn(&mut JobOpts, Option<&str>) -> Result<(), String>;

/// One covered option.
pub struct FioOption {
    /// fio's name.
    pub name: &'static str,
    /// Other names fio accepts for it.
    pub aliases: &'static [&'static str],
    /// What fsbattery does with it, one line.
    pub help: &'static str,
    set: Setter,
}

/// The fio engines fsbattery runs, and the engine of its own each maps onto.
pub const ENGINES: &[(&str, &str)] = &[
    ("psync", "sync"),
    ("sync", "sync"),
    ("pvsync", "sync"),
    ("pvsync2", "sync"),
    ("libaio", "io_uring"),
    ("io_uring", "io_uring"),
    ("posixaio", "io_uring"),
];

fn need(v: Option<&str>) -> Result<&str, String> {
    v.filter(|s| !s.trim().is_empty())
        .ok_or_else(|| "needs a value".to_string())
}

fn rw(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    let v = need(v)?.trim().to_ascii_lowercase();
    if v.contains(':') {
        return Err("an offset modifier (rw=...:N) is not supported: drop the :N".into());
    }
    let (read, write, random) = match v.as_str() {
        "read" => (true, false, false),
        "write" => (false, true, false),
        "randread" => (true, false, true),
        "randwrite" => (false, true, true),
        "rw" | "readwrite" => (true, true, false),
        "randrw" => (true, true, true),
        t if t.contains("trim") => {
            return Err("trim is refused on files (it discards a block device's blocks)".into())
        }
        _ => return Err("use read, write, randread, randwrite, rw or randrw".into()),
    };
    (o.read, o.write, o.random) = (read, write, random);
    Ok(())
}

fn bs(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    let [r, w] = units::per_direction(need(v)?, "4k", &[',']);
    o.bs = [
        Bs::Fixed(nonzero(units::size(r)?)?),
        Bs::Fixed(nonzero(units::size(w)?)?),
    ];
    Ok(())
}

fn bsrange(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    let [r, w] = units::per_direction(need(v)?, "4k", &[',', '/']);
    let range = |s: &str| -> Result<Bs, String> {
        let (a, b) = units::size_range(s)?;
        nonzero(a)?;
        Ok(if a == b {
            Bs::Fixed(a)
        } else {
            Bs::Range(a, b)
        })
    };
    o.bs = [range(r)?, range(w)?];
    Ok(())
}

fn bssplit(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    let v = need(v)?;
    let mut parts = v.split(',').map(str::trim);
    let r = units::bssplit(parts.next().unwrap_or(""))?;
    let w = match parts.next() {
        Some(w) if !w.is_empty() => units::bssplit(w)?,
        _ => r.clone(),
    };
    o.bs = [Bs::Split(r), Bs::Split(w)];
    Ok(())
}

fn nonzero(v: u64) -> Result<u64, String> {
    if v == 0 {
        Err("must be above 0".into())
    } else {
        Ok(v)
    }
}

fn count(v: Option<&str>, max: u64) -> Result<u32, String> {
    let n = units::int(need(v)?)?;
    if n == 0 || n > max {
        return Err(format!("{n} is outside 1..={max}"));
    }
    Ok(n as u32)
}

fn engine(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    let v = need(v)?.trim().to_ascii_lowercase();
    if !ENGINES.iter().any(|(n, _)| *n == v) {
        let names: Vec<&str> = ENGINES.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "ioengine {v} is not supported: fsbattery runs {}",
            names.join(", ")
        ));
    }
    o.ioengine = v;
    Ok(())
}

fn distribution(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    let v = need(v)?.trim().to_ascii_lowercase();
    let (kind, arg) = match v.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (v.as_str(), None),
    };
    if arg.is_some_and(|a| a.contains([',', ':'])) {
        return Err("a split distribution (ranges with ':' or ',') is not supported".into());
    }
    let num = |def: Option<f64>| -> Result<f64, String> {
        match (arg, def) {
            (Some(a), _) => a.parse().map_err(|_| format!("'{a}' is not a number")),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(format!("{kind} needs its parameter, e.g. {kind}:1.2")),
        }
    };
    o.distribution = match kind {
        "random" => Distribution::Random,
        "zipf" => {
            let t = num(None)?;
            if !(t > 0.0 && t != 1.0 && t < 100.0) {
                return Err("zipf's theta must be above 0, below 100 and not 1".into());
            }
            Distribution::Zipf(t)
        }
        "pareto" => {
            let h = num(None)?;
            if !(h > 0.0 && h < 1.0) {
                return Err("pareto's h must lie strictly between 0 and 1".into());
            }
            Distribution::Pareto(h)
        }
        "normal" => {
            let d = num(Some(0.0))?;
            if !(0.0..=100.0).contains(&d) {
                return Err("normal's deviation is a percentage, 0 to 100".into());
            }
            Distribution::Normal(d)
        }
        _ => return Err("use random, zipf:THETA, pareto:H or normal[:DEV%]".into()),
    };
    Ok(())
}

fn file_service(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    let v = need(v)?.trim().to_ascii_lowercase();
    let (kind, n) = match v.split_once(':') {
        Some((k, n)) => (k, count(Some(n), u64::from(u32::MAX))?),
        None => (v.as_str(), 1),
    };
    o.file_service = match kind {
        "roundrobin" => FileService::RoundRobin(n),
        "sequential" => FileService::Sequential,
        "random" => FileService::Random(n),
        _ => return Err("use roundrobin[:N], sequential or random[:N]".into()),
    };
    Ok(())
}

fn fallocate(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    o.fallocate = match need(v)?.trim().to_ascii_lowercase().as_str() {
        "none" | "0" => Fallocate::None,
        "native" | "1" => Fallocate::Native,
        "posix" => Fallocate::Posix,
        "keep" => Fallocate::Keep,
        "truncate" => Fallocate::Truncate,
        _ => return Err("use none, native, posix, keep or truncate".into()),
    };
    Ok(())
}

fn fadvise(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    o.fadvise = match need(v)?.trim().to_ascii_lowercase().as_str() {
        "0" => Fadvise::None,
        "1" => Fadvise::Type,
        "random" => Fadvise::Random,
        "sequential" => Fadvise::Sequential,
        "noreuse" => Fadvise::Noreuse,
        _ => return Err("use 0, 1, random, sequential or noreuse".into()),
    };
    Ok(())
}

fn sync(o: &mut JobOpts, v: Option<&str>) -> Result<(), String> {
    o.sync = match v.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("1") | Some("sync") => SyncMode::Sync,
        Some("0") | Some("none") => SyncMode::None,
        Some("dsync") => SyncMode::Dsync,
        _ => return Err("use 0, 1, none, sync or dsync".into()),
    };
    Ok(())
}

fn rate(v: Option<&str>, parse: fn(&str) -> Result<u64, String>) -> Result<[u64; 2], String> {
    let [r, w] = units::per_direction(need(v)?, "0", &[',']);
    Ok([parse(r)?, parse(w)?])
}

fn relative(v: Option<&str>) -> Result<String, String> {
    let v = need(v)?.trim();
    for part in v.split(':') {
        let p = std::path::Path::new(part);
        if p.is_absolute() {
            return Err(format!(
                "{part} is an absolute path: a job runs inside each target's directory; give \
                 a path relative to it"
            ));
        }
        if p.components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(format!("{part} climbs out of the target's directory (..)"));
        }
    }
    Ok(v.to_string())
}

fn time(v: Option<&str>) -> Result<u64, String> {
    units::time_ns(need(v)?, 1_000_000_000)
}

macro_rules! flag {
    ($field:ident) => {
        |o: &mut JobOpts, v: Option<&str>| {
            o.$field = units::boolean(v)?;
            Ok(())
        }
    };
}

/// Every covered option, in `list fio-options` order.
#[rustfmt::skip]
pub static OPTIONS: &[FioOption] = &[
    FioOption { name: "name", aliases: &[], help: "the job's name (default: its section)", set: |o, v| { o.name = need(v)?.trim().to_string(); Ok(()) } },
    FioOption { name: "description", aliases: &[], help: "free text, kept out of the run", set: |_, _| Ok(()) },
    FioOption { name: "rw", aliases: &["readwrite"], help: "read, write, randread, randwrite, rw/readwrite, randrw (trim refused on files)", set: rw },
    FioOption { name: "rwmixread", aliases: &[], help: "percent of a mixed job's operations that read (default 50)", set: |o, v| { o.rwmixread = units::percent(need(v)?)?; Ok(()) } },
    FioOption { name: "rwmixwrite", aliases: &[], help: "percent that write (rwmixread = 100 - it)", set: |o, v| { o.rwmixread = 100 - units::percent(need(v)?)?; Ok(()) } },
    FioOption { name: "bs", aliases: &["blocksize"], help: "block size, or READ,WRITE (default 4k)", set: bs },
    FioOption { name: "bsrange", aliases: &["blocksize_range"], help: "block sizes drawn from MIN-MAX (multiples of MIN), or R-R,W-W", set: bsrange },
    FioOption { name: "bssplit", aliases: &[], help: "block sizes with their shares: 4k/70:64k/30, optionally READS,WRITES", set: bssplit },
    FioOption { name: "size", aliases: &[], help: "bytes of IO per job and loop over its files (files sized size/nrfiles)", set: |o, v| { let v = need(v)?; if v.trim().ends_with('%') { return Err("a percentage of a device is not supported on files: give bytes".into()) } o.size = Some(nonzero(units::size(v)?)?); Ok(()) } },
    FioOption { name: "filesize", aliases: &[], help: "each file's size, or MIN-MAX drawn per file", set: |o, v| { let r = units::size_range(need(v)?)?; nonzero(r.0)?; o.filesize = Some(r); Ok(()) } },
    FioOption { name: "nrfiles", aliases: &[], help: "files per job (named JOB.CLONE.N)", set: |o, v| { o.nrfiles = count(v, 1 << 20)?; Ok(()) } },
    FioOption { name: "openfiles", aliases: &[], help: "most files open at once; a finished file is closed and the next opened", set: |o, v| { o.openfiles = count(v, 1 << 20)?; Ok(()) } },
    FioOption { name: "file_service_type", aliases: &[], help: "roundrobin[:N] (default), sequential, random[:N]", set: file_service },
    FioOption { name: "numjobs", aliases: &[], help: "clones of the job, each a thread with its own files (shared when filename is set)", set: |o, v| { o.numjobs = count(v, 1024)?; Ok(()) } },
    FioOption { name: "iodepth", aliases: &[], help: "operations in flight per clone (queued engines)", set: |o, v| { o.iodepth = count(v, 4096)?; Ok(()) } },
    FioOption { name: "ioengine", aliases: &[], help: "psync, sync, pvsync, pvsync2 run on fsbattery's sync engine; libaio, io_uring, posixaio on io_uring; others refused", set: engine },
    FioOption { name: "direct", aliases: &[], help: "O_DIRECT (1) or buffered (0)", set: flag!(direct) },
    FioOption { name: "buffered", aliases: &[], help: "the opposite of direct", set: |o, v| { o.direct = !units::boolean(v)?; Ok(()) } },
    FioOption { name: "fsync", aliases: &[], help: "fsync the file after every N writes (timed as sync latency)", set: |o, v| { o.fsync = units::int(need(v)?)?; Ok(()) } },
    FioOption { name: "fdatasync", aliases: &[], help: "fdatasync after every N writes (timed as sync latency)", set: |o, v| { o.fdatasync = units::int(need(v)?)?; Ok(()) } },
    FioOption { name: "end_fsync", aliases: &[], help: "fsync every file when the job's IO is done (in its runtime; not in sync latency, as fio)", set: flag!(end_fsync) },
    FioOption { name: "fsync_on_close", aliases: &[], help: "fsync a file when it is closed (in the runtime; not in sync latency, as fio)", set: flag!(fsync_on_close) },
    FioOption { name: "sync", aliases: &[], help: "open for writing with O_SYNC (1, sync) or O_DSYNC (dsync)", set: sync },
    FioOption { name: "create_on_open", aliases: &[], help: "create files when the job opens them instead of laying them out first", set: flag!(create_on_open) },
    FioOption { name: "fallocate", aliases: &[], help: "preallocate created files: native (default), posix, keep, truncate, none", set: fallocate },
    FioOption { name: "fadvise_hint", aliases: &[], help: "advise the kernel of the pattern at open: 1 (default: random or sequential by the job), 0, random, sequential, noreuse", set: fadvise },
    FioOption { name: "overwrite", aliases: &[], help: "write files out before a write job (as for reads)", set: flag!(overwrite) },
    FioOption { name: "unlink", aliases: &[], help: "remove the job's files when it ends", set: flag!(unlink) },
    FioOption { name: "runtime", aliases: &["timeout"], help: "stop the job after this long (seconds, or with s/m/h/ms)", set: |o, v| { o.runtime_ns = Some(time(v)?).filter(|t| *t > 0); Ok(()) } },
    FioOption { name: "time_based", aliases: &[], help: "run for the whole runtime, wrapping around the files", set: flag!(time_based) },
    FioOption { name: "ramp_time", aliases: &[], help: "run this long before measuring", set: |o, v| { o.ramp_ns = time(v)?; Ok(()) } },
    FioOption { name: "loops", aliases: &[], help: "passes over the files (not time based)", set: |o, v| { o.loops = count(v, 1 << 20)?; Ok(()) } },
    FioOption { name: "thinktime", aliases: &[], help: "pause after each thinktime_blocks operations (microseconds, or with a unit)", set: |o, v| { o.thinktime_ns = units::time_ns(need(v)?, 1000)?; Ok(()) } },
    FioOption { name: "thinktime_blocks", aliases: &[], help: "operations between thinktime pauses (default 1)", set: |o, v| { o.thinktime_blocks = count(v, u64::from(u32::MAX))?; Ok(()) } },
    FioOption { name: "rate", aliases: &[], help: "bytes per second, or READ,WRITE, per clone", set: |o, v| { o.rate = rate(v, units::size)?; Ok(()) } },
    FioOption { name: "rate_iops", aliases: &[], help: "operations per second, or READ,WRITE, per clone", set: |o, v| { o.rate_iops = rate(v, units::int)?; Ok(()) } },
    FioOption { name: "stonewall", aliases: &["wait_for_previous"], help: "wait for the jobs before, and start a new reporting group", set: flag!(stonewall) },
    FioOption { name: "new_group", aliases: &[], help: "start a new reporting group (fsbattery waits for the previous group too)", set: flag!(stonewall) },
    FioOption { name: "group_reporting", aliases: &[], help: "accepted: fsbattery always reports per group", set: |_, v| units::boolean(v).map(drop) },
    FioOption { name: "thread", aliases: &[], help: "accepted: fsbattery's clones are threads", set: |_, v| units::boolean(v).map(drop) },
    FioOption { name: "invalidate", aliases: &[], help: "evict the job's files from the page cache before it (default 1)", set: flag!(invalidate) },
    FioOption { name: "randrepeat", aliases: &[], help: "the same random offsets on every repeat (default 1)", set: flag!(randrepeat) },
    FioOption { name: "randseed", aliases: &[], help: "seed of the random offsets", set: |o, v| { o.randseed = units::int(need(v)?)?; Ok(()) } },
    FioOption { name: "norandommap", aliases: &[], help: "random offsets with replacement (default: each block once per pass)", set: flag!(norandommap) },
    FioOption { name: "random_distribution", aliases: &[], help: "random (default), zipf:THETA, pareto:H, normal[:DEV%]", set: distribution },
    FioOption { name: "refill_buffers", aliases: &[], help: "new buffer content for every write", set: flag!(refill_buffers) },
    FioOption { name: "buffer_compress_percentage", aliases: &[], help: "share of each write buffer that compresses", set: |o, v| { o.compress_pct = Some(units::percent(need(v)?)?); Ok(()) } },
    FioOption { name: "zero_buffers", aliases: &[], help: "write buffers of zeros", set: flag!(zero_buffers) },
    FioOption { name: "directory", aliases: &[], help: "folder of the files, relative to the target's (absolute paths refused)", set: |o, v| { o.directory = Some(relative(v)?); Ok(()) } },
    FioOption { name: "filename", aliases: &[], help: "the files by name (a:b), shared by the clones; relative to the target's folder", set: |o, v| { o.filename = Some(relative(v)?); Ok(()) } },
];

/// The covered option named `key` (by name or alias).
pub fn find(key: &str) -> Option<&'static FioOption> {
    OPTIONS
        .iter()
        .find(|o| o.name == key || o.aliases.contains(&key))
}

/// Set `key` to `value` in `o`; the error says what is wrong with the value, or that the
/// option is not covered.
pub fn apply(o: &mut JobOpts, key: &str, value: Option<&str>) -> Result<(), String> {
    match find(key) {
        Some(opt) => (opt.set)(o, value),
        None => Err(
            "is not supported by fsbattery (see `fsbattery list fio-options`): remove it, or \
             run this job with fio itself"
                .into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covered_options_set_their_fields() {
        let mut o = JobOpts::default();
        for (k, v) in [
            ("readwrite", Some("randrw")),
            ("rwmixwrite", Some("30")),
            ("bssplit", Some("4k/50:64k/50")),
            ("ioengine", Some("libaio")),
            ("time_based", None),
            ("runtime", Some("5")),
            ("random_distribution", Some("zipf:1.2")),
            ("rate", Some(",1m")),
        ] {
            apply(&mut o, k, v).unwrap();
        }
        assert!(o.read && o.write && o.random && o.time_based);
        assert_eq!(o.rwmixread, 70);
        assert_eq!(o.bs[1].bounds(), (4096, 65536));
        assert_eq!(o.runtime_ns, Some(5_000_000_000));
        assert_eq!(o.distribution, Distribution::Zipf(1.2));
        assert_eq!(o.rate, [0, 1 << 20]);
    }

    #[test]
    fn refusals_say_why() {
        let mut o = JobOpts::default();
        for (k, v, want) in [
            ("ioengine", Some("rbd"), "ioengine rbd is not supported"),
            ("rw", Some("randtrim"), "trim"),
            ("directory", Some("/mnt"), "absolute"),
            ("filename", Some("../x"), ".."),
            ("size", Some("50%"), "percentage"),
            ("verify", Some("md5"), "not supported"),
            ("bs", Some("0"), "above 0"),
            ("random_distribution", Some("zipf:1"), "not 1"),
        ] {
            let e = apply(&mut o, k, v).unwrap_err();
            assert!(e.contains(want), "{k}: {e}");
        }
    }

    #[test]
    fn names_are_unique() {
        let mut all: Vec<&str> = OPTIONS
            .iter()
            .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
            .collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}

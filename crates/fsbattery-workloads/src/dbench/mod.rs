//! `dbench` and `dbench:ARGS`: dbench 4.0 (Tridgell, Samba; Debian's `dbench` 4.0) natively —
//! N clients replay a loadfile of SMB file-server operations (`client.txt`, a NetBench trace)
//! through dbench's `fileio` backend, with dbench's warmup, its once-a-second monitor and its
//! closing figures under its names: `throughput` (MB/sec, 10^6 B), `max_latency` (ms) and per
//! operation `<Op>_count`, `<Op>_avglat`, `<Op>_maxlat` (ms) for the operations the loadfile
//! uses (dbench's "Operation Count AvgLat MaxLat" table).
//!
//! `dbench:ARGS` takes dbench's own command line (`dbench:-t 10 4`,
//! `dbench:-c FILE -s -t 10 2`); it is parsed ([`args`]) and its loadfile read and checked
//! ([`loadfile()`]) when the plan is built, and the workload is then interned under its name
//! (as `fio:FILE` is), so the runner, the journal and the reports find it as they find a
//! built-in. Plain `dbench` runs client.txt with `--set dbench.clients=N`, `timelimit`,
//! `sync`, `sync_dir`, `fsync`. The loadfile's path and SHA-256 and the command line are
//! recorded in the run's settings ([`Workload::recorded`]).
//!
//! Clients are threads (dbench forks processes); `-D` is taken inside the target's scratch
//! directory (made if missing); dbench's per-second progress lines are not printed.

pub mod args;
mod fileio;
pub mod loadfile;
mod run;

use super::{Scratch, Workload, WorkloadCtx};
use crate::error::{UsageError, WorkloadError};
use crate::model::MetricSpec;
use crate::model::Stat;
use crate::params::ParamSpec;
use crate::settings::Settings;
use crate::TypedWorkload;
use args::Config;
use loadfile::Loadfile;
use std::sync::{Arc, Mutex};

/// How a dbench command line's workload name starts.
pub const PREFIX: &str = "dbench:";

crate::settings! {
    /// Plain `dbench`'s settings (a command line's come from its arguments).
    pub struct Plain {
        /// dbench processes (NPROCS).
        pub clients: u64 = super::shared::specs::count(
            "clients",
            "dbench processes (NPROCS), one client each",
            2,
            4,
        )
        .range(1, 4096),
        /// Seconds timed after the warmup.
        pub timelimit: u64 = super::shared::specs::count(
            "timelimit",
            "seconds timed after the warmup (-t); the warmup is a fifth of it",
            10,
            60,
        )
        .range(2, crate::params::MAX_RUNTIME),
        /// Open files O_SYNC.
        pub sync: bool = super::shared::specs::flag("sync", "open files O_SYNC (-s)", 0),
        /// fdatasync the directory after a change.
        pub sync_dir: bool = super::shared::specs::flag("sync_dir", "fdatasync the directory after a change (-S)", 0),
        /// fsync after every write.
        pub fsync: bool = super::shared::specs::flag("fsync", "fsync after every write (-F)", 0),
    }
}

/// A dbench workload: the plain one (its settings from parameters) or a command line's.
pub struct Dbench {
    name: &'static str,
    summary: &'static str,
    /// The command line's settings; `None` for plain `dbench`.
    fixed: Option<Config>,
}

/// `dbench`: client.txt with parameters.
pub const DBENCH: Dbench = Dbench {
    name: "dbench",
    summary: "dbench 4.0 (Samba's file-server load): NPROCS clients replay dbench's loadfile \
              /usr/share/dbench/client.txt (package dbench) through its fileio backend \
              (open/create, pread/pwrite, stat, readdir, rename, unlink, locks, fsync), \
              with its warmup (a fifth of -t); reports throughput MB/sec, max_latency and \
              per-operation count/avg/max latency under dbench's names. Any dbench command \
              line: --workload 'dbench:-t 10 4'.",
    fixed: None,
};

/// Loadfiles read so far, by path.
static LOADFILES: Mutex<Vec<Arc<Loadfile>>> = Mutex::new(Vec::new());

/// The checked loadfile at `path` (read once per process).
pub fn loadfile(path: &str) -> Result<Arc<Loadfile>, String> {
    let mut l = LOADFILES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(f) = l.iter().find(|f| f.path == path) {
        return Ok(f.clone());
    }
    let f = Arc::new(Loadfile::read(path)?);
    l.push(f.clone());
    Ok(f)
}

/// Parse the command line of `name` (`dbench:ARGS`) and check its loadfile, or the one-line
/// refusal.
pub fn build(name: &str) -> Result<Box<dyn Workload>, UsageError> {
    let spec = name.strip_prefix(PREFIX).unwrap_or(name);
    let bad = |e: String| UsageError::Invalid(format!("{name}: {e}"));
    let cfg = args::parse(spec).map_err(bad)?;
    let lf = loadfile(&cfg.loadfile).map_err(bad)?;
    moves_bytes(&lf).map_err(bad)?;
    let summary = format!(
        "dbench 4.0 command line '{}': {} clients replay {} for {} s after a {} s warmup{}",
        spec.trim(),
        cfg.clients(),
        cfg.loadfile,
        cfg.timelimit,
        cfg.warmup(),
        cfg.sync_text()
    );
    Ok(Box::new(Dbench {
        name: Box::leak(name.to_string().into_boxed_str()),
        summary: Box::leak(summary.into_boxed_str()),
        fixed: Some(cfg),
    }))
}

/// dbench stays in its warmup until every client has moved bytes: a loadfile without a
/// ReadX or WriteX of some size would run forever.
fn moves_bytes(lf: &Loadfile) -> Result<(), String> {
    if lf.bytes_per_pass == 0 {
        return Err(format!(
            "{}: no ReadX or WriteX moves a byte, so dbench would never leave its warmup",
            lf.path
        ));
    }
    Ok(())
}

impl Dbench {
    /// The settings a run with `s` uses: the command line's, or plain dbench's settings.
    pub fn config(&self, s: &Option<Plain>) -> Config {
        match (&self.fixed, s) {
            (Some(c), _) => c.clone(),
            (None, Some(p)) => Config {
                nprocs: p.clients,
                timelimit: p.timelimit,
                sync_open: p.sync,
                sync_dirs: p.sync_dir,
                do_fsync: p.fsync,
                ..Config::default()
            },
            (None, None) => Config::default(),
        }
    }
}

/// The metrics of a run over `lf` (none of it: the two headline figures only).
fn metric_specs(lf: Option<&Loadfile>) -> Vec<MetricSpec> {
    let mut m = vec![
        MetricSpec::rate(
            "throughput",
            "MB/s",
            "dbench's Throughput: MB (10^6 B) read and written per second after the warmup",
        ),
        MetricSpec::latency_ms(
            "max_latency",
            "operation",
            Stat::Max,
            "dbench's max_latency: the longest step between two loadfile lines of a client",
        ),
    ];
    for k in lf.into_iter().flat_map(Loadfile::kinds) {
        let n = k.name();
        m.push(MetricSpec::rate(
            &format!("{n}_count"),
            "ops",
            &format!("{n} operations done after the warmup (dbench's Count)"),
        ));
        m.push(MetricSpec::latency_ms(
            &format!("{n}_avglat"),
            n,
            Stat::Mean,
            &format!("mean {n} latency (dbench's AvgLat)"),
        ));
        m.push(MetricSpec::latency_ms(
            &format!("{n}_maxlat"),
            n,
            Stat::Max,
            &format!("largest {n} latency (dbench's MaxLat)"),
        ));
    }
    m
}

impl TypedWorkload for Dbench {
    type Settings = Option<Plain>;
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn params(&self) -> &'static [ParamSpec] {
        if self.fixed.is_some() {
            &[]
        } else {
            Plain::specs()
        }
    }
    fn metrics(&self, s: &Option<Plain>) -> Vec<MetricSpec> {
        let lf = loadfile(&self.config(s).loadfile).ok();
        metric_specs(lf.as_deref())
    }
    /// dbench does nothing to the page cache.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn check(&self, s: &Option<Plain>) -> Result<(), WorkloadError> {
        let lf = loadfile(&self.config(s).loadfile).map_err(WorkloadError::Failed)?;
        moves_bytes(&lf).map_err(WorkloadError::Failed)
    }
    fn needs(&self, s: &Option<Plain>) -> super::needs::Needs {
        let c = self.config(s);
        // client.txt's figures when it cannot be read (the plan refuses the run then).
        let (bytes, names) = loadfile(&c.loadfile)
            .map(|l| (l.peak_bytes, l.names))
            .unwrap_or((CLIENT_TXT_PEAK, CLIENT_TXT_NAMES));
        super::needs::Needs::space(
            bytes.max(1).saturating_mul(c.clients()),
            (names + 2).saturating_mul(c.clients()) + 2,
            "the loadfile and the number of clients",
        )
    }
    fn recorded(&self, s: &Option<Plain>) -> Option<String> {
        let c = self.config(s);
        let args = self.name.strip_prefix(PREFIX).map_or_else(
            || {
                format!(
                    "-t {}{}{}{} {}",
                    c.timelimit,
                    if c.sync_open { " -s" } else { "" },
                    if c.sync_dirs { " -S" } else { "" },
                    if c.do_fsync { " -F" } else { "" },
                    c.nprocs
                )
            },
            |a| a.trim().to_string(),
        );
        let sum = loadfile(&c.loadfile).map_or_else(|e| e, |l| format!("sha256 {}", l.sha256));
        Some(format!(
            "dbench 4.0 command line: dbench {args}; loadfile {} ({sum})",
            c.loadfile
        ))
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &Option<Plain>) -> Result<(), WorkloadError> {
        let cfg = self.config(s);
        let lf = loadfile(&cfg.loadfile).map_err(WorkloadError::Failed)?;
        let scratch = Scratch::create(ctx.root(), "dbench")?;
        let dir = scratch.join(&cfg.directory);
        std::fs::create_dir_all(&dir)
            .map_err(|e| WorkloadError::io(format!("create {}", dir.display()), e))?;
        let root = scratch.path().to_str().ok_or_else(|| {
            WorkloadError::Failed(format!("{}: not a UTF-8 path", scratch.path().display()))
        })?;
        ctx.next_phase("throughput");
        let (s, t) = ctx.phase(&[], || run::run(&cfg, &lf, root))?;
        ctx.record("throughput", &t, s.throughput);
        ctx.record("max_latency", &t, s.max_latency_ms);
        for k in lf.kinds() {
            for (metric, value) in op_figures(k.name(), s.ops[k.index().expect("timed")]) {
                ctx.record(&metric, &t, value);
            }
        }
        Ok(())
    }
}

/// What one operation kind records: its count, and its mean and largest latency (ms) only
/// when it was done — dbench prints 0.000 for an operation that never ran after the warmup,
/// which as a latency would rank as the fastest.
fn op_figures(name: &str, o: run::OpStat) -> Vec<(String, f64)> {
    let mut out = vec![(format!("{name}_count"), o.count as f64)];
    if o.count > 0 {
        let avg = o.total_ns as f64 / o.count as f64 / 1e6;
        out.push((format!("{name}_avglat"), avg));
        out.push((format!("{name}_maxlat"), o.max_ns as f64 / 1e6));
    }
    out
}

/// client.txt's peak bytes and names per client, rounded up (Debian's dbench 4.0-2.1
/// client.txt: 23.1 MiB over 197 names), for [`Workload::needs`] when it cannot be read.
const CLIENT_TXT_PEAK: u64 = 24 << 20;
const CLIENT_TXT_NAMES: u64 = 200;

#[cfg(test)]
mod tests;

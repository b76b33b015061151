//! `pgbench`: PostgreSQL, the real server, with its own benchmark — the TPC-B-like load of
//! `pgbench` — on a cluster made for the cell on the target.
//!
//! One run (one cell's repeat): `initdb` in the scratch directory on the target, our settings
//! appended to its postgresql.conf (recorded in the run's settings), the server started with
//! its Unix socket in that directory and no TCP address (`server.rs`), `pgbench -i -s SCALE`
//! (timed: `init`), then the timed run `pgbench -c CLIENTS -j THREADS -T RUNTIME -l`. The
//! server is stopped and its files removed when the cell ends, whatever the ending.
//!
//! Metrics: `tps` as pgbench reports it (without the initial connection time; the headline),
//! the latency average pgbench prints, and percentiles (median, 95th, 99th) and maximum over
//! every transaction of its per-transaction log (`-l`, µs per transaction; nearest rank), so
//! the percentiles are those of exactly the transactions the TPS counts.
//!
//! The server and pgbench run as the unprivileged account `nobody` (PostgreSQL refuses root;
//! see `server::ACCOUNT` for why that account). PostgreSQL's programs are found under
//! /usr/lib/postgresql/NN/bin (the newest installed); without them the plan leaves the
//! workload out with the reason.

mod parse;
mod record;
pub(crate) mod server;

pub use record::set_workdir;

use super::specs::count;
use super::{Scratch, WorkloadCtx};
use crate::error::{IoContext, WorkloadError};
use crate::model::{MetricSpec, Stat};
use crate::params::MAX_RUNTIME;
use crate::TypedWorkload;
use server::{Account, Server};
use std::path::Path;
use std::time::Duration;

/// The pgbench workload.
pub struct Pgbench;

crate::settings! {
    /// pgbench's settings.
    #[derive(Copy)]
    pub struct Config {
        /// `scale`. At least the clients at every scale, as pgbench's manual asks: at scale 1
        /// the 4 clients queue on the one branch row, and TPS measured that contention (6
        /// repeats on ext4, 2026-11-29: 581–809 tx/s, CV 12 %; at scale 4: 812–917, CV 4 %).
        pub scale: u64 = count(
            "scale",
            "pgbench -i -s: scale factor (100,000 accounts, about 15 MiB, each; below the clients they queue on its branch rows)",
            4,
            10,
        )
        .range(1, 10_000),
        /// `clients`.
        pub clients: u64 = count("clients", "pgbench -c: concurrent clients", 4, 8).range(1, 1000),
        /// `threads`.
        pub threads: u64 = count(
            "threads",
            "pgbench -j: client threads (at most clients)",
            2,
            2,
        )
        .range(1, 1000),
        /// `runtime`.
        pub runtime: u64 = count("runtime", "pgbench -T: seconds of the timed run", 10, 60).range(1, MAX_RUNTIME),
        /// `shared_buffers`.
        pub shared_buffers: u64 = count(
            "shared_buffers",
            "PostgreSQL's shared_buffers in MiB",
            128,
            128,
        )
        .range(16, 1 << 20),
    }
}

/// Latency statistics from the log, metric suffix and what it is.
const LATENCY: [(&str, &str); 4] = [
    ("p50", "median"),
    ("p95", "95th percentile"),
    ("p99", "99th percentile"),
    ("max", "maximum"),
];

impl Config {
    /// The postgresql.conf lines fsbattery writes (the port and socket directory, which
    /// differ per cell, are added by the server).
    fn settings(&self) -> String {
        format!(
            "listen_addresses = ''\nunix_socket_permissions = 0700\nshared_buffers = {}MB\n\
             max_connections = {}\nfsync = on\nsynchronous_commit = on\nfull_page_writes = on\n\
             max_wal_size = 1GB\nlogging_collector = off\n",
            self.shared_buffers,
            self.clients + 5
        )
    }
}

impl TypedWorkload for Pgbench {
    type Settings = Config;
    fn name(&self) -> &'static str {
        "pgbench"
    }
    fn summary(&self) -> &'static str {
        "PostgreSQL with pgbench: initdb on the target, a private server, pgbench -i -s N then \
         -c -j -T TPC-B-like transactions; TPS and latency percentiles (server stopped and \
         removed after each cell)"
    }
    /// pgbench does nothing to the page cache between initialising and running.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn programs(&self) -> &'static [&'static str] {
        &["pg_ctlcluster", "setpriv"]
    }
    fn unavailable(&self) -> Option<String> {
        let bin = match server::bin_dir() {
            Ok(b) => b,
            Err(why) => return Some(why),
        };
        if crate::process::on_path("setpriv").is_none() {
            return Some(format!(
                "setpriv is not on PATH (PostgreSQL runs as {}): {}",
                server::ACCOUNT,
                crate::packages::hint_here(&crate::packages::Need::program("setpriv"))
            ));
        }
        if !crate::packages::is_root() {
            return Some(format!(
                "pgbench runs PostgreSQL as the account {}, which needs root: run as root",
                server::ACCOUNT
            ));
        }
        if let Err(why) = Account::lookup() {
            return Some(why);
        }
        server::version(&bin)
            .is_none()
            .then(|| format!("{} does not run", bin.join("postgres").display()))
    }
    fn software(&self, c: &Config) -> Vec<(String, String)> {
        let version = server::bin_dir()
            .ok()
            .and_then(|b| server::version(&b))
            .unwrap_or_else(|| "not installed".into());
        vec![
            ("PostgreSQL".into(), version),
            (
                "postgresql.conf".into(),
                c.settings().trim().replace('\n', "; "),
            ),
            (
                "account".into(),
                format!("{} (PostgreSQL refuses root)", server::ACCOUNT),
            ),
        ]
    }
    fn check(&self, c: &Config) -> Result<(), WorkloadError> {
        if c.threads > c.clients {
            return Err(WorkloadError::Failed(format!(
                "pgbench.threads={} exceeds pgbench.clients={}: pgbench refuses more threads \
                 than clients; use threads <= clients",
                c.threads, c.clients
            )));
        }
        Ok(())
    }
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // A cluster is about 40 MiB; each scale step 15 MiB of tables and indexes; the WAL
        // grows to max_wal_size (1 GiB) under a long run, 80 MiB (min_wal_size) at least.
        let mib = 1 << 20;
        let floor = (40 + 15 * c.scale) * mib;
        let peak = floor + (8 * c.scale).min(1024) * mib + 80 * mib;
        super::needs::Needs::space(peak, 2000, "scale").uncertain(floor)
    }
    fn metrics(&self, _: &Config) -> Vec<MetricSpec> {
        let mut m = vec![
            MetricSpec::rate(
                "tps",
                "tx/s",
                "pgbench TPS (TPC-B-like), without the initial connection time",
            ),
            MetricSpec::seconds(
                "init",
                "pgbench -i: create and fill the tables, vacuum, keys",
            ),
            MetricSpec::latency_ms(
                "lat_mean",
                "lat",
                Stat::Mean,
                "transaction latency, average (pgbench's own)",
            ),
        ];
        for (suffix, what) in LATENCY {
            let stat = Stat::parse(suffix).expect("LATENCY names statistics");
            m.push(MetricSpec::latency_ms(
                &format!("lat_{suffix}"),
                "lat",
                stat,
                &format!("transaction latency (commit included), {what}"),
            ));
        }
        m
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        crate::settings::within(self.name(), c)?;
        if let Some(why) = self.unavailable() {
            return Err(WorkloadError::Failed(why));
        }
        let bin = server::bin_dir().map_err(WorkloadError::Failed)?;
        let account = Account::lookup().map_err(WorkloadError::Failed)?;
        // Dropped in reverse: the server is stopped, then its files removed, then its record
        // released (a kill -9 anywhere in between leaves the record to `fsbattery cleanup`).
        let dir = ctx
            .root()
            .join(format!("fsbattery-pgbench-{}", std::process::id()));
        let mut rec = record::Record::intent(&dir)?;
        let scratch = Scratch::create(ctx.root(), "pgbench")?;
        rec.created();
        let mut pg = Server::init(&bin, account, scratch.path(), &c.settings())?;
        check_socket_path(&pg)?;
        let started = pg.start();
        rec.started(pg.postmaster());
        started?;
        let init = {
            let mut cmd = client(&pg, &["-i", "-q", "-s", &c.scale.to_string()]);
            cmd.arg("postgres");
            let log = pg.dir.join("init.log");
            let limit = Duration::from_secs(600 + 60 * c.scale);
            ctx.next_phase("init");
            let ((), t) = ctx.phase(&[scratch.path()], || {
                server::run_logged(cmd, "pgbench -i", &log, limit)
            })?;
            t
        };
        let (sum, lat, t) = timed_run(ctx, &pg, c, scratch.path())?;
        ctx.record("tps", &t, sum.tps);
        ctx.record("init", &init, init.elapsed_s);
        ctx.record("lat_mean", &t, sum.latency_avg_ms);
        for (suffix, _) in LATENCY {
            let v = match suffix {
                "max" => lat.last().copied().unwrap_or(0.0),
                p => super::quantile::nearest_rank(&lat, p[1..].parse().expect("percentile"))
                    .unwrap_or(0.0),
            };
            ctx.record(&format!("lat_{suffix}"), &t, v);
        }
        pg.stop().map_err(WorkloadError::Failed)?;
        drop(pg);
        drop(scratch);
        rec.close()
    }
}

/// pgbench as the account, connecting to our server through its socket.
fn client(pg: &Server, args: &[&str]) -> std::process::Command {
    let mut c = pg.account.command(&pg.dir, &pg.bin.join("pgbench"));
    c.arg("-h")
        .arg(pg.socket_dir())
        .args(["-p", &pg.port.to_string(), "-U", server::ROLE])
        .args(args);
    c
}

/// The timed `pgbench -c -j -T -l`: its summary, the sorted latencies of its log (ms), and
/// the phase's timing.
fn timed_run(
    ctx: &mut WorkloadCtx<'_>,
    pg: &Server,
    c: &Config,
    scratch: &Path,
) -> Result<(parse::Summary, Vec<f64>, crate::measure::Timing), WorkloadError> {
    let logs = pg.dir.join("tx");
    std::fs::create_dir(&logs).ctx(|| format!("mkdir {}", logs.display()))?;
    std::os::unix::fs::chown(&logs, Some(pg.account.uid), Some(pg.account.gid))
        .ctx(|| format!("chown {}", logs.display()))?;
    let (clients, threads, runtime) = (
        c.clients.to_string(),
        c.threads.to_string(),
        c.runtime.to_string(),
    );
    let mut cmd = client(pg, &["-c", &clients, "-j", &threads, "-T", &runtime, "-l"]);
    cmd.arg("--log-prefix").arg(logs.join("tx")).arg("postgres");
    let out = pg.dir.join("run.log");
    let limit = Duration::from_secs(c.runtime + 300);
    ctx.next_phase("tps");
    let ((), t) = ctx.phase(&[scratch], || {
        server::run_logged(cmd, "pgbench", &out, limit)
    })?;
    let text = std::fs::read_to_string(&out).ctx(|| format!("read {}", out.display()))?;
    let sum = parse::summary(&text).map_err(WorkloadError::Failed)?;
    let mut lat = Vec::with_capacity(sum.processed as usize);
    let mut failed = 0;
    for e in std::fs::read_dir(&logs).ctx(|| format!("list {}", logs.display()))? {
        let path = e.ctx(|| format!("list {}", logs.display()))?.path();
        let text = std::fs::read_to_string(&path).ctx(|| format!("read {}", path.display()))?;
        failed += parse::log_latencies(&text, &mut lat).map_err(WorkloadError::Failed)?;
    }
    // The log holds every transaction the summary counts: a mismatch means a log was lost.
    if lat.len() as u64 != sum.processed || failed != sum.failed || sum.failed > 0 {
        return Err(WorkloadError::Failed(format!(
            "pgbench: {} transactions processed, {} failed, but its logs hold {} and {} \
             failed",
            sum.processed,
            sum.failed,
            lat.len(),
            failed
        )));
    }
    lat.sort_by(f64::total_cmp);
    Ok((sum, lat, t))
}

/// A Unix socket path holds at most 107 bytes: refuse a directory too deep for it with the
/// fix (a shorter work directory).
fn check_socket_path(pg: &Server) -> Result<(), WorkloadError> {
    let path = pg.dir.join(format!(".s.PGSQL.{}", pg.port));
    let len = path.as_os_str().len();
    if len > 107 {
        return Err(WorkloadError::Failed(format!(
            "pgbench: the server's socket {} is {len} bytes long, over the 107 a Unix socket \
             path may have: use a shorter --workdir (or target directory)",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick() -> Config {
        crate::settings::defaults()
    }

    #[test]
    fn settings_are_recorded_and_threads_checked() {
        let p = quick();
        let s = Pgbench.software(&p);
        let conf = &s.iter().find(|(n, _)| n == "postgresql.conf").unwrap().1;
        assert!(conf.contains("listen_addresses = ''"), "{conf}");
        assert!(conf.contains("shared_buffers = 128MB"), "{conf}");
        let bad = Config {
            threads: 9,
            ..quick()
        };
        let e = Pgbench.check(&bad).unwrap_err().to_string();
        assert!(e.contains("threads <= clients"), "{e}");
    }
}

//! `sqlite`: an OLTP-style transaction load on an SQLite database file on the target — the
//! embedded database most applications ship — in the journal and sync modes people choose
//! between (`journal_mode=WAL` or the rollback journal `DELETE`; `synchronous=FULL` or
//! `NORMAL`).
//!
//! One run: create the database in the scratch directory with the schema (a table with an
//! integer key, an indexed column and a payload) and ROWS rows (timed as `populate`, one
//! transaction), then run TRANSACTIONS transactions (or stop after RUNTIME seconds, whichever
//! comes first), each of OPS operations drawn from a fixed mix — 30 % inserts, 40 % point
//! reads through the index, 20 % updates of the indexed column, 10 % range scans of the index
//! (`mix.rs`). Metrics: transactions per second (the headline) and the latency of each
//! `COMMIT` alone — the statement that makes the journal or WAL durable — as mean, median,
//! 95th and 99th percentile and maximum.
//!
//! SQLite is the one built into fsbattery (rusqlite's bundled build); its version is recorded
//! in the run's settings. The database and its journal or WAL live and die with the scratch
//! directory. The generator is seeded per repeat, so every target runs the same operations.

mod mix;

use super::specs::{choice, count};
use super::{Scratch, WorkloadCtx};
use crate::error::WorkloadError;
use crate::model::{MetricSpec, Stat};
use crate::params::MAX_RUNTIME;
use crate::settings::Choice;
use crate::TypedWorkload;

/// The sqlite workload.
pub struct Sqlite;

crate::choice! {
    /// `journal`, as SQLite's `PRAGMA journal_mode` names it.
    pub enum Journal {
        /// The write-ahead log.
        Wal = "wal",
        /// The rollback journal (SQLite's default).
        Delete = "delete",
    }
}

crate::choice! {
    /// `synchronous`, as `PRAGMA synchronous` names it.
    pub enum Synchronous {
        /// fsync at every commit.
        Full = "full",
        /// WAL: fsync at checkpoints only.
        Normal = "normal",
    }
}

crate::settings! {
    /// sqlite's settings.
    #[derive(Copy)]
    pub struct Config {
        /// `journal`.
        pub journal: Journal = choice(
            "journal",
            "journal mode: wal (write-ahead log) or delete (the rollback journal, SQLite's default)",
            Journal::NAMES,
            0,
            0,
        ),
        /// `synchronous`.
        pub synchronous: Synchronous = choice(
            "synchronous",
            "PRAGMA synchronous: full (fsync at every commit) or normal (WAL: at checkpoints only)",
            Synchronous::NAMES,
            0,
            0,
        ),
        /// `rows`.
        pub rows: u64 = count(
            "rows",
            "rows in the table before the transactions",
            10_000,
            100_000,
        )
        .range(1, 100_000_000),
        /// `transactions`.
        pub transactions: u64 = count(
            "transactions",
            "transactions to run (fewer if runtime ends first)",
            2_000,
            20_000,
        )
        .range(1, 100_000_000),
        /// `ops`.
        pub ops: u64 = count("ops", "operations per transaction (rows touched)", 10, 10).range(1, 10_000),
        /// `runtime`.
        pub runtime: u64 = count(
            "runtime",
            "most seconds of transactions (stops earlier after `transactions`)",
            20,
            120,
        )
        .range(1, MAX_RUNTIME),
        /// `payload`.
        pub payload: u64 = count("payload", "bytes of each row's payload", 100, 100).range(1, 1 << 20),
        /// `seed`.
        pub seed: u64 = count("seed", "seed of the operation mix", 1, 1).range(0, u64::MAX),
    }
}

/// The commit-latency statistics recorded, metric suffix and what it is.
const COMMIT_STATS: [(&str, &str); 5] = [
    ("mean", "mean"),
    ("p50", "median"),
    ("p95", "95th percentile"),
    ("p99", "99th percentile"),
    ("max", "maximum"),
];

impl Config {
    /// The PRAGMAs that set the modes, in the order they are applied.
    fn pragmas(&self) -> String {
        format!(
            "PRAGMA journal_mode={}; PRAGMA synchronous={};",
            self.journal, self.synchronous
        )
    }

    /// Rows the table can hold at most: the initial rows plus one insert per operation.
    fn max_rows(&self) -> u64 {
        let ops = self.transactions.saturating_mul(self.ops);
        self.rows.saturating_add(ops * 3 / 10 + 1)
    }
}

impl TypedWorkload for Sqlite {
    type Settings = Config;
    fn name(&self) -> &'static str {
        "sqlite"
    }
    fn summary(&self) -> &'static str {
        "SQLite transactions on the target (WAL or rollback journal, synchronous FULL or \
         NORMAL): inserts, indexed point reads, updates and range scans; transactions/s and \
         commit latency percentiles"
    }
    /// SQLite does nothing to the page cache: the database is read warm as an application
    /// finds it after populating.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn software(&self, _: &Config) -> Vec<(String, String)> {
        vec![(
            "SQLite".into(),
            format!("{} (built in)", rusqlite::version()),
        )]
    }
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // A row costs its payload, its key and index entries and page slack: about 2x the
        // payload plus 40 bytes; the WAL or journal holds at most a few transactions' pages
        // beyond a checkpoint (SQLite checkpoints every 1000 pages: 4 MiB).
        let row = c.payload.saturating_mul(2).saturating_add(40);
        let data = c.max_rows().saturating_mul(row).saturating_add(8 << 20);
        super::needs::Needs::space(data, 4, "rows, transactions, ops, payload")
            .uncertain(c.rows.saturating_mul(c.payload))
    }
    fn metrics(&self, _: &Config) -> Vec<MetricSpec> {
        let mut m = vec![
            MetricSpec::rate("tps", "tx/s", "transactions per second (commits included)"),
            MetricSpec::seconds(
                "populate",
                "create the schema and insert the initial rows in one transaction",
            ),
        ];
        for (suffix, what) in COMMIT_STATS {
            let stat = Stat::parse(suffix).expect("COMMIT_STATS names statistics");
            m.push(MetricSpec::latency_ms(
                &format!("commit_lat_{suffix}"),
                "commit_lat",
                stat,
                &format!("COMMIT latency (the durable part of a transaction), {what}"),
            ));
        }
        m
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        crate::settings::within(self.name(), c)?;
        let scratch = Scratch::create(ctx.root(), "sqlite")?;
        let path = scratch.join("bench.db");
        let seed = c.seed ^ u64::from(ctx.repeat()).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut db = mix::Db::open(&path, c)?;
        ctx.next_phase("populate");
        let ((), populate) = ctx.phase(&[scratch.path()], || db.populate(seed))?;
        let (run, t) = ctx.phase(&[scratch.path()], || db.transactions(seed))?;
        ctx.record(
            "tps",
            &t,
            crate::measure::per_s(run.done as f64, t.elapsed_s),
        );
        ctx.record("populate", &populate, populate.elapsed_s);
        let mut lat = run.commit_ms;
        lat.sort_by(f64::total_cmp);
        for (suffix, _) in COMMIT_STATS {
            let v = match suffix {
                "mean" => super::quantile::mean(&lat),
                "max" => lat.last().copied().unwrap_or(0.0),
                p => {
                    let p: f64 = p[1..].parse().expect("COMMIT_STATS percentiles");
                    super::quantile::nearest_rank(&lat, p).unwrap_or(0.0)
                }
            };
            ctx.record(&format!("commit_lat_{suffix}"), &t, v);
        }
        db.close()?;
        drop(scratch);
        Ok(())
    }
}

#[cfg(test)]
mod tests;

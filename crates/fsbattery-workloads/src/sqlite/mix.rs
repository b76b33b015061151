//! The sqlite workload's database: schema, initial rows and the transaction mix.
//!
//! Invariants: every statement is prepared once per connection (rusqlite's statement cache),
//! so the clock measures SQLite and the filesystem, not SQL parsing; the mix is drawn from a
//! seeded generator, so every target runs the very same operations; the interruption flag is
//! polled between transactions, and a transaction interrupted midway is rolled back by
//! dropping it (the database is removed with the scratch directory anyway).

use super::Config;
use crate::error::WorkloadError;
use rusqlite::{params, Connection, TransactionBehavior};
use std::path::Path;
use std::time::{Duration, Instant};

/// Rows a range scan covers on average: keys are spread over ten times the row count, so a
/// key range of 10 × SCAN covers about SCAN rows.
const SCAN: u64 = 50;

/// What the timed transactions did.
pub(super) struct Run {
    /// Transactions committed.
    pub done: u64,
    /// Each commit's latency in ms, in commit order.
    pub commit_ms: Vec<f64>,
}

/// An open database with the workload's parameters.
pub(super) struct Db {
    conn: Connection,
    c: Config,
    /// The next id an insert takes (ids 1..next exist or were deleted: none are).
    next_id: u64,
    path: String,
}

/// A failed SQLite call as a workload error naming the database and the step.
fn sql<'a>(path: &'a str, what: &str) -> impl FnOnce(rusqlite::Error) -> WorkloadError + 'a {
    let what = what.to_string();
    move |e| {
        let full = matches!(
            &e,
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DiskFull
        );
        let fix = if full {
            ": target full; lower sqlite.rows or sqlite.transactions, or use a larger target"
        } else {
            ""
        };
        WorkloadError::Failed(format!("sqlite {what} on {path}: {e}{fix}"))
    }
}

/// splitmix64: a small, well-mixed generator (the mix needs no more).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// One operation of the mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Insert,
    Read,
    Update,
    Scan,
}

/// The mix: 30 % inserts, 40 % point reads, 20 % updates, 10 % range scans, from a draw in
/// 0..100.
pub(super) fn op_of(draw: u64) -> Op {
    match draw {
        0..30 => Op::Insert,
        30..70 => Op::Read,
        70..90 => Op::Update,
        _ => Op::Scan,
    }
}

impl Db {
    /// Create the database at `path` with the modes of `c` and the schema.
    pub(super) fn open(path: &Path, c: &Config) -> Result<Db, WorkloadError> {
        let p = path.display().to_string();
        let conn = Connection::open(path).map_err(sql(&p, "open"))?;
        conn.execute_batch(&c.pragmas())
            .map_err(sql(&p, "set journal and sync modes"))?;
        // journal_mode answers with the mode it took: WAL can be refused (no shared memory).
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(sql(&p, "read journal_mode"))?;
        let want = crate::settings::Choice::name(c.journal);
        if !mode.eq_ignore_ascii_case(want) {
            return Err(WorkloadError::Failed(format!(
                "sqlite: journal_mode={want} refused on {p} (SQLite kept {mode}): use \
                 sqlite.journal={mode}"
            )));
        }
        conn.execute_batch(
            "CREATE TABLE item (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, \
             payload BLOB NOT NULL); CREATE INDEX item_k ON item(k);",
        )
        .map_err(sql(&p, "create the schema"))?;
        Ok(Db {
            conn,
            c: *c,
            next_id: 1,
            path: p,
        })
    }

    /// A key for a new or updated row: spread over ten times the initial rows.
    fn key(&self, rng: &mut Rng) -> i64 {
        rng.below(self.c.rows.saturating_mul(10)) as i64
    }

    /// Insert the initial rows in one transaction.
    pub(super) fn populate(&mut self, seed: u64) -> Result<(), WorkloadError> {
        let mut rng = Rng(seed);
        let rows = self.c.rows;
        let keys: Vec<i64> = (0..rows).map(|_| self.key(&mut rng)).collect();
        let tx = self.conn.transaction().map_err(sql(&self.path, "begin"))?;
        {
            let mut ins = tx
                .prepare_cached("INSERT INTO item (id, k, payload) VALUES (?1, ?2, ?3)")
                .map_err(sql(&self.path, "prepare insert"))?;
            for (i, k) in keys.iter().enumerate() {
                crate::poll(i as u64)?;
                let id = i as u64 + 1;
                ins.execute(params![id as i64, k, payload_of(self.c.payload, id)])
                    .map_err(sql(&self.path, "insert"))?;
            }
        }
        tx.commit().map_err(sql(&self.path, "commit"))?;
        self.next_id = rows + 1;
        Ok(())
    }

    /// The timed transactions: up to `transactions`, stopping after `runtime` seconds.
    pub(super) fn transactions(&mut self, seed: u64) -> Result<Run, WorkloadError> {
        let mut rng = Rng(seed ^ 0x0074_786d_6978);
        let deadline = Instant::now() + Duration::from_secs(self.c.runtime);
        let mut run = Run {
            done: 0,
            commit_ms: Vec::with_capacity(self.c.transactions.min(1 << 20) as usize),
        };
        while run.done < self.c.transactions && Instant::now() < deadline {
            if crate::interrupt::requested() {
                return Err(WorkloadError::Interrupted);
            }
            run.commit_ms.push(self.one(&mut rng)?);
            run.done += 1;
        }
        Ok(run)
    }

    /// One transaction of `ops` operations; returns its COMMIT's latency in ms.
    fn one(&mut self, rng: &mut Rng) -> Result<f64, WorkloadError> {
        let draws: Vec<(Op, u64, i64)> = (0..self.c.ops)
            .map(|_| (op_of(rng.below(100)), rng.next(), self.key(rng)))
            .collect();
        let p = self.path.clone();
        // IMMEDIATE: the write lock is taken at BEGIN, as an application that writes does.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(&p, "begin"))?;
        let mut next_id = self.next_id;
        for (op, r, k) in draws {
            match op {
                Op::Insert => {
                    let body = payload_of(self.c.payload, next_id);
                    tx.prepare_cached("INSERT INTO item (id, k, payload) VALUES (?1, ?2, ?3)")
                        .and_then(|mut s| s.execute(params![next_id as i64, k, body]))
                        .map_err(sql(&p, "insert"))?;
                    next_id += 1;
                }
                Op::Read => {
                    let mut s = tx
                        .prepare_cached("SELECT id, length(payload) FROM item WHERE k = ?1")
                        .map_err(sql(&p, "prepare read"))?;
                    let mut rows = s.query(params![k]).map_err(sql(&p, "read"))?;
                    while rows.next().map_err(sql(&p, "read"))?.is_some() {}
                }
                Op::Update => {
                    let id = 1 + r % (next_id - 1).max(1);
                    let body = payload_of(self.c.payload, r);
                    tx.prepare_cached("UPDATE item SET k = ?1, payload = ?2 WHERE id = ?3")
                        .and_then(|mut s| s.execute(params![k, body, id as i64]))
                        .map_err(sql(&p, "update"))?;
                }
                Op::Scan => {
                    let hi = k + (10 * SCAN) as i64;
                    tx.prepare_cached(
                        "SELECT count(*), sum(length(payload)) FROM item WHERE k BETWEEN ?1 AND ?2",
                    )
                    .and_then(|mut s| s.query_row(params![k, hi], |r| r.get::<_, i64>(0)))
                    .map_err(sql(&p, "range scan"))?;
                }
            }
        }
        // Instant, not the phase's stopwatch: one clock read each side, no getrusage.
        let t0 = Instant::now();
        tx.commit().map_err(sql(&p, "commit"))?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        self.next_id = next_id;
        Ok(ms)
    }

    /// Close the connection (a WAL database checkpoints and removes its WAL here).
    pub(super) fn close(self) -> Result<(), WorkloadError> {
        let p = self.path;
        self.conn.close().map_err(|(_, e)| sql(&p, "close")(e))
    }
}

/// `size` bytes varying with `n`: not all zeros, so no filesystem or device compresses the
/// payloads away wholesale.
fn payload_of(size: u64, n: u64) -> Vec<u8> {
    (0..size)
        .map(|i| (n.wrapping_mul(31).wrapping_add(i) % 251) as u8)
        .collect()
}

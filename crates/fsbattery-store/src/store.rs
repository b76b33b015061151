//! Opening a store (creating and migrating it), and adding runs to it.

use crate::error::StoreError;
use crate::facts::{self, PointFacts, RunFacts};
use crate::schema;
use fsbattery_record::RunRecord;
use rusqlite::{params, Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a writer waits for another one before the store is reported locked. Adding a run
/// takes milliseconds; a minute covers many runs finishing at once on a slow disk.
const BUSY_TIMEOUT_SECS: u64 = 60;

/// An open results store.
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    busy_secs: u64,
}

impl Store {
    /// Open (creating it and its directory if needed) and migrate the store at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_waiting(path, BUSY_TIMEOUT_SECS)
    }

    /// [`Store::open`], waiting at most `busy_secs` for another writer before reporting the
    /// store locked.
    pub fn open_waiting(path: &Path, busy_secs: u64) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Other {
                path: path.to_path_buf(),
                detail: format!("creating {}: {e}", dir.display()),
            })?;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| StoreError::from_sqlite(path, e, busy_secs))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            busy_secs,
        };
        // A store a newer fsbattery wrote is refused before anything touches it: not even the
        // switch to WAL, and no migration, is written into it. (The busy timeout first: a store
        // another process is making at this moment is waited for, not reported locked.)
        let waited = store.conn.busy_timeout(Duration::from_secs(busy_secs));
        waited.map_err(|e| store.err(e))?;
        store.check_version()?;
        // Two processes opening a new store at once race for the switch to WAL and the first
        // migration, and SQLite reports that race as busy at once, without its busy handler:
        // retry until the busy timeout, as a writer waiting for the lock would.
        let deadline = std::time::Instant::now() + Duration::from_secs(busy_secs);
        let mut opened = || -> rusqlite::Result<()> {
            store.configure()?;
            schema::migrate(&mut store.conn)
        };
        loop {
            match opened() {
                Err(e) if is_busy(&e) && std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(store.err(e)),
                Ok(()) => break,
            }
        }
        store.check_version()?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// WAL so readers never block the writer and a killed writer leaves the last commit,
    /// a busy timeout so concurrent writers wait rather than fail, foreign keys for the
    /// cascade that replaces a re-added run's points.
    fn configure(&mut self) -> rusqlite::Result<()> {
        self.conn
            .busy_timeout(Duration::from_secs(self.busy_secs))?;
        let _mode: String = self
            .conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        self.conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(())
    }

    fn check_version(&self) -> Result<(), StoreError> {
        let found = schema::version(&self.conn).map_err(|e| self.err(e))?;
        if found > schema::VERSION {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                known: schema::VERSION,
            });
        }
        Ok(())
    }

    /// Add (or replace) the run whose directory is `dir`, in one transaction; its run id in
    /// the store (the `runs.id` that `history` and `site` name it by).
    pub fn add(&mut self, dir: &Path, record: &RunRecord) -> Result<i64, StoreError> {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let run = RunFacts::of(record);
        let points = facts::points(record);
        self.add_facts(&dir.to_string_lossy(), &run, &points)
            .map_err(|e| self.err(e))
    }

    fn add_facts(
        &mut self,
        dir: &str,
        run: &RunFacts,
        points: &[PointFacts],
    ) -> rusqlite::Result<i64> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM runs WHERE dir = ?1", [dir])?;
        tx.execute(
            "INSERT INTO runs (dir, started, finished, interrupted, label, suite, scale, method,
                cache_policy, tool_version, source_tool, kernel, os, machine_id, cpu_model,
                cores, ram_bytes, parts, added_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
            params![
                dir,
                run.started,
                run.finished,
                run.interrupted,
                run.label,
                run.suite,
                run.scale,
                run.method,
                run.cache_policy,
                run.tool_version,
                run.source_tool,
                run.kernel,
                run.os,
                run.machine_id,
                run.cpu_model,
                run.cores,
                run.ram_bytes as i64,
                run.parts,
            ],
        )?;
        let run_id = tx.last_insert_rowid();
        {
            let mut insert = tx.prepare(
                "INSERT INTO points (run_id, target, target_kind, fs_type, fs_version, options,
                    device_model, workload, params, metric, unit, better, comparable, n, mean,
                    ci_low, ci_high, samples, kernel)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                    ?17, ?18, ?19)",
            )?;
            for p in points {
                insert.execute(params![
                    run_id,
                    p.target,
                    p.target_kind,
                    p.fs_type,
                    p.fs_version,
                    p.options,
                    p.device_model,
                    p.workload,
                    p.params,
                    p.metric,
                    p.unit,
                    better_word(p.better),
                    p.comparable,
                    p.samples.len() as i64,
                    p.mean,
                    p.ci_low,
                    p.ci_high,
                    serde_json::to_string(&p.samples).unwrap_or_else(|_| "[]".into()),
                    p.kernel,
                ])?;
            }
        }
        tx.commit()?;
        Ok(run_id)
    }

    /// Run directories the store holds, oldest run first (what `rebuild` reads back).
    pub fn dirs(&self) -> Result<Vec<PathBuf>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT dir FROM runs ORDER BY started, dir")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(PathBuf::from).collect())
    }

    /// `PRAGMA integrity_check`'s answer: "ok" for a sound database.
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        self.conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }
}

/// `higher` or `lower`.
pub(crate) fn better_word(b: fsbattery_stats::Better) -> &'static str {
    match b {
        fsbattery_stats::Better::Higher => "higher",
        fsbattery_stats::Better::Lower => "lower",
    }
}

impl Store {
    /// A SQLite error met on this store, classified.
    pub(crate) fn err(&self, e: rusqlite::Error) -> StoreError {
        StoreError::from_sqlite(&self.path, e, self.busy_secs)
    }
}

/// Whether SQLite said another connection holds the lock.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

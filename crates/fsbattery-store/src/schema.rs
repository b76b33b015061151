//! The store's schema and its migrations, versioned with SQLite's `user_version`.
//!
//! Each entry of [`MIGRATIONS`] moves the schema one version up and runs in the same
//! transaction as the version bump, so a store is always at exactly one version. Never edit
//! a released migration; append a new one.

use rusqlite::Connection;

/// Migration `i` takes a store from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: runs and their points, indexed by what makes runs comparable.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        dir TEXT NOT NULL UNIQUE,       -- canonical path of the run directory
        started TEXT NOT NULL,
        finished TEXT,
        interrupted INTEGER NOT NULL,
        label TEXT,
        suite TEXT NOT NULL,
        scale TEXT NOT NULL,
        method TEXT NOT NULL,
        cache_policy TEXT NOT NULL,     -- '' when the record does not state it
        tool_version TEXT NOT NULL,     -- fsbattery's version, or the imported tool's
        source_tool TEXT,               -- fio/bonnie++/iozone for imported records
        kernel TEXT NOT NULL,
        os TEXT NOT NULL,
        machine_id TEXT NOT NULL,
        cpu_model TEXT NOT NULL,
        cores INTEGER NOT NULL,
        ram_bytes INTEGER NOT NULL,
        added_at TEXT NOT NULL
    );
    CREATE TABLE points (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        target TEXT NOT NULL,           -- the label in its run
        target_kind TEXT NOT NULL,      -- loop, tmpfs, dir, dev, imported
        fs_type TEXT NOT NULL,
        fs_version TEXT NOT NULL,       -- mkfs/tool versions, 'mkfs.ext4 1.47.0'
        options TEXT NOT NULL,          -- mkfs and mount options asked for and in effect
        device_model TEXT NOT NULL,     -- '' when the record does not state it
        workload TEXT NOT NULL,
        params TEXT NOT NULL,           -- 'k=v,k=v' sorted by name
        metric TEXT NOT NULL,
        unit TEXT NOT NULL,
        better TEXT NOT NULL,           -- higher | lower
        comparable INTEGER NOT NULL,
        n INTEGER NOT NULL,
        mean REAL,
        ci_low REAL,
        ci_high REAL,
        samples TEXT NOT NULL           -- JSON array of the sample values
    );
    CREATE INDEX runs_comparable ON runs(suite, scale, method, cache_policy, machine_id, kernel, tool_version);
    CREATE INDEX points_comparable ON points(workload, params, metric, target_kind, fs_type, options, fs_version);
    CREATE INDEX points_run ON points(run_id);",
    // 2: how many sittings a run was made in (`run --resume`); runs stored before were made
    // in one.
    "ALTER TABLE runs ADD COLUMN parts INTEGER NOT NULL DEFAULT 1;",
    // 3: the kernel a point's target was measured on, when a run's targets were measured on
    // several (`vm:` targets of several kernels); '' (every point stored before): the run's.
    "ALTER TABLE points ADD COLUMN kernel TEXT NOT NULL DEFAULT '';",
];

/// The newest schema version this build writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// The store's version as found (0 for a new, empty file).
pub fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Bring the store up to [`VERSION`], one migration per transaction.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    loop {
        // IMMEDIATE: take the write lock before reading the version, so two processes
        // opening a new store at once cannot both run migration 0.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let at = version(&tx)?;
        if at >= VERSION {
            return Ok(());
        }
        tx.execute_batch(MIGRATIONS[at as usize])?;
        tx.pragma_update(None, "user_version", at + 1)?;
        tx.commit()?;
    }
}

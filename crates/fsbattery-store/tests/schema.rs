//! The store's schema: a new store is made at the newest version and opens again unchanged, a
//! store from a newer fsbattery is refused in one line, a file that is not a database is
//! reported damaged; and the machine id depends on hardware only. A store written by schema 1
//! (kept as a fixture, `fixtures/schema-v1.db`, made by the release before schema 2) opens and
//! migrates after every change.

use fsbattery_store::{machine_id, Store, StoreError};

#[test]
fn a_new_store_is_migrated_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep/er/results.db");
    let store = Store::open(&path).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    assert!(store.runs().unwrap().is_empty());
    drop(store);
    let store = Store::open(&path).unwrap();
    assert!(store.dirs().unwrap().is_empty());
}

/// The store's `user_version`, read without fsbattery.
fn user_version(path: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_store_written_by_schema_1_opens_and_migrates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/schema-v1.db");
    std::fs::copy(fixture, &path).unwrap();
    assert_eq!(user_version(&path), 1, "the fixture is schema 1");
    let store = Store::open(&path).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(
        run.facts.parts, 1,
        "a run stored before parts existed was made in one"
    );
    assert_eq!(run.facts.flag(), None, "finished, in one sitting");
    assert_eq!(run.facts.suite, "metadata");
    let points = store.points(&fsbattery_store::Filter::default()).unwrap();
    assert_eq!(points.len(), 6);
    assert!(points.iter().all(|p| p.facts.samples.len() == 2));
    drop(store);
    assert!(user_version(&path) >= 2, "migrated");
    // Opened again: the same.
    let again = Store::open(&path).unwrap();
    assert_eq!(again.runs().unwrap(), runs);
}

#[test]
fn a_store_from_a_newer_release_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    // Checkpointed into the file alone, so any write would show in its bytes.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let _: String = conn
        .query_row("PRAGMA journal_mode=DELETE", [], |r| r.get(0))
        .unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).err().expect("refused");
    assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{err}");
    assert!(!err.to_string().contains('\n'));
    assert_eq!(std::fs::read(&path).unwrap(), before, "never rewritten");
    assert!(
        !dir.path().join("results.db-wal").exists(),
        "not even switched to WAL"
    );
}

#[test]
fn a_file_that_is_not_a_database_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    std::fs::write(
        &path,
        b"this is not SQLite, and it is long enough to hold a header .....",
    )
    .unwrap();
    let err = Store::open(&path).err().expect("refused");
    assert!(matches!(err, StoreError::Damaged { .. }), "{err}");
}

#[test]
fn the_machine_id_is_hardware_only_and_ignores_memtotal_wobble() {
    let gib = 1u64 << 30;
    let a = machine_id("AMD EPYC 7763", 2, 24 * gib - 300 * (1 << 20));
    let b = machine_id("AMD EPYC 7763", 2, 24 * gib - 280 * (1 << 20));
    assert_eq!(a, b);
    assert_eq!(a.len(), 16);
    assert_ne!(a, machine_id("AMD EPYC 7763", 4, 24 * gib));
    assert_ne!(a, machine_id("Intel Xeon", 2, 24 * gib));
}

#[test]
fn a_writer_held_past_the_busy_timeout_is_reported_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    drop(Store::open(&path).unwrap());
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let err = Store::open_waiting(&path, 1).err().expect("locked");
    assert!(matches!(err, StoreError::Locked { secs: 1, .. }), "{err}");
    assert!(err.to_string().contains("locked by another process"));
    holder.execute_batch("ROLLBACK").unwrap();
    assert!(Store::open_waiting(&path, 1).is_ok());
}

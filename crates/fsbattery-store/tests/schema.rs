//! The store's schema: a new store is made at the newest version and opens again unchanged, a
//! store from a newer fsbattery is refused in one line, a file that is not a database is
//! reported damaged; and the machine id depends on hardware only.

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

#[test]
fn a_store_from_a_newer_release_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let err = Store::open(&path).err().expect("refused");
    assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{err}");
    assert!(!err.to_string().contains('\n'));
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

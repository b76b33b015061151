//! The sqlite workload against a temporary directory: every metric in every mode, ordered
//! percentiles, the very operations the mix promises, nothing left behind.

use super::*;
use crate::blockio::testutil::{run_typed as run_native, settings_of, values};

fn quick(over: &[(&str, u64)]) -> Config {
    settings_of(&[], over)
}

#[test]
fn every_mode_reports_ordered_commit_latencies_and_cleans_up() {
    for journal in 0..2 {
        for synchronous in 0..2 {
            let p = quick(&[
                ("journal", journal),
                ("synchronous", synchronous),
                ("rows", 500),
                ("transactions", 60),
            ]);
            let (samples, _tmp) = run_native(&Sqlite, &p).unwrap();
            let v = values(&samples);
            let what = format!("journal={journal} synchronous={synchronous}: {v:?}");
            assert!(v["tps"] > 0.0 && v["populate"] > 0.0, "{what}");
            let q = |s: &str| v[&format!("commit_lat_{s}")];
            assert!(q("p50") > 0.0, "{what}");
            assert!(q("p50") <= q("p95") && q("p95") <= q("p99"), "{what}");
            assert!(q("p99") <= q("max") && q("mean") <= q("max"), "{what}");
        }
    }
}

#[test]
fn the_mix_is_thirty_forty_twenty_ten() {
    let mut n = [0u32; 4];
    for d in 0..100 {
        n[mix::op_of(d) as usize] += 1;
    }
    assert_eq!(n, [30, 40, 20, 10]);
}

#[test]
fn transactions_change_the_table_as_the_mix_says() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("t.db");
    let c = quick(&[("rows", 300), ("transactions", 200), ("ops", 10)]);
    let mut db = mix::Db::open(&path, &c).unwrap();
    db.populate(7).unwrap();
    let run = db.transactions(7).unwrap();
    assert_eq!(run.done, 200);
    assert_eq!(run.commit_ms.len(), 200);
    db.close().unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM item", [], |r| r.get(0))
        .unwrap();
    // 2,000 operations, 30 % of them inserts: about 600 new rows.
    let added = rows - 300;
    assert!((450..=750).contains(&added), "{added} rows inserted");
    let index: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type='index' AND name='item_k'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(index, 1);
}

#[test]
fn the_modes_are_the_ones_asked_for() {
    for (journal, want) in [(0, "wal"), (1, "delete")] {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("m.db");
        let c = quick(&[("journal", journal), ("synchronous", 1)]);
        let db = mix::Db::open(&path, &c).unwrap();
        db.close().unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, want);
    }
    let v = Sqlite.software(&quick(&[]));
    assert!(v[0].1.starts_with("3."), "{v:?}");
}

#[test]
fn runtime_stops_the_transactions_early() {
    let tmp = tempfile::tempdir().unwrap();
    let c = quick(&[("rows", 100), ("transactions", 100_000_000), ("runtime", 1)]);
    let mut db = mix::Db::open(&tmp.path().join("r.db"), &c).unwrap();
    db.populate(1).unwrap();
    let t0 = std::time::Instant::now();
    let run = db.transactions(1).unwrap();
    assert!(run.done > 0 && run.done < 100_000_000);
    assert!(t0.elapsed().as_secs_f64() < 3.0);
}

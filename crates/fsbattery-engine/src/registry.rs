//! The engine registry: every engine in one table, each entry carrying its name, the names
//! other tools give it, its capabilities and its options — the shape of fio's
//! `struct ioengine_ops` (`name`, `flags` such as `FIO_SYNCIO`/`FIO_NOIO`, an `options`
//! table), registered in one list instead of one `register_ioengine` call per file.
//!
//! Everything that used to spell an engine by hand reads this table: [`crate::EngineSpec`]
//! (name, depth, reap batch, building an engine, running a job's threads), the `engine`
//! parameter's choices ([`NAMES`]), the plan's io_uring check ([`crate::Caps::io_uring`]), the fio
//! job-file import and `engine_bench` ([`lookup`]).
//!
//! Invariant: the table's order is the index a workload's `engine` parameter stores (records
//! and suites written before hold `0` for sync, `1` for io_uring, `2` for null), so a new
//! engine is appended, never inserted; a test pins the order.
//! Adding an engine: one file implementing [`crate::Engine`] with its `EngineEntry` (the
//! entry's shape is in `entry.rs`, which the engine files and this table both use, so the
//! table names the engines and no engine names the table), one line in [`ENGINES`] (see
//! docs/src/adding-an-engine.md).

use crate::entry::EngineEntry;

/// Every engine, in the order of the `engine` parameter's indices: append only.
const TABLE: &[EngineEntry] = &[
    crate::sync::SYNC,
    crate::uring::IO_URING,
    crate::sync::NULL,
    // New engines go here, at the end: a workload's `engine` parameter stores the index.
];

/// Every engine, in the order of the `engine` parameter's indices.
pub static ENGINES: &[EngineEntry] = TABLE;

/// How many engines are registered.
const COUNT: usize = TABLE.len();

/// Every engine name in [`ENGINES`] order: the `engine` parameter's choices.
pub const NAMES: [&str; COUNT] = names();

/// The names of [`TABLE`], computed at compile time so they are spelled only in the entries.
const fn names() -> [&'static str; COUNT] {
    let mut out = [""; COUNT];
    let mut i = 0;
    while i < COUNT {
        out[i] = TABLE[i].name;
        i += 1;
    }
    out
}

/// The index in [`ENGINES`] of the engine named `name` (its registry name only), at compile
/// time: a constant naming an unregistered engine does not build.
pub(crate) const fn index_of(name: &str) -> usize {
    let mut i = 0;
    while i < COUNT {
        if const_eq(TABLE[i].name, name) {
            return i;
        }
        i += 1;
    }
    panic!("engine not registered in ENGINES")
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The engine named `name` or one of its aliases; None if nothing is registered under it.
pub fn lookup(name: &str) -> Option<&'static EngineEntry> {
    ENGINES
        .iter()
        .find(|e| e.name == name || e.aliases.contains(&name))
}

/// The engine at `index` of [`ENGINES`] (a workload's `engine` parameter); None past the end.
pub fn by_index(index: u64) -> Option<&'static EngineEntry> {
    usize::try_from(index).ok().and_then(|i| ENGINES.get(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Old records and suites store the index: sync 0, io_uring 1, null 2, forever.
    #[test]
    fn indices_of_old_records_keep_their_engine() {
        assert_eq!(NAMES[..3], ["sync", "io_uring", "null"]);
        assert_eq!(ENGINES.len(), COUNT);
        for (i, e) in ENGINES.iter().enumerate() {
            assert_eq!((NAMES[i], index_of(e.name)), (e.name, i));
            assert_eq!(by_index(i as u64).map(|e| e.name), Some(NAMES[i]));
        }
        assert!(by_index(COUNT as u64).is_none());
    }

    /// Every name and alias finds one engine; fio's names find sync.
    #[test]
    fn names_and_aliases_are_unique_and_found() {
        let mut seen = std::collections::HashSet::new();
        for e in ENGINES {
            for n in std::iter::once(&e.name).chain(e.aliases) {
                assert!(seen.insert(*n), "{n} registered twice");
                assert_eq!(lookup(n).map(|f| f.name), Some(e.name));
            }
        }
        assert_eq!(lookup("psync").map(|e| e.name), Some("sync"));
        assert!(lookup("aio").is_none());
    }

    /// Only io_uring keeps a queue or needs a ring; only null moves no bytes.
    #[test]
    fn capabilities_match_the_engines() {
        let caps = |n| lookup(n).unwrap().caps;
        assert!(caps("io_uring").queued && caps("io_uring").io_uring);
        assert!(!caps("sync").queued && !caps("null").queued && !caps("null").io_uring);
        assert!(caps("null").no_io && !caps("sync").no_io && !caps("io_uring").no_io);
    }
}

//! What can go wrong with a store, each said in one line with what to do about it.

use std::path::PathBuf;

/// A store that cannot be used: damaged, locked by another writer for too long, or not
/// reachable at all. Each message is one line naming the file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite says the file is not a database or its pages are corrupt.
    #[error("results store {path} is damaged ({detail}): run `fsbattery store rebuild --store {path}` to recreate it from the run directories")]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// SQLite's own words.
        detail: String,
    },
    /// Another process held the write lock past the busy timeout.
    #[error("results store {path} is locked by another process (waited {secs} s): try again when it has finished")]
    Locked {
        /// The database file.
        path: PathBuf,
        /// How long we waited.
        secs: u64,
    },
    /// The database was written by a newer fsbattery.
    #[error("results store {path} has schema version {found}, newer than this build's {known}: use the fsbattery release that wrote it")]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Version found in the file.
        found: i64,
        /// Newest version this build knows.
        known: i64,
    },
    /// Anything else: the directory cannot be made, the disk is full, ...
    #[error("results store {path}: {detail}")]
    Other {
        /// The database file.
        path: PathBuf,
        /// What failed.
        detail: String,
    },
}

impl StoreError {
    /// Classify a SQLite error met while using the store at `path`.
    pub(crate) fn from_sqlite(path: &std::path::Path, e: rusqlite::Error, busy_secs: u64) -> Self {
        use rusqlite::ErrorCode::*;
        let path = path.to_path_buf();
        match e.sqlite_error_code() {
            Some(DatabaseCorrupt | NotADatabase) => StoreError::Damaged {
                path,
                detail: e.to_string(),
            },
            Some(DatabaseBusy | DatabaseLocked) => StoreError::Locked {
                path,
                secs: busy_secs,
            },
            _ => StoreError::Other {
                path,
                detail: e.to_string(),
            },
        }
    }
}

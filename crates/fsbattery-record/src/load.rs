//! Loading a run directory's record (for `report`, `compare` and `outputs`).
//!
//! [`RESULTS_FILE`] is the record; when it is missing (a run killed with -9) or unreadable
//! (torn, truncated, hand-damaged) the record is rebuilt from [`JOURNAL_FILE`], and the
//! [`Loaded::note`] says so when `results.json` was there but damaged (the caller prints it:
//! nothing here prints). Nothing is written: the damaged file stays as evidence, and
//! `report DIR --format json > DIR/results.json` restores it on request. A layout version this
//! build does not read is refused, never guessed at. Every [`LoadError`] is one line meant for
//! the user (the binary turns it into a usage error, exit 2).

use crate::journal;
use crate::model::{check_schema_version, RunRecord};
use crate::{JOURNAL_FILE, RESULTS_FILE};
use serde::Deserialize;
use std::path::Path;
use thiserror::Error;

/// A run directory's record, and what the caller should tell the user about how it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The record, with fields older records lack filled in ([`crate::lifecycle::upgrade`]).
    pub record: RunRecord,
    /// Set when `results.json` was damaged and the record was rebuilt from the journal: one
    /// line saying so, for stderr.
    pub note: Option<String>,
}

/// Why a run directory gave no record. Each message is one line that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LoadError {
    /// A file is in a layout version this build does not read: never fall back from this.
    #[error("{path}: {message}")]
    Refused {
        /// The file.
        path: String,
        /// Which versions this build reads, and what to do.
        message: String,
    },
    /// Neither file is there.
    #[error(
        "{dir} holds no {RESULTS_FILE} or {JOURNAL_FILE}: give a directory written by \
         `fsbattery run`"
    )]
    Empty {
        /// The directory.
        dir: String,
    },
    /// No `results.json`, and the journal is unreadable.
    #[error("{dir}: no {RESULTS_FILE}, and {JOURNAL_FILE} {journal}")]
    JournalUnusable {
        /// The directory.
        dir: String,
        /// "unreadable (why)".
        journal: String,
    },
    /// `results.json` is damaged and the journal is missing or unreadable too.
    #[error(
        "{dir}: {RESULTS_FILE} unreadable ({results}) and {JOURNAL_FILE} {journal}: \
         nothing to rebuild the run from"
    )]
    BothUnusable {
        /// The directory.
        dir: String,
        /// Why `results.json` could not be read.
        results: String,
        /// "missing" or "unreadable (why)".
        journal: String,
    },
}

/// How reading one of the two files went.
enum Read {
    Missing,
    Loaded(Box<RunRecord>),
    /// Readable, but in a layout version this build does not read: never fall back from this.
    Refused(LoadError),
    Unreadable(String),
}

/// Just the version field, read before the rest so a future layout is refused by its version,
/// not by whatever field it changed.
#[derive(Deserialize)]
struct Version {
    schema_version: u32,
}

/// Load the run record of `dir` (see the module header for the fallbacks), with fields that
/// older records lack filled in from the built-in declarations.
pub fn load(dir: &Path) -> Result<Loaded, LoadError> {
    let (mut record, note) = load_as_written(dir)?;
    crate::lifecycle::upgrade(&mut record);
    Ok(Loaded { record, note })
}

/// The record exactly as the directory holds it, and the note when it was rebuilt.
fn load_as_written(dir: &Path) -> Result<(RunRecord, Option<String>), LoadError> {
    let (results, jpath) = (dir.join(RESULTS_FILE), dir.join(JOURNAL_FILE));
    let why_results = match read_results(&results) {
        Read::Loaded(rec) => return Ok((*rec, None)),
        Read::Refused(e) => return Err(e),
        Read::Missing => None,
        Read::Unreadable(why) => Some(why),
    };
    let why_journal = match read_journal(&jpath) {
        Read::Loaded(rec) => {
            let note = why_results.map(|why| {
                format!(
                    "{} unreadable ({why}); rebuilt from {} (nothing rewritten)",
                    results.display(),
                    jpath.display()
                )
            });
            return Ok((*rec, note));
        }
        Read::Refused(e) => return Err(e),
        Read::Missing => None,
        Read::Unreadable(why) => Some(format!("unreadable ({why})")),
    };
    let dir = dir.display().to_string();
    Err(match (why_results, why_journal) {
        (None, None) => LoadError::Empty { dir },
        (None, Some(journal)) => LoadError::JournalUnusable { dir, journal },
        (Some(results), journal) => LoadError::BothUnusable {
            dir,
            results,
            journal: journal.unwrap_or_else(|| "missing".into()),
        },
    })
}

fn refused(path: &Path, version: u32) -> Option<Read> {
    check_schema_version(version).err().map(|message| {
        Read::Refused(LoadError::Refused {
            path: path.display().to_string(),
            message,
        })
    })
}

fn read_results(path: &Path) -> Read {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
        Err(e) => return Read::Unreadable(e.to_string()),
    };
    if let Ok(v) = serde_json::from_slice::<Version>(&bytes) {
        if let Some(r) = refused(path, v.schema_version) {
            return r;
        }
    }
    match serde_json::from_slice(&bytes) {
        Ok(rec) => Read::Loaded(Box::new(rec)),
        Err(e) => Read::Unreadable(e.to_string()),
    }
}

fn read_journal(path: &Path) -> Read {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
        Err(e) => return Read::Unreadable(e.to_string()),
    };
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if let Ok(v) = serde_json::from_str::<Version>(first) {
        if let Some(r) = refused(path, v.schema_version) {
            return r;
        }
    }
    let events = match journal::read(path) {
        Ok(ev) => ev,
        Err(e) => return Read::Unreadable(e),
    };
    match journal::assemble(&events) {
        Ok(rec) => Read::Loaded(Box::new(rec)),
        Err(e) => Read::Unreadable(e),
    }
}

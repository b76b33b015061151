//! Loading a run directory's record for `report` and `compare`.
//!
//! `results.json` is the record; when it is missing (a run killed with -9) or unreadable (torn,
//! truncated, hand-damaged) the record is rebuilt from `journal.jsonl`, saying so on stderr
//! when `results.json` was there but damaged. Nothing is written: the damaged file stays as
//! evidence, and `report DIR --format json > DIR/results.json` restores it on request.
//! A layout version this build does not read is refused, never guessed at. Every refusal is a
//! [`UsageError`]: one line, exit 2.

use fsbattery_core::error::UsageError;
use fsbattery_core::journal::{self, JOURNAL_FILE};
use fsbattery_core::model::{check_schema_version, RunRecord};
use fsbattery_core::runner::RESULTS_FILE;
use serde::Deserialize;
use std::path::Path;

/// How reading one of the two files went.
enum Read {
    Missing,
    Loaded(Box<RunRecord>),
    /// Readable, but in a layout version this build does not read: never fall back from this.
    Refused(String),
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
pub fn load(dir: &Path) -> anyhow::Result<RunRecord> {
    let mut rec = load_as_written(dir)?;
    fsbattery_core::runner::lifecycle::upgrade(&mut rec);
    Ok(rec)
}

/// The record exactly as the directory holds it.
fn load_as_written(dir: &Path) -> anyhow::Result<RunRecord> {
    let (results, jpath) = (dir.join(RESULTS_FILE), dir.join(JOURNAL_FILE));
    let why_results = match read_results(&results) {
        Read::Loaded(rec) => return Ok(*rec),
        Read::Refused(m) => return Err(UsageError::Invalid(m).into()),
        Read::Missing => None,
        Read::Unreadable(why) => Some(why),
    };
    let why_journal = match read_journal(&jpath) {
        Read::Loaded(rec) => {
            if let Some(why) = &why_results {
                eprintln!(
                    "fsbattery: {} unreadable ({why}); rebuilt from {} (nothing rewritten)",
                    results.display(),
                    jpath.display()
                );
            }
            return Ok(*rec);
        }
        Read::Refused(m) => return Err(UsageError::Invalid(m).into()),
        Read::Missing => "missing".to_string(),
        Read::Unreadable(why) => format!("unreadable ({why})"),
    };
    let message = match why_results {
        None if why_journal == "missing" => format!(
            "{} holds no {RESULTS_FILE} or {JOURNAL_FILE}: give a directory written by \
             `fsbattery run`",
            dir.display()
        ),
        None => format!(
            "{}: no {RESULTS_FILE}, and {JOURNAL_FILE} {why_journal}",
            dir.display()
        ),
        Some(why) => format!(
            "{}: {RESULTS_FILE} unreadable ({why}) and {JOURNAL_FILE} {why_journal}: \
             nothing to rebuild the run from",
            dir.display()
        ),
    };
    Err(UsageError::Invalid(message).into())
}

fn read_results(path: &Path) -> Read {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
        Err(e) => return Read::Unreadable(e.to_string()),
    };
    if let Ok(v) = serde_json::from_slice::<Version>(&bytes) {
        if let Err(m) = check_schema_version(v.schema_version) {
            return Read::Refused(format!("{}: {m}", path.display()));
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
        if let Err(m) = check_schema_version(v.schema_version) {
            return Read::Refused(format!("{}: {m}", path.display()));
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

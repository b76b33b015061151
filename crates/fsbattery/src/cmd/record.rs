//! Loading a run directory's record for `report`, `compare` and `outputs`: the loading itself
//! (fallback to the journal, schema-version refusal, upgrade of older records) is
//! [`fsbattery_record::load()`]'s; this edge prints its note on stderr and turns its refusal
//! into a [`UsageError`]: one line, exit 2.

use crate::stderr::errln;
use fsbattery_core::error::UsageError;
use fsbattery_core::model::RunRecord;
use std::path::Path;

/// Load the run record of `dir`, saying on stderr when it was rebuilt from the journal.
pub fn load(dir: &Path) -> anyhow::Result<RunRecord> {
    let loaded = fsbattery_record::load(dir).map_err(|e| UsageError::Invalid(e.to_string()))?;
    if let Some(note) = &loaded.note {
        errln!("fsbattery: {note}");
    }
    let mut record = loaded.record;
    with_published(&mut record);
    Ok(record)
}

/// Put the seed's published numbers into a preset run's record (records written before they
/// shipped, and runs as they finish), so every report shows then and now.
pub fn with_published(record: &mut RunRecord) {
    if record.published.is_none() && record.source.is_none() {
        record.published = fsbattery_core::published::for_suite(&record.plan.suite).map(Box::new);
    }
}

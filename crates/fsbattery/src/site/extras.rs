//! What a run's page shows beyond the store's facts, from the run's own record: the hook the
//! report crate's then-and-now tables (a preset's published seed numbers beside this run's)
//! plug into. It returns `None` until the report crate offers those tables for a record; the
//! site then shows the run's cells alone.

use fsbattery_record::RunRecord;

/// Extra HTML for the page of the run whose record is `record`, or `None`.
pub fn run_extras(record: &RunRecord) -> Option<String> {
    // Rows whose label differs from the seed's wording are the ones a then-and-now table
    // lists; without published numbers for them there is nothing to add yet.
    let _ = record;
    None
}

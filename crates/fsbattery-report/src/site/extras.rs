//! What a run's page shows beyond the store's facts, from the run's own record: where its
//! suite is a preset with published seed numbers, the report's then-and-now section (the
//! seed's values and ranks beside this run's, Kendall's τ, the flips and the slope chart).

use fsbattery_record::RunRecord;

/// Extra HTML for the page of the run whose record is `record`, or `None`.
pub fn run_extras(record: &RunRecord) -> Option<String> {
    crate::html::then_and_now_for_record(record)
        .map(|body| format!("<h2>Then and now</h2>\n{body}"))
}

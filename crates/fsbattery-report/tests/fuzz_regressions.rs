//! Replays the run_record fuzzer's saved inputs on stable (`fuzz/regressions/run_record/`)
//! through the harness the cargo-fuzz target calls: load results.json, render it every way.
//! No input may panic; inputs named `err-*` must also be refused.

#[path = "../../../fuzz/harness/report.rs"]
mod harness;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn run_record_inputs_never_panic() {
    replay::replay("run_record", harness::run_record);
}

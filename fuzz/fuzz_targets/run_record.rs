//! Fuzz target: see `harness::run_record` for what it does with the input.
#![no_main]

#[path = "../harness/report.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness::run_record(data);
});

//! Fuzz target: see `harness::target_spec` for what it does with the input.
#![no_main]

#[path = "../harness/core.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness::target_spec(data);
});

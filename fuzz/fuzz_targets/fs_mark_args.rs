//! Fuzz target: see `harness::fs_mark_args` for what it does with the input.
#![no_main]

#[path = "../harness/core.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness::fs_mark_args(data);
});

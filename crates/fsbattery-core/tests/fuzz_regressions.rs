//! Replays the fuzzers' saved inputs on stable: every file under `fuzz/regressions/TARGET/`
//! goes through the same harness function the cargo-fuzz target calls (`fuzz/harness/`).
//! No input may panic; inputs named `err-*` (minimised crashes whose fix is a refusal) must
//! also be refused. `corpus/` holds the minimised corpus, `crashes/` every crash found.

#[path = "../../../fuzz/harness/core.rs"]
mod harness;

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

use replay::replay;

#[test]
fn suite_toml_inputs_never_panic() {
    replay("suite_toml", harness::suite_toml);
}

#[test]
fn target_spec_inputs_never_panic() {
    replay("target_spec", harness::target_spec);
}

#[test]
fn set_value_inputs_never_panic() {
    replay("set_value", harness::set_value);
}

#[test]
fn journal_inputs_never_panic() {
    replay("journal", harness::journal);
}

#[test]
fn fio_job_inputs_never_panic() {
    replay("fio_job", harness::fio_job);
}

#[test]
fn dbench_args_inputs_never_panic() {
    replay("dbench_args", harness::dbench_args);
}

#[test]
fn dbench_loadfile_inputs_never_panic() {
    replay("dbench_loadfile", harness::dbench_loadfile);
}

#[test]
fn fs_mark_args_inputs_never_panic() {
    replay("fs_mark_args", harness::fs_mark_args);
}

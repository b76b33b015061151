//! `--set` values near u64::MAX are user input like any other: whatever refuses them, the
//! planner's arithmetic on them must not panic (exit 101) first. Found while fuzzing `--set`.

mod common;
use common::*;

#[test]
fn huge_sizes_do_not_overflow_the_planner() {
    let cwd = tempfile::tempdir().unwrap();
    // 9000000T = 9.9e18 bytes: doubled for the loop image size it overflowed a u64.
    for set in ["stream.size=9000000T", "stream.size=16777215T"] {
        let o = run_in(
            cwd.path(),
            &[
                "run",
                "--out",
                "out",
                "--workload",
                "stream",
                "--set",
                set,
                "--target",
                "dir:/nonexistent-fsbattery-dir",
            ],
        );
        assert_eq!(code(&o), 2, "--set {set}: stderr {}", stderr(&o));
        assert!(!cwd.path().join("out").exists(), "--set {set} wrote output");
    }
}

//! A target whose own mount or mkfs options the kernel rejects fails the run before anything
//! is measured: one line naming the target and the kernel's reason, exit status 7, no output
//! directory, nothing left mounted (root with loop devices; skips otherwise).

mod common;
use common::*;

#[test]
fn a_rejected_mount_option_fails_the_plan_in_one_line() {
    if !loop_ext4_available() {
        return;
    }
    let cwd = tempfile::tempdir().unwrap();
    let o = run_in(
        cwd.path(),
        &[
            "run",
            "--workload",
            "metadata",
            "--set",
            "metadata.files=20",
            "--repeat",
            "2",
            "--target",
            "loop:ext4",
            "--target",
            "loop:ext4,mount=bogus_opt",
            "--out",
            "r",
            "--no-ceiling",
        ],
    );
    let err = stderr(&o);
    assert_eq!(code(&o), 7, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains("target loop:ext4,mount=bogus_opt: refused by a trial mkfs and mount")
            && err.contains("bogus_opt")
            && err.ends_with("; fix its mkfs= or mount= options\n"),
        "{err}"
    );
    assert!(!cwd.path().join("r").exists(), "no output directory");
    assert!(
        !cwd.path().join("fsbattery-work").exists(),
        "no work directory"
    );
    assert_clean(&cwd.path().join("fsbattery-work"));
}

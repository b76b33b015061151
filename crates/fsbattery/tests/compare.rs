//! `fsbattery compare` on real runs: prints ratios with verdicts, and gates on a planted
//! regression with `--fail-if-worse`.

mod common;
use common::*;

#[test]
fn compare_flags_a_planted_regression_and_not_a_rerun_of_itself() {
    let target = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let o = run_in(
        work.path(),
        &[
            "run",
            "--target",
            &spec,
            "--workload",
            "metadata",
            "--repeat",
            "5",
        ]
        .iter()
        .chain(&["--set", "metadata.files=100", "--out", "base", "--quiet"])
        .copied()
        .collect::<Vec<_>>(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    // The same run compared with itself: never significant.
    let same = run_in(
        work.path(),
        &["compare", "base", "base", "--fail-if-worse", "5"],
    );
    assert_eq!(code(&same), 0, "{}", stderr(&same));
    assert!(
        stdout(&same).contains("no significant difference"),
        "{}",
        stdout(&same)
    );
    assert!(
        stdout(&same).contains("1.000"),
        "ratio shown: {}",
        stdout(&same)
    );

    // Plant a 20% slowdown: replace the measured samples by a steady base (1.0 ± 1%) and a
    // copy 20% slower, so the verdict depends on the planted change, not on this machine's noise.
    let mut rec = results(&work.path().join("base"));
    let jitter = [1.00, 1.01, 0.99, 1.02, 0.98];
    let mut slow = rec.clone();
    for (r, factor) in [(&mut rec, 1.0), (&mut slow, 1.2)] {
        for c in r["cells"].as_array_mut().unwrap() {
            for (s, j) in c["samples"].as_array_mut().unwrap().iter_mut().zip(jitter) {
                s["value"] = serde_json::json!(j * factor);
            }
        }
    }
    std::fs::write(work.path().join("base/results.json"), rec.to_string()).unwrap();
    std::fs::create_dir(work.path().join("slow")).unwrap();
    std::fs::write(work.path().join("slow/results.json"), slow.to_string()).unwrap();
    let slow = run_in(
        work.path(),
        &["compare", "base", "slow", "--fail-if-worse", "10"],
    );
    assert_eq!(
        code(&slow),
        4,
        "stdout {} stderr {}",
        stdout(&slow),
        stderr(&slow)
    );
    assert!(stdout(&slow).contains("+20.0%"), "{}", stdout(&slow));
    assert!(stderr(&slow).contains("regression"), "{}", stderr(&slow));
}

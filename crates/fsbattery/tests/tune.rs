//! `fsbattery tune`: the option spaces it lists, the mistakes it refuses in one line, its
//! dry run, and on loop ext4 (root with loop devices; skips otherwise, fails under
//! FSBATTERY_REQUIRE_PRIVILEGED=1) that an option known to dominate a workload — `data=journal`
//! writes every block twice, so a stream write takes about twice as long — is found first, with
//! a significant effect, by two tunes with different designs.

mod common;
use common::*;
use serde_json::Value;

#[test]
fn list_options_shows_values_defaults_risks_and_invalid_combinations() {
    let o = bin().args(["list", "options", "ext4"]).output().unwrap();
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        out.contains("data              mount  [ordered] writeback journal"),
        "{out}"
    );
    assert!(out.contains("risk data=writeback:"), "{out}");
    assert!(
        out.contains("invalid: data=journal with has_journal=off"),
        "{out}"
    );
    assert!(
        out.contains("bytes_per_inode") && out.contains("bytes-per-inode ratio (-i)"),
        "{out}"
    );
    assert!(
        out.contains("lazytime") && out.contains("large_dir"),
        "{out}"
    );
    let o = bin().args(["list", "options", "xfs"]).output().unwrap();
    let xfs = stdout(&o);
    assert!(
        xfs.contains("dir_block_size") && xfs.contains("directory block size (-n size)"),
        "{xfs}"
    );
    assert!(xfs.contains("risk maxpct=5:"), "{xfs}");
    let o = bin().args(["list", "options", "zfs"]).output().unwrap();
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("choose one of ext4, xfs, btrfs"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn mistakes_are_refused_in_one_line() {
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "--target",
                "loop:ext4",
                "--target",
                "loop:xfs",
                "--workload",
                "metdata",
            ],
            "unknown workload 'metdata' (did you mean 'metadata'?)",
        ),
        (
            &[
                "--target",
                "loop:ext4",
                "--workload",
                "stream",
                "--objective",
                "stream.create_durabel",
            ],
            "no metric 'create_durabel' (did you mean 'create_durable'?)",
        ),
        (
            &["--target", "dir:/tmp", "--workload", "stream"],
            "takes loop:FS[,size=SIZE] targets",
        ),
        (&["--target", "loop:ext4"], "--workload NAME"),
        (
            &[
                "--target",
                "loop:ext4",
                "--workload",
                "stream",
                "--option",
                "dat",
            ],
            "unknown option 'dat'",
        ),
        (
            &[
                "--target",
                "loop:ext4,mount=noatime",
                "--workload",
                "stream",
            ],
            "--fix NAME=VALUE",
        ),
    ];
    for (args, want) in cases {
        let o = bin()
            .arg("tune")
            .args(args)
            .arg("--dry-run")
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn the_dry_run_prints_the_plan_and_makes_nothing() {
    let cwd = tempfile::tempdir().unwrap();
    let o = run_in(
        cwd.path(),
        &[
            "tune",
            "--target",
            "loop:ext4",
            "--target",
            "loop:xfs",
            "--workload",
            "stream",
            "--safe-only",
            "--dry-run",
        ],
    );
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        out.contains("data               ordered / journal"),
        "safe only: {out}"
    );
    assert!(
        out.contains("screen loop:xfs:") && out.contains("time: about"),
        "{out}"
    );
    assert!(
        std::fs::read_dir(cwd.path()).unwrap().next().is_none(),
        "nothing made"
    );
}

/// One short tune of `data` and `atime` for stream's durable write; its JSON answer.
fn tune_stream(cwd: &std::path::Path, seed: &str, out: &str) -> Value {
    let o = run_in(
        cwd,
        &[
            "tune",
            "--target",
            "loop:ext4",
            "--workload",
            "stream",
            "--set",
            "stream.size=16MiB",
            "--objective",
            "stream.create_durable",
            "--option",
            "data",
            "--option",
            "atime",
            "--budget",
            "28s",
            "--seed",
            seed,
            "--out",
            out,
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("the answer is JSON")
}

#[test]
fn data_journal_is_found_first_on_a_stream_write_twice() {
    if !loop_ext4_available() {
        return;
    }
    let cwd = tempfile::tempdir().unwrap();
    for (seed, out) in [("1", "a"), ("2", "b")] {
        let a = tune_stream(cwd.path(), seed, out);
        let mut options: Vec<&Value> = a["targets"][0]["options"]
            .as_array()
            .unwrap()
            .iter()
            .collect();
        options.sort_by(|x, y| {
            y["importance"]
                .as_f64()
                .unwrap()
                .total_cmp(&x["importance"].as_f64().unwrap())
        });
        let top = options[0];
        assert_eq!(top["name"], "data", "seed {seed}: {a}");
        assert_eq!(top["significant"], true, "seed {seed}: {a}");
        assert_eq!(top["value"], "journal", "seed {seed}: {a}");
        assert!(top["effect"].as_f64().unwrap() < 0.0, "slower: {a}");
        assert!(cwd
            .path()
            .join(out)
            .join("02-screen/results.json")
            .is_file());
        assert!(cwd.path().join(out).join("tune.json").is_file());
        three_outcomes_and_lines_to_paste(&a);
        let page = std::fs::read_to_string(cwd.path().join(out).join("tune.html")).unwrap();
        assert!(
            page.contains("data=journal") && page.contains("<svg"),
            "the charts"
        );
    }
    // A finished tune resumed: its answer again, nothing measured.
    let o = run_in(
        cwd.path(),
        &[
            "tune",
            "--target",
            "loop:ext4",
            "--workload",
            "stream",
            "--set",
            "stream.size=16MiB",
            "--objective",
            "stream.create_durable",
            "--option",
            "data",
            "--option",
            "atime",
            "--budget",
            "28s",
            "--seed",
            "1",
            "--out",
            "a",
            "--format",
            "json",
            "--resume",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let again: Value = serde_json::from_str(&stdout(&o)).expect("the answer again");
    let saved: Value =
        serde_json::from_slice(&std::fs::read(cwd.path().join("a/tune.json")).unwrap()).unwrap();
    assert_eq!(again, saved);
    assert_clean(&cwd.path().join("fsbattery-work"));
}

/// Every option has one of the three outcomes with its interval, one called negligible has
/// its interval inside the margin, one that matters excludes 0, and every recommendation
/// can be pasted.
fn three_outcomes_and_lines_to_paste(a: &Value) {
    let margin = a["margin_pct"].as_f64().unwrap();
    for t in a["targets"].as_array().unwrap() {
        for o in t["options"].as_array().unwrap() {
            let ci = |k: usize| o["ci"][k].as_f64();
            match o["outcome"].as_str().unwrap() {
                "matters" => {
                    let (lo, hi) = (ci(0).unwrap(), ci(1).unwrap());
                    assert!(lo > 0.0 || hi < 0.0, "{o}");
                }
                "negligible" => {
                    let (lo, hi) = (ci(0).unwrap(), ci(1).unwrap());
                    assert!(lo > -margin && hi < margin, "{o}");
                }
                "unresolved" => assert!(o["repeats_needed"].is_number() || ci(0).is_none(), "{o}"),
                other => panic!("outcome {other}: {o}"),
            }
        }
        let r = &t["recommended"];
        for k in ["mkfs", "mount_options", "fstab"] {
            assert!(!r[k].as_str().unwrap().is_empty(), "{k}: {r}");
        }
        assert!(r["mkfs"].as_str().unwrap().ends_with("/dev/DEVICE"), "{r}");
    }
    assert!(a["ended"].is_string(), "{a}");
}

/// The arguments of a short stream tune into `out` (with `more` after them).
fn stream_tune_args<'a>(out: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "tune",
        "--target",
        "loop:ext4",
        "--workload",
        "stream",
        "--set",
        "stream.size=16MiB",
        "--objective",
        "stream.create_durable",
        "--option",
        "data",
        "--option",
        "atime",
        "--budget",
        "28s",
        "--out",
        out,
        "--format",
        "json",
    ];
    v.extend_from_slice(more);
    v
}

#[test]
fn an_interrupted_tune_resumes_to_an_answer() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    use std::time::{Duration, Instant};
    if !loop_ext4_available() {
        return;
    }
    let cwd = tempfile::tempdir().unwrap();
    let child = bin()
        .current_dir(cwd.path())
        .args(stream_tune_args("c", &[]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt it once the screen has measured something: pilot finished, screen cut.
    let journal = cwd.path().join("c/02-screen/journal.jsonl");
    let start = Instant::now();
    while std::fs::read_to_string(&journal)
        .map(|j| !j.contains("\"sample\""))
        .unwrap_or(true)
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the screen never produced a sample"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 130, "{}", stderr(&o));
    assert!(!cwd.path().join("c/tune.json").exists());

    let o = run_in(cwd.path(), &stream_tune_args("c", &["--resume"]));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("read back"), "{}", stderr(&o));
    let a: Value = serde_json::from_str(&stdout(&o)).expect("the answer is JSON");
    three_outcomes_and_lines_to_paste(&a);
    assert_clean(&cwd.path().join("fsbattery-work"));
}

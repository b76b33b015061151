//! The application workloads (issue 41 items 4 and 5): `git` and `build` run the real git,
//! make and gcc on a loop ext4 at a small scale, and their programs are checked when the
//! plan is built. The loop test needs root, /dev/loop-control, mkfs.ext4, git, make and gcc;
//! it skips without them unless FSBATTERY_REQUIRE_PRIVILEGED=1.

mod common;
use common::*;
use serde_json::Value;

/// The first sample of `workload`/`metric` on `target`.
fn sample(rec: &Value, target: &str, workload: &str, metric: &str) -> Value {
    let cells = rec["cells"].as_array().unwrap();
    let c = cells
        .iter()
        .find(|c| c["target"] == target && c["workload"] == workload && c["metric"] == metric)
        .unwrap_or_else(|| panic!("no {target} {workload}/{metric} cell"));
    assert_eq!(c["status"]["state"], "ok", "{c}");
    c["samples"][0].clone()
}

/// Both workloads on a fresh ext4: every phase measured and plausible — the build really
/// compiled (its CPU is that of nine gcc runs, within the phase's wall time on every core;
/// the workload itself fails the cell unless make left one object per source and clean
/// none), git's status saw a clean tree (else the cell fails), the programs' versions kept.
#[test]
fn git_and_build_run_on_a_loop_ext4() {
    if !loop_ext4_available() || !tools_available("apps test", &["git", "make", "gcc"], false) {
        return;
    }
    let work = tempfile::tempdir_in("/var/tmp").unwrap();
    let args = [
        "run",
        "--target",
        "loop:ext4",
        "--workload",
        "git,build",
        "--repeat",
        "1",
        "--cache",
        "cold",
        "--set",
        "git.files=300",
        "--set",
        "git.commits=12",
        "--set",
        "build.sources=8",
        "--set",
        "build.jobs=2",
        "--out",
        "r",
        "--quiet",
    ];
    let o = run_in(work.path(), &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = results(&work.path().join("r"));
    for m in ["clone", "checkout", "status", "gc"] {
        let s = sample(&rec, "ext4", "git", m);
        let v = s["value"].as_f64().unwrap();
        assert!(v > 0.0 && v < 60.0, "git {m}: {s}");
        // Every phase ran git as a child: its CPU was counted.
        assert!(
            s["user_s"].as_f64().unwrap() + s["sys_s"].as_f64().unwrap() > 0.0,
            "{s}"
        );
    }
    let make = sample(&rec, "ext4", "build", "make");
    let cpu = sample(&rec, "ext4", "build", "compile_cpu");
    let (wall, cpu_s) = (
        make["value"].as_f64().unwrap(),
        cpu["value"].as_f64().unwrap(),
    );
    let cores = rec["host"]["cores"].as_f64().unwrap();
    assert!(
        (0.05..=wall * cores + 0.01).contains(&cpu_s),
        "compile CPU {cpu_s} s over {wall} s on {cores} cores"
    );
    let direct = make["user_s"].as_f64().unwrap() + make["sys_s"].as_f64().unwrap();
    assert!((direct - cpu_s).abs() < 1e-9, "{make} vs {cpu}");
    assert!(
        sample(&rec, "ext4", "build", "clean")["value"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let tools = rec["plan"]["settings"]["workloads"].to_string();
    for v in ["git version", "gcc", "GNU Make"] {
        assert!(tools.contains(v), "{v} not in {tools}");
    }
    assert_clean(work.path());
}

/// Without git on PATH a run naming the git workload is refused before any target is made,
/// with one line naming the program and how to install it (exit 2, usage).
#[test]
fn a_missing_git_is_refused_by_the_plan() {
    let bin_dir = tempfile::tempdir().unwrap();
    // The core programs command mode checks, and nothing else.
    for p in [
        "touch", "mkdir", "find", "rm", "dd", "cp", "cat", "split", "sync",
    ] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| std::path::Path::new(d).join(p))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("{p} not installed"));
        std::os::unix::fs::symlink(found, bin_dir.path().join(p)).unwrap();
    }
    let work = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let o = bin()
        .current_dir(work.path())
        .env("PATH", bin_dir.path())
        .args(["run", "--target", &spec, "--workload", "git", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("workload git runs `git`"), "{err}");
    assert!(err.contains("fsbattery setup --workload git"), "{err}");
    assert_eq!(std::fs::read_dir(target.path()).unwrap().count(), 0);
}

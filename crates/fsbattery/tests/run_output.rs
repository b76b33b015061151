//! `run --format json` and `--json FILE`, the habits of hyperfine and fio users: stdout holds
//! the run record alone (progress and the table go to stderr), so `| jq` works.

mod common;
use common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// A sticky world-writable directory, like /tmp, usable by the unprivileged user.
fn sticky_tempdir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    d
}

/// Whether this process may mount a tmpfs; panics instead of skipping when CI requires it.
fn root() -> bool {
    if nix::unistd::geteuid().is_root() {
        return true;
    }
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("privileged test needs root (FSBATTERY_REQUIRE_PRIVILEGED=1)");
    }
    eprintln!("skipped: privileged test needs root");
    false
}

/// `bytes` parse as JSON with python3's json module, as the issue's one-liner does; true
/// when python3 is missing (serde_json has parsed them already).
fn python_parses(bytes: &[u8]) -> bool {
    let Ok(mut child) = Command::new("python3")
        .args(["-c", "import json,sys; json.load(sys.stdin)"])
        .stdin(Stdio::piped())
        .spawn()
    else {
        return true;
    };
    use std::io::Write;
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    child.wait().unwrap().success()
}

const SMALL: [&str; 7] = [
    "--workload",
    "metadata",
    "--repeat",
    "1",
    "--set",
    "metadata.files=20",
    "--format",
];

/// Checks stdout is one JSON run record with `targets` targets and the table went to stderr.
fn assert_json_only(o: &std::process::Output, targets: usize, out: &Path) {
    let err = stderr(o);
    assert_eq!(code(o), 0, "{err}");
    let rec: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON alone ({e}): {}", stdout(o)));
    assert!(python_parses(&o.stdout));
    assert_eq!(rec["targets"].as_array().unwrap().len(), targets);
    assert_eq!(rec, results(out), "stdout is the run record");
    assert!(
        err.contains("results: "),
        "table and paths on stderr: {err}"
    );
}

#[test]
fn format_json_on_a_directory_target_writes_only_the_record_to_stdout() {
    let work = sticky_tempdir();
    let target = sticky_tempdir();
    let spec = format!("dir:{}", target.path().display());
    let o = unprivileged()
        .current_dir(work.path())
        .args(["run", "--target", &spec])
        .args(SMALL)
        .args(["json", "--out", "r", "--json", "rec.json"])
        .output()
        .unwrap();
    assert_json_only(&o, 1, &work.path().join("r"));
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.path().join("rec.json")).unwrap())
            .unwrap();
    assert_eq!(file, results(&work.path().join("r")), "--json FILE");
}

#[test]
fn json_file_keeps_the_table_on_stdout_and_quiet_json_keeps_stderr_clean() {
    let work = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let o = bin()
        .current_dir(work.path())
        .args(["run", "--target", &spec])
        .args(SMALL)
        .args(["table", "--out", "a", "--json", "a.json", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("results: a"), "{}", stdout(&o));
    assert!(work.path().join("a.json").is_file());
    let o = bin()
        .current_dir(work.path())
        .args(["run", "--target", &spec])
        .args(SMALL)
        .args(["json", "--out", "b", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("JSON alone");
    assert!(!stderr(&o).contains("results: "), "{}", stderr(&o));
}

#[test]
fn format_json_on_tmpfs_as_root_writes_only_the_record_to_stdout() {
    if !root() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let o = bin()
        .current_dir(work.path())
        .args(["run", "--target", "tmpfs:size=64M"])
        .args(SMALL)
        .args(["json", "--out", "r", "--workdir", "w"])
        .output()
        .unwrap();
    assert_json_only(&o, 1, &work.path().join("r"));
    let w = work.path().to_string_lossy().to_string();
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    assert!(!mounts.contains(&w), "still mounted under {w}");
}

/// Loop devices and mounts that name `dir`: what a run there would have made.
fn made_under(dir: &Path) -> Vec<String> {
    let d = dir.to_string_lossy().to_string();
    let loops = Command::new("losetup").arg("-a").output();
    let loops = loops.map(|o| stdout(&o)).unwrap_or_default();
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    loops
        .lines()
        .chain(mounts.lines())
        .filter(|l| l.contains(&d))
        .map(str::to_string)
        .collect()
}

#[test]
fn dry_run_prints_the_plan_and_touches_nothing() {
    let cwd = sticky_tempdir();
    let target = tempfile::tempdir().unwrap();
    let dir = format!("dir:{}", target.path().display());
    let mut specs = vec![dir.as_str()];
    // A tmpfs and a loop image as root: their parsing must still make nothing. The work
    // directory lives in RAM so the host filesystem's free space cannot refuse the image.
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let work = shm.path().join("w");
    if root() {
        specs.extend(["tmpfs:size=64M", "loop:ext4,size=64M"]);
    }
    let mut c = bin();
    c.current_dir(cwd.path())
        .args(["run", "--dry-run", "--repeat", "4"]);
    for s in &specs {
        c.args(["--target", s]);
    }
    c.args(["--workload", "metadata,stream", "--workdir"])
        .arg(&work);
    let o = c.args(["--out", "res/new"]).output().unwrap();
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for want in [
        "targets:",
        "workloads:",
        "metadata     files=",
        "stream       size=",
        "× 4 repeat(s)",
        "written",
        "time: roughly",
    ] {
        assert!(out.contains(want), "{want:?} missing: {out}");
    }
    if specs.len() > 1 {
        assert!(out.contains("sparse image(s) of 64MiB"), "{out}");
        assert!(out.contains("smaller than the data"), "{out}");
        assert!(out.contains("in RAM"), "{out}");
    }
    assert!(entries(cwd.path()).is_empty(), "{:?}", entries(cwd.path()));
    assert!(!work.exists(), "work directory made");
    assert!(entries(target.path()).is_empty());
    assert!(
        made_under(shm.path()).is_empty(),
        "{:?}",
        made_under(shm.path())
    );
}

#[test]
fn dry_run_without_root_makes_no_default_directory() {
    let cwd = sticky_tempdir();
    let o = unprivileged()
        .current_dir(cwd.path())
        .args(["run", "--dry-run", "--scale", "standard"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("a fresh directory under fsbattery-work"));
    assert!(entries(cwd.path()).is_empty(), "{:?}", entries(cwd.path()));
}

#[test]
fn dry_run_estimates_the_time_from_the_last_run_of_the_same_workloads() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let args = ["run", "--target", &spec, "--workload", "metadata"];
    let sets = ["--set", "metadata.files=20", "--quiet"];
    let o = run_in(
        cwd.path(),
        &[&args[..], &sets, &["--out", "res/a"]].concat(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(
        cwd.path(),
        &[&args[..], &sets, &["--out", "res/b", "--dry-run"]].concat(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("time: about") && stdout(&o).contains("res/a"),
        "{}",
        stdout(&o)
    );
    assert!(!cwd.path().join("res/b").exists());
    // Another workload set has no earlier run: the scale's figure.
    let o = run_in(
        cwd.path(),
        &[&args[..4], &["split", "--out", "res/c", "--dry-run"]].concat(),
    );
    assert!(stdout(&o).contains("time: roughly"), "{}", stdout(&o));
}

#[test]
fn run_label_names_the_run_in_report_and_compare_and_dir_targets_their_paths() {
    let cwd = tempfile::tempdir().unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pa = a.path().canonicalize().unwrap().display().to_string();
    let pb = b.path().canonicalize().unwrap().display().to_string();
    let (sa, sb) = (format!("dir:{pa}"), format!("dir:{pb}"));
    let sc = format!("dir:{pb},label=again");
    let o = run_in(
        cwd.path(),
        &[
            "run",
            "--target",
            &sa,
            "--target",
            &sb,
            "--target",
            &sc,
            "--workload",
            "metadata",
            "--repeat",
            "1",
            "--set",
            "metadata.files=20",
            "--out",
            "r",
            "--quiet",
            "--label",
            "kernel 6.18",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = results(&cwd.path().join("r"));
    assert_eq!(rec["plan"]["label"], "kernel 6.18");
    let labels: Vec<&str> = rec["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, [pa.as_str(), pb.as_str(), "again"]);
    let o = run_in(cwd.path(), &["report", "r", "--xlsx", "r.xlsx"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(cwd.path(), &["compare", "r", "r"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("kernel 6.18"), "{}", stdout(&o));
    let o = run_in(cwd.path(), &["run", "--dry-run", "--label", "a\nb"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

/// Issue 13 part 3: every run records fsbattery's own ceiling, measured on this machine in
/// well under a second; `--no-ceiling` leaves it out.
#[test]
fn a_run_records_the_tools_ceiling_unless_told_not_to() {
    let work = tempfile::tempdir().unwrap();
    metadata_run(work.path(), "with", 20, 1);
    let rec = results(&work.path().join("with"));
    let c = &rec["host"]["tool_ceiling"];
    assert!(c["read_4k_ops_per_s"].as_f64().unwrap() > 0.0, "{c}");
    assert!(c["null_ops_per_s"].as_f64().unwrap() > 0.0, "{c}");
    assert!(c["secs"].as_f64().unwrap() < 2.0, "{c}");
    assert!(!std::path::Path::new(c["file"].as_str().unwrap()).exists());
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let args = [
        "run",
        "--target",
        &spec,
        "--workload",
        "metadata",
        "--repeat",
        "1",
        "--set",
        "metadata.files=20",
        "--out",
        "without",
        "--quiet",
        "--no-ceiling",
    ];
    let o = run_in(work.path(), &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = results(&work.path().join("without"));
    assert!(rec["host"].get("tool_ceiling").is_none(), "{}", rec["host"]);
}

/// Without a terminal and with `--verbose`, progress is one line per sample with the value at
/// the table's precision: no "61459.9418 ops/s".
#[test]
fn log_lines_show_values_at_the_tables_precision() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let o = run_in(
        cwd.path(),
        &[
            "run",
            "--workload",
            "randomio",
            "--target",
            &spec,
            "--repeat",
            "1",
            "--out",
            "r",
            "--no-ceiling",
            "--set",
            "randomio.size=4MiB",
            "--set",
            "randomio.runtime=1",
            "--verbose",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    let samples: Vec<&str> = err.lines().filter(|l| l.contains(" (cpu ")).collect();
    assert!(samples.len() > 3, "{err}");
    for l in samples {
        let value = l.split(" = ").nth(1).unwrap().split(' ').next().unwrap();
        let v: f64 = value.parse().unwrap();
        let decimals = value.split('.').nth(1).map_or(0, str::len);
        let most = match v.abs() {
            a if a >= 1000.0 => 0,
            a if a >= 100.0 => 1,
            _ => 4,
        };
        assert!(decimals <= most, "{l}");
    }
}

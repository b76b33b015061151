//! Root-only end-to-end tests of the cache state a run records: `--cache cold` finds none of a
//! phase's files resident on a loop filesystem, `--cache warm` finds them all, and `--memory`
//! keeps a file larger than its limit mostly uncached and leaves no cgroup behind (nor does a
//! killed run, after `fsbattery cleanup`). They skip without root, loop devices, mkfs.ext4 or
//! a memory cgroup controller, unless FSBATTERY_REQUIRE_PRIVILEGED=1 (CI), where a missing
//! prerequisite fails them.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// One test at a time: each cold phase drops the whole page cache, which would empty the
/// files a warm run of a parallel test has just read in.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A quick stream run on a fresh loop ext4 with `extra` arguments; its record.
fn stream_run(work: &Path, name: &str, size: &str, extra: &[&str]) -> Value {
    let workdir = work.join("w");
    let set = format!("stream.size={size}");
    let mut args = vec![
        "run",
        "--target",
        "loop:ext4,size=512M",
        "--workload",
        "stream",
        "--repeat",
        "1",
        "--set",
        &set,
        "--workdir",
        workdir.to_str().unwrap(),
        "--out",
        name,
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let o = run_in(work, &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    results(&work.join(name))
}

/// The cache state of every stream sample that measured one, by metric.
fn phases(rec: &Value) -> Vec<(String, Value)> {
    let cells = rec["cells"].as_array().unwrap();
    let mut out = Vec::new();
    for c in cells.iter().filter(|c| c["workload"] == "stream") {
        for s in c["samples"].as_array().unwrap() {
            if !s["cache"].is_null() {
                out.push((
                    c["metric"].as_str().unwrap().to_string(),
                    s["cache"].clone(),
                ));
            }
        }
    }
    out
}

fn pct(c: &Value) -> f64 {
    c["resident_bytes"].as_f64().unwrap() / c["file_bytes"].as_f64().unwrap() * 100.0
}

#[test]
fn cold_finds_nothing_resident_and_warm_finds_everything() {
    let _serial = serial();
    if !loop_ext4_available() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let cold = stream_run(work.path(), "cold", "16MiB", &["--cache", "cold"]);
    assert_eq!(cold["plan"]["cache"]["policy"], "cold");
    let measured = phases(&cold);
    // copy (and copy_durable) read the file just made, read reads it and its copy.
    assert!(measured.iter().any(|(m, _)| m == "read"), "{measured:?}");
    for (metric, c) in &measured {
        assert_eq!(c["policy"], "cold", "{metric}: {c}");
        assert_eq!(c["prep"], "dropped", "{metric}: {c}");
        assert_eq!(c["resident_bytes"], 0, "{metric}: {c}");
    }
    let warm = stream_run(work.path(), "warm", "16MiB", &["--cache", "warm"]);
    let measured = phases(&warm);
    assert!(measured.iter().any(|(m, _)| m == "read"), "{measured:?}");
    for (metric, c) in &measured {
        assert_eq!(c["prep"], "read_in", "{metric}: {c}");
        assert!(pct(c) > 99.0, "{metric}: {c}");
    }
}

/// Whether this process can make a memory cgroup (v1 or v2 memory controller mounted).
fn memory_cgroup_available() -> bool {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let found = mounts.lines().any(|l| {
        l.split_once(" - ").is_some_and(|(_, r)| {
            r.starts_with("cgroup2 ") || (r.starts_with("cgroup ") && r.contains("memory"))
        })
    });
    let missing: &[&str] = if found {
        &[]
    } else {
        &["a memory cgroup controller"]
    };
    gate("--memory test", missing)
}

/// A 128 MiB file read inside a 64 MiB memory cgroup cannot be all cached even when it was
/// just read in whole (warm): the read phase finds well under 100 % resident. The record keeps
/// the limit and the peaks, loop targets ran with dio=on, and the cgroup is gone afterwards.
#[test]
fn a_file_larger_than_the_memory_limit_is_not_all_cached() {
    let _serial = serial();
    if !loop_ext4_available() || !memory_cgroup_available() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let args = ["--cache", "warm", "--memory", "64MiB"];
    let rec = stream_run(work.path(), "limited", "128MiB", &args);
    let mem = &rec["plan"]["cache"]["memory"];
    assert_eq!(mem["limit_bytes"], 64 << 20, "{mem}");
    assert!(mem["peak_bytes"].as_u64().unwrap() <= 64 << 20, "{mem}");
    assert!(mem["peak_cache_bytes"].as_u64().unwrap() > 0, "{mem}");
    let cgroup = mem["cgroup"].as_str().unwrap();
    assert!(cgroup.contains("/fsbattery-"), "{cgroup}");
    assert!(!Path::new(cgroup).exists(), "{cgroup} left behind");
    assert_eq!(rec["targets"][0]["options"]["dio"], "on");
    let read: Vec<f64> = phases(&rec)
        .iter()
        .filter(|(m, _)| m == "read")
        .map(|(_, c)| pct(c))
        .collect();
    assert_eq!(read.len(), 1, "{read:?}");
    // The file and its copy (256 MiB) under a 64 MiB limit: at most a quarter fits.
    assert!(read[0] < 30.0, "read phase found {:.1} % resident", read[0]);
}

/// The cgroup path recorded in a state file of `workdir`, once there is one.
fn recorded_cgroup(workdir: &Path) -> Option<std::path::PathBuf> {
    for e in std::fs::read_dir(workdir).ok()?.flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        for l in text.lines().filter(|l| l.contains("\"cgroup\"")) {
            let v: Value = serde_json::from_str(l).ok()?;
            if let Some(p) = v.pointer("/res/path").and_then(Value::as_str) {
                return Some(p.into());
            }
        }
    }
    None
}

/// kill -9 leaves the run's cgroup behind (nothing could move it out); `fsbattery cleanup`
/// finds it in the state file and removes it, and a second cleanup has nothing to do.
#[test]
fn cleanup_removes_the_cgroup_a_killed_run_left() {
    let _serial = serial();
    if !loop_ext4_available() || !memory_cgroup_available() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let workdir = work.path().join("fsbattery-work");
    let mut child = bin()
        .current_dir(work.path())
        .args([
            "run",
            "--target",
            "tmpfs",
            "--workload",
            "metadata",
            "--repeat",
            "5",
        ])
        .args(["--set", "metadata.files=2000", "--pause", "0.2", "--quiet"])
        .args(["--memory", "64MiB", "--out", "r"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let start = std::time::Instant::now();
    let cgroup = loop {
        let inside = std::fs::read_to_string(format!("/proc/{pid}/cgroup"))
            .is_ok_and(|c| c.contains(&format!("/fsbattery-{pid}")));
        if let (true, Some(p)) = (inside, recorded_cgroup(&workdir)) {
            break p;
        }
        if start.elapsed().as_secs() >= 60 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run never entered its cgroup");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        cgroup.exists(),
        "kill -9 should have left {}",
        cgroup.display()
    );
    let o = run_in(work.path(), &["cleanup"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("memory cgroup"), "{}", stdout(&o));
    assert!(!cgroup.exists(), "{} left behind", cgroup.display());
    let again = run_in(work.path(), &["cleanup"]);
    assert!(
        stdout(&again).contains("nothing to clean"),
        "{}",
        stdout(&again)
    );
}

/// Without root the cache cannot be dropped: each cold phase says it only evicted its files
/// with fadvise, and the table says cold was attempted, not guaranteed.
#[test]
fn without_root_cold_is_attempted_not_guaranteed() {
    let _serial = serial();
    use std::os::unix::fs::PermissionsExt;
    let work = tempfile::tempdir().unwrap();
    // Sticky like /tmp: writable by the unprivileged user, yet an acceptable work directory.
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let o = unprivileged()
        .current_dir(work.path())
        .args([
            "run",
            "--workload",
            "stream",
            "--repeat",
            "1",
            "--cache",
            "cold",
        ])
        .args(["--set", "stream.size=1MiB", "--out", "r"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let table = stdout(&o) + &stderr(&o);
    assert!(table.contains("cold attempted, not guaranteed"), "{table}");
    let measured = phases(&results(&work.path().join("r")));
    assert!(measured.iter().any(|(m, _)| m == "read"), "{measured:?}");
    for (metric, c) in &measured {
        assert_eq!(c["prep"], "fadvised", "{metric}: {c}");
    }
}

/// Under `cache = "tool"` the tree workload's phases (cp, tar, cpio, rm: tools that drop
/// nothing) find the cache as the previous phase left it: nothing is synced or dropped (the
/// residency is not asserted: other tests on this machine may drop the whole cache). A
/// suite's `phase_cache = { tar = "cold" }` drops before that phase alone. The source tarball
/// is evicted before `tarball_in` reads it, and the run warns that the tarball's directory
/// shares the targets' device.
#[test]
fn tool_phases_of_tar_and_rm_are_not_dropped_unless_the_suite_says() {
    let _serial = serial();
    if !loop_ext4_available() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let run = |name: &str, phase_cache: &str| {
        let suite = work.path().join(format!("{name}.toml"));
        let text = format!(
            "name = \"{name}\"\nrepeat = 1\ncache = \"tool\"\n\
             [[workload]]\nname = \"tree\"\nparams = {{ scale_div = 64 }}\n{phase_cache}"
        );
        std::fs::write(&suite, text).unwrap();
        let workdir = work.path().join("w");
        let args = [
            "run",
            "--suite",
            suite.to_str().unwrap(),
            "--target",
            "loop:ext4,size=512M",
            "--workdir",
            workdir.to_str().unwrap(),
            "--out",
            name,
            "--quiet",
        ];
        let o = run_in(work.path(), &args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        // The tarball's directory (the work directory) holds the loop images too.
        assert!(
            stderr(&o).contains("is on the same device as target(s) ext4"),
            "{}",
            stderr(&o)
        );
        let rec = results(&work.path().join(name));
        let mut preps = std::collections::BTreeMap::new();
        for c in rec["cells"].as_array().unwrap() {
            for s in c["samples"].as_array().unwrap() {
                if !s["cache"].is_null() {
                    preps.insert(
                        c["metric"].as_str().unwrap().to_string(),
                        s["cache"].clone(),
                    );
                }
            }
        }
        preps
    };
    let tool = run("tool", "");
    // S1's "other disk": the tarball this run generated was evicted before tarball_in read it
    // (other tests' drops can only lower this).
    assert!(pct(&tool["tarball_in"]) < 10.0, "{}", tool["tarball_in"]);
    for metric in [
        "untar",
        "tar",
        "cpio",
        "copy_tree",
        "remove_tree",
        "tarball_copy10",
    ] {
        let c = &tool[metric];
        assert_eq!(c["policy"], "tool", "{metric}: {c}");
        assert_eq!(c["prep"], "nothing", "{metric}: {c}");
    }
    let cold_tar = run("coldtar", "phase_cache = { tar = \"cold\" }\n");
    assert_eq!(cold_tar["tar"]["policy"], "cold", "{}", cold_tar["tar"]);
    assert_eq!(cold_tar["tar"]["prep"], "dropped", "{}", cold_tar["tar"]);
    assert_eq!(
        cold_tar["untar"]["prep"], "nothing",
        "{}",
        cold_tar["untar"]
    );
}

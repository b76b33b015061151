//! The `database` suite on fresh ext4 and xfs loop filesystems: SQLite and a real PostgreSQL
//! server under pgbench run on each, the table ranks transactions/s and commit latency, and
//! nothing of the server is left — no process, socket or data directory — after a finished
//! run or after SIGINT in the middle of pgbench. Needs root, loop devices, mkfs.ext4/xfs,
//! PostgreSQL's programs and setpriv: skipped without them, failed under
//! FSBATTERY_REQUIRE_PRIVILEGED=1 (CI).

mod common;
use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::Path;
use std::time::{Duration, Instant};

/// Whether PostgreSQL's server programs are installed where Debian puts them.
fn postgres_installed() -> bool {
    std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().join("bin/initdb").is_file() && e.path().join("bin/pgbench").is_file())
}

/// Whether this test can run: root, loop ext4 and xfs, PostgreSQL, setpriv.
fn available(what: &str) -> bool {
    if !loop_ext4_available() || !tools_available(what, &["mkfs.xfs", "setpriv"], false) {
        return false;
    }
    let missing: &[&str] = if postgres_installed() {
        &[]
    } else {
        &["postgresql (/usr/lib/postgresql/NN/bin)"]
    };
    gate(what, missing)
}

/// Processes of PostgreSQL (or pgbench) still running from `work`: by working directory
/// (the server's processes chdir into their data directory) or by a command line naming it.
fn pg_processes(work: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.parse::<u32>().is_err() {
            continue;
        }
        let cwd = std::fs::read_link(e.path().join("cwd")).unwrap_or_default();
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let ours = cwd.starts_with(work) || cmd.contains(&*work.to_string_lossy());
        if ours && (cmd.contains("postgres") || cmd.contains("pgbench")) {
            out.push(format!("{name}: {cmd} (cwd {})", cwd.display()));
        }
    }
    out
}

/// No server process, socket or data directory of the run in `work` remains, nor any mount,
/// loop device or state file.
fn assert_no_server_left(work: &Path) {
    let start = Instant::now();
    while !pg_processes(work).is_empty() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(pg_processes(work).is_empty(), "{:#?}", pg_processes(work));
    assert_clean(work);
    let mut stack = vec![work.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let n = e.file_name().to_string_lossy().to_string();
            assert!(
                !n.starts_with(".s.PGSQL") && n != "PG_VERSION" && n != "postmaster.pid",
                "left behind: {}",
                p.display()
            );
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p);
            }
        }
    }
    let state: Vec<_> = entries(&work.join("fsbattery-work"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "state"))
        .collect();
    assert!(state.is_empty(), "{state:?}");
}

/// The suite's two database workloads (its fio job is fio's, tested on its own) with
/// settings that keep quick scale near a minute on a loaded machine.
const SMALL: [&str; 8] = [
    "--workload",
    "sqlite,pgbench",
    "--set",
    "sqlite.transactions=300",
    "--set",
    "sqlite.rows=2000",
    "--set",
    "pgbench.runtime=1",
];

#[test]
fn database_suite_ranks_tps_and_commit_latency_and_leaves_no_server() {
    if !available("the database suite test") {
        return;
    }
    let work = tempfile::tempdir_in("/var/tmp").unwrap();
    let mut args = vec![
        "run",
        "--suite",
        "database",
        "--target",
        "loop:ext4",
        "--target",
        "loop:xfs",
        "--scale",
        "quick",
        // The preset adapts its repeats (up to 30); three fixed keep the test short.
        "--repeat",
        "3",
        "--out",
        "r",
        "--quiet",
    ];
    args.extend(SMALL);
    let o = run_in(work.path(), &args);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let md = std::fs::read_to_string(work.path().join("r/results.md")).unwrap();
    for label in [
        "SQLite transactions/s",
        "SQLite commit latency, mean",
        "SQLite commit latency, 99th percentile",
        "PostgreSQL pgbench TPS",
        "PostgreSQL transaction latency, 99th percentile",
    ] {
        let row = md
            .lines()
            .find(|l| l.starts_with('|') && l.contains(label))
            .unwrap_or_else(|| panic!("no row {label:?} in:\n{md}"));
        // Two targets, each with a number (a mark may follow it): a ranked row.
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let numbers = cells
            .iter()
            .filter(|c| {
                c.trim_matches(|ch: char| !ch.is_ascii_digit())
                    .replace([',', '.', '±', ' '], "")
                    .parse::<u64>()
                    .is_ok()
            })
            .count();
        assert!(numbers >= 2, "{label}: {row}");
    }
    // Three runs per cell (--repeat 3): enough for the verdicts (n >= 3 each).
    let rec = results(&work.path().join("r"));
    let cells = rec["cells"].as_array().unwrap();
    let tps: Vec<_> = cells
        .iter()
        .filter(|c| c["workload"] == "pgbench" && c["metric"] == "tps")
        .collect();
    assert_eq!(tps.len(), 2, "{tps:?}");
    for c in tps {
        assert_eq!(c["samples"].as_array().unwrap().len(), 3, "{c}");
    }
    let sw = rec["plan"]["settings"]["software"].to_string();
    assert!(sw.contains("SQLite") && sw.contains("PostgreSQL"), "{sw}");
    assert_no_server_left(work.path());
}

#[test]
fn sigint_during_pgbench_stops_and_removes_the_server() {
    if !available("the pgbench SIGINT test") {
        return;
    }
    let work = tempfile::tempdir_in("/var/tmp").unwrap();
    let child = bin()
        .current_dir(work.path())
        .args(["run", "--workload", "pgbench", "--target", "loop:ext4"])
        .args(["--scale", "quick", "--repeat", "2", "--out", "r", "--quiet"])
        .args(["--set", "pgbench.runtime=30"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the timed pgbench run (its transaction logs appear), then interrupt.
    let start = Instant::now();
    while !pg_processes(work.path())
        .iter()
        .any(|p| p.contains("pgbench") && p.contains(" -T "))
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "pgbench never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 130, "{}", stderr(&o));
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "the run did not stop promptly"
    );
    assert_no_server_left(work.path());
}

#[test]
fn kill9_during_pgbench_then_cleanup_stops_the_server() {
    if !available("the pgbench kill -9 test") {
        return;
    }
    let work = tempfile::tempdir_in("/var/tmp").unwrap();
    let mut child = bin()
        .current_dir(work.path())
        .args(["run", "--workload", "pgbench", "--target", "loop:ext4"])
        .args(["--scale", "quick", "--repeat", "1", "--out", "r", "--quiet"])
        .args(["--set", "pgbench.runtime=30"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !pg_processes(work.path())
        .iter()
        .any(|p| p.contains("pgbench") && p.contains(" -T "))
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "pgbench never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The server survives its run (pg_ctl detaches it): only cleanup can stop it.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        pg_processes(work.path())
            .iter()
            .any(|p| p.contains("postgres")),
        "the server should have outlived the killed run"
    );
    let o = run_in(work.path(), &["cleanup"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("PostgreSQL server"), "{}", stdout(&o));
    assert_no_server_left(work.path());
}

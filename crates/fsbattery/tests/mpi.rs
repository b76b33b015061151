//! Many clients: `fsbattery run` under `mpirun`. Needs Open MPI's `mpirun` (skipped without
//! it unless FSBATTERY_REQUIRE_PRIVILEGED=1); the runs themselves need the binary built with
//! `--features mpi` (`cargo test -p fsbattery --features mpi --test mpi`), while the default
//! build is checked to refuse mpirun with the fix.

mod common;

use common::*;
use std::process::{Command, Output};

fn mpirun_or_skip() -> bool {
    let found = Command::new("mpirun").arg("--version").output().is_ok();
    if !found {
        let msg = "mpirun not found (apt-get install openmpi-bin libopenmpi-dev libclang-dev)";
        if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
            panic!("{msg} (FSBATTERY_REQUIRE_PRIVILEGED=1)");
        }
        eprintln!("skipped: {msg}");
    }
    found
}

/// One mpirun at a time: two jobs started together by one test process interfere.
static MPIRUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn mpirun(np: usize, args: &[&str]) -> Output {
    let _one = MPIRUN.lock().unwrap_or_else(|e| e.into_inner());
    let np = np.to_string();
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np", &np]);
    c.arg(env!("CARGO_BIN_EXE_fsbattery"));
    c.env("XDG_DATA_HOME", common::data_home("xdg-data"));
    c.args(args);
    c.output().expect("spawn mpirun")
}

/// A run on a fresh "shared" directory with a quick scale and its own output directory:
/// under `mpirun -np N` when `np` is given, else as one process. `prepare` runs on the shared
/// directory first.
struct SharedRun {
    _dir: tempfile::TempDir,
    shared: std::path::PathBuf,
    out: std::path::PathBuf,
    output: Output,
}

fn shared_run(np: Option<usize>, args: &[&str], prepare: fn(&std::path::Path)) -> SharedRun {
    // tmpfs where there is one: quick, and no disk space taken from anyone.
    let shm = std::path::Path::new("/dev/shm");
    let dir = match shm.is_dir() {
        true => tempfile::tempdir_in(shm).unwrap(),
        false => tempfile::tempdir().unwrap(),
    };
    let (shared, out) = (dir.path().join("shared"), dir.path().join("out"));
    std::fs::create_dir(&shared).unwrap();
    prepare(&shared);
    let target = format!("dir:{}", shared.display());
    let mut all = vec!["run", "--target", &target, "--scale", "quick"];
    all.extend(["--out", out.to_str().unwrap(), "--quiet"]);
    all.extend_from_slice(args);
    let output = match np {
        Some(n) => mpirun(n, &all),
        None => run_in(dir.path(), &all),
    };
    SharedRun {
        _dir: dir,
        shared,
        out,
        output,
    }
}

#[cfg(not(feature = "mpi"))]
#[test]
fn a_build_without_mpi_refuses_mpirun_with_the_fix() {
    if !mpirun_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let target = format!("dir:{}", dir.path().display());
    let o = mpirun(2, &["run", "--target", &target, "--workload", "metadata"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--features mpi"), "{}", stderr(&o));
    assert_eq!(entries(dir.path()), Vec::<std::path::PathBuf>::new());
}

#[cfg(feature = "mpi")]
#[test]
fn two_ranks_run_metadata_in_step_and_rank_0_records_every_ranks_part() {
    if !mpirun_or_skip() {
        return;
    }
    let r = shared_run(
        Some(2),
        &[
            "--workload",
            "metadata",
            "--set",
            "metadata.files=200",
            "--repeat",
            "1",
        ],
        |_| {},
    );
    let (o, shared, out) = (&r.output, &r.shared, &r.out);
    assert_eq!(code(o), 0, "{}", stderr(o));
    let rec = results(out);
    let cells = rec["cells"].as_array().unwrap();
    assert!(!cells.is_empty());
    for c in cells {
        let s = &c["samples"][0];
        let ranks = s["ranks"].as_array().expect("per-rank parts kept");
        assert_eq!(ranks.len(), 2, "{c}");
        // A duration lasts until the last rank is done.
        if c["unit"] == "s" {
            let slowest = ranks
                .iter()
                .map(|r| r["value"].as_f64().unwrap())
                .fold(0.0, f64::max);
            assert_eq!(s["value"].as_f64().unwrap(), slowest, "{c}");
        }
    }
    // Every rank's directory and the probe file are gone: the shared directory is as before.
    assert_eq!(entries(shared), Vec::<std::path::PathBuf>::new());
}

#[cfg(feature = "mpi")]
#[test]
fn a_plan_that_cannot_run_on_many_ranks_stops_every_rank_with_one_line() {
    if !mpirun_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let target = format!("dir:{}", dir.path().display());
    let o = mpirun(2, &["run", "--target", &target, "--workload", "tree"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    let ours: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("fsbattery:"))
        .collect();
    assert_eq!(ours.len(), 1, "{err}");
    assert!(ours[0].contains("runs on one process only"), "{err}");
}

#[cfg(feature = "mpi")]
#[test]
fn a_rank_that_fails_fails_the_cell_on_every_rank_naming_it_and_the_run_goes_on() {
    if !mpirun_or_skip() {
        return;
    }
    let r = shared_run(
        Some(2),
        &[
            "--workload",
            "metadata,dd",
            "--set",
            "metadata.files=50",
            "--repeat",
            "1",
        ],
        |shared| std::fs::write(shared.join("rank-1"), b"").unwrap(),
    );
    let (o, shared, out) = (&r.output, &r.shared, &r.out);
    assert_eq!(code(o), 3, "{}", stderr(o));
    let rec = results(out);
    let cells = rec["cells"].as_array().unwrap();
    let workloads: std::collections::BTreeSet<&str> = cells
        .iter()
        .map(|c| c["workload"].as_str().unwrap())
        .collect();
    assert_eq!(workloads.len(), 2, "the run went on to the next workload");
    for c in cells {
        let reason = c["status"]["reason"].as_str().unwrap_or_default();
        assert!(reason.starts_with("rank 1 on "), "{c}");
        assert!(reason.contains("rank-1"), "{c}");
    }
    // Rank 0's directory is gone; the obstacle is the test's own.
    assert_eq!(entries(shared), vec![shared.join("rank-1")]);
}

#[cfg(feature = "mpi")]
#[test]
fn io500_on_two_ranks_scores_as_io500_and_leaves_nothing_behind() {
    if !mpirun_or_skip() {
        return;
    }
    let r = shared_run(
        Some(2),
        &[
            "--suite",
            "io500",
            "--set",
            "io500.easy_size=4MiB",
            "--set",
            "io500.hard_transfers=100",
            "--set",
            "io500.md_easy_files=100",
            "--set",
            "io500.md_hard_files=50",
        ],
        |_| {},
    );
    let (o, shared, out) = (&r.output, &r.shared, &r.out);
    assert_eq!(code(o), 0, "{}", stderr(o));
    let rec = results(out);
    let value = |m: &str| {
        let cells = rec["cells"].as_array().unwrap();
        let c = cells
            .iter()
            .find(|c| c["metric"] == m)
            .unwrap_or_else(|| panic!("{m}"));
        c["samples"][0]["value"].as_f64().unwrap()
    };
    let geo = |ms: &[&str]| (ms.iter().map(|m| value(m).ln()).sum::<f64>() / ms.len() as f64).exp();
    let bw = geo(&[
        "ior_easy_write",
        "ior_hard_write",
        "ior_easy_read",
        "ior_hard_read",
    ]);
    let md = geo(&[
        "mdtest_easy_write",
        "mdtest_hard_write",
        "find",
        "mdtest_easy_stat",
        "mdtest_hard_stat",
        "mdtest_easy_delete",
        "mdtest_hard_read",
        "mdtest_hard_delete",
    ]);
    assert!((value("score_bw") - bw).abs() < 1e-9 * bw, "{bw}");
    assert!((value("score_md") - md).abs() < 1e-9 * md, "{md}");
    assert!((value("score") - (bw * md).sqrt()).abs() < 1e-9 * value("score"));
    assert_eq!(entries(shared), Vec::<std::path::PathBuf>::new());
}

/// One process, with mdtest's sleep before each of the seven mdtest phases
/// (`mdtest_sleep_s=1`): the run lasts those 7 s at least, and no phase's clock holds its
/// sleep (each of these tiny phases takes well under a second).
#[test]
fn io500_runs_as_one_process_too() {
    let started = std::time::Instant::now();
    let r = shared_run(
        None,
        &[
            "--suite",
            "io500",
            "--set",
            "io500.easy_size=2MiB",
            "--set",
            "io500.hard_transfers=20",
            "--set",
            "io500.md_easy_files=20",
            "--set",
            "io500.md_hard_files=10",
            "--set",
            "io500.mdtest_sleep_s=1",
        ],
        |_| {},
    );
    let took = started.elapsed().as_secs_f64();
    let (o, shared, out) = (&r.output, &r.shared, &r.out);
    assert_eq!(code(o), 0, "{}", stderr(o));
    assert!(
        took >= 7.0,
        "seven sleeps of 1 s, yet the run took {took:.2} s"
    );
    let rec = results(out);
    let cells = rec["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 15);
    assert!(cells
        .iter()
        .all(|c| c["samples"][0]["value"].as_f64().unwrap() > 0.0));
    for c in cells
        .iter()
        .filter(|c| c["metric"].as_str().unwrap().starts_with("mdtest"))
    {
        let t = c["samples"][0]["elapsed_s"].as_f64().unwrap();
        assert!(
            t < 1.0,
            "{}: {t} s on the clock, the sleep inside it",
            c["metric"]
        );
    }
    assert!(cells.iter().all(|c| c["samples"][0].get("ranks").is_none()));
    assert_eq!(entries(shared), Vec::<std::path::PathBuf>::new());
}

/// The plan's parameters of `workload` in a record.
#[cfg(feature = "mpi")]
fn params_of<'a>(rec: &'a serde_json::Value, workload: &str) -> &'a serde_json::Value {
    let ws = rec["plan"]["workloads"].as_array().unwrap();
    &ws.iter().find(|w| w["name"] == workload).unwrap()["params"]
}

#[cfg(feature = "mpi")]
#[test]
fn shared_directory_and_shared_file_layouts_run_on_three_ranks_and_are_recorded() {
    if !mpirun_or_skip() {
        return;
    }
    let r = shared_run(
        Some(3),
        &[
            // Native: the default suite runs metadata as S1's commands, which share no layout.
            "--method",
            "native",
            "--workload",
            "metadata,stream,dd,randomio",
            "--repeat",
            "1",
            "--set",
            "dd.size=3MiB",
            "--set",
            "dd.layout=shared",
            "--set",
            "randomio.size=2MiB",
            "--set",
            "randomio.runtime=1",
            "--set",
            "randomio.threads=2",
            "--set",
            "randomio.layout=shared",
            "--set",
            "metadata.files=100",
            "--set",
            "metadata.layout=shared",
            "--set",
            "stream.size=256KiB",
            "--set",
            "stream.block=16KiB",
            "--set",
            "stream.layout=shared",
            "--set",
            "stream.reorder=true",
        ],
        |_| {},
    );
    let (o, shared, out) = (&r.output, &r.shared, &r.out);
    // The rank-shifted read checks every piece's rank stamp: a misplaced piece fails the cell.
    assert_eq!(code(o), 0, "{}", stderr(o));
    let rec = results(out);
    assert_eq!(params_of(&rec, "metadata")["layout"], "shared");
    assert_eq!(params_of(&rec, "stream")["layout"], "shared");
    assert_eq!(params_of(&rec, "stream")["reorder"], "1");
    assert_eq!(params_of(&rec, "dd")["layout"], "shared");
    assert_eq!(params_of(&rec, "randomio")["layout"], "shared");
    for c in rec["cells"].as_array().unwrap() {
        assert_eq!(c["status"]["state"], "ok", "{c}");
        assert_eq!(c["samples"][0]["ranks"].as_array().unwrap().len(), 3, "{c}");
    }
    assert_eq!(entries(shared), Vec::<std::path::PathBuf>::new());
}

#[test]
fn a_shared_file_of_partial_transfers_is_refused_before_any_io() {
    let r = shared_run(
        None,
        &[
            "--workload",
            "stream",
            "--set",
            "stream.size=10000",
            "--set",
            "stream.block=4096",
            "--set",
            "stream.layout=shared",
        ],
        |_| {},
    );
    let (o, shared) = (&r.output, &r.shared);
    assert_eq!(code(o), 2, "{}", stderr(o));
    assert!(
        stderr(o).contains("multiple of stream.block"),
        "{}",
        stderr(o)
    );
    assert_eq!(entries(shared), Vec::<std::path::PathBuf>::new());
}

#[cfg(feature = "mpi")]
#[test]
fn the_stonewall_deadline_stops_every_rank_and_counts_what_each_did() {
    if !mpirun_or_skip() {
        return;
    }
    let r = shared_run(
        Some(2),
        &[
            "--suite",
            "io500",
            "--set",
            "io500.stonewall_s=1",
            "--set",
            "io500.easy_size=4MiB",
            "--set",
            "io500.hard_transfers=100",
            "--set",
            "io500.md_easy_files=1000000",
            "--set",
            "io500.md_hard_files=50",
        ],
        |_| {},
    );
    let (o, shared, out) = (&r.output, &r.shared, &r.out);
    // find, stat, read and delete then worked on exactly the files each rank made.
    assert_eq!(code(o), 0, "{}", stderr(o));
    let rec = results(out);
    assert_eq!(params_of(&rec, "io500")["stonewall_s"], "1");
    let sample = |m: &str| {
        let cells = rec["cells"].as_array().unwrap();
        cells.iter().find(|c| c["metric"] == m).unwrap()["samples"][0].clone()
    };
    // Cut at the deadline: each rank stopped after about 1 s, short of 1,000,000 files.
    for part in sample("mdtest_easy_write")["ranks"].as_array().unwrap() {
        let (v, t) = (
            part["value"].as_f64().unwrap(),
            part["elapsed_s"].as_f64().unwrap(),
        );
        assert!((1.0..5.0).contains(&t), "{part}");
        let files = v * t * 1e3;
        assert!(files > 0.0 && files < 1e6, "{part}");
    }
    // Not cut: the small ior-easy write did its full 4 MiB on every rank.
    for part in sample("ior_easy_write")["ranks"].as_array().unwrap() {
        let (v, t) = (
            part["value"].as_f64().unwrap(),
            part["elapsed_s"].as_f64().unwrap(),
        );
        let mib = v * t * 1024.0;
        assert!((mib - 4.0).abs() < 1e-6, "{part}");
    }
    assert_eq!(entries(shared), Vec::<std::path::PathBuf>::new());
}

/// Until `done` holds or `secs` pass; whether it held.
#[cfg(feature = "mpi")]
fn wait_for(secs: u64, mut done: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    done()
}

#[cfg(feature = "mpi")]
#[test]
fn sigint_to_mpirun_stops_every_rank_keeps_the_journal_and_leaves_no_file() {
    if !mpirun_or_skip() {
        return;
    }
    let _one = MPIRUN.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir_in("/dev/shm").unwrap_or_else(|_| tempfile::tempdir().unwrap());
    let (shared, out) = (dir.path().join("shared"), dir.path().join("out"));
    std::fs::create_dir(&shared).unwrap();
    let target = format!("dir:{}", shared.display());
    // Three repeats of a metadata workload far bigger than the test waits for: the signal
    // lands inside a timed phase or between cells, both of which must stop every rank.
    // mpirun answers SIGINT by waiting the kill timeout, then SIGTERM to the ranks, then the
    // timeout again before SIGKILL (measured: the ranks stopped about 30 s after the signal
    // with a timeout of 30); 10 s gives the ranks ample time to remove a few hundred
    // thousand tmpfs files.
    let mut child = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "3"])
        .args(["--mca", "odls_base_sigkill_timeout", "10"])
        .env("XDG_DATA_HOME", common::data_home("xdg-data"))
        .arg(env!("CARGO_BIN_EXE_fsbattery"))
        .args(["run", "--target", &target, "--scale", "quick", "--quiet"])
        .args([
            "--workload",
            "metadata",
            "--method",
            "native",
            "--pause",
            "0",
        ])
        .args(["--set", "metadata.files=200000", "--repeat", "3"])
        .args(["--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn mpirun");
    let journal = out.join("journal.jsonl");
    let t0 = std::time::Instant::now();
    // The ranks are at work: the first timed phase has made files.
    let busy = wait_for(120, || {
        std::fs::read_dir(&shared).is_ok_and(|mut d| d.next().is_some()) && journal.exists()
    });
    std::thread::sleep(std::time::Duration::from_millis(1500));
    eprintln!("signal after {:?}", t0.elapsed());
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let stopped = wait_for(90, || child.try_wait().unwrap().is_some());
    eprintln!("stopped {:?} after the start", t0.elapsed());
    if !stopped {
        let _ = child.kill();
    }
    let o = child.wait_with_output().unwrap();
    eprintln!("{}", stderr(&o));
    assert!(busy, "the ranks never started making files: {}", stderr(&o));
    assert!(stopped, "mpirun did not stop within 90 s of SIGINT");
    assert!(!o.status.success(), "an interrupted run succeeded");
    let journal = std::fs::read_to_string(journal).expect("journal kept");
    assert!(!journal.trim().is_empty(), "the journal is empty");
    assert!(
        journal.contains(r#""interrupted":true"#),
        "the journal does not end interrupted: {journal}"
    );
    assert_eq!(entries(&shared), Vec::<std::path::PathBuf>::new());
}

/// Each rank's count of units in one phase's sample: value × elapsed ÷ unit.
#[cfg(feature = "mpi")]
fn rank_counts(rec: &serde_json::Value, metric: &str, unit: f64) -> Vec<u64> {
    let cells = rec["cells"].as_array().unwrap();
    let c = cells.iter().find(|c| c["metric"] == metric).unwrap();
    c["samples"][0]["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let (v, t) = (
                p["value"].as_f64().unwrap(),
                p["elapsed_s"].as_f64().unwrap(),
            );
            (v * t / unit).round() as u64
        })
        .collect()
}

#[cfg(feature = "mpi")]
#[test]
fn after_the_stonewall_every_rank_wears_out_to_the_same_count_as_the_io500_app() {
    if !mpirun_or_skip() {
        return;
    }
    let r = shared_run(
        Some(3),
        &[
            "--suite",
            "io500",
            "--cache",
            "none",
            "--set",
            "io500.stonewall_s=1",
            "--set",
            "io500.easy_size=4MiB",
            "--set",
            "io500.hard_transfers=100",
            "--set",
            "io500.md_easy_files=1000000",
            "--set",
            "io500.md_hard_files=500000",
        ],
        |_| {},
    );
    let (o, shared, out) = (&r.output, &r.shared, &r.out);
    assert_eq!(code(o), 0, "{}", stderr(o));
    let rec = results(out);
    // Cut by the deadline (far short of the set amount), then equal on every rank; the
    // later phases worked on exactly that many (a missing file would have failed them).
    for (write, after, set) in [
        ("mdtest_easy_write", "mdtest_easy_stat", 1_000_000),
        ("mdtest_hard_write", "mdtest_hard_read", 500_000),
    ] {
        let made = rank_counts(&rec, write, 1e-3);
        assert_eq!(made.len(), 3, "{write}");
        assert!(made[0] > 0 && made[0] < set, "{write}: {made:?}");
        assert!(made.iter().all(|&n| n == made[0]), "{write}: {made:?}");
        assert_eq!(rank_counts(&rec, after, 1e-3), made, "{after}");
    }
    // Not cut: 100 transfers on every rank, all read back.
    let gib = 1.0 / (1u64 << 30) as f64;
    assert_eq!(
        rank_counts(&rec, "ior_hard_read", gib),
        vec![100 * 47_008; 3]
    );
    assert_eq!(entries(shared), Vec::<std::path::PathBuf>::new());
}

//! The results store under concurrency and damage, through the real binary: eight runs
//! storing into one store at once all land while readers (`history`, `site`, and a reader
//! checking every run it sees is whole) run beside them; a writer killed with SIGKILL at 20
//! points inside one large run's transaction leaves a sound store holding that run whole or
//! not at all; a store on a full or read-only filesystem costs the run one line and never its
//! results; `store check` reports integrity and runs whose directory is gone.

mod common;

use common::{bin, code, gate, metadata_run_with, stderr, stdout};
use fsbattery_store::{Filter, Store};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Every run the store holds has all its points (cells per run read from its directory).
fn whole_runs(store: &Store, cells: &mut HashMap<String, usize>) -> usize {
    let (runs, points) = store
        .snapshot(|s| Ok((s.runs()?, s.points(&Filter::default())?)))
        .expect("a reader is never refused");
    for r in &runs {
        let want = *cells.entry(r.dir.clone()).or_insert_with(|| {
            let rec = common::results(Path::new(&r.dir));
            rec["cells"].as_array().unwrap().len()
        });
        let held = points.iter().filter(|p| p.run_id == r.id).count();
        assert_eq!(
            held, want,
            "run {} seen with {held} of its {want} cells",
            r.dir
        );
    }
    runs.len()
}

#[test]
fn eight_runs_storing_at_once_all_land_and_readers_see_only_whole_runs() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("results.db");
    let db_arg = db.to_str().unwrap().to_string();
    // One run first, so readers have a store to open from the start.
    let o = metadata_run_with(
        work.path(),
        "r0",
        20,
        1,
        &["--store", &db_arg, "--no-ceiling"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (db, done) = (db.clone(), done.clone());
        std::thread::spawn(move || {
            let mut cells = HashMap::new();
            let (mut looks, mut most) = (0, 0);
            while !done.load(Ordering::SeqCst) {
                let store = Store::open(&db).expect("the store opens during the writes");
                most = most.max(whole_runs(&store, &mut cells));
                looks += 1;
            }
            (looks, most)
        })
    };
    let writers: Vec<_> = (1..=8)
        .map(|i| {
            let (dir, db) = (work.path().to_path_buf(), db_arg.clone());
            std::thread::spawn(move || {
                metadata_run_with(
                    &dir,
                    &format!("r{i}"),
                    20,
                    1,
                    &["--store", &db, "--no-ceiling"],
                )
            })
        })
        .collect();
    // The binary's readers beside them: never damaged, never locked.
    let site = work.path().join("site");
    let mut cli_looks = 0;
    while writers.iter().any(|w| !w.is_finished()) {
        let h = bin()
            .args(["history", "--store", &db_arg])
            .output()
            .unwrap();
        assert_eq!(code(&h), 0, "{}", stderr(&h));
        let s = bin()
            .args(["site", "--store", &db_arg])
            .arg(&site)
            .output()
            .unwrap();
        assert_eq!(code(&s), 0, "{}", stderr(&s));
        cli_looks += 1;
    }
    for w in writers {
        let o = w.join().unwrap();
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(!stderr(&o).contains("results store"), "{}", stderr(&o));
    }
    done.store(true, Ordering::SeqCst);
    let (looks, _) = reader.join().unwrap();
    eprintln!("reader looks: {looks}, history+site looks: {cli_looks}");
    assert!(looks > 0);
    let store = Store::open(&db).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    assert_eq!(whole_runs(&store, &mut HashMap::new()), 9);
    let h = bin()
        .args(["history", "--store", &db_arg])
        .output()
        .unwrap();
    let runs_in_history = stdout(&h)
        .lines()
        .filter(|l| l.trim_start().starts_with(char::is_numeric))
        .count();
    // metadata's six metrics on one target kind: six series of nine runs each.
    assert_eq!(runs_in_history, 6 * 9, "{}", stdout(&h));
}

/// A run directory whose record holds `copies` × the cells of a real run (a long run's size),
/// so that adding it takes one long transaction.
fn large_run(work: &Path, copies: usize) -> PathBuf {
    let o = metadata_run_with(work, "small", 20, 1, &["--no-store", "--no-ceiling"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut rec = common::results(&work.join("small"));
    let cells = rec["cells"].as_array().unwrap().clone();
    let mut many = Vec::new();
    for i in 0..copies {
        for c in &cells {
            let mut c = c.clone();
            c["metric"] = format!("{}_{i}", c["metric"].as_str().unwrap()).into();
            many.push(c);
        }
    }
    rec["cells"] = many.into();
    let dir = work.join("large");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("results.json"), rec.to_string()).unwrap();
    dir
}

#[test]
fn a_store_write_killed_at_20_points_holds_the_run_whole_or_not_at_all() {
    let work = tempfile::tempdir().unwrap();
    let run = large_run(work.path(), 800);
    let cells = common::results(&run)["cells"].as_array().unwrap().len();
    let db = work.path().join("results.db");
    let add = || {
        let mut c = bin();
        c.args(["store", "add", "--store"]).arg(&db).arg(&run);
        c.stdout(Stdio::null()).stderr(Stdio::null());
        c
    };
    // How long one whole add takes here: the kills land inside it.
    let t = Instant::now();
    assert!(add().status().unwrap().success());
    let whole = t.elapsed();
    std::fs::remove_file(&db).unwrap();
    let _ = std::fs::remove_file(work.path().join("results.db-wal"));
    let _ = std::fs::remove_file(work.path().join("results.db-shm"));
    // 20 points spread over the add, in an order fixed by a seed (an LCG), so a failure
    // names a point that can be tried again.
    let mut seed: u64 = 0x5eed_f5ba;
    let mut seen = (0, 0);
    for i in 0..20 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Up to a little past the add's usual length: some kills come after its commit.
        let frac = (seed >> 33) as f64 / (1u64 << 31) as f64 * 1.2;
        let delay = whole.mul_f64(frac);
        // Odd points kill an add that replaces the run the store already holds whole.
        let replacing = i % 2 == 1;
        if replacing {
            assert!(add().status().unwrap().success());
        }
        let mut child = add().spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        let store = Store::open(&db).expect("the store opens after the kill");
        assert_eq!(store.integrity_check().unwrap(), "ok", "point {i}");
        let runs = store.runs().unwrap();
        let points = store.points(&Filter::default()).unwrap().len();
        match runs.len() {
            0 => {
                assert!(!replacing, "point {i}: the run held before is gone");
                assert_eq!(points, 0, "point {i}");
                seen.0 += 1;
            }
            1 => {
                assert_eq!(points, cells, "point {i}: half a run");
                seen.1 += 1;
            }
            n => panic!("point {i}: {n} runs"),
        }
        let kind = if replacing { "replacing" } else { "first" };
        eprintln!(
            "point {i}: {kind} add killed after {delay:?} ({status}), runs {}",
            runs.len()
        );
        // Every point starts from an empty store.
        drop(store);
        for s in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{s}", db.display()));
        }
    }
    eprintln!(
        "after the kills: {} stores empty, {} holding the run whole",
        seen.0, seen.1
    );
    assert!(add().status().unwrap().success());
    let store = Store::open(&db).unwrap();
    assert_eq!(store.points(&Filter::default()).unwrap().len(), cells);
}

#[test]
fn store_check_reports_integrity_and_runs_whose_directory_is_gone() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("results.db");
    let db_arg = db.to_str().unwrap().to_string();
    for name in ["keep", "gone"] {
        let o = metadata_run_with(
            work.path(),
            name,
            20,
            1,
            &["--store", &db_arg, "--no-ceiling"],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    std::fs::remove_dir_all(work.path().join("gone")).unwrap();
    let o = bin()
        .args(["store", "check", "--store", &db_arg])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("integrity ok"), "{out}");
    assert!(out.contains("2 run(s): 0 interrupted, 0 resumed"), "{out}");
    assert!(
        out.contains("1 run(s) whose results directory is gone"),
        "{out}"
    );
    assert!(out.contains("/gone"), "{out}");
    assert!(!out.contains("/keep"), "{out}");
    // Garbage in place of the store: damaged, exit 8, one line naming the fix.
    std::fs::write(&db, vec![0x5a; 8192]).unwrap();
    let o = bin()
        .args(["store", "check", "--store", &db_arg])
        .output()
        .unwrap();
    assert_eq!(code(&o), 8, "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("store rebuild"), "{}", stderr(&o));
}

/// A tmpfs of `opts` mounted on `dir` for the test's life (unmounted on drop).
struct Mounted(PathBuf);

impl Mounted {
    fn tmpfs(dir: &Path, opts: &str) -> Mounted {
        std::fs::create_dir_all(dir).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "fsbattery-test"])
            .arg(dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mount tmpfs {opts} on {}", dir.display());
        Mounted(dir.to_path_buf())
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// The run is complete and exits 0, with one line about the store.
fn run_keeps_its_results(work: &Path, name: &str, db: &Path) {
    let o = metadata_run_with(
        work,
        name,
        20,
        1,
        &["--store", db.to_str().unwrap(), "--no-ceiling"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let notes: Vec<String> = stderr(&o)
        .lines()
        .filter(|l| l.contains("results store"))
        .map(String::from)
        .collect();
    assert_eq!(notes.len(), 1, "{}", stderr(&o));
    assert!(notes[0].contains("store add"), "{}", notes[0]);
    let rec = common::results(&work.join(name));
    assert!(rec["cells"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["status"]["state"] == "ok"));
}

#[test]
fn a_store_on_a_full_or_read_only_filesystem_never_fails_the_run() {
    if !gate("a store on a full or read-only tmpfs", &root_missing()) {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    // Read-only: no store can be made there.
    let ro = Mounted::tmpfs(&work.path().join("ro"), "ro,size=1m");
    run_keeps_its_results(work.path(), "r-ro", &ro.0.join("results.db"));
    // Full: a store that fills its filesystem (a few pages of room, then nothing).
    let full = Mounted::tmpfs(&work.path().join("full"), "size=16k");
    let filler = full.0.join("filler");
    let _ = std::fs::write(&filler, vec![0u8; 64 * 1024]);
    run_keeps_its_results(work.path(), "r-full", &full.0.join("results.db"));
    // An existing store whose filesystem turned read-only under it: the same.
    let db_dir = work.path().join("was-rw");
    let rw = Mounted::tmpfs(&db_dir, "size=8m");
    let db = rw.0.join("results.db");
    let o = metadata_run_with(
        work.path(),
        "r-first",
        20,
        1,
        &["--store", db.to_str().unwrap(), "--no-ceiling"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let remounted = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&rw.0)
        .status()
        .unwrap()
        .success();
    assert!(remounted);
    run_keeps_its_results(work.path(), "r-after", &db);
}

fn root_missing() -> Vec<&'static str> {
    match nix::unistd::geteuid().is_root() {
        true => Vec::new(),
        false => vec!["root"],
    }
}

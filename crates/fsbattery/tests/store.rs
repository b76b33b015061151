//! The results store through the real binary: `store add` of every run directory (native and
//! imported), a writer killed with SIGKILL mid-add, two writers at once, a damaged store, and
//! `run`'s own store add (never failing the run).
//!
//! Each check ends with `PRAGMA integrity_check` and a count of the runs and their points.

mod common;

use common::{bin, code, metadata_run, metadata_run_with, stderr, stdout};
use fsbattery_store::{Filter, Store};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// `n` real metadata runs in `work/fsbattery-results/`, as `fsbattery run` writes them.
fn real_runs(work: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let name = format!("fsbattery-results/run{i}");
            metadata_run(work, &name, 20, 1);
            work.join(name)
        })
        .collect()
}

/// `n` copies of the run directory `from` under `work/copies/` (a run is keyed by its
/// directory, so each copy is a run of its own).
fn copies(from: &Path, work: &Path, n: usize) -> Vec<PathBuf> {
    let record = std::fs::read(from.join("results.json")).unwrap();
    (0..n)
        .map(|i| {
            let d = work.join(format!("copies/c{i:04}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("results.json"), &record).unwrap();
            d
        })
        .collect()
}

fn store_add(db: &Path, dirs: &[PathBuf]) -> std::process::Command {
    let mut c = bin();
    c.arg("store").arg("add").arg("--store").arg(db).args(dirs);
    c
}

/// The store is sound, and holds exactly the runs `dirs` names, each with all its points.
fn assert_sound(db: &Path, expect: Option<&[PathBuf]>) -> usize {
    let store = Store::open(db).expect("the store opens");
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let runs = store.runs().unwrap();
    let points = store.points(&Filter::default()).unwrap();
    for r in &runs {
        let record = common::results(Path::new(&r.dir));
        let cells = record["cells"].as_array().unwrap().len();
        let held = points.iter().filter(|p| p.run_id == r.id).count();
        assert_eq!(held, cells, "run {} holds every cell", r.dir);
        // The disk each target's data ended on is a dimension of its points.
        for p in points.iter().filter(|p| p.run_id == r.id) {
            let targets = record["targets"].as_array().unwrap();
            let target = targets
                .iter()
                .find(|t| t["label"] == p.facts.target.as_str());
            let disk = target
                .and_then(|t| t["device_model"].as_str())
                .unwrap_or("");
            assert_eq!(p.facts.device_model, disk, "{}", r.dir);
        }
    }
    if let Some(dirs) = expect {
        let mut want: Vec<String> = dirs
            .iter()
            .map(|d| std::fs::canonicalize(d).unwrap().display().to_string())
            .collect();
        let mut have: Vec<String> = runs.iter().map(|r| r.dir.clone()).collect();
        want.sort();
        have.sort();
        assert_eq!(have, want);
    }
    runs.len()
}

#[test]
fn store_add_takes_every_run_directory_native_and_imported() {
    let work = tempfile::tempdir().unwrap();
    let mut dirs = real_runs(work.path(), 3);
    let fio = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fsbattery-core/src/import/testdata/fio-randread.json"
    );
    let import_dir = work.path().join("fsbattery-results/fio");
    let o = bin()
        .args(["import", fio, "--label", "fio", "--out"])
        .arg(&import_dir)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    dirs.push(import_dir);
    let db = work.path().join("store/results.db");
    let o = store_add(&db, &dirs).output().unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("4 run(s) added"), "{}", stdout(&o));
    // Added again: replaced, not doubled.
    let o = store_add(&db, &dirs).output().unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(assert_sound(&db, Some(&dirs)), 4);
    // A directory that holds no run is named and refused; the others still go in.
    let empty = work.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = store_add(&db, std::slice::from_ref(&empty))
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("not added"), "{}", stderr(&o));
    // rebuild recreates the same store from the directories it names, the old file kept.
    let o = bin()
        .args(["store", "rebuild", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(db.with_extension("db.old").exists());
    assert_eq!(assert_sound(&db, Some(&dirs)), 4);
}

#[test]
fn a_writer_killed_mid_add_leaves_a_sound_store_and_readding_completes_it() {
    let work = tempfile::tempdir().unwrap();
    let run = real_runs(work.path(), 1).remove(0);
    let dirs = copies(&run, work.path(), 300);
    let db = work.path().join("results.db");
    let mut partial = Vec::new();
    for delay_ms in [30, 80, 150, 250, 400] {
        let mut child = store_add(&db, &dirs)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        partial.push(assert_sound(&db, None));
    }
    eprintln!("runs present after each SIGKILL: {partial:?}");
    let o = store_add(&db, &dirs).output().unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(assert_sound(&db, Some(&dirs)), 300);
}

#[test]
fn two_writers_at_once_both_land() {
    let work = tempfile::tempdir().unwrap();
    let run = real_runs(work.path(), 1).remove(0);
    let dirs = copies(&run, work.path(), 240);
    let db = work.path().join("results.db");
    let (a, b) = dirs.split_at(120);
    let ca = store_add(&db, a)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let cb = store_add(&db, b)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for child in [ca, cb] {
        let o = child.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    assert_eq!(assert_sound(&db, Some(&dirs)), 240);
}

#[test]
fn a_damaged_store_is_one_line_and_never_fails_a_run() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("results.db");
    std::fs::write(&db, vec![0x5a; 8192]).unwrap();
    let run = real_runs(work.path(), 1).remove(0);
    let o = store_add(&db, std::slice::from_ref(&run)).output().unwrap();
    assert_eq!(code(&o), 8, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("damaged") && err.contains("store rebuild"),
        "{err}"
    );
    // A run with that store: complete, exit 0, one line about the store.
    let o = metadata_run_with(work.path(), "r2", 20, 1, &["--store", db.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("results store"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", stderr(&o));
    assert!(notes[0].contains("store add"), "{}", notes[0]);
    assert!(work.path().join("r2/results.json").exists());
    // Rebuilt from the directories given, it holds the run.
    let o = bin()
        .args(["store", "rebuild", "--store"])
        .arg(&db)
        .arg(work.path().join("r2"))
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(assert_sound(&db, Some(&[work.path().join("r2")])), 1);
}

#[test]
fn run_adds_itself_to_the_store_it_is_given_and_not_with_no_store() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("mine.db");
    for (out, extra) in [
        ("a", vec!["--store", db.to_str().unwrap()]),
        ("b", vec!["--no-store"]),
    ] {
        let o = metadata_run_with(work.path(), out, 20, 1, &extra);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    assert_eq!(assert_sound(&db, Some(&[work.path().join("a")])), 1);
}

#[test]
fn history_and_site_without_a_store_say_how_to_make_one() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("none.db");
    for args in [vec!["history"], vec!["site", "out"]] {
        let o = bin()
            .current_dir(work.path())
            .args(&args)
            .arg("--store")
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains("store add"), "{}", stderr(&o));
        assert!(!db.exists(), "nothing made");
    }
}

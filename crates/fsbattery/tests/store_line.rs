//! The end of a run says where it went: the run directory, its report, and the results store
//! with the run's id there and the command that reads it (`stored as run 2 in the results
//! store at PATH: fsbattery history --store PATH`); `--no-store` says nothing of a store.

mod common;
use common::*;

/// A one-repeat metadata run on a fresh directory with `extra` flags: its stdout.
fn tiny_run(cwd: &std::path::Path, out: &str, extra: &[&str]) -> String {
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let mut args = vec![
        "run",
        "--target",
        &spec,
        "--workload",
        "metadata",
        "--set",
        "metadata.files=50",
        "--repeat",
        "1",
        "--no-ceiling",
        "--out",
        out,
    ];
    args.extend(extra);
    let o = run_in(cwd, &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    stdout(&o)
}

#[test]
fn a_stored_run_ends_with_its_store_and_run_id() {
    let cwd = tempfile::tempdir().unwrap();
    let db = cwd.path().join("results.db");
    let db_arg = db.display().to_string();
    for (n, out) in [(1, "a"), (2, "b")] {
        let text = tiny_run(cwd.path(), out, &["--store", &db_arg]);
        let last = text.lines().last().unwrap();
        assert_eq!(
            last,
            format!(
                "stored as run {n} in the results store at {db_arg}: fsbattery history --store {db_arg}"
            ),
            "{text}"
        );
        assert!(text.contains(&format!("results: {out}\n")), "{text}");
    }
    // The command it names works and shows the runs.
    let o = bin()
        .args(["history", "--store", &db_arg])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    let text = tiny_run(cwd.path(), "c", &["--no-store"]);
    assert!(!text.contains("stored as run"), "{text}");
}

#[test]
fn the_default_store_is_named_with_the_plain_history_command() {
    let cwd = tempfile::tempdir().unwrap();
    let home = data_home("store-line");
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let o = bin()
        .current_dir(cwd.path())
        .env("XDG_DATA_HOME", &home)
        .args(["run", "--target", &spec, "--workload", "metadata"])
        .args([
            "--set",
            "metadata.files=50",
            "--repeat",
            "1",
            "--no-ceiling",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    let last = text.lines().last().unwrap();
    let db = home.join("fsbattery/results.db");
    assert!(
        last.starts_with("stored as run ")
            && last.ends_with(&format!(
                " in the results store at {}: fsbattery history",
                db.display()
            )),
        "{text}"
    );
}

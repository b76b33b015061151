//! The one output path: `--export FORMAT:FILE` on `run` and `report`, and the older flags as
//! its short forms (`--json`, `--html`), write what `--format` prints, byte for byte.

mod common;
use common::*;
use std::path::Path;

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// stdout of `report ARGS`, which must succeed.
fn report(work: &Path, args: &[&str]) -> Vec<u8> {
    let o = run_in(work, &[&["report"], args].concat());
    assert_eq!(code(&o), 0, "report {args:?}: {}", stderr(&o));
    o.stdout
}

#[test]
fn run_exports_are_the_formats_report_prints() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let extra = [
        "--no-store",
        "--export",
        "tsv:run.tsv",
        "--json",
        "rec.json",
    ];
    let o = metadata_run_with(w, "r", 20, 2, &extra);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let tsv = read(&w.join("run.tsv"));
    assert!(tsv.starts_with(b"target\tworkload\t"), "{tsv:?}");
    assert_eq!(tsv, report(w, &["r", "--format", "tsv"]));
    assert_eq!(
        read(&w.join("rec.json")),
        report(w, &["r", "--format", "json"])
    );
    assert_eq!(read(&w.join("rec.json")), read(&w.join("r/results.json")));
}

#[test]
fn report_exports_match_format_and_the_old_flags() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    metadata_run_with(w, "a", 20, 2, &["--no-store"]);
    metadata_run_with(w, "b", 20, 2, &["--no-store"]);
    // One run after the other, as --format prints several runs.
    let both = report(w, &["a", "b", "--format", "csv"]);
    assert_eq!(both, report(w, &["a", "b", "--export", "csv:-"]));
    let a = report(w, &["a", "--format", "csv"]);
    let b = report(w, &["b", "--format", "csv"]);
    assert_eq!(both, [a, b].concat());
    // --html is `--export html:FILE`; files are named on stdout, which gets no --format then.
    let said = report(
        w,
        &["a", "b", "--html", "old.html", "--export", "html:new.html"],
    );
    assert_eq!(
        String::from_utf8(said).unwrap(),
        "html report: old.html\nhtml report: new.html\n"
    );
    assert_eq!(read(&w.join("old.html")), read(&w.join("new.html")));
}

#[test]
fn a_bad_export_is_refused_with_status_2_before_anything_is_written() {
    let work = tempfile::tempdir().unwrap();
    for bad in ["xlsx:-", "nonesuch:x.txt", "csv"] {
        let o = run_in(work.path(), &["report", "r", "--export", bad]);
        assert_eq!(code(&o), 2, "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("--export"), "{bad}: {}", stderr(&o));
        assert!(!work.path().join("x.txt").exists());
    }
}

//! Row labels name what the run measured (issue 12 §4): S2's "Datei 16 GB" rows run at a
//! 4 MiB file say 4MiB, keep S2's wording beside them ("then and now") in the table, the
//! Markdown and the run record, and are measured by `bigfile`, not by bonnie's rows.

mod common;
use common::*;

#[test]
fn prolinux_big_file_rows_name_the_size_used_and_keep_the_seeds() {
    let work = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let o = run_in(
        work.path(),
        &[
            "run",
            "--suite",
            "prolinux2013",
            "--workload",
            "bigfile",
            "--target",
            &spec,
            "--scale",
            "quick",
            "--repeat",
            "1",
            "--pause",
            "0",
            "--set",
            "bigfile.size=4MiB",
            "--no-ceiling",
            "--out",
            "r",
        ],
    );
    let table = stdout(&o);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let line = |label: &str| table.lines().find(|l| l.contains(label)).map(String::from);
    let write = line("Datei 4MiB schreiben [MB/s]").expect(&table);
    assert!(write.contains("MB/s"), "{write}");
    assert!(
        line("seed: Datei 16 GB löschen [max Ges s]")
            .is_some_and(|l| l.trim_start().starts_with("Datei 4MiB löschen [max Ges s]")),
        "{table}"
    );
    // A directory makes no filesystem: its rows and their unknown size are not shown.
    assert!(!table.contains("Dateisystem"), "{table}");

    let rec = results(&work.path().join("r"));
    let rows = rec["plan"]["rows"].as_array().unwrap();
    let row = rows
        .iter()
        .find(|r| r["metric"] == "write" && r["workload"] == "bigfile")
        .expect("the bigfile write row");
    assert_eq!(row["label"], "Datei 4MiB schreiben [MB/s]");
    assert_eq!(row["seed"], "Datei 16 GB schreiben [MB/s]");
    let cells = rec["cells"].as_array().unwrap();
    assert!(cells.iter().any(|c| c["workload"] == "bigfile"
        && c["metric"] == "write"
        && c["samples"][0]["value"].as_f64().unwrap() > 0.0));

    let o = run_in(work.path(), &["report", "r", "--format", "markdown"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("## Then and now"), "{md}");
    assert!(
        md.contains("| Datei 4MiB lesen [MB/s] | Datei 16 GB lesen [MB/s] |"),
        "{md}"
    );
}

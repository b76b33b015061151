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
            // The seed's wording beside the run's ("Then and now") is printed on request.
            "--verbose",
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
    // A directory makes no filesystem: its rows and their unknown size are not shown (the
    // study's own title, "Linux-Dateisysteme im Vergleich", may be).
    assert!(
        !table
            .lines()
            .any(|l| (l.contains('┆') || l.contains(" · ")) && l.contains("Dateisystem")),
        "{table}"
    );

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

/// Two ext4 targets that differ only in `data=` are labelled by it in the table, the JSON, the
/// CSV and the HTML; `compare` pairs them by spec with a record of the old labels ("ext4",
/// "ext4-2") listed in the other order, and with a run of only one of them.
#[test]
fn targets_differing_in_options_are_labelled_by_the_difference_everywhere() {
    if !loop_ext4_available() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let (journal, ordered) = (
        "loop:ext4,mount=data=journal",
        "loop:ext4,mount=data=ordered",
    );
    let run = |out: &str, targets: &[&str]| {
        let mut args = vec![
            "run",
            "--workload",
            "metadata",
            "--set",
            "metadata.files=50",
            "--repeat",
            "3",
            "--no-ceiling",
            "--out",
            out,
        ];
        for t in targets {
            args.extend(["--target", t]);
        }
        let o = run_in(work.path(), &args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        stdout(&o)
    };
    let table = run("r", &[journal, ordered]);
    // Without a terminal the run writes its tables fitted to 100 columns (compact when the ±
    // do not fit): the header names each column by its label.
    let cell = |label: &str| table.lines().any(|l| l.contains(&format!("┆ {label}")));
    assert!(
        cell("ext4 data=journal") && cell("ext4 data=ordered"),
        "{table}"
    );
    assert!(!table.contains("ext4-2"), "{table}");
    let dir = work.path().join("r");
    let rec = results(&dir);
    let labels: Vec<&str> = rec["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["ext4 data=journal", "ext4 data=ordered"]);
    assert!(rec["cells"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| labels.contains(&c["target"].as_str().unwrap())));
    let rdir = dir.display().to_string();
    let csv = run_in(work.path(), &["report", &rdir, "--format", "csv"]);
    assert!(
        stdout(&csv).contains("ext4 data=ordered"),
        "{}",
        stdout(&csv)
    );
    let html = work.path().join("r.html");
    let h = run_in(
        work.path(),
        &["report", &rdir, "--html", &html.display().to_string()],
    );
    assert_eq!(code(&h), 0, "{}", stderr(&h));
    let page = std::fs::read_to_string(&html).unwrap();
    // As a label ("ext4-2" alone): mount points such as fsb-ext4-2xxxx-2/mnt hold the text.
    let as_label = [">ext4-2<", "\"ext4-2\"", "ext4-2 "];
    assert!(page.contains("ext4 data=journal"));
    assert!(
        as_label.iter().all(|l| !page.contains(l)),
        "a target labelled ext4-2 in the page"
    );

    // A record from before: the same specs as "ext4" and "ext4-2", listed the other way round.
    let old = work.path().join("old");
    std::fs::create_dir(&old).unwrap();
    let text = std::fs::read_to_string(dir.join("results.json"))
        .unwrap()
        .replace("ext4 data=journal", "ext4-2")
        .replace("ext4 data=ordered", "ext4");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["targets"].as_array_mut().unwrap().reverse();
    std::fs::write(old.join("results.json"), v.to_string()).unwrap();
    let o = run_in(
        work.path(),
        &[
            "compare",
            &old.display().to_string(),
            &rdir,
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let c: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = c[0]["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["presence"] == "both"), "{rows:?}");
    let touch = rows
        .iter()
        .find(|r| r["target"] == "ext4 data=journal" && r["metric"] == "touch_files")
        .unwrap();
    assert_eq!(touch["ratio"], 1.0, "paired with its own samples: {touch}");

    // A run of one of the two compares with it: the other's rows are the base's alone.
    run("one", &[ordered]);
    let one = work.path().join("one").display().to_string();
    let o = run_in(work.path(), &["compare", &rdir, &one, "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let c: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = c[0]["rows"].as_array().unwrap();
    assert!(rows
        .iter()
        .any(|r| r["target"] == "ext4 data=journal" && r["presence"] == "base_only"));
    assert!(rows
        .iter()
        .any(|r| r["target"] == "ext4" && r["presence"] == "both"));
    assert_clean(&work.path().join("fsbattery-work"));
}

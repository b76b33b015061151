//! The terminal table fits `COLUMNS`: a record of six targets renders within 100 columns when
//! COLUMNS=100, and, without COLUMNS and without a terminal, keeps each row on one line.

mod common;
use common::*;
use serde_json::Value;

/// The report crate's fixture run with its three targets doubled into six.
fn six_targets(dir: &std::path::Path) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fsbattery-report/tests/fixtures/run.json"
    );
    let mut rec: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let rename = |v: &mut Value, key: &str| {
        let l = v[key].as_str().unwrap().to_string();
        v[key] = Value::from(format!("{l} data=journal"));
    };
    let mut targets = rec["targets"].as_array().unwrap().clone();
    let mut cells = rec["cells"].as_array().unwrap().clone();
    let mut more_t = targets.clone();
    more_t.iter_mut().for_each(|t| rename(t, "label"));
    let mut more_c = cells.clone();
    more_c.iter_mut().for_each(|c| rename(c, "target"));
    targets.extend(more_t);
    cells.extend(more_c);
    rec["targets"] = Value::from(targets);
    rec["cells"] = Value::from(cells);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("results.json"), rec.to_string()).unwrap();
}

#[test]
fn six_targets_fit_columns_100_and_a_pipe_keeps_rows_whole() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("six");
    six_targets(&dir);
    let d = dir.display().to_string();
    let o = bin()
        .args(["report", &d])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let table = stdout(&o);
    let tables: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with(['│', '┌', '╞']))
        .collect();
    assert!(tables.len() > 10, "{table}");
    for l in &tables {
        assert!(l.chars().count() <= 100, "{} wide: {l}", l.chars().count());
    }
    let o = bin()
        .args(["report", &d])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let wide = stdout(&o);
    assert!(
        wide.lines()
            .any(|l| l.starts_with('│') && l.chars().count() > 100),
        "unbounded without COLUMNS on a pipe"
    );
}

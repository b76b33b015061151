//! The spreadsheet renderer: a real workbook whose numbers, read back by openpyxl, equal the
//! record's. The read-back needs python3 with openpyxl: skipped with a reason when missing,
//! a failure when FSBATTERY_REQUIRE_PRIVILEGED=1.
#![cfg(feature = "xlsx")]

mod common;

use fsbattery_record::{CellStatus, RunRecord};
use fsbattery_report::xlsx::{xlsx, Xlsx};
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

const DUMP: &str = r#"
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True)
json.dump({"sheets": wb.sheetnames,
           "data": {ws.title: [list(r) for r in ws.iter_rows(values_only=True)] for ws in wb.worksheets}},
          sys.stdout)
"#;

fn render(rec: &RunRecord) -> Vec<u8> {
    Xlsx.render(&Report {
        record: rec,
        aggregate: Aggregate::Mean,
        rank_reference: false,
    })
    .unwrap()
}

/// The first python3 that imports openpyxl (`python3` on PATH may be a pyenv or venv
/// interpreter without the distribution's modules; `fsbattery setup --tests` installs
/// python3-openpyxl for /usr/bin/python3), found the way `fsbattery setup` checks it.
fn python() -> Option<&'static str> {
    fsbattery_core::packages::python_with("openpyxl")
}

/// Every sheet as rows of JSON values (numbers stay numbers, text stays text).
fn read_back(bytes: &[u8]) -> Value {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("xlsx");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("report.xlsx");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(python().expect("checked by the gate"))
        .args(["-c", DUMP])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openpyxl: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn workbook_is_a_zip_and_deterministic() {
    let rec = common::run();
    let a = render(&rec);
    assert_eq!(&a[..2], b"PK");
    assert_eq!(a, render(&rec), "same record, same bytes");
    let prev = common::previous_round();
    let runs = [("previous".to_string(), &prev), ("this".to_string(), &rec)];
    assert!(xlsx(&runs, Aggregate::Mean).unwrap().len() > a.len());
}

#[test]
fn numbers_read_back_equal_the_record() {
    if !common::gate(
        python().is_some(),
        "python3 with openpyxl (fsbattery setup --tests: apt-get install python3-openpyxl)",
    ) {
        return;
    }
    let rec = common::run();
    let book = read_back(&render(&rec));
    let names: Vec<&str> = book["sheets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "runs",
            "values",
            "cpu",
            "latency",
            "iozone write",
            "iozone read",
            "iozone random_read",
            "stats",
            "targets",
            "samples"
        ]
    );
    let sheet = |n: &str| book["data"][n].as_array().unwrap().clone();
    check_values(&rec, &sheet("values"));
    check_samples(&rec, &sheet("samples"));
    check_iozone(&rec, &sheet("iozone write"));
    // Rows of sizes and rates have no timed phase, hence no CPU row (a row a target does not
    // have is n/a there, which must not make every row look timed).
    for row in &sheet("cpu")[1..] {
        let (w, m) = (row[1].as_str().unwrap(), row[2].as_str().unwrap());
        let cells: Vec<_> = rec
            .cells
            .iter()
            .filter(|c| c.workload == w && c.metric == m)
            .collect();
        assert!(
            cells.iter().all(|c| c.unit == "s"),
            "{w}/{m} in the cpu sheet"
        );
    }
    assert_eq!(
        sheet("runs")[1][3].as_f64(),
        Some(3.0),
        "repeats are a number"
    );
}

fn check_values(rec: &RunRecord, rows: &[Value]) {
    let header: Vec<&str> = rows[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(&header[5..], ["ext2", "ext4", "xfs"]);
    let mut checked = 0;
    for row in &rows[1..] {
        let (workload, metric) = (row[1].as_str().unwrap(), row[2].as_str().unwrap());
        for (i, t) in ["ext2", "ext4", "xfs"].iter().enumerate() {
            let got = &row[5 + i];
            match rec.cell(t, workload, metric) {
                Some(c) if c.status == CellStatus::Ok => {
                    let v = got.as_f64().unwrap_or_else(|| {
                        panic!("{workload}/{metric} on {t} is not a number: {got}")
                    });
                    assert!(
                        close(v, mean(&c.values())),
                        "{workload}/{metric} on {t}: {v}"
                    );
                    checked += 1;
                }
                Some(_) => assert_eq!(got, "failed", "{workload}/{metric} on {t}"),
                None => assert_eq!(got, "pending", "{workload}/{metric} on {t}"),
            }
        }
    }
    assert_eq!(checked, 22 * 3 - 1);
}

fn check_samples(rec: &RunRecord, rows: &[Value]) {
    let expected: usize = rec.cells.iter().map(|c| c.samples.len().max(1)).sum();
    assert_eq!(
        rows.len() - 1,
        expected,
        "one row per sample, failed cells included"
    );
    let mut i = 1;
    for c in &rec.cells {
        if c.samples.is_empty() {
            assert_eq!(rows[i][7], "failed");
            assert!(rows[i][8].as_str().unwrap().contains("No space left"));
            i += 1;
        }
        for s in &c.samples {
            let r = &rows[i];
            assert_eq!(
                (r[1].as_str().unwrap(), r[3].as_str().unwrap()),
                (c.target.as_str(), c.metric.as_str())
            );
            let nums: Vec<f64> = (9..15).map(|k| r[k].as_f64().expect("a number")).collect();
            assert_eq!(
                nums,
                [
                    s.repeat as f64,
                    s.value,
                    s.elapsed_s,
                    s.user_s,
                    s.sys_s,
                    s.cpu_pct
                ]
            );
            i += 1;
        }
    }
}

fn check_iozone(rec: &RunRecord, rows: &[Value]) {
    let kib: Vec<f64> = rows[1..].iter().map(|r| r[0].as_f64().unwrap()).collect();
    assert_eq!(kib, [8.0, 64.0, 512.0, 4096.0, 16384.0]);
    for r in &rows[1..] {
        let record = (r[0].as_f64().unwrap() * 1024.0) as u64;
        for (i, t) in ["ext2", "ext4", "xfs"].iter().enumerate() {
            let cell = rec.cell(t, "iozone", &format!("write@{record}")).unwrap();
            assert!(close(r[2 + i].as_f64().unwrap(), mean(&cell.values())));
        }
    }
}

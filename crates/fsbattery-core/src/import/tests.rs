//! Building a record from several parsed files: repeats, missing values, refusing a mix.

use super::*;

fn parsed(iops: Reading, request: &str) -> Parsed {
    Parsed {
        tool: "fio",
        version: "fio-3.33".into(),
        hostname: String::new(),
        started: None,
        workload: "randomio".into(),
        params: BTreeMap::from([("request".to_string(), request.to_string())]),
        metrics: vec![(MetricSpec::rate("iops", "ops/s", "x"), iops)],
    }
}

fn labels() -> Labels<'static> {
    Labels {
        label: "fio",
        target: Some("dir"),
        imported_at: "2026-11-23T15:00:00+00:00",
    }
}

#[test]
fn each_file_is_one_repeat_and_the_record_says_where_it_came_from() {
    let files: Vec<(String, Parsed)> = (0..3)
        .map(|i| {
            (
                format!("run{i}.json"),
                parsed(value(100.0 + i as f64), "4096"),
            )
        })
        .collect();
    let rec = build_record(&files, &labels()).unwrap();
    let c = rec.cell("dir", "randomio", "iops").unwrap();
    assert_eq!(c.values(), [100.0, 101.0, 102.0]);
    assert_eq!(
        c.samples.iter().map(|s| s.repeat).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    let src = rec.source.as_ref().unwrap();
    assert_eq!((src.tool.as_str(), src.files.len()), ("fio", 3));
    assert_eq!((rec.plan.repeat, rec.targets[0].label.as_str()), (3, "dir"));
    // The record round-trips through JSON with its source.
    let back: RunRecord = serde_json::from_slice(&serde_json::to_vec(&rec).unwrap()).unwrap();
    assert_eq!(back, rec);
}

#[test]
fn a_missing_value_in_any_file_makes_the_cell_missing_not_zero() {
    let files = vec![
        ("a".to_string(), parsed(value(5.0), "4096")),
        (
            "b".to_string(),
            parsed(Reading::Missing("+++++".into()), "4096"),
        ),
    ];
    let rec = build_record(&files, &labels()).unwrap();
    let c = &rec.cells[0];
    assert!(c.samples.is_empty());
    assert!(
        matches!(&c.status, CellStatus::Missing { reason } if reason.contains("file 2: +++++"))
    );
}

#[test]
fn files_of_different_parameters_are_refused_naming_the_parameter() {
    let files = vec![
        ("a".to_string(), parsed(value(5.0), "4096")),
        ("b".to_string(), parsed(value(5.0), "8192")),
    ];
    let e = build_record(&files, &labels()).unwrap_err().to_string();
    assert!(
        e.contains("request 4096 vs 8192") && e.contains("b differs from a"),
        "{e}"
    );
}

#[test]
fn detection_picks_the_tool_from_the_content() {
    let fio = include_bytes!("testdata/fio-randread.json");
    assert_eq!(parse("f", fio, None).unwrap().tool, "fio");
    let bonnie = include_bytes!("testdata/bonnie-2.00a.txt");
    assert_eq!(parse("b", bonnie, None).unwrap().tool, "bonnie++");
    let e = parse("x", b"hello", None).unwrap_err().to_string();
    assert!(e.contains("--from fio|bonnie|iozone"), "{e}");
    let forced = parse("b", bonnie, by_name("fio")).unwrap_err().to_string();
    assert!(forced.starts_with("b: "), "{forced}");
}

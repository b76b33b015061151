//! Issue 13 part 3: a rate within 20 % of fsbattery's own ceiling is marked tool-bound in
//! every renderer and never ranked, so no winner or tie is claimed among such cells.
//!
//! A hand-built run: dir and tmpfs reach 99 % and 95 % of the 4 KiB read ceiling in ops/s
//! (dir significantly ahead of tmpfs), ext4 1 %; a MB/s row far above any ceiling stays
//! ranked, because byte rates have no ceiling.

use fsbattery_record::{RunRecord, ToolCeiling};
use fsbattery_report::html::Html;
use fsbattery_report::markdown::Markdown;
use fsbattery_report::table::TerminalTable;
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;
use serde_json::{json, Value};

fn cell(target: &str, metric: &str, unit: &str, values: [f64; 3]) -> Value {
    let samples: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({"repeat": i, "value": v, "elapsed_s": 1.0, "user_s": 0.5,
                   "sys_s": 0.5, "cpu_pct": 100.0})
        })
        .collect();
    json!({"target": target, "workload": "randomio", "metric": metric, "unit": unit,
        "better": "higher", "method": "native", "status": {"state": "ok"}, "samples": samples})
}

fn record(ceiling: Option<ToolCeiling>) -> RunRecord {
    let mut cells = Vec::new();
    for (t, base) in [("ext4", 1000.0), ("xfs", 95000.0), ("tmpfs", 99000.0)] {
        cells.push(cell(t, "iops", "ops/s", [base, base + 100.0, base - 100.0]));
        cells.push(cell(t, "mbps", "MB/s", [base, base + 10.0, base - 10.0]));
    }
    let target = |l: &str| {
        json!({"label": l, "spec": l, "path": "/m", "fs_type": l,
        "mount_options": "rw", "device": "d", "capabilities": {"needs_root": true,
        "drop_caches": true, "direct_io": true, "direct_io_bypasses_cache": true},
        "lifecycles": [], "error": null})
    };
    let mut rec: RunRecord = serde_json::from_value(json!({
        "schema_version": 1,
        "tool": {"name": "fsbattery", "version": "0"},
        "started": "2026-01-01T00:00:00Z",
        "finished": "2026-01-01T00:10:00Z",
        "host": {"hostname": "h", "kernel": "k", "os": "o", "cpu_model": "c", "cores": 2,
                 "ram_bytes": 1, "root": true},
        "plan": {"suite": "ceiling", "scale": "quick", "repeat": 3, "aggregate": "mean",
                 "pause_secs": 0.0, "method": "native", "workloads": [], "rows": [
                    {"label": "IOPS", "workload": "randomio", "metric": "iops"},
                    {"label": "Bandwidth", "workload": "randomio", "metric": "mbps"}]},
        "targets": [target("ext4"), target("xfs"), target("tmpfs")],
        "cells": cells
    }))
    .unwrap();
    rec.host.tool_ceiling = ceiling;
    rec
}

fn ceiling() -> Option<ToolCeiling> {
    Some(ToolCeiling {
        null_ops_per_s: 400_000.0,
        null_method: "test".into(),
        read_4k_ops_per_s: 100_000.0,
        file: "/dev/shm/x".into(),
        secs: 0.3,
    })
}

fn render(r: &dyn Renderer, rec: &RunRecord) -> String {
    let report = Report {
        record: rec,
        aggregate: Aggregate::Mean,
        // tmpfs stands in for a fast contender here (issue 28 leaves RAM targets unranked by
        // default); the test is about the tool ceiling, so it is ranked.
        rank_reference: true,
    };
    String::from_utf8(r.render(&report).unwrap()).unwrap()
}

fn line<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start_matches(['│', '|', ' ']).starts_with(label))
        .unwrap_or_else(|| panic!("no row {label} in\n{text}"))
}

#[test]
fn without_a_ceiling_the_fastest_wins() {
    let text = render(&TerminalTable { styled: false }, &record(None));
    let iops = line(&text, "IOPS");
    assert!(iops.contains("99000 ±248.4 *"), "{iops}");
    assert!(!text.contains("tool-bound"), "{text}");
}

#[test]
fn tool_bound_cells_are_marked_and_never_ranked_in_every_renderer() {
    let rec = record(ceiling());
    let text = render(&TerminalTable { styled: false }, &rec);
    let iops = line(&text, "IOPS");
    assert_eq!(iops.matches("(tool-bound)").count(), 2, "{iops}");
    assert!(!iops.contains('*') && !iops.contains('≈'), "{iops}");
    assert!(
        text.contains("tool-bound — the filesystem is faster than we can measure"),
        "{text}"
    );
    // Byte rates have no ceiling: ranked as before.
    assert!(line(&text, "Bandwidth").contains(" *"), "{text}");

    let md = render(&Markdown, &rec);
    let iops = line(&md, "IOPS");
    assert_eq!(iops.matches("(tool-bound)").count(), 2, "{iops}");
    assert!(!iops.contains("**") && !iops.contains('≈'), "{iops}");

    let html = render(&Html, &rec);
    let matrix = &html[html.find("<table class=\"matrix\"").unwrap()..];
    let at = matrix.find("data-test=\"randomio/iops\"").unwrap();
    let row = &matrix[at..at + matrix[at..].find("</tr>").unwrap()];
    assert_eq!(row.matches("num tool-bound").count(), 2, "{row}");
    assert!(!row.contains("best") && !row.contains("tied"), "{row}");
    let summary = &html[html.find("<section id=\"summary\">").unwrap()..];
    let summary = &summary[summary.find("data-test=\"randomio/iops\"").unwrap()..];
    let summary = &summary[..summary.find("</tr>").unwrap()];
    assert!(
        summary.contains("not ranked: 2 cell(s) tool-bound"),
        "{summary}"
    );
}

#[test]
fn the_ceiling_scales_with_the_threads_up_to_the_cores() {
    // 99 % of a one-thread ceiling, but randomio ran 10 threads on 2 cores: the ceiling is
    // twice as high, so nothing is tool-bound and the fastest is ranked.
    let mut rec = record(ceiling());
    rec.plan.workloads = serde_json::from_value(json!([{"name": "randomio",
        "params": {"threads": "10"}, "metrics": []}]))
    .unwrap();
    let text = render(&TerminalTable { styled: false }, &rec);
    assert!(!line(&text, "IOPS").contains("tool-bound"), "{text}");
    assert_eq!(
        fsbattery_report::matrix::thread_scale(&rec, "randomio"),
        2.0
    );
    assert_eq!(fsbattery_report::matrix::thread_scale(&rec, "ffsb"), 1.0);
    rec.plan.workloads[0]
        .params
        .insert("threads".into(), "1".into());
    let text = render(&TerminalTable { styled: false }, &rec);
    assert!(text.contains("tool-bound"), "{text}");
}

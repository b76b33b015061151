//! Issue 10 part 3: a winner only where there is one, in every renderer.
//!
//! A hand-built run of three targets (ext4, xfs, tmpfs; three repeats): one row whose samples
//! overlap on all three, one row where ext4 is clearly fastest, a space-available row that is
//! not comparable (tmpfs is RAM-sized), and an mkfs row tmpfs does not have.
//!
//! Issue 28 changed what overlap means: ±20 % noise on three runs is "undecided" (`?`), not
//! "tied" (`≈` now needs an equivalence test), and tmpfs, a RAM reference, is ranked only with
//! `--rank-reference`; these tests rank it ([`render`]) so that all three still compete, and
//! [`tmpfs_is_shown_but_not_ranked_by_default`] checks the default.

use fsbattery_record::RunRecord;
use fsbattery_report::html::Html;
use fsbattery_report::markdown::Markdown;
use fsbattery_report::table::TerminalTable;
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;
use serde_json::{json, Value};

fn cell(target: &str, workload: &str, metric: &str, values: &[f64], extra: Value) -> Value {
    let (unit, better) = match metric {
        "avail_mib" => ("MiB", "higher"),
        _ => ("s", "lower"),
    };
    let samples: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({"repeat": i, "value": v, "elapsed_s": v, "user_s": v / 4.0,
                   "sys_s": v / 4.0, "cpu_pct": 50.0 + i as f64})
        })
        .collect();
    let mut c = json!({"target": target, "workload": workload, "metric": metric, "unit": unit,
        "better": better, "method": "native", "status": {"state": "ok"}, "samples": samples});
    if let (Value::Object(c), Value::Object(e)) = (&mut c, extra) {
        c.extend(e);
    }
    c
}

fn record() -> RunRecord {
    let not_comparable = json!({"comparable": false});
    let mut cells = Vec::new();
    let overlap: [(&str, [f64; 3]); 3] = [
        ("ext4", [10.0, 12.0, 8.0]),
        ("xfs", [9.5, 11.5, 8.5]),
        ("tmpfs", [10.5, 12.5, 7.9]),
    ];
    for (t, v) in overlap {
        cells.push(cell(t, "metadata", "touch_files", &v, json!({})));
    }
    let separated: [(&str, [f64; 3]); 3] = [
        ("ext4", [1.0, 1.01, 0.99]),
        ("xfs", [2.0, 2.02, 1.98]),
        ("tmpfs", [3.0, 3.03, 2.97]),
    ];
    for (t, v) in separated {
        cells.push(cell(t, "metadata", "find_files", &v, json!({})));
    }
    for (t, v) in [("ext4", 950.0), ("xfs", 1004.0), ("tmpfs", 7900.0)] {
        cells.push(cell(
            t,
            "filesystem",
            "avail_mib",
            &[v, v, v],
            not_comparable.clone(),
        ));
    }
    for (t, v) in [("ext4", [0.5, 0.52, 0.48]), ("xfs", [0.2, 0.21, 0.19])] {
        cells.push(cell(t, "filesystem", "mkfs", &v, json!({})));
    }
    let target = |l: &str| {
        json!({"label": l, "spec": l, "path": "/m", "fs_type": l,
        "mount_options": "rw", "device": "d", "capabilities": {"needs_root": true,
        "drop_caches": true, "direct_io": true, "direct_io_bypasses_cache": true},
        "lifecycles": [], "error": null})
    };
    serde_json::from_value(json!({
        "schema_version": 1,
        "tool": {"name": "fsbattery", "version": "0"},
        "started": "2026-01-01T00:00:00Z",
        "finished": "2026-01-01T00:10:00Z",
        "host": {"hostname": "h", "kernel": "k", "os": "o", "cpu_model": "c", "cores": 2,
                 "ram_bytes": 1, "root": true},
        "plan": {"suite": "verdict", "scale": "quick", "repeat": 3, "aggregate": "mean",
                 "pause_secs": 0.0, "method": "native", "workloads": [], "rows": [
                    {"label": "Touch", "workload": "metadata", "metric": "touch_files"},
                    {"label": "Find", "workload": "metadata", "metric": "find_files"},
                    {"label": "Space", "workload": "filesystem", "metric": "avail_mib"},
                    {"label": "Mkfs", "workload": "filesystem", "metric": "mkfs"}]},
        "targets": [target("ext4"), target("xfs"), target("tmpfs")],
        "cells": cells
    }))
    .unwrap()
}

fn render(r: &dyn Renderer, rec: &RunRecord) -> String {
    render_ranked(r, rec, true)
}

fn render_ranked(r: &dyn Renderer, rec: &RunRecord, rank_reference: bool) -> String {
    let report = Report {
        record: rec,
        aggregate: Aggregate::Mean,
        rank_reference,
    };
    String::from_utf8(r.render(&report).unwrap()).unwrap()
}

/// The first line of `text` that starts a table row labelled `label`.
fn line<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start_matches(['│', '|', ' ']).starts_with(label))
        .unwrap_or_else(|| panic!("no row {label} in\n{text}"))
}

#[test]
fn terminal_table_marks_a_winner_only_where_there_is_one() {
    let rec = record();
    let text = render(&TerminalTable { styled: false }, &rec);
    let touch = line(&text, "Touch");
    assert!(!touch.contains('*'), "overlapping CIs: no winner: {touch}");
    assert_eq!(
        touch.matches('?').count(),
        3,
        "all three undecided: {touch}"
    );
    assert!(!touch.contains('≈'), "noise is not equivalence: {touch}");
    let find = line(&text, "Find");
    assert_eq!(find.matches('*').count(), 1, "{find}");
    assert!(find.contains("1.00 ±0.025 *"), "{find}");
    let space = line(&text, "Space");
    assert!(
        !space.contains('*') && !space.contains('≈'),
        "not comparable: {space}"
    );
    let mkfs = line(&text, "Mkfs");
    assert!(mkfs.contains("n/a"), "tmpfs has no mkfs: {mkfs}");
    assert!(!mkfs.contains("not run"), "{mkfs}");
    // The CPU % table is shown, never ranked.
    let cpu = &text[text.find("CPU % ((user+sys)").unwrap()..];
    assert!(!cpu.contains(" *") && !cpu.contains('≈'), "{cpu}");
    assert!(
        text.contains("≈ equivalent to the best within ±5 %") && text.contains("? undecided"),
        "legend: {text}"
    );
    // The run ends with the verdicts in words, the undecided one naming its noisiest target.
    let tail = &text[text.find("Verdicts (").expect("closing summary")..];
    assert!(tail.contains("Touch: undecided:"), "{tail}");
    assert!(tail.contains("Find: ext4 wins, 2.00×"), "{tail}");
    // And a composite with its interval, best first: ext4 is best at Find and about even at
    // Touch.
    let at = tail.find("Overall: ").expect("composite ranking");
    let ranking = tail[at..].lines().nth(1).unwrap();
    assert!(
        ranking.trim_start().starts_with("scores: ext4 "),
        "{ranking}"
    );
}

#[test]
fn markdown_marks_a_winner_only_where_there_is_one() {
    let rec = record();
    let md = render(&Markdown, &rec);
    let touch = line(&md, "Touch");
    assert!(
        !touch.contains("**") && touch.matches(" ? |").count() == 3,
        "{touch}"
    );
    let find = line(&md, "Find");
    assert!(find.contains("**1.00 ±0.025** \\*"), "{find}");
    assert!(!line(&md, "Space").contains("**"), "{md}");
    assert!(line(&md, "Mkfs").contains("n/a"), "{md}");
}

#[test]
fn html_marks_undecided_keeps_space_out_of_the_score_and_says_n_a() {
    let rec = record();
    let html = render(&Html, &rec);
    let row = |key: &str| {
        let at = html.find("<table class=\"matrix\"").unwrap();
        let body = &html[at..];
        let k = body.find(&format!("data-test=\"{key}\"")).unwrap();
        let end = body[k..].find("</tr>").unwrap();
        body[k..k + end].to_string()
    };
    let touch = row("metadata/touch_files");
    assert!(!touch.contains("num best"), "{touch}");
    assert_eq!(touch.matches("num undecided").count(), 3, "{touch}");
    assert_eq!(row("metadata/find_files").matches("num best").count(), 1);
    let space = row("filesystem/avail_mib");
    assert!(
        !space.contains("best") && !space.contains("tied"),
        "{space}"
    );
    assert!(
        row("filesystem/mkfs").contains(">n/a</td>"),
        "tmpfs has no mkfs"
    );
    // The summary says the row is undecided and names no winner.
    let summary = &html[html.find("<section id=\"summary\">").unwrap()..];
    let summary = &summary[summary.find("data-test=\"metadata/touch_files\"").unwrap()..];
    let summary = &summary[..summary.find("</tr>").unwrap()];
    assert!(summary.contains("(best value; undecided)") && summary.contains("too noisy to tell"));
    assert!(
        html.contains("Not in the total or the score"),
        "space is n/a in the score"
    );
    // Best reads as best: green, not red.
    assert!(html.contains("--best:#047857"));
}

#[test]
fn html_heat_map_never_shades_undecided_cells_as_best_and_leaves_n_a_and_space_unranked() {
    let rec = record();
    let html = render(&Html, &rec);
    let map = &html[html.find("<table class=\"heatmap\"").unwrap()..];
    let map = &map[..map.find("</table>").unwrap()];
    let row = |key: &str| {
        let k = map.find(&format!("data-test=\"{key}\"")).unwrap();
        let start = map[..k].rfind("<tr").unwrap();
        &map[start..k + map[k..].find("</tr>").unwrap()]
    };
    // No significant winner and too noisy to tell: no cell takes the best shade, all three
    // carry `?`, none `*`.
    let touch = row("metadata/touch_files");
    assert_eq!(touch.matches("background:#225ea8").count(), 0, "{touch}");
    assert_eq!(touch.matches(">?<").count(), 3, "{touch}");
    assert!(!touch.contains(">*<"), "{touch}");
    // A significant winner: it alone has the best shade.
    let find = row("metadata/find_files");
    assert_eq!(find.matches("background:#225ea8").count(), 1, "{find}");
    // Space available describes each target: printed, never shaded as ranked.
    let space = row("filesystem/avail_mib");
    assert!(space.starts_with("<tr class=\"unranked\"") && !space.contains("background:"));
    // tmpfs has no mkfs: n/a, grey, unshaded; in the bar chart too, not red.
    let mkfs = row("filesystem/mkfs");
    assert!(
        mkfs.contains("<td class=\"num empty\" data-ratio=\"\">n/a</td>"),
        "{mkfs}"
    );
    let chart = &html[html.find("data-test=\"filesystem/mkfs\" viewBox").unwrap()..];
    let chart = &chart[..chart.find("</svg>").unwrap()];
    assert!(
        chart.contains("class=\"empty\"")
            && chart.contains("fill=\"#6b7280\" font-style=\"italic\">n/a")
    );
    assert!(!chart.contains("#b91c1c"), "{chart}");
}

#[test]
fn tmpfs_is_shown_but_not_ranked_by_default() {
    let rec = record();
    let text = render_ranked(&TerminalTable { styled: false }, &rec, false);
    let find = line(&text, "Find");
    // ext4 still wins against xfs; tmpfs's cell is printed without a mark.
    assert_eq!(find.matches('*').count(), 1, "{find}");
    assert!(find.contains("3.00 ±"), "tmpfs is shown: {find}");
    let touch = line(&text, "Touch");
    assert_eq!(
        touch.matches('?').count(),
        2,
        "tmpfs takes no part: {touch}"
    );
    assert!(text.contains("not ranked: tmpfs (in RAM"), "{text}");
    let at = text.find("Overall: ").expect("composite ranking");
    let ranking = text[at..].lines().nth(1).unwrap();
    assert!(
        !ranking.contains("tmpfs"),
        "a reference is not scored: {ranking}"
    );
    let md = render_ranked(&Markdown, &rec, false);
    assert!(md.contains("not ranked: tmpfs (in RAM"), "{md}");
    let html = render_ranked(&Html, &rec, false);
    assert!(html.contains("not ranked: tmpfs (in RAM"), "{html}");
}

#[test]
fn cells_carry_their_statistics_and_verdict_for_json_and_csv() {
    let mut rec = record();
    fsbattery_report::cell_stats::annotate(&mut rec, false);
    let stats = |t: &str, m: &str| {
        rec.cells
            .iter()
            .find(|c| c.target == t && c.metric == m)
            .and_then(|c| c.stats.clone())
            .unwrap()
    };
    use fsbattery_record::CellVerdict;
    // ext4 [1.0, 1.01, 0.99] against xfs [2.0, 2.02, 1.98]: the winner, with the p behind it.
    let find = stats("ext4", "find_files");
    assert_eq!((find.n, find.verdict), (3, CellVerdict::Winner));
    assert!((find.mean - 1.0).abs() < 1e-12 && (find.median - 1.0).abs() < 1e-12);
    let [lo, hi] = find.ci95.unwrap();
    assert!(lo < 1.0 && 1.0 < hi);
    assert!(find.p.unwrap() < 0.05, "{find:?}");
    assert!(find.row_verdict.starts_with("ext4 wins"), "{find:?}");
    assert_eq!(stats("xfs", "find_files").verdict, CellVerdict::Worse);
    // tmpfs is a reference: summarised, not ranked.
    let t = stats("tmpfs", "find_files");
    assert_eq!((t.verdict, t.p), (CellVerdict::NotRanked, None));
    assert_eq!(stats("ext4", "touch_files").verdict, CellVerdict::Undecided);
    assert_eq!(stats("ext4", "avail_mib").verdict, CellVerdict::NotRanked);
    assert!(rec.summary.iter().any(|l| l.contains("Find: ext4 wins")));
    // The JSON reads back with them (floats to the last digit aside).
    let back: fsbattery_record::RunRecord =
        serde_json::from_str(&serde_json::to_string(&rec).unwrap()).unwrap();
    let verdicts = |r: &fsbattery_record::RunRecord| {
        r.cells
            .iter()
            .map(|c| c.stats.as_ref().map(|s| (s.n, s.verdict)))
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&back), verdicts(&rec));
    assert_eq!(back.summary, rec.summary);
    let csv = render(&fsbattery_report::csv_out::Csv, &record());
    let header = csv.lines().next().unwrap();
    assert!(
        header.ends_with(
            "cell_n,cell_mean,cell_median,cell_ci95_low,cell_ci95_high,cell_verdict,cell_p"
        ),
        "{header}"
    );
}

#[test]
fn terminal_html_and_json_give_one_composite() {
    let rec = record();
    let text = render(&TerminalTable { styled: false }, &rec);
    let overall = text
        .lines()
        .find_map(|l| l.strip_prefix("Overall: "))
        .expect("composite ranking")
        .trim_end_matches('.')
        .to_string();
    let scores = text
        .lines()
        .find(|l| l.trim_start().starts_with("scores: "))
        .unwrap()
        .trim()
        .to_string();
    let json_renderer =
        (fsbattery_report::formats::JSON.renderer)(&fsbattery_report::Options { styled: false });
    let json = render(json_renderer.as_ref(), &rec);
    let json: Value = serde_json::from_str(&json).unwrap();
    let c = &json["composite"];
    assert_eq!(c["ranking"].as_str(), Some(overall.as_str()), "{c}");
    let order: Vec<&str> = c["scores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["target"].as_str().unwrap())
        .collect();
    let first = format!(
        "scores: {} {:.2}",
        order[0],
        c["scores"][0]["score"].as_f64().unwrap()
    );
    assert!(scores.starts_with(&first), "{scores} / {first}");
    let summary: Vec<&str> = json["summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(summary.iter().any(|l| l.trim() == scores), "{summary:?}");
    let html = render(&Html, &rec);
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    assert!(
        html.contains(&esc(&format!("Overall: {overall}."))),
        "html lacks the ranking"
    );
    assert!(html.contains(&esc(&scores)), "html lacks the scores");
    // The answer opens the page, the heat-map right after it.
    let at = |id: &str| html.find(&format!("<section id=\"{id}\">")).unwrap();
    assert!(at("answer") < at("all-tests") && at("all-tests") < at("summary"));
}

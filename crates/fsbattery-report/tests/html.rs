//! Golden and structural tests of the HTML report on the fixture run (tests/fixtures/run.json:
//! piszcz2006 rows on ext2/ext4/xfs with one pending row, one failed cell, lifecycles, iozone
//! and latency cells). Golden files: tests/fixtures/golden/; regenerate with UPDATE_GOLDEN=1.

mod common;

use fsbattery_record::{PlanInfo, RowInfo, RunRecord};
use fsbattery_report::html::Html;
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;

fn render(rec: &RunRecord) -> String {
    let report = Report {
        record: rec,
        aggregate: Aggregate::Mean,
        rank_reference: false,
    };
    String::from_utf8(Html.render(&report).unwrap()).unwrap()
}

fn single() -> String {
    render(&common::run())
}

fn two_rounds() -> String {
    let (prev, this) = (common::previous_round(), common::run());
    let runs = [
        ("previous round".to_string(), &prev),
        ("this round".to_string(), &this),
    ];
    String::from_utf8(Html::render_many(&runs, Aggregate::Mean).unwrap()).unwrap()
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The `<tr>` of a matrix row, by its data-test key, in the first matrix that has it.
fn matrix_row<'a>(html: &'a str, key: &str) -> &'a str {
    let start = html.find("<table class=\"matrix\"").expect("a matrix");
    let html = &html[start..];
    let key_at = html
        .find(&format!("data-test=\"{key}\""))
        .expect("row in matrix");
    let at = html[..key_at].rfind("<tr").unwrap();
    &html[at..at + html[at..].find("</tr>").unwrap()]
}

#[test]
fn golden_single_run() {
    common::golden("report.html", single().as_bytes());
}

#[test]
fn golden_two_rounds() {
    common::golden("report-two-rounds.html", two_rounds().as_bytes());
}

#[test]
fn rendering_is_deterministic() {
    assert_eq!(single(), single());
}

#[test]
fn page_is_self_contained() {
    for html in [single(), two_rounds()] {
        for bad in [
            "http://",
            "https://",
            "src=\"http",
            "href=\"http",
            "@import",
            "url(",
            "<link",
            "<script src",
            "<img",
            "<iframe",
            "//cdn",
        ] {
            assert!(!html.contains(bad), "page contains {bad:?}");
        }
        assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    }
}

#[test]
fn sections_come_in_the_documented_order() {
    let order = |html: &str, ids: &[&str]| {
        let at: Vec<usize> = ids
            .iter()
            .map(|id| {
                html.find(&format!("<section id=\"{id}\">"))
                    .unwrap_or_else(|| panic!("no {id}"))
            })
            .collect();
        assert!(
            at.windows(2).all(|w| w[0] < w[1]),
            "sections out of order: {ids:?}"
        );
    };
    let base = [
        "answer",
        "all-tests",
        "summary",
        "tests",
        "cpu",
        "matrices",
        "iozone",
        "latency",
        "environment",
    ];
    order(&single(), &base);
    assert!(
        !single().contains("<section id=\"comparison\">"),
        "one run has nothing to compare"
    );
    let mut with = base.to_vec();
    with.insert(3, "comparison");
    order(&two_rounds(), &with);
}

/// Measured (workload, metric) pairs of ordinary tests, by the documented conventions; only
/// timed ones (unit "s") when `timed`.
fn ordinary_tests(rec: &RunRecord, timed: bool) -> usize {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for c in &rec.cells {
        let iozone = c.workload == "iozone" && c.metric.contains('@');
        let latency = ["_p50", "_p90", "_p99", "_p99.9", "_max"]
            .iter()
            .any(|s| c.metric.ends_with(s))
            || ["ms", "us"].contains(&c.unit.as_str());
        if !iozone
            && !latency
            && (!timed || c.unit == "s")
            && !seen.contains(&(&c.workload, &c.metric))
        {
            seen.push((&c.workload, &c.metric));
        }
    }
    seen.len()
}

#[test]
fn every_chart_is_there_with_its_kind() {
    let rec = common::run();
    let html = render(&rec);
    let (tests, timed) = (ordinary_tests(&rec, false), ordinary_tests(&rec, true));
    assert_eq!((tests, timed), (22, 19));
    assert_eq!(count(&html, "<svg class=\"chart bar\""), tests);
    // Sizes and rates have no timed phase of their own, hence no CPU chart.
    assert_eq!(count(&html, "<svg class=\"chart cpu\""), timed);
    assert_eq!(count(&html, "<svg class=\"chart total\""), 1);
    assert_eq!(count(&html, "<svg class=\"chart score\""), 1);
    // The all-tests view is a table, not a chart: S1's line chart joined unrelated tests.
    assert_eq!(count(&html, "class=\"chart line\""), 0);
    assert_eq!(count(&html, "<table class=\"heatmap\" id=\"heatmap\">"), 1);
    assert_eq!(count(&html, "<svg class=\"chart recsize\""), 3);
    assert_eq!(count(&html, "<table class=\"winner-map\""), 1);
    assert_eq!(count(&html, "<table class=\"latency\""), 2);
    // Every chart has an accessible title and two download buttons.
    let charts = count(&html, "<svg ");
    assert_eq!(count(&html, "role=\"img\""), charts);
    assert_eq!(count(&html, "data-dl=\"svg\""), charts);
    assert_eq!(count(&html, "data-dl=\"png\""), charts);
    // n is shown on every measured bar (3 targets, less the failed cell), value and CPU charts.
    assert_eq!(
        count(&html, " · n=3</tspan>"),
        (tests * 3 - 1) + (timed * 3 - 1)
    );
}

#[test]
fn pending_rows_and_failed_cells_are_shown_with_their_reason() {
    let html = single();
    let pending = matrix_row(&html, "tree/untar");
    assert!(
        pending.contains("class=\"pending\"") && pending.contains("UnTAR Kernel 2.6.14.4 Tarball")
    );
    assert!(html.contains("pending: UnTAR Kernel 2.6.14.4 Tarball: workload not implemented"));
    let failed = matrix_row(&html, "split/split_1000");
    assert!(failed.contains("class=\"num failed\" title=\"write /mnt/fsbattery/xfs/split/pieces1000/x07e3: No space left on device (os error 28)\">failed</td>"));
    // The bar chart keeps the failed column, as a word with the reason as tooltip.
    let chart = &html[html.find("data-test=\"split/split_1000\" viewBox").unwrap()..];
    let chart = &chart[..chart.find("</svg>").unwrap()];
    assert!(chart.contains("class=\"empty failed\"") && chart.contains(">failed<title>write /mnt"));
}

/// The `<tr>` of the heat-map row with data-test `key`.
fn heat_row<'a>(html: &'a str, key: &str) -> &'a str {
    let map = &html[html.find("<table class=\"heatmap\"").expect("a heat-map")..];
    let at = map
        .find(&format!("data-test=\"{key}\""))
        .expect("row in heat-map");
    let at = map[..at].rfind("<tr").unwrap();
    &map[at..at + map[at..].find("</tr>").unwrap()]
}

#[test]
fn heat_map_shows_every_test_on_every_target_shaded_by_its_ratio_to_the_best() {
    let rec = common::run();
    let html = render(&rec);
    let map = &html[html.find("<table class=\"heatmap\"").unwrap()..];
    let map = &map[..map.find("</table>").unwrap()];
    // Every ordinary test, the pending one included, and one sortable heading per target.
    assert_eq!(
        count(map, "<tr data-order=") + count(map, "<tr class=\"unranked\" data-order="),
        ordinary_tests(&rec, false) + 1
    );
    assert_eq!(count(map, "<th class=\"sort num\""), 3);
    // Names are never cut.
    assert!(!map.contains('…'));
    assert!(
        map.contains("Creation time to make the actual filesystem"),
        "{map}"
    );
    // ext2 wins touch_files: its cell is the only one with the best shade and it carries `*`.
    let touch = heat_row(&html, "metadata/touch_files");
    assert_eq!(count(touch, "background:#225ea8"), 1, "{touch}");
    assert!(touch.contains("data-ratio=\"1.0000\" style=\"background:#225ea8"));
    assert!(touch.contains("<span class=\"mark\">*</span>"));
    // A pending row is printed, never shaded as ranked.
    let untar = heat_row(&html, "tree/untar");
    assert!(untar.starts_with("<tr class=\"unranked\"") && !untar.contains("background:"));
    // A failed cell keeps its word and no shade.
    let split = heat_row(&html, "split/split_1000");
    assert!(split.contains("<td class=\"num failed\" data-ratio=\"\">failed</td>"));
}

#[test]
fn heat_map_rows_without_a_winner_shade_equivalent_cells_alike_and_never_undecided_ones() {
    // Rows without a significant winner are equivalent (≈, proven by the equivalence test)
    // or undecided (?, too noisy): only ≈ takes the best shade, so noise is never painted
    // as a win (the split row: a target at 14× the best shaded as the best).
    let html = single();
    let map = &html[html.find("<table class=\"heatmap\"").unwrap()..];
    let map = &map[..map.find("</table>").unwrap()];
    let mut rows_without_winner = 0;
    for row in map.split("<tr").skip(2) {
        let marked = row.contains("class=\"mark\">≈<") || row.contains("class=\"mark\">?<");
        if row.contains("class=\"mark\">*<") || !marked {
            continue;
        }
        rows_without_winner += 1;
        for cell in row.split("<td").skip(1) {
            let equivalent = cell.contains("class=\"mark\">≈<");
            assert_eq!(cell.contains("background:#225ea8"), equivalent, "{row}");
        }
    }
    assert!(
        rows_without_winner > 0,
        "the fixture has rows without a significant winner"
    );
}

#[test]
fn best_of_row_and_best_journaling_follow_s2() {
    let html = single();
    // ext2 (no journal) wins: the best journaling filesystem (ext4) is marked too.
    let touch = matrix_row(&html, "metadata/touch_files");
    let cells: Vec<&str> = touch.split("<td class=\"").skip(2).collect();
    assert!(cells[0].starts_with("num best\""), "{touch}");
    assert!(cells[1].starts_with("num best-journaling\""), "{touch}");
    assert!(cells[2].starts_with("num\""), "{touch}");
    // A journaling filesystem wins: nothing else is marked.
    let mkdir = matrix_row(&html, "metadata/mkdir_dirs");
    assert_eq!(count(mkdir, "best"), 1);
    assert!(mkdir.contains("num best\" title=\"n=3, mean 0.048"));
}

#[test]
fn winner_map_colours_cells_by_the_winning_target() {
    let html = single();
    let map = &html[html.find("<table class=\"winner-map\"").unwrap()..];
    let map = &map[..map.find("</table>").unwrap()];
    assert_eq!(count(map, "<tr data-record="), 5);
    let first = &map[map.find("<tr data-record=\"8192\">").unwrap()..];
    assert!(first.contains("<td data-winner=\"xfs\" style=\"background:#59a14f;"));
    assert!(map.contains("<th scope=\"row\">16M</th>"));
}

#[test]
fn user_text_is_escaped() {
    let mut rec = common::run();
    rec.targets[0].lifecycles[0].mkfs_output = "<script>alert('x')</script> & done".into();
    rec.host.hostname = "<b>host</b>".into();
    rec.plan.rows[0].label = "mkfs \"quoted\" <i>".into();
    let html = render(&rec);
    assert!(!html.contains("<script>alert") && !html.contains("<b>host") && !html.contains("<i>"));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; done"));
    assert!(html.contains("mkfs &quot;quoted&quot; &lt;i&gt;"));
}

#[test]
fn two_rounds_label_columns_and_compare_with_significance() {
    let html = two_rounds();
    assert!(html.contains("previous round: ext2") && html.contains("this round: xfs"));
    assert_eq!(count(&html, "<div class=\"run-summary\""), 2);
    assert_eq!(
        count(&html, "<table class=\"winner-map\" data-run="),
        2,
        "a winner map per run"
    );
    // This round is 12% faster everywhere: times are significantly better, none worse.
    let cmp = &html[html.find("<section id=\"comparison\">").unwrap()
        ..html.find("<section id=\"tests\">").unwrap()];
    assert!(count(cmp, "class=\"verdict-better\"") > 10);
    assert_eq!(count(cmp, "class=\"verdict-worse\""), 0);
    assert!(
        cmp.contains("base cell not ok"),
        "the failed cell is listed, not dropped"
    );
}

#[test]
fn rounds_with_different_targets_keep_every_column() {
    let mut prev = common::previous_round();
    for t in &mut prev.targets {
        if t.label == "xfs" {
            (t.label, t.fs_type, t.spec) = ("jfs".into(), "jfs".into(), "loop:jfs".into());
        }
    }
    for c in &mut prev.cells {
        if c.target == "xfs" {
            c.target = "jfs".into();
        }
    }
    let this = common::run();
    let runs = [("previous".to_string(), &prev), ("this".to_string(), &this)];
    let html = String::from_utf8(Html::render_many(&runs, Aggregate::Mean).unwrap()).unwrap();
    let touch = matrix_row(&html, "metadata/touch_files");
    assert_eq!(
        count(touch, "<td class=\"num"),
        6,
        "three targets per round: {touch}"
    );
    // Hues follow the order targets first appear in (jfs third, xfs fourth), one per target
    // on the whole page; the earlier round is a lighter tint of the same hue.
    assert!(html.contains("background:#b4d5b0\"></span>previous: jfs</th>"));
    assert!(html.contains("background:#e15759\"></span>this: xfs</th>"));
    // xfs has no previous-round counterpart, jfs none in this round: the comparison says so
    // instead of dropping either.
    assert!(html.contains("<td>xfs</td>") && html.contains("only in new run"));
    assert!(html.contains("<td>jfs</td>") && html.contains("only in base run"));
}

#[test]
fn a_run_with_nothing_measured_still_renders() {
    let mut rec = common::run();
    // Targets were set up but nothing was measured (say, every workload is pending).
    rec.cells.clear();
    rec.plan = PlanInfo {
        rows: vec![RowInfo {
            label: "Copy Tarball".into(),
            workload: "tree".into(),
            metric: "tarball_in".into(),
            pending: Some("workload not implemented".into()),
            aggregate: None,
            seed: None,
        }],
        ..rec.plan.clone()
    };
    let html = render(&rec);
    assert!(html.contains("pending: workload not implemented"));
    assert!(
        html.contains("<section id=\"summary\">") && html.contains("<section id=\"environment\">")
    );
    assert!(!html.contains("<section id=\"iozone\">") && !html.contains("<section id=\"tests\">"));
}

#[test]
fn no_run_is_an_error() {
    assert!(Html::render_many(&[], Aggregate::Mean).is_err());
}

#[test]
fn the_page_prints_without_controls_and_with_a_section_per_page() {
    let html = single();
    let style = &html[html.find("<style>").unwrap()..html.find("</style>").unwrap()];
    let print = &style[style.find("@media print{").expect("print rules")..];
    for rule in [
        "nav,.chart-tools{display:none}",
        "section{break-before:page;",
        ".chart-body svg{width:100%;max-width:100%;height:auto}",
        "print-color-adjust:exact",
    ] {
        assert!(print.contains(rule), "print CSS lacks {rule}");
    }
    // The summary's cells carry their heading, for the stacked layout of narrow windows.
    assert!(html.contains("<td data-label=\"Significance\">"));
}

#[test]
fn sizes_are_printed_as_a_user_types_them() {
    let html = single();
    assert!(html.contains("<code>size=64MiB</code>"), "stream size");
    assert!(html.contains("<code>block=1MiB</code>"));
    assert!(html.contains("<code>max_record=16MiB</code>"));
    // Counts are numbers, not sizes: the unit comes from the record, never from the name.
    assert!(html.contains("<code>files=2000</code>"));
    assert!(!html.contains("67108864</code>"));
    // A record written before parameters carried units shows the exact bytes it holds.
    let mut old = common::run();
    for w in &mut old.plan.workloads {
        w.param_units.clear();
    }
    assert!(render(&old).contains("<code>size=67108864</code>"));
}

#[test]
fn latency_tables_show_the_achieved_queue_depth_of_their_workload() {
    let mut rec = common::run();
    // The fixture predates the metric: give randomio a queue depth of 31.5 on every target.
    let mut depth: Vec<_> = rec
        .cells
        .iter()
        .filter(|c| c.workload == "randomio" && c.metric.ends_with("_p99"))
        .cloned()
        .collect();
    assert!(!depth.is_empty(), "the fixture has randomio latencies");
    for c in &mut depth {
        c.metric = "queue_depth".into();
        c.unit = "ops".into();
        c.better = fsbattery_stats::Better::Higher;
        c.comparable = false;
        c.status = fsbattery_record::CellStatus::Ok;
        for s in &mut c.samples {
            s.value = 31.5;
        }
    }
    let targets = depth.len();
    rec.cells.extend(depth);
    let html = render(&rec);
    let section = &html[html.find("<section id=\"latency\">").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    let tables: Vec<&str> = section.split("<table class=\"latency\"").skip(1).collect();
    assert!(!tables.is_empty());
    for t in tables {
        let randomio = t.starts_with(" data-test=\"randomio/");
        let header =
            t.contains("<th class=\"num\" data-metric=\"queue_depth\">queue depth (ops)</th>");
        assert_eq!(header, randomio, "{t}");
        if randomio {
            assert_eq!(
                count(t, ">31.50 ±0<"),
                targets,
                "one depth per target row: {t}"
            );
        }
    }
    assert!(section.contains("mean operations in flight per thread"));
    // Without the metric, the section says nothing of it (the golden file guards the rest).
    assert!(!single().contains("queue depth"));
}

/// A row whose label names this run's size shows the seed's wording beside it in a section of
/// its own; a row whose label is the seed's is not repeated there; without seeds, no section.
#[test]
fn then_and_now_lists_the_seeds_wording_beside_the_label() {
    let mut rec = common::run();
    assert!(!render(&rec).contains("id=\"then-and-now\""));
    for r in rec.plan.rows.iter_mut() {
        match r.metric.as_str() {
            "touch_files" => r.seed = Some("Touch 10,000 Files & <more>".into()),
            "find_files" => r.seed = Some(r.label.clone()),
            _ => {}
        }
    }
    let html = render(&rec);
    let at = html
        .find("<section id=\"then-and-now\">")
        .expect("the section");
    let section = &html[at..at + html[at..].find("</section>").unwrap()];
    assert!(
        section.contains(
            "<tr><th scope=\"row\">Touch 2,000 Files</th><td>Touch 10,000 Files &amp; &lt;more&gt;</td></tr>"
        ),
        "{section}"
    );
    assert_eq!(
        section.matches("<tr>").count(),
        2,
        "header and one row: {section}"
    );
}

/// S2's "min Ges s" and "max Ges s" rows show one metric under two aggregates: each is a
/// row of its own in the raw numbers, showing its own aggregate (not the table's twice).
#[test]
fn rows_with_their_own_aggregate_are_lines_of_their_own() {
    let mut rec = common::run();
    let at = rec
        .plan
        .rows
        .iter()
        .position(|r| r.metric == "touch_files")
        .unwrap();
    let base = rec.plan.rows[at].clone();
    let own = |label: &str, a| RowInfo {
        label: label.into(),
        aggregate: Some(a),
        ..base.clone()
    };
    rec.plan.rows[at] = own("Touch fastest", Aggregate::Min);
    rec.plan
        .rows
        .insert(at + 1, own("Touch slowest", Aggregate::Max));
    let cell = rec
        .cells
        .iter()
        .find(|c| c.metric == "touch_files")
        .unwrap();
    let values = cell.values();
    let (lo, hi) = (
        values.iter().copied().fold(f64::INFINITY, f64::min),
        values.iter().copied().fold(0.0, f64::max),
    );
    assert!(lo < hi, "the fixture's samples differ: {values:?}");
    let html = render(&rec);
    let matrices = &html[html.find("<section id=\"matrices\">").unwrap()..];
    let row = |label: &str| {
        let at = matrices
            .find(&format!("<th scope=\"row\">{label}</th>"))
            .unwrap_or_else(|| panic!("no row {label}"));
        matrices[at..at + matrices[at..].find("</tr>").unwrap()].to_string()
    };
    let num = |v: f64| fsbattery_report::format::num(v);
    assert!(
        row("Touch fastest").contains(&format!(">{} ±", num(lo))),
        "{}",
        row("Touch fastest")
    );
    assert!(
        row("Touch slowest").contains(&format!(">{} ±", num(hi))),
        "{}",
        row("Touch slowest")
    );
}

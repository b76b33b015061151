//! Renderers place cells by their metric metadata alone: a workload that is not iozone, whose
//! metric names follow no convention, still gets its sweep drawn and tabled like iozone's and
//! its percentiles (p75 here, not one of the `_p99` suffixes) in the latency section.

mod common;

use fsbattery_record::{
    Cell, CellStatus, Dim, MetricMeta, MetricSpec, RunRecord, Sample, Stat, WorkloadPlan,
};
use fsbattery_report::html::Html;
use fsbattery_report::markdown::Markdown;
use fsbattery_report::table::TerminalTable;
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::{Aggregate, Better};

const WORKLOAD: &str = "sweeper";

/// The workload's declaration: seq_read at two block sizes (named without `@`), and the
/// 75th percentile and the mean of its op time (named without a `_pNN` suffix).
fn metrics() -> Vec<MetricSpec> {
    let point = |name: &str, block| {
        MetricSpec::rate(name, "MB/s", "sequential read").point(
            "seq_read",
            vec![Dim::bytes("block", block), Dim::bytes("file", 1 << 30)],
        )
    };
    vec![
        point("seq_read_small", 4096),
        point("seq_read_large", 1 << 20),
        MetricSpec::latency_ms("op_time_q3", "op_time", Stat::Percentile(75.0), "p75"),
        MetricSpec::latency_ms("op_time_avg", "op_time", Stat::Mean, "mean"),
        MetricSpec::seconds("total", "wall time"),
    ]
}

fn cell(target: &str, spec: &MetricSpec, value: f64) -> Cell {
    let sample = |repeat| Sample {
        repeat,
        value: value * (1.0 + repeat as f64 * 0.001),
        elapsed_s: 1.0,
        user_s: 0.1,
        sys_s: 0.1,
        cpu_pct: 20.0,
        ..Default::default()
    };
    Cell {
        target: target.into(),
        workload: WORKLOAD.into(),
        metric: spec.name.clone(),
        unit: spec.unit.clone(),
        better: spec.better,
        comparable: true,
        method: "native".into(),
        status: CellStatus::Ok,
        samples: (0..3).map(sample).collect(),
        stats: None,
    }
}

/// The fixture run reduced to two targets that ran only this workload.
fn run() -> RunRecord {
    let specs = metrics();
    let mut rec = common::run();
    rec.cells.clear();
    for (t, k) in [("ext4", 1.0), ("xfs", 2.0)] {
        for (i, s) in specs.iter().enumerate() {
            rec.cells.push(cell(t, s, k * (i + 1) as f64));
        }
    }
    rec.targets
        .retain(|t| t.label == "ext4" || t.label == "xfs");
    rec.plan.rows.clear();
    rec.plan.repeat = 3;
    rec.plan.workloads = vec![WorkloadPlan {
        name: WORKLOAD.into(),
        params: Default::default(),
        param_units: Default::default(),
        metrics: specs,
    }];
    rec
}

fn render(r: &dyn Renderer, rec: &RunRecord) -> String {
    let report = Report {
        record: rec,
        aggregate: Aggregate::Mean,
        rank_reference: false,
    };
    String::from_utf8(r.render(&report).unwrap()).unwrap()
}

#[test]
fn a_sweep_of_any_workload_gets_its_chart_winner_row_and_numbers() {
    let html = render(&Html, &run());
    assert!(html.contains("<section id=\"iozone\">"), "no sweep section");
    assert!(
        html.contains("data-test=\"sweeper/seq_read\""),
        "no winner row"
    );
    assert!(html.contains("data-file=\"sweeper-seq-read\""), "no chart");
    // Both points, placed by their block size, not by their names.
    assert!(html.contains("<tr data-record=\"4096\">"));
    assert!(html.contains("<tr data-record=\"1048576\">"));
}

#[test]
fn a_percentile_named_by_no_convention_is_a_latency_statistic() {
    let html = render(&Html, &run());
    let at = html
        .find("<table class=\"latency\" data-test=\"sweeper/op_time\"")
        .expect("a latency table for op_time");
    let table = &html[at..at + html[at..].find("</table>").unwrap()];
    let p75 = table.find(">p75 (ms)<").expect("a p75 column");
    let mean = table.find(">mean (ms)<").expect("a mean column");
    assert!(p75 > mean, "statistics in rank order: mean before p75");
}

#[test]
fn text_and_markdown_table_the_sweep_and_keep_the_rest_in_the_main_table() {
    let rec = run();
    for text in [
        render(&TerminalTable { styled: false }, &rec),
        render(&Markdown, &rec),
    ] {
        assert!(text.contains("sweeper"), "{text}");
        assert!(
            text.contains("seq read (MB/s)"),
            "a table for the sweep: {text}"
        );
        assert!(
            !text.contains("seq_read_small"),
            "points not as rows: {text}"
        );
        assert!(text.contains("sweeper total"), "ordinary rows stay: {text}");
        assert!(
            !text.contains("KB/s"),
            "no iozone unit note without KB/s: {text}"
        );
        // 4096 B and 1 MiB rows, in KiB.
        assert!(text.contains("1024") && text.contains(" 4 "), "{text}");
    }
}

#[test]
fn declared_metadata_wins_over_what_the_name_would_imply() {
    let rec = run();
    let m: MetricMeta = rec.metric_meta(WORKLOAD, "op_time_q3", "ms", Better::Lower);
    assert_eq!(m, MetricMeta::latency("op_time", Stat::Percentile(75.0)));
}

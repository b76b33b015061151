//! Snapshot tests of the iozone tables on a small hand-built run: two targets, two tests at
//! two record sizes, a suite label, one failed cell; and the main matrix without iozone rows.

use super::*;
use crate::markdown::Markdown;
use crate::table::TerminalTable;
use crate::Renderer;
use fsbattery_record::{
    Cell, HostInfo, PlanInfo, RowInfo, Sample, TargetRecord, ToolInfo, SCHEMA_VERSION,
};
use fsbattery_stats::Better;

/// The workload of the hand-built points (its metadata is read from older records' names).
const WORKLOAD: &str = "iozone";

fn sample(value: f64, cpu_pct: f64) -> Sample {
    Sample {
        repeat: 0,
        value,
        elapsed_s: 1.0,
        user_s: cpu_pct / 200.0,
        ranks: Vec::new(),
        sys_s: cpu_pct / 200.0,
        cpu_pct,
        device_io: None,
        cache: None,
    }
}

fn cell(target: &str, workload: &str, metric: &str, value: f64, cpu: f64) -> Cell {
    let (unit, better) = if workload == WORKLOAD {
        ("KB/s", Better::Higher)
    } else {
        ("s", Better::Lower)
    };
    Cell {
        target: target.into(),
        workload: workload.into(),
        metric: metric.into(),
        unit: unit.into(),
        better,
        comparable: true,
        method: "native".into(),
        status: CellStatus::Ok,
        samples: vec![sample(value, cpu)],
        stats: None,
    }
}

fn row(label: &str, workload: &str, metric: &str, pending: Option<&str>) -> RowInfo {
    RowInfo {
        label: label.into(),
        workload: workload.into(),
        metric: metric.into(),
        pending: pending.map(String::from),
        aggregate: None,
        seed: None,
    }
}

/// ext4 and xfs; write and fread at 8 KiB and 16 KiB (recorded out of order), write labelled
/// by the suite, xfs's fread@16384 failed; one ordinary row (stream read).
fn run() -> RunRecord {
    let target = |l: &str| TargetRecord {
        label: l.into(),
        ..TargetRecord::default()
    };
    let mut cells = Vec::new();
    for (t, k) in [("ext4", 1.0), ("xfs", 1.5)] {
        cells.push(cell(t, "stream", "read", 2.0 * k, 40.0));
        cells.push(cell(t, WORKLOAD, "fread@16384", 5_000_000.0 * k, 100.0));
        cells.push(cell(t, WORKLOAD, "write@16384", 400_000.0 / k, 60.0 * k));
        cells.push(cell(t, WORKLOAD, "write@8192", 302_780.0 / k, 54.6 * k));
        cells.push(cell(t, WORKLOAD, "fread@8192", 4_947_523.0 * k, 99.97));
    }
    cells[6].status = CellStatus::Failed {
        reason: "target full after 123 bytes (write): lower iozone.size".into(),
    };
    cells[6].samples.clear();
    RunRecord {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo {
            name: "fsbattery".into(),
            version: "0".into(),
        },
        started: "2026-01-07T17:59:58+08:00".into(),
        finished: Some("2026-01-07T18:10:00+08:00".into()),
        interrupted: false,
        host: HostInfo::default(),
        plan: PlanInfo {
            suite: "iozone2016".into(),
            scale: "quick".into(),
            repeat: 1,
            aggregate: Aggregate::Mean,
            pause_secs: 0.0,
            method: "native".into(),
            workloads: Vec::new(),
            rows: vec![
                row("Writer report (S3)", WORKLOAD, "write", None),
                row("Fread report", WORKLOAD, "fread", Some("not yet")),
                row("Cat the 1GB file", "stream", "read", None),
            ],
            datasets: Vec::new(),
            skipped_targets: Vec::new(),
            label: None,
            repeat_auto: None,
            age: None,
            cache: None,
            settings: None,
            weights: Default::default(),
        },
        targets: vec![target("ext4"), target("xfs")],
        cells,
        source: None,
        summary: Vec::new(),
        published: None,
        then_and_now: None,
        composite: None,
        parts: Vec::new(),
    }
}

fn report(rec: &RunRecord) -> Report<'_> {
    Report {
        record: rec,
        aggregate: Aggregate::Mean,
        rank_reference: false,
    }
}

const TEXT: &str = "\
iozone — mean of 1 run(s); KB/s = kBytes/sec (1 KB = 1024 B); rows: record size in KiB
* significantly best: better than every other target (Welch's t-test, Holm-adjusted, α = 0.05, n ≥ 3 each); ≈ equivalent to the best within ±5 % (TOST equivalence test, Holm-adjusted); ? undecided: too noisy to tell, neither separated from nor shown equivalent to the best (the best of such a row is marked too); unmarked: significantly worse than the best, fewer than 3 runs, or not ranked (CPU %, values that describe the target, reference targets in RAM); n/a: does not apply

Writer report (S3) (KB/s)
KiB    ext4     xfs
  8  302780  201853
 16  400000  266667

Fread report (KB/s)
KiB     ext4      xfs
  8  4947523  7421284
 16  5000000   failed

Writer CPU utilization report (S3) (%)
KiB   ext4    xfs
  8  54.60  81.90
 16  60.00  90.00

Fread CPU utilization report (%)
KiB   ext4     xfs
  8  99.97   99.97
 16  100.0  failed
failed: iozone on xfs: target full after 123 bytes (write): lower iozone.size
";

#[test]
fn text_tables_snapshot() {
    let rec = run();
    assert_eq!(render(&report(&rec)).unwrap(), TEXT);
}

#[test]
fn markdown_tables_snapshot() {
    let rec = run();
    let md = markdown(&report(&rec)).unwrap();
    let want = "\
## iozone

KB/s = kBytes/sec (1 KB = 1024 B); rows: record size in KiB. Marks as in the results above.

### Writer report (S3) (KB/s)

| KiB | ext4 | xfs |
|---:|---:|---:|
| 8 | 302780 | 201853 |
| 16 | 400000 | 266667 |
";
    assert!(md.starts_with(want), "{md}");
    assert!(md.contains("### Fread CPU utilization report (%)"), "{md}");
    assert!(md.contains("| 16 | 5000000 | failed |"), "{md}");
    assert!(md.ends_with(
        "- failed: iozone on xfs: target full after 123 bytes (write): lower iozone.size\n"
    ));
}

#[test]
fn no_iozone_cells_no_tables_and_pending_rows_stay_in_the_matrix() {
    let mut rec = run();
    rec.cells.retain(|c| c.workload != WORKLOAD);
    assert!(render(&report(&rec)).is_none() && markdown(&report(&rec)).is_none());
    let m = Matrix::build_main(&report(&rec), Quantity::Value);
    let labels: Vec<&str> = m.rows.iter().map(|r| r.label.as_str()).collect();
    // The labelled write row has no cell and goes; the pending fread row stays.
    assert_eq!(labels, ["Fread report", "Cat the 1GB file"]);
}

#[test]
fn main_renderers_show_iozone_as_tables_not_rows() {
    let rec = run();
    let r = report(&rec);
    let m = Matrix::build_main(&r, Quantity::Value);
    let labels: Vec<&str> = m.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["Cat the 1GB file"]);
    // build() keeps the points for the HTML report.
    assert!(Matrix::build(&r, Quantity::Value)
        .rows
        .iter()
        .any(|r| r.metric == "write@8192"));
    let text = String::from_utf8(TerminalTable { styled: false }.render(&r).unwrap()).unwrap();
    assert!(
        // The iozone tables close the data; only the answer (when there is one) follows.
        text.contains("Cat the 1GB file")
            && (text.ends_with(TEXT)
                || text
                    .split(TEXT)
                    .nth(1)
                    .is_some_and(|a| a.contains("Decided:") || a.contains("Measured on:"))),
        "{text}"
    );
    assert!(
        !text.contains("iozone write@8192") && !text.contains("pending"),
        "{text}"
    );
    let md = String::from_utf8(Markdown.render(&r).unwrap()).unwrap();
    assert!(
        md.contains("## Results") && md.contains("## iozone"),
        "{md}"
    );
    assert!(!md.contains("iozone write@8192"), "{md}");
}

#[test]
fn an_iozone_only_run_prints_only_its_tables() {
    let mut rec = run();
    rec.cells.retain(|c| c.workload == WORKLOAD);
    rec.plan.rows.retain(|r| r.workload == WORKLOAD);
    let r = report(&rec);
    let text = String::from_utf8(TerminalTable { styled: false }.render(&r).unwrap()).unwrap();
    assert!(
        // Only the conditions line may follow the tables.
        !text.contains("CPU % ((user+sys)")
            && text
                .split(TEXT)
                .nth(1)
                .is_some_and(|a| a.trim().is_empty() || a.trim().starts_with("Measured on:")),
        "{text}"
    );
    let md = String::from_utf8(Markdown.render(&r).unwrap()).unwrap();
    assert!(
        !md.contains("## Results") && md.contains("## iozone"),
        "{md}"
    );
}

#[test]
fn titles_fall_back_to_iozone_names_and_order() {
    let mut rec = run();
    rec.plan.rows.clear();
    rec.cells
        .push(cell("ext4", WORKLOAD, "custom_test@4096", 1.0, 1.0));
    rec.cells
        .push(cell("ext4", WORKLOAD, "rewrite@512", 1.0, 1.0));
    let t = tables(&report(&rec), Quantity::Value);
    let titles: Vec<&str> = t.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Writer report",
            "Re-writer report",
            "Fread report",
            "custom test"
        ]
    );
    assert_eq!(kib(512, BYTES), "0.5");
    let rec = run();
    let point = |w, m| point(&rec, w, m, "KB/s", Better::Higher);
    assert_eq!(point("iozone", "write"), None);
    assert_eq!(point("fio", "write@8192"), None);
}

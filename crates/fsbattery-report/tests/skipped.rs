//! Skipped default targets (issue 10): every renderer says which filesystems a run left out,
//! why, and the command that fixes it; a record written before the field existed still reads.

mod common;

use fsbattery_record::{RunRecord, SkippedTarget};
use fsbattery_report::html::Html;
use fsbattery_report::markdown::Markdown;
use fsbattery_report::table::TerminalTable;
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;

fn with_skipped() -> RunRecord {
    let mut rec = common::run();
    rec.plan.skipped_targets = vec![
        SkippedTarget {
            spec: "loop:btrfs".into(),
            reason: "mkfs.btrfs not found".into(),
            fix: Some("fsbattery setup (apt-get install -y btrfs-progs)".into()),
        },
        SkippedTarget {
            spec: "tmpfs".into(),
            reason: "this kernel cannot mount tmpfs".into(),
            fix: None,
        },
    ];
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
fn old_records_read_with_no_skipped_targets() {
    assert!(common::run().plan.skipped_targets.is_empty());
    let json = serde_json::to_string(&common::run()).unwrap();
    assert!(!json.contains("skipped_targets"), "empty: not written");
}

#[test]
fn every_renderer_shows_each_skipped_target_with_its_fix() {
    let rec = with_skipped();
    let back: RunRecord = serde_json::from_str(&serde_json::to_string(&rec).unwrap()).unwrap();
    assert_eq!(back, rec, "the field round-trips");
    let table = render(&TerminalTable { styled: false }, &rec);
    assert!(table.contains(
        "skipped: loop:btrfs: mkfs.btrfs not found; fix: fsbattery setup (apt-get install -y btrfs-progs)\n"
    ));
    assert!(table.contains("skipped: tmpfs: this kernel cannot mount tmpfs\n"));
    let md = render(&Markdown, &rec);
    assert!(md.contains("## Skipped targets\n\n- skipped: loop:btrfs: mkfs.btrfs not found; fix:"));
    let html = render(&Html, &rec);
    assert!(html.contains(
        "<li><code>loop:btrfs</code> <span class=\"warn\">skipped</span>: mkfs.btrfs not found; \
         fix: <code>fsbattery setup (apt-get install -y btrfs-progs)</code></li>"
    ));
    let plain = render(&TerminalTable { styled: false }, &common::run());
    assert!(!plain.contains("skipped:"), "nothing skipped, nothing said");
}

//! The terminal table fitted to a width it cannot hold one line per row (six targets with
//! their ± at 100 columns took three lines a row, 87 of a default run's 158 piped lines): the
//! compact form keeps every line within the width, names where the ± went, keeps the marks,
//! and holds most rows on one line; a width that fits keeps the full table.

mod common;
use fsbattery_record::RunRecord;
use fsbattery_report::table::{Detail, TerminalTable};
use fsbattery_report::Report;

/// The fixture run with its three targets doubled to six ("ext2" and "ext2 b", ...).
fn six_targets() -> RunRecord {
    let mut rec = common::run();
    let (targets, cells) = (rec.targets.clone(), rec.cells.clone());
    for mut t in targets {
        t.label = format!("{} b", t.label);
        rec.targets.push(t);
    }
    for mut c in cells {
        c.target = format!("{} b", c.target);
        rec.cells.push(c);
    }
    rec
}

fn render(rec: &RunRecord, width: usize) -> String {
    let report = Report {
        record: rec,
        aggregate: rec.plan.aggregate,
        rank_reference: false,
    };
    let detail = Detail {
        verbose: false,
        lines: false,
        width: Some(width),
    };
    let out = TerminalTable { styled: false }.render_with(&report, detail);
    String::from_utf8(out.unwrap()).unwrap()
}

/// The lines of the main table's body (between its header rule and the first blank or
/// non-table line).
fn body(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.contains('═'))
        .skip(1)
        .take_while(|l| l.contains('┆'))
        .collect()
}

#[test]
fn six_targets_at_100_columns_get_the_compact_table() {
    let rec = six_targets();
    let text = render(&rec, 100);
    for l in text.lines() {
        assert!(l.chars().count() <= 100, "{} wide: {l}", l.chars().count());
    }
    assert!(
        text.contains("± CI95 and the legend in words: report.html"),
        "{text}"
    );
    let rows = body(&text);
    assert!(
        rows.iter().all(|l| !l.contains('±')),
        "values lose their ±:\n{text}"
    );
    // Label lines are those whose first column is not blank.
    let labelled = rows.iter().filter(|l| !l.starts_with(' ')).count();
    assert!(labelled >= 10, "{text}");
    assert!(
        rows.len() * 2 <= labelled * 3,
        "{} lines for {labelled} rows:\n{text}",
        rows.len()
    );
}

#[test]
fn a_width_that_holds_the_table_keeps_the_full_one() {
    let text = render(&common::run(), 400);
    assert!(text.contains(" ± CI95\n"), "{text}");
    assert!(text.contains(" ±"), "{text}");
    assert!(!text.contains("the legend in words"), "{text}");
}

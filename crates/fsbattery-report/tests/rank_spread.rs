//! MPI cells show their per-rank spread: the fixture run with one cell given three ranks'
//! parts renders "[min–max]" beside that cell's aggregate in the terminal table and the HTML
//! (skew in the tooltip), with the legend once; cells of one process stay as they were.

mod common;

use fsbattery_record::{RankSample, RunRecord};
use fsbattery_report::html::Html;
use fsbattery_report::table::TerminalTable;
use fsbattery_report::{Renderer, Report};
use fsbattery_stats::Aggregate;

/// The fixture run with the first ok cell's samples split over three ranks.
fn ranked() -> (RunRecord, String) {
    let mut rec = common::run();
    let cell = rec
        .cells
        .iter_mut()
        .find(|c| c.status == fsbattery_record::CellStatus::Ok && !c.samples.is_empty())
        .unwrap();
    for s in &mut cell.samples {
        s.ranks = [0.5, 0.75, 1.0]
            .iter()
            .map(|f| RankSample {
                value: s.value * f,
                elapsed_s: s.elapsed_s * f,
            })
            .collect();
    }
    let min = cell
        .samples
        .iter()
        .map(|s| s.value * 0.5)
        .fold(f64::INFINITY, f64::min);
    let max = cell.samples.iter().map(|s| s.value).fold(0.0, f64::max);
    let shown = format!(
        "[{}–{}]",
        fsbattery_report::format::num(min),
        fsbattery_report::format::num(max)
    );
    (rec, shown)
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
fn the_table_and_the_html_show_the_spread_of_an_mpi_cell_only() {
    let (rec, shown) = ranked();
    let table = render(&TerminalTable { styled: false }, &rec);
    assert_eq!(table.matches(&shown).count(), 1, "{table}");
    assert_eq!(table.matches("ranks: [min–max]").count(), 1, "{table}");
    let html = render(&Html, &rec);
    assert_eq!(html.matches(&format!(">{shown}</span>")).count(), 1);
    assert!(
        html.contains("title=\"3 ranks, min "),
        "skew and ranks in the tooltip"
    );
    assert_eq!(html.matches("class=\"rank-legend\"").count(), 1);
    // One process: no spread, no legend.
    let plain = render(&TerminalTable { styled: false }, &common::run());
    assert!(!plain.contains("ranks: [min–max]"));
    assert!(!render(&Html, &common::run()).contains("class=\"rank-legend\""));
}

//! Then and now in the HTML report: per published table its τ line, a slope chart of each
//! filesystem's mean rank then -> now, the values and ranks per row, and the flips.
//!
//! Role: lays out [`crate::then_now`] for the page (the first run with published numbers);
//! the chart is inline SVG drawn like [`super::charts`]' (presentation attributes only, fixed
//! decimals, a `<title>` first). A filesystem's point is its mean rank over the table's rows
//! ranked both then and now, so one line per filesystem says where it moved on the whole.

use super::charts::FONT;
use super::data::Data;
use super::esc;
use crate::then_now_out as o;
use crate::Report;
use fsbattery_record::then_now::{TableThenNow, ThenAndNow};

/// Distinct, print-safe line colours (Tableau 10, as the page's columns).
const PALETTE: [&str; 6] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1",
];

/// The section body (empty when no run carries published numbers).
pub(super) fn section(d: &Data<'_>) -> String {
    let Some(tn) = d.runs.iter().find_map(|r| {
        crate::then_now::for_report(&Report {
            record: r.record,
            aggregate: d.aggregate,
            rank_reference: d.rank_reference,
        })
    }) else {
        return String::new();
    };
    body(&tn)
}

/// Then and now for one run's record alone (the results site's run page), or `None` when its
/// suite has no published numbers.
pub fn for_record(record: &fsbattery_record::RunRecord) -> Option<String> {
    let tn = crate::then_now::for_report(&Report {
        record,
        aggregate: record.plan.aggregate,
        rank_reference: false,
    })?;
    Some(body(&tn))
}

fn body(tn: &ThenAndNow) -> String {
    let mut out = format!("<p class=\"note\">{}.</p>\n", esc(&o::legend(tn)));
    if let Some(n) = &tn.scale_note {
        out.push_str(&format!("<p class=\"note\">{}.</p>\n", esc(n)));
    }
    for t in &tn.tables {
        out.push_str(&format!("<h3>{}</h3>\n", esc(&o::table_line(t))));
        out.push_str(&slope_chart(t, tn.year));
        out.push_str(&values(t));
        let notes: Vec<String> = t.flips.iter().cloned().chain(o::row_notes(t)).collect();
        if !notes.is_empty() {
            out.push_str("<ul class=\"flips\">\n");
            for n in notes {
                out.push_str(&format!("<li>{}</li>\n", esc(&n)));
            }
            out.push_str("</ul>\n");
        }
    }
    out
}

/// The table of values and ranks, a row per test.
fn values(t: &TableThenNow) -> String {
    let mut out =
        String::from("<table class=\"then-now-values\"><thead><tr><th scope=\"col\">test</th>");
    for c in &t.columns {
        out.push_str(&format!("<th scope=\"col\">{}</th>", esc(&c.target)));
    }
    out.push_str("</tr></thead><tbody>\n");
    for r in &t.rows {
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}</th>",
            esc(&o::row_name(r))
        ));
        for c in &r.cells {
            out.push_str(&format!("<td>{}</td>", esc(&o::cell(c))));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
    out
}

/// Each column's mean rank then and now over the rows ranked both times.
pub(crate) fn mean_ranks(t: &TableThenNow) -> Vec<Option<(f64, f64)>> {
    (0..t.columns.len())
        .map(|k| {
            let pairs: Vec<(f64, f64)> = t
                .rows
                .iter()
                .filter_map(|r| {
                    let c = r.cells.get(k)?;
                    Some((f64::from(c.rank_then?), f64::from(c.rank_now?)))
                })
                .collect();
            let n = pairs.len() as f64;
            (n > 0.0).then(|| {
                let then = pairs.iter().map(|p| p.0).sum::<f64>() / n;
                let now = pairs.iter().map(|p| p.1).sum::<f64>() / n;
                (then, now)
            })
        })
        .collect()
}

/// Label baselines for points at `ys`: in order, each at least 14 px below the one above, so
/// filesystems whose mean ranks are close do not print over each other.
fn spread(ys: &[Option<f64>]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..ys.len()).filter(|&i| ys[i].is_some()).collect();
    order.sort_by(|&a, &b| ys[a].unwrap_or(0.0).total_cmp(&ys[b].unwrap_or(0.0)));
    let mut out = vec![0.0; ys.len()];
    let mut last = f64::NEG_INFINITY;
    for i in order {
        let y = ys[i].unwrap_or(0.0).max(last + 14.0);
        out[i] = y;
        last = y;
    }
    out
}

/// The slope chart: rank 1 at the top, then on the left, now on the right.
fn slope_chart(t: &TableThenNow, year: u32) -> String {
    const STEP: f64 = 60.0;
    let ranks = mean_ranks(t);
    let most = ranks
        .iter()
        .flatten()
        .map(|(a, b)| a.max(*b))
        .fold(1.0_f64, f64::max);
    let (top, left, right) = (36.0, 150.0, 370.0);
    let y = |r: f64| top + (r - 1.0) * STEP;
    let labels_then = spread(
        &ranks
            .iter()
            .map(|r| r.map(|r| y(r.0) + 4.0))
            .collect::<Vec<_>>(),
    );
    let labels_now = spread(
        &ranks
            .iter()
            .map(|r| r.map(|r| y(r.1) + 4.0))
            .collect::<Vec<_>>(),
    );
    let lowest = labels_then
        .iter()
        .chain(&labels_now)
        .fold(y(most), |a, b| a.max(*b));
    let (w, h) = (520.0, (lowest + 24.0).ceil());
    let mut out = format!(
        "<svg class=\"chart slope\" data-chart=\"slope\" data-test=\"{}\" viewBox=\"0 0 {w:.0} {h:.0}\" \
         width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\" font-family=\"{FONT}\" font-size=\"12\">\
         <title>{}: mean rank then ({year}) and now, 1 = best</title>\
         <rect class=\"bg\" width=\"{w:.0}\" height=\"{h:.0}\" fill=\"#ffffff\"/>\n\
         <text x=\"{left:.0}\" y=\"16\" text-anchor=\"middle\" fill=\"#6b7280\">{year}</text>\
         <text x=\"{right:.0}\" y=\"16\" text-anchor=\"middle\" fill=\"#6b7280\">now</text>\n",
        esc(&t.id),
        esc(&t.title)
    );
    for (k, r) in ranks.iter().enumerate() {
        let Some((a, b)) = r else { continue };
        let colour = PALETTE[k % PALETTE.len()];
        let name = esc(&t.columns[k].target);
        out.push_str(&format!(
            "<g class=\"slope-line\" data-target=\"{name}\"><title>{name}: mean rank {a:.2} then, {b:.2} now</title>\
             <line x1=\"{left:.0}\" y1=\"{:.1}\" x2=\"{right:.0}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"2.5\"/>\
             <circle cx=\"{left:.0}\" cy=\"{:.1}\" r=\"4\" fill=\"{colour}\"/><circle cx=\"{right:.0}\" cy=\"{:.1}\" r=\"4\" fill=\"{colour}\"/>\
             <text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#1f2937\">{name} {a:.1}</text>\
             <text x=\"{:.0}\" y=\"{:.1}\" fill=\"#1f2937\">{b:.1} {name}</text></g>\n",
            y(*a),
            y(*b),
            y(*a),
            y(*b),
            left - 10.0,
            labels_then[k],
            right + 10.0,
            labels_now[k],
        ));
    }
    out.push_str("</svg>\n");
    out
}

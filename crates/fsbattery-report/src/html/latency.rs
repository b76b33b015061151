//! The latency section: one table per measured quantity, targets × statistics.
//!
//! Role: show cells named by the latency convention (`<quantity>_p50`, `_p90`, `_p99`,
//! `_p99.9`, `_max`, ... or a unit of ms/us/µs/ns) side by side, so a reader sees the median
//! and the tail of each target together. Invariants: statistics are in a fixed order
//! (min, p50, mean, p90 ... max, stddev); the lowest value of each statistic is marked best;
//! failed cells say "failed" with their reason.

use super::data::Data;
use super::sections::matrix_cell;
use super::{esc, swatch};

/// The section, or nothing when no latency cell was recorded.
pub(crate) fn section(d: &Data<'_>) -> String {
    let groups = d.latency();
    if groups.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<p>Latency statistics: metrics named <code>&lt;quantity&gt;_p50</code>, <code>_p90</code>, \
         <code>_p99</code>, <code>_p99.9</code>, <code>_max</code> (and any metric measured in ms or µs). \
         Each value is the {} of the runs ± CI95; red: lowest of the column.</p>\n",
        d.aggregate
    );
    for g in &groups {
        out.push_str(&format!(
            "<h3>{}: {}</h3>\n<div class=\"table-wrap\"><table class=\"latency\" data-test=\"{}/{}\"><thead><tr><th>Target</th>",
            esc(&g.workload),
            esc(&g.base.replace('_', " ")),
            esc(&g.workload),
            esc(&g.base)
        ));
        for (stat, line) in &g.stats {
            out.push_str(&format!(
                "<th class=\"num\" data-metric=\"{}\">{} ({})</th>",
                esc(&line.metric),
                esc(stat),
                esc(&line.unit)
            ));
        }
        out.push_str("</tr></thead><tbody>\n");
        for (c, col) in d.columns.iter().enumerate() {
            out.push_str(&format!(
                "<tr data-column=\"{}\"><th scope=\"row\">{}{}</th>",
                esc(&col.name),
                swatch(&col.colour),
                esc(&col.name)
            ));
            for (_, line) in &g.stats {
                out.push_str(&matrix_cell(
                    d,
                    &line.value[c],
                    line.verdict.mark(c),
                    false,
                    false,
                ));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div>\n");
    }
    out
}

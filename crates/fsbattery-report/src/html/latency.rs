//! The latency section: one table per measured quantity, targets × statistics.
//!
//! Role: show the statistics of each latency quantity (metric metadata of kind latency, any
//! percentile) side by side, so a reader sees the median and the tail of each target
//! together. Invariants: statistics are in a fixed order (min, percentiles ascending with the
//! mean after the median, max, stddev: `Stat::rank`); the lowest value of each statistic is
//! marked best; failed cells say "failed" with their reason.
//! A workload that records the achieved queue depth (metric [`QUEUE_DEPTH`]: the engine's
//! mean operations in flight) gets it as a last column of each of its tables, unmarked, so a
//! latency is read next to the depth it ran at.

use super::data::Data;
use super::sections::matrix_cell;
use super::{esc, swatch};
use fsbattery_stats::Mark;

/// The metric name of the achieved queue depth, by convention across workloads.
pub(crate) const QUEUE_DEPTH: &str = "queue_depth";

/// The section, or nothing when no latency cell was recorded.
pub(crate) fn section(d: &Data<'_>) -> String {
    let groups = d.latency();
    if groups.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<p>Latency statistics: metrics named <code>&lt;quantity&gt;_p50</code>, <code>_p90</code>, \
         <code>_p99</code>, <code>_p99.9</code>, <code>_max</code> (and any metric measured in ms or µs). \
         Each value is the {} of the runs ± CI95; red: lowest of the column.{}</p>\n",
        d.aggregate,
        if d.lines.iter().any(|l| l.metric == QUEUE_DEPTH) {
            " <em>queue depth</em>: the IO engine's mean operations in flight per thread."
        } else {
            ""
        }
    );
    for g in &groups {
        let depth = d
            .lines
            .iter()
            .find(|l| l.workload == g.workload && l.metric == QUEUE_DEPTH);
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
        if let Some(line) = depth {
            out.push_str(&format!(
                "<th class=\"num\" data-metric=\"{}\">queue depth ({})</th>",
                esc(&line.metric),
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
                    line.aggregate,
                    &line.value[c],
                    line.verdict.mark(c),
                    false,
                    false,
                ));
            }
            if let Some(line) = depth {
                out.push_str(&matrix_cell(
                    line.aggregate,
                    &line.value[c],
                    Mark::None,
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

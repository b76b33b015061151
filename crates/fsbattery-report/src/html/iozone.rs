//! The sweep section (S3's iozone results): a record-size chart per test, the winner map, and
//! the numbers.
//!
//! Role: show the points of every sweep — cells whose metric metadata has dimensions, such as
//! iozone's tests by record size, whatever the workload — the way S3 compared EXT4 and XFS:
//! x = record size, one line per filesystem, and a table record size × test whose cells are
//! coloured by the winner.
//! Invariants: record sizes are placed on a log2 axis (iozone doubles them), so gaps in the
//! measured sizes show as gaps; a cell is coloured only by a significant winner (the shared
//! row verdict); a cell with no winner (equivalent, shown `≈`; undecided, shown `?`; too few
//! runs, failed, single column) is grey and says why in its tooltip.

use super::charts::{line_chart, LineChart, Series};
use super::data::{Data, IozoneTest};
use super::sections::matrix_cell;
use super::{esc, figure, swatch};
use crate::format;
use fsbattery_stats::Outcome;

/// iozone's way of naming a record size: 8K, 64K, 16M.
pub(crate) fn record_label(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{}M", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{}K", bytes >> 10)
    } else {
        format!("{bytes}B")
    }
}

/// The section, or nothing when no iozone cell was recorded.
pub(crate) fn section(d: &Data<'_>) -> String {
    let tests = d.iozone();
    if tests.is_empty() {
        return String::new();
    }
    let mut workloads: Vec<&str> = Vec::new();
    for t in &tests {
        if !workloads.contains(&t.workload.as_str()) {
            workloads.push(&t.workload);
        }
    }
    let example = tests[0]
        .points
        .first()
        .map_or("", |(_, l)| l.metric.as_str());
    let mut out = format!(
        "<p>{} results are cells of workload <code>{}</code> named <code>&lt;test&gt;@&lt;record \
         bytes&gt;</code> (e.g. <code>{}</code>), one table per test as iozone's Excel output. \
         The winner map colours each record size × test by the target that won it, as S3 did.</p>\n",
        esc(&workloads.join(", ")),
        esc(&workloads.join("</code>, <code>")),
        esc(example)
    );
    for run in 0..d.runs.len() {
        out.push_str(&winner_map(d, &tests, run));
    }
    out.push_str("<div class=\"chart-grid\">\n");
    for t in &tests {
        out.push_str(&record_chart(d, t));
    }
    out.push_str("</div>\n");
    for t in &tests {
        out.push_str(&numbers(d, t));
    }
    out
}

/// One map per run: within a run the targets compete; rounds are compared in `comparison`.
fn winner_map(d: &Data<'_>, tests: &[IozoneTest<'_>], run: usize) -> String {
    let cols = d.run_columns(run);
    let mut records: Vec<u64> = tests
        .iter()
        .flat_map(|t| t.points.iter().map(|p| p.0))
        .collect();
    records.sort_unstable();
    records.dedup();
    let title = if d.runs.len() > 1 {
        format!("Winner map: {}", esc(&d.runs[run].label))
    } else {
        "Winner map".to_string()
    };
    let mut out = format!(
        "<h3>{title}</h3>\n<p class=\"note\">A cell takes the colour of the target that is \
         significantly best at that record size (Welch's t-test, α = {}); ≈: no significant \
         difference; —: no verdict (fewer than 3 runs, one target, nothing measured).</p>\n<ul class=\"legend\">",
        fsbattery_stats::DEFAULT_ALPHA
    );
    for c in &cols {
        let col = &d.columns[*c];
        out.push_str(&format!(
            "<li>{}{}</li>",
            swatch(&col.colour),
            esc(&col.target)
        ));
    }
    out.push_str(&format!(
        "</ul>\n<div class=\"table-wrap\"><table class=\"winner-map\" data-run=\"{}\"><thead><tr><th>Record size</th>",
        esc(&d.runs[run].label)
    ));
    for t in tests {
        out.push_str(&format!(
            "<th data-test=\"{}\">{}</th>",
            esc(&t.test),
            esc(&t.label)
        ));
    }
    out.push_str("</tr></thead><tbody>\n");
    for r in &records {
        out.push_str(&format!(
            "<tr data-record=\"{r}\"><th scope=\"row\">{}</th>",
            record_label(*r)
        ));
        for t in tests {
            out.push_str(&winner_cell(d, t, *r, &cols));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

fn winner_cell(d: &Data<'_>, t: &IozoneTest<'_>, record: u64, cols: &[usize]) -> String {
    let Some((_, line)) = t.points.iter().find(|p| p.0 == record) else {
        return "<td class=\"none\" title=\"not measured\">—</td>".into();
    };
    let verdict = d.verdict(line, cols);
    // Only a significant winner colours the cell; equivalence, noise or too few runs leave it
    // blank.
    let (Some(b), Some(next)) = (verdict.winner(), verdict.runner_up) else {
        let why: Vec<String> = cols
            .iter()
            .map(|c| {
                format!(
                    "{}: {}",
                    d.columns[*c].target,
                    format::entry(&line.value[*c], line.aggregate)
                )
            })
            .collect();
        let mark = match verdict.outcome {
            Outcome::Equivalent => "≈",
            Outcome::Undecided => "?",
            _ => "—",
        };
        return format!(
            "<td class=\"none\" title=\"no winner ({}): {}\">{mark}</td>",
            verdict.describe(),
            esc(&why.join(", "))
        );
    };
    let col = &d.columns[b];
    let v = |c: usize| format::num(line.value_at(c).unwrap_or(0.0));
    let title = format!(
        "{} @ {}: {} {} {}; next {} {}",
        t.label,
        record_label(record),
        col.target,
        v(b),
        t.unit,
        d.columns[next].target,
        v(next)
    );
    format!(
        "<td data-winner=\"{}\" style=\"background:{};color:{}\" title=\"{}\">{}</td>",
        esc(&col.target),
        col.colour,
        text_on(&col.colour),
        esc(&title),
        esc(&col.target)
    )
}

/// Dark or white text, whichever reads better on `hex`.
fn text_on(hex: &str) -> &'static str {
    let c = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0);
    let (r, g, b) = ((c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff);
    // ITU-R BT.601 luma: light fills (yellow, tints of earlier rounds) get dark text.
    if (299 * r + 587 * g + 114 * b) / 1000 > 150 {
        "#111827"
    } else {
        "#ffffff"
    }
}

fn record_chart(d: &Data<'_>, t: &IozoneTest<'_>) -> String {
    let logs: Vec<f64> = t
        .points
        .iter()
        .map(|p| (p.0.max(1) as f64).log2())
        .collect();
    let (lo, hi) = (
        logs.first().copied().unwrap_or(0.0),
        logs.last().copied().unwrap_or(1.0),
    );
    let x_pos = logs
        .iter()
        .map(|l| if hi > lo { (l - lo) / (hi - lo) } else { 0.5 })
        .collect();
    let series = d
        .columns
        .iter()
        .enumerate()
        .map(|(c, col)| Series {
            name: col.name.clone(),
            colour: col.colour.clone(),
            points: t
                .points
                .iter()
                .map(|(r, l)| {
                    l.value_at(c).map(|v| {
                        (
                            v,
                            format!(
                                "{} @ {}: {} {} {}",
                                t.label,
                                record_label(*r),
                                col.name,
                                format::num(v),
                                t.unit
                            ),
                        )
                    })
                })
                .collect(),
        })
        .collect();
    let chart = LineChart {
        kind: "recsize",
        id: None,
        test: t.test.clone(),
        title: format!(
            "{}: {} by record size, one line per target, higher is better",
            t.label, t.unit
        ),
        x_labels: t.points.iter().map(|p| record_label(p.0)).collect(),
        x_pos,
        rotate: false,
        x_axis: "record size (log scale)".into(),
        y_axis: format!("{} — higher is better", t.unit),
        log: false,
        series,
        width: 560.0,
    };
    let sub = format!("{} by record size", t.unit);
    figure(
        &format!("{}-{}", t.workload, t.test),
        &t.label,
        &sub,
        &line_chart(&chart),
    )
}

fn numbers(d: &Data<'_>, t: &IozoneTest<'_>) -> String {
    let mut out = format!(
        "<details class=\"iozone-numbers\" data-test=\"{}\"><summary>Numbers: {} ({})</summary>\
         <div class=\"table-wrap\"><table class=\"matrix\" data-quantity=\"iozone\"><thead><tr><th>Record size</th>",
        esc(&t.test),
        esc(&t.label),
        esc(&t.unit)
    );
    for c in &d.columns {
        out.push_str(&format!(
            "<th class=\"num\">{}{}</th>",
            swatch(&c.colour),
            esc(&c.name)
        ));
    }
    out.push_str("</tr></thead><tbody>\n");
    for (r, l) in &t.points {
        out.push_str(&format!(
            "<tr data-record=\"{r}\"><th scope=\"row\">{}</th>",
            record_label(*r)
        ));
        for (i, e) in l.value.iter().enumerate() {
            out.push_str(&matrix_cell(
                l.aggregate,
                e,
                l.verdict.mark(i),
                l.best_journaling == Some(i),
                false,
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div></details>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_sizes_read_like_iozone() {
        assert_eq!(record_label(8192), "8K");
        assert_eq!(record_label(16 << 20), "16M");
        assert_eq!(record_label(1000), "1000B");
    }

    #[test]
    fn text_contrasts_with_fill() {
        assert_eq!(text_on("#4e79a7"), "#ffffff");
        assert_eq!(text_on("#edc948"), "#111827");
    }
}

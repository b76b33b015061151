//! The "All tests" heat-map: every ordinary test × every column in one HTML table.
//!
//! Role: replace S1's line chart (which joined unrelated tests with a line and cut their
//! names) with a matrix a reader takes in at a glance: one row per test, one column per
//! target, each cell's value printed and its background graded by its ratio to the row's best.
//!
//! Invariants:
//! - the best comes from the row verdict every renderer shares ([`super::data::Line::verdict`]):
//!   a significant winner and every cell shown equivalent to the best share the best shade;
//!   undecided cells (too noisy to tell) never take it, so noise is never painted as a win;
//!   the winner also carries `*`, equivalent cells `≈` and undecided ones `?`, so nothing
//!   depends on colour alone;
//! - rows that are not comparable across targets (space available), pending rows and cells
//!   without a number are printed but never shaded as ranked;
//! - the palette (ColorBrewer YlGnBu, colour-blind safe) is ordered by lightness, so "darker is
//!   better" survives grey-scale printing; dark shades get white text;
//! - sorting is done by the page script on `data-ratio`/`data-order`, the HTML order is the
//!   suite's, and test names wrap instead of being cut.

use super::data::{Data, Line};
use super::{esc, swatch};
use crate::format;
use crate::matrix::Entry;
use fsbattery_stats::{Better, Mark};

/// (upper bound of the ratio to the best, background, text colour), best first.
const SHADES: [(f64, &str, &str); 7] = [
    (1.0, "#225ea8", "#ffffff"),
    (1.1, "#1d91c0", "#ffffff"),
    (1.25, "#41b6c4", "#0b1f33"),
    (1.5, "#7fcdbb", "#0b1f33"),
    (2.0, "#c7e9b4", "#0b1f33"),
    (4.0, "#edf8b1", "#0b1f33"),
    (f64::INFINITY, "#ffffd9", "#0b1f33"),
];

/// The section body, empty when no ordinary test is planned.
pub(crate) fn section(d: &Data<'_>) -> String {
    let lines: Vec<&Line> = d.tests().collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<p>Every test on every target ({} of the runs). A cell's shade is its ratio to the best \
         value of its row (times: yours ÷ best, rates: best ÷ yours); the significant winner \
         (<strong>*</strong>) and every target shown equivalent to the best within ±{}&nbsp;% \
         (<strong>≈</strong>, an equivalence test) share the best shade; <strong>?</strong> \
         marks targets too noisy to tell from the best (undecided), shaded by their ratio. Rows in grey are not ranked (values that \
         describe the target, pending tests). Click a column heading to sort the tests by that \
         target's ratio; click “Test” for the suite's order.</p>\n",
        d.aggregate,
        fsbattery_stats::DEFAULT_MARGIN_PCT
    );
    out.push_str(&legend());
    out.push_str(
        "<div class=\"table-wrap\"><table class=\"heatmap\" id=\"heatmap\"><thead><tr>\
         <th class=\"sort\" data-sort=\"order\" scope=\"col\"><button type=\"button\">Test</button></th>",
    );
    for (i, c) in d.columns.iter().enumerate() {
        out.push_str(&format!(
            "<th class=\"sort num\" data-sort=\"{i}\" scope=\"col\"><button type=\"button\" \
             title=\"Sort tests by {}'s ratio to the best\">{}{}</button></th>",
            esc(&c.name),
            swatch(&c.colour),
            esc(&c.name)
        ));
    }
    out.push_str("</tr></thead><tbody>\n");
    for (order, line) in lines.iter().enumerate() {
        out.push_str(&row(line, order));
    }
    out.push_str("</tbody></table></div>\n");
    out
}

fn legend() -> String {
    let mut out = String::from("<ul class=\"legend heat-legend\" aria-label=\"shade legend\">");
    let mut lower = 1.0;
    for (i, (upper, bg, fg)) in SHADES.iter().enumerate() {
        let text = match i {
            0 => "best or equivalent".to_string(),
            _ if upper.is_infinite() => format!("&gt; {lower}×"),
            _ => format!("≤ {upper}×"),
        };
        out.push_str(&format!(
            "<li><span class=\"heat-key\" style=\"background:{bg};color:{fg}\">{text}</span></li>"
        ));
        lower = *upper;
    }
    out.push_str("<li><span class=\"heat-key unranked\">not ranked</span></li></ul>\n");
    out
}

/// Ratio of `v` to `best`, ≥ 1 when both are positive (1 = as good as the best).
pub(crate) fn ratio(v: f64, best: f64, better: Better) -> Option<f64> {
    let r = match better {
        Better::Lower => v / best,
        Better::Higher => best / v,
    };
    (r.is_finite() && r > 0.0).then_some(r)
}

/// The shade of a ratio: index into [`SHADES`]; a winner or a cell shown equivalent is 0.
pub(crate) fn shade(ratio: f64, mark: Mark) -> usize {
    if matches!(mark, Mark::Winner | Mark::Equivalent) {
        return 0;
    }
    // Only those may take the best shade: an unmarked or undecided cell equal to the best
    // (fewer than 3 runs, or too noisy) is shown one step lighter so no row without a verdict
    // looks like it has one.
    SHADES
        .iter()
        .position(|(upper, _, _)| ratio <= *upper)
        .unwrap_or(SHADES.len() - 1)
        .max(1)
}

fn row(line: &Line, order: usize) -> String {
    let ranked = line.comparable && line.pending.is_none();
    let class = if ranked { "" } else { " class=\"unranked\"" };
    let mut out = format!(
        "<tr{class} data-order=\"{order}\" data-test=\"{}/{}\"><th scope=\"row\">{}<span class=\"unit\"> {}</span></th>",
        esc(&line.workload),
        esc(&line.metric),
        esc(&line.label),
        esc(&unit_note(line))
    );
    let best = line.verdict.best.and_then(|b| line.value_at(b));
    for (i, e) in line.value.iter().enumerate() {
        out.push_str(&cell(line, e, i, best.filter(|_| ranked)));
    }
    out.push_str("</tr>\n");
    out
}

fn unit_note(line: &Line) -> String {
    let dir = match line.better {
        Better::Lower => "lower is better",
        Better::Higher => "higher is better",
    };
    match (
        line.pending.is_some(),
        line.comparable,
        line.unit.is_empty(),
    ) {
        (true, _, _) => "(pending)".into(),
        (_, false, _) => format!("({}, not ranked)", line.unit),
        (_, _, true) => String::new(),
        _ => format!("({}, {dir})", line.unit),
    }
}

fn cell(line: &Line, e: &Entry, col: usize, best: Option<f64>) -> String {
    let mark = line.verdict.mark(col);
    let text = esc(&format::entry(e, line.aggregate));
    let marked = match mark {
        Mark::None => text,
        m => format!("{text} <span class=\"mark\">{}</span>", format::mark(m)),
    };
    let r = match (line.value_at(col), best) {
        (Some(v), Some(b)) => ratio(v, b, line.better),
        _ => None,
    };
    let Some(r) = r else {
        let class = match e {
            Entry::Measured(_) => "num",
            Entry::Failed(_) => "num failed",
            _ => "num empty",
        };
        return format!("<td class=\"{class}\" data-ratio=\"\">{marked}</td>");
    };
    let (_, bg, fg) = SHADES[shade(r, mark)];
    format!(
        "<td class=\"num heat\" data-ratio=\"{r:.4}\" style=\"background:{bg};color:{fg}\" \
         title=\"{:.2}× the best\">{marked}</td>",
        r
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_relative_to_the_best_in_the_row_direction() {
        assert_eq!(ratio(2.0, 1.0, Better::Lower), Some(2.0));
        assert_eq!(ratio(50.0, 100.0, Better::Higher), Some(2.0));
        assert_eq!(ratio(1.0, 0.0, Better::Lower), None);
    }

    #[test]
    fn only_marked_cells_take_the_best_shade() {
        assert_eq!(shade(1.0, Mark::Winner), 0);
        assert_eq!(shade(1.3, Mark::Equivalent), 0);
        // Too noisy to tell is not "as good as the best".
        assert_eq!(shade(1.0, Mark::Undecided), 1);
        assert_eq!(shade(14.0, Mark::Undecided), SHADES.len() - 1);
        // Equal to the best but without a verdict: not shaded as a winner.
        assert_eq!(shade(1.0, Mark::None), 1);
        assert_eq!(shade(1.2, Mark::None), 2);
        assert_eq!(shade(100.0, Mark::None), SHADES.len() - 1);
    }
}

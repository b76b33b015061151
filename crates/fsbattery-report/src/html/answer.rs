//! The page's first section: the answer, as the terminal ends with it and in the same words —
//! the composite ranking with its ties ([`crate::answer`]), the conditions the numbers were
//! measured on ([`crate::measured_on`]), the composite as a chart with its intervals, the
//! count of decided rows, then each row's verdict.
//!
//! Invariants: the composite shown is [`crate::answer::for_report`]'s, the one the terminal
//! and `results.json` give, so the page never ranks differently from them; a bar is bold only
//! when its target alone leads (the first tier has one member); references (RAM) are left out
//! as everywhere else.

use super::charts::{bar_chart, Bar, BarChart, BarState};
use super::data::Data;
use super::{esc, figure};

/// The section's body: per run, its answer.
pub(crate) fn section(d: &Data<'_>) -> String {
    let mut out = String::new();
    for run in &d.runs {
        let report = crate::Report {
            record: run.record,
            aggregate: d.aggregate,
            rank_reference: d.rank_reference,
        };
        let answer = crate::answer::for_report(&report);
        out.push_str(&format!(
            "<div class=\"answer\" data-run=\"{}\">",
            esc(&run.label)
        ));
        if d.runs.len() > 1 {
            out.push_str(&format!("<h3>{}</h3>", esc(&run.label)));
        }
        let mut lines = crate::answer::lines(&answer);
        lines.extend(crate::then_now_closing::lines(&report));
        for l in lines {
            let class = if l.starts_with("Measured on:") {
                " class=\"conditions\""
            } else {
                ""
            };
            out.push_str(&format!("<p{class}>{}</p>", esc(l.trim_start())));
        }
        out.push_str(&chart(d, run.label.as_str(), &answer));
        out.push_str(&verdicts(&report));
        out.push_str("</div>\n");
    }
    out
}

/// The composite as bars, best first, with each score's interval.
fn chart(d: &Data<'_>, run: &str, a: &crate::answer::Answer) -> String {
    if a.overall.is_empty() {
        return String::new();
    }
    let alone = a.overall.iter().filter(|s| s.tier == 0).count() == 1;
    let colour = |t: &str| {
        d.columns
            .iter()
            .find(|c| c.target == t && d.runs[c.run].label == run)
            .map_or("#6b7280".to_string(), |c| c.colour.clone())
    };
    let bars = a
        .overall
        .iter()
        .map(|s| Bar {
            label: s.target.clone(),
            colour: colour(&s.target),
            state: BarState::Value {
                v: s.score,
                ci: Some(((s.ci95.0 + s.ci95.1) / 2.0, (s.ci95.1 - s.ci95.0) / 2.0)),
                n: None,
                note: None,
            },
            best: alone && s.tier == 0,
        })
        .collect();
    let chart = BarChart {
        kind: "score",
        test: "score".into(),
        title: format!(
            "Composite over {} workload(s), 1 = best in every row, lower is better",
            a.groups.len()
        ),
        axis: "composite (1 = best in every row) — lower is better".into(),
        bars,
    };
    let sub = format!(
        "{}; 95 % intervals from whole rounds resampled",
        crate::answer::ranking(a)
    );
    figure("score", "Composite", &sub, &bar_chart(&chart))
}

/// The run's per-row verdicts ([`crate::closing`]), the same lines the terminal ends with:
/// per workload what was decided and each row's verdict in one sentence, collapsed.
fn verdicts(report: &crate::Report<'_>) -> String {
    let m = crate::matrix::Matrix::build_main(report, crate::matrix::Quantity::Value);
    let lines = crate::closing::lines(&m);
    let Some((head, rest)) = lines.split_first() else {
        return String::new();
    };
    // Collapsed: the answer and the heat-map stay on the first screen; a click opens them.
    let mut out = format!(
        "<details class=\"verdicts\"><summary>{} (each row's verdict)</summary><ul>",
        esc(head.trim_end_matches(':'))
    );
    let mut open = false;
    for l in rest {
        if let Some(row) = l.strip_prefix("    ") {
            if !open {
                out.push_str("<ul>");
                open = true;
            }
            out.push_str(&format!("<li>{}</li>", esc(row)));
        } else {
            if open {
                out.push_str("</ul></li>");
                open = false;
            } else if out.ends_with("</strong>") {
                out.push_str("</li>");
            }
            out.push_str(&format!("<li><strong>{}</strong>", esc(l.trim_start())));
        }
    }
    out.push_str(if open { "</ul></li>" } else { "</li>" });
    out.push_str("</ul>");
    out.push_str("</details>\n");
    out
}

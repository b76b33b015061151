//! The HTML report: one self-contained page with the studies' charts and tables.
//!
//! Role: render one or more run records as a single HTML file that works offline and can be
//! mailed: every style and script is inline, fonts are the system's, charts are inline SVG
//! written by hand (module `charts`), and a Content-Security-Policy forbids the page to load
//! anything. A table of contents (`<nav aria-label="Contents">`) heads the page; each section
//! is collapsible (`<details open>`, its `<h2>` the summary), and the page fits a phone's
//! 390 px without scrolling sideways (wide tables scroll in their own box). Sections, in order
//! (each a `<section id=...>` a browser test can find):
//! `answer` (the composite ranking with its ties, the conditions, the composite chart and the
//! per-row verdicts: what the terminal ends with), `all-tests` (a heat-map of every test ×
//! target, `id="heatmap"`, cells shaded by their ratio to the row's best, sortable),
//! `summary` (winner per test, S1's total time),
//! `comparison` (two or more runs: Welch t-test per metric), `tests` (bar chart per test
//! with CI95 whiskers and n), `cpu` (CPU % per test), `matrices` (the raw numbers, S2's best-of-row marks),
//! `then-and-now` (each label as measured beside the seed's own wording and sizes, where they
//! differ), `device-io` (bytes the block
//! devices wrote and the write amplification, block-backed targets only), `iozone`
//! (record-size charts and S3's winner map), `latency`, `environment` (host, targets,
//! mkfs/mount records). Empty sections (no iozone cells, no latency cells, a single run
//! for `comparison`) are left out.
//!
//! Metric metadata the page relies on (see `data::classify`; [`fsbattery_record::MetricMeta`],
//! which older records get from their names by [`fsbattery_record::meta::derive`]):
//! - **sweeps** (section `iozone`): a metric with dimensions is the point of its quantity
//!   (`of`) at its first dimension, e.g. iozone's `write@8192` is `write` at record size 8192.
//!   A suite row of the same workload whose metric is the quantity gives it its label
//!   ("Writer report"). Such cells are shown in this section, not in the matrices.
//! - **latency**: a metric of kind latency is statistic `stat` (p50, p99.9, max, mean, ...)
//!   of its quantity (`of`, e.g. `read_latency`). Such cells are shown in the latency
//!   tables, not in the matrices.
//!
//! Invariants: pending rows and failed cells are shown with their reason, never dropped;
//! every string from a record is HTML-escaped (`esc`); the output is deterministic (no
//! clock, no randomness), so golden files can compare it byte for byte.

mod answer;
mod assets;
mod charts;
pub(crate) mod data;
mod device;
mod env;
mod heatmap;
mod iozone;
mod latency;
mod sections;
mod slope;
pub use slope::for_record as then_and_now_for_record;

use crate::{Format, Options, RenderError, Renderer, Report, Runs};
use data::Data;
use fsbattery_record::RunRecord;
use fsbattery_stats::Aggregate;
/// The spreadsheet names record sizes as the page does.
#[cfg(feature = "xlsx")]
pub(crate) use iozone::record_label as iozone_record_label;

/// The HTML report's entry in [`crate::formats::FORMATS`].
pub const FORMAT: Format = Format {
    name: "html",
    about:
        "One self-contained HTML page (charts, matrices, environment); several runs side by side",
    noun: "html report",
    run_file: Some("report.html"),
    stdout: true,
    terminal: false,
    renderer: |_: &Options| Box::new(Html),
};

/// Renders run records as one self-contained HTML page.
pub struct Html;

impl Html {
    /// Render several labelled runs together ("previous round", "this round"): columns are
    /// "label: target", the summary is given per run and a comparison section tests every
    /// later run against the first. One run renders exactly as [`Renderer::render`] does.
    pub fn render_many(
        runs: &[(String, &RunRecord)],
        aggregate: Aggregate,
    ) -> Result<Vec<u8>, RenderError> {
        Html::render_many_ranked(runs, aggregate, false)
    }

    /// [`Html::render_many`], ranking targets in RAM against disks when `rank_reference`
    /// (`--rank-reference`); otherwise they are shown but not ranked or scored.
    pub fn render_many_ranked(
        runs: &[(String, &RunRecord)],
        aggregate: Aggregate,
        rank_reference: bool,
    ) -> Result<Vec<u8>, RenderError> {
        let data = Data::build(runs, aggregate, rank_reference)?;
        Ok(page(&data).into_bytes())
    }
}

impl Renderer for Html {
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError> {
        let label = report.record.plan.suite.clone();
        Html::render_many_ranked(
            &[(label, report.record)],
            report.aggregate,
            report.rank_reference,
        )
    }

    fn render_runs(&self, runs: &Runs<'_>) -> Result<Vec<u8>, RenderError> {
        Html::render_many_ranked(runs.runs, runs.aggregate, runs.rank_reference)
    }
}

/// The whole page.
fn page(d: &Data<'_>) -> String {
    let sections: Vec<(&str, &str, String)> = vec![
        ("answer", "The answer", answer::section(d)),
        ("all-tests", "All tests", heatmap::section(d)),
        ("summary", "Summary", sections::summary(d)),
        ("comparison", "Comparison", sections::comparison(d)),
        ("tests", "Per test", sections::per_test(d, false)),
        ("cpu", "CPU", sections::per_test(d, true)),
        ("matrices", "Raw numbers", sections::matrices(d)),
        (
            "then-and-now",
            crate::seed_notes::TITLE,
            then_and_now(d) + &slope::section(d),
        ),
        ("device-io", "Device I/O", device::section(d)),
        ("iozone", "iozone", iozone::section(d)),
        ("latency", "Latency", latency::section(d)),
        ("environment", "Environment", env::section(d)),
    ];
    let sections: Vec<_> = sections.into_iter().filter(|s| !s.2.is_empty()).collect();
    let first = d.runs[0].record;
    let title = if d.runs.len() == 1 {
        format!("fsbattery: {}", first.plan.suite)
    } else {
        let labels: Vec<&str> = d.runs.iter().map(|r| r.label.as_str()).collect();
        format!("fsbattery: {}", labels.join(" vs "))
    };
    let mut out = String::with_capacity(256 * 1024);
    out.push_str(&head(&title, &first.tool.version));
    out.push_str(&format!(
        "<body>\n<header class=\"page-header\"><h1>{}</h1><p class=\"lede\">{}</p>\n<nav aria-label=\"Contents\">",
        esc(&title),
        lede(d)
    ));
    for (id, name, _) in &sections {
        out.push_str(&format!("<a href=\"#{id}\">{name}</a>"));
    }
    out.push_str("</nav></header>\n<main>\n");
    for (id, name, body) in &sections {
        out.push_str(&format!(
            "<section id=\"{id}\"><details open>\n<summary><h2>{name}</h2></summary>\n{body}</details></section>\n"
        ));
    }
    out.push_str(&format!(
        "</main>\n<footer>Written by fsbattery {} from {} run record(s). This page is self-contained: \
         it loads nothing and works offline.</footer>\n<script>{}</script>\n</body>\n</html>\n",
        esc(&first.tool.version),
        d.runs.len(),
        assets::SCRIPT
    ));
    out
}

/// The rows whose label differs from their seed's wording, over every run (first wins).
fn then_and_now(d: &Data<'_>) -> String {
    let mut pairs: Vec<crate::seed_notes::Pair> = Vec::new();
    for r in &d.runs {
        for p in crate::seed_notes::pairs(r.record) {
            if !pairs.contains(&p) {
                pairs.push(p);
            }
        }
    }
    if pairs.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<p class=\"note\">{}.</p>\n<table class=\"then-now\"><thead><tr><th scope=\"col\">this \
         run</th><th scope=\"col\">the seed</th></tr></thead><tbody>\n",
        esc(&crate::seed_notes::legend(d.runs[0].record))
    );
    for p in pairs {
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td>{}</td></tr>\n",
            esc(&p.now),
            esc(&p.then)
        ));
    }
    out.push_str("</tbody></table>\n");
    out
}

fn head(title: &str, version: &str) -> String {
    // The policy makes "self-contained" a property the browser enforces, not a promise:
    // any fetch, font, image or frame from elsewhere is refused.
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data: blob:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"fsbattery {}\">\n<title>{}</title>\n\
         <script>{}</script>\n<style>{}</style>\n</head>\n",
        esc(version),
        esc(title),
        assets::ERROR_TRAP,
        assets::STYLE
    )
}

/// One line under the title: what was run, where, how aggregated.
fn lede(d: &Data<'_>) -> String {
    let parts: Vec<String> = d
        .runs
        .iter()
        .map(|r| {
            let p = &r.record.plan;
            let name = if d.runs.len() > 1 {
                format!("<strong>{}</strong>: ", esc(&r.label))
            } else {
                String::new()
            };
            format!(
                "{name}suite {}, {} scale, {} of {}, {} method, {} target(s) on {} (Linux {}) — started {}{}",
                esc(&p.suite),
                esc(&p.scale),
                d.aggregate,
                crate::conditions::runs_and_age(r.record),
                esc(&p.method),
                r.record.targets.len(),
                esc(&r.record.host.hostname),
                esc(r.record.host.kernel.split_whitespace().next().unwrap_or("unknown")),
                esc(&r.record.started),
                if r.record.interrupted { " <span class=\"warn\">(interrupted: incomplete)</span>" } else { "" }
            )
        })
        .collect();
    parts.join("<br>")
}

/// HTML-escape text for element content and double- or single-quoted attributes.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A file-name-safe form of `s` for chart downloads.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// A chart card: heading, the SVG, and the two download buttons the page script serves.
pub(crate) fn figure(file: &str, title: &str, sub: &str, svg: &str) -> String {
    format!(
        "<figure class=\"chart-card\" data-file=\"{}\">\n<figcaption><span class=\"chart-title\">{}</span>\
         <span class=\"chart-sub\">{}</span></figcaption>\n<div class=\"chart-body\">{svg}</div>\n\
         <div class=\"chart-tools\"><button type=\"button\" data-dl=\"svg\" title=\"Download this chart as SVG\">SVG</button>\
         <button type=\"button\" data-dl=\"png\" title=\"Download this chart as PNG\">PNG</button></div>\n</figure>\n",
        esc(&slug(file)),
        esc(title),
        esc(sub)
    )
}

/// A colour swatch before a column name.
pub(crate) fn swatch(colour: &str) -> String {
    format!("<span class=\"swatch\" style=\"background:{colour}\"></span>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn slugs_are_file_safe() {
        assert_eq!(slug("Touch 2,000 Files / ext4"), "touch-2-000-files-ext4");
    }
}

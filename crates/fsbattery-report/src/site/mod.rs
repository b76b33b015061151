//! The results site and the HTML of `history --html`: plain files over the results store,
//! no server and no network (inline CSS, SVG and a few lines of script for the search box).
//!
//! Pages: `index.html` (every run, every series, links to browse), one page per machine,
//! filesystem, kernel and suite (the runs and series that touch it), and one per run (its
//! cells, and what [`extras::run_extras`] adds for it).
//!
//! Invariant: pure renderers, as the rest of this crate: the binary reads the store and
//! writes the files.

mod chart;
pub mod extras;
mod pages;

pub use pages::{pages, SiteData};

use crate::format::num;
use crate::html::esc;
use fsbattery_store::Series;
use std::fmt::Write;

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;max-width:72em;color:#222}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;font-size:13px}\
.series{border-top:1px solid #ddd;margin-top:1em}.regression{color:#c62828}.improvement{color:#2e7d32}\
nav a{margin-right:.6em}.facts{color:#555;font-size:12px}#search{font-size:14px;width:24em;margin:.5em 0}";

/// Hides every `.searchable` element whose text does not hold the query (case-insensitive).
const SEARCH: &str =
    "<script>document.getElementById('search').addEventListener('input',function(e){\
var q=e.target.value.toLowerCase();document.querySelectorAll('.searchable').forEach(function(el){\
el.style.display=el.textContent.toLowerCase().indexOf(q)>=0?'':'none';});});</script>";

/// A whole page: title, navigation, a search box over the page, the body.
pub fn page(title: &str, nav: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}</style></head>\
         <body><h1>{t}</h1>{nav}<p><input id=\"search\" type=\"search\" placeholder=\"Search this page\" aria-label=\"Search this page\"></p>\
         {body}{SEARCH}</body></html>\n",
        t = esc(title)
    )
}

/// A series as a section: title, what its runs share, the chart, the table, the changes.
pub fn series_section(s: &Series) -> String {
    let target = s
        .shared
        .iter()
        .find(|(k, _)| *k == "target")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    let mut h = format!(
        "<section class=\"series searchable\"><h3>{} {} on {} <small>by {}</small></h3><p class=\"facts\">",
        esc(&s.workload),
        esc(&s.metric),
        esc(target),
        s.by.name()
    );
    let facts: Vec<String> = s
        .shared
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{}: {}", esc(k), esc(v)))
        .collect();
    h.push_str(&facts.join(" · "));
    h.push_str("</p>");
    h.push_str(&chart::svg(s));
    h.push_str("<table><tr><th>run</th><th>started</th><th>mean</th><th>95 % CI</th><th>");
    h.push_str(if s.by == fsbattery_store::By::Time {
        "directory"
    } else {
        s.by.name()
    });
    h.push_str("</th></tr>");
    for (i, p) in s.points.iter().enumerate() {
        let f = &p.point.facts;
        let ci = match (f.ci_low, f.ci_high) {
            (Some(a), Some(b)) => format!("{} – {}", num(a), num(b)),
            _ => "one sample".into(),
        };
        let dim = if s.by == fsbattery_store::By::Time {
            &p.run.dir
        } else {
            &p.dimension
        };
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td></tr>",
            i + 1,
            esc(&p.run.facts.started_flagged()),
            num(p.mean),
            esc(&s.unit),
            ci,
            esc(dim)
        );
    }
    h.push_str("</table>");
    for c in &s.changes {
        let class = if s.is_regression(c) {
            "regression"
        } else {
            "improvement"
        };
        let size = c
            .change_pct
            .map(|v| format!("{v:+.1} %"))
            .unwrap_or_default();
        let ci = c
            .ci95_pct
            .map(|(a, b)| format!(" (95 % CI {a:+.1} % to {b:+.1} %)"))
            .unwrap_or_default();
        let _ = write!(
            h,
            "<p class=\"change {class}\">Change before run {}: {size}{ci}, p = {:.2e}: {} → {} {}; {} → {}</p>",
            c.index + 1,
            c.p,
            num(c.mean_before),
            num(c.mean_after),
            esc(&s.unit),
            esc(&s.points[c.index - 1].run.dir),
            esc(&s.points[c.index].run.dir)
        );
    }
    h.push_str("</section>");
    h
}

//! `tune.html`: per filesystem an importance chart (each option's share of the variance) and
//! an effect chart (each option's headline effect over its default with its 95 % CI), as
//! inline SVG with no script, so the file opens anywhere and can be mailed on its own.
//! Significant options are drawn dark, the others grey.

use super::search::FsSearch;
use std::fmt::Write;

const ROW: f64 = 22.0;
const LABEL: f64 = 190.0;
const WIDTH: f64 = 360.0;

/// The page.
pub fn html(searches: &[FsSearch], objective: &str, alpha: f64) -> String {
    let mut out = String::from(
        "<!doctype html><meta charset=utf-8><title>fsbattery tune</title>\
         <style>body{font:14px sans-serif;margin:2em}text{font:12px sans-serif}</style>\n",
    );
    let _ = writeln!(
        out,
        "<h1>fsbattery tune — objective {}</h1>",
        esc(objective)
    );
    for s in searches {
        let _ = writeln!(out, "<h2>{}</h2>", esc(&s.target));
        let Some(fx) = &s.effects else {
            out.push_str("<p>The screen could not separate the options.</p>\n");
            continue;
        };
        let mut rows: Vec<_> = fx
            .iter()
            .filter_map(|e| Some((e, e.headline(alpha)?)))
            .collect();
        rows.sort_by(|a, b| b.0.importance.total_cmp(&a.0.importance));
        out.push_str("<h3>Importance (share of the measured variance)</h3>\n");
        out.push_str(&svg(rows.len(), |i, g| {
            let (e, _) = rows[i];
            let w = e.importance.clamp(0.0, 1.0) * WIDTH;
            bar(
                g,
                i,
                &s.space.options[e.factor].name,
                LABEL,
                w,
                e.significant,
            );
            let _ = write!(
                g,
                "<text x='{:.0}' y='{:.0}'>{:.0} %</text>",
                LABEL + w + 4.0,
                y(i) + 15.0,
                e.importance * 100.0
            );
        }));
        out.push_str("<h3>Effect over the default (%, 95 % CI)</h3>\n");
        let pct = |x: f64| (x.exp() - 1.0) * 100.0;
        let reach = rows
            .iter()
            .map(|(_, h)| pct(h.ci.0).abs().max(pct(h.ci.1).abs()))
            .fold(1.0, f64::max);
        let x = |v: f64| LABEL + WIDTH / 2.0 + v / reach * WIDTH / 2.0;
        out.push_str(&svg(rows.len(), |i, g| {
            let (e, h) = rows[i];
            let o = &s.space.options[e.factor];
            let label = format!("{}={}", o.name, o.values[h.level]);
            let colour = if e.significant { "#234" } else { "#aaa" };
            let _ = write!(
                g,
                "<text x='0' y='{ty:.0}'>{l}</text><line x1='{a:.1}' x2='{b:.1}' y1='{m:.1}' y2='{m:.1}' stroke='{colour}' stroke-width='2'/>\
                 <circle cx='{c:.1}' cy='{m:.1}' r='4' fill='{colour}'/><text x='{t:.0}' y='{ty:.0}'>{v:+.1} %</text>",
                ty = y(i) + 15.0, l = esc(&label), a = x(pct(h.ci.0)), b = x(pct(h.ci.1)), m = y(i) + 11.0,
                c = x(pct(h.effect)), t = LABEL + WIDTH + 8.0, v = pct(h.effect)
            );
            if i == 0 {
                let _ = write!(g, "<line x1='{z:.1}' x2='{z:.1}' y1='0' y2='{h:.0}' stroke='#888' stroke-dasharray='3'/>", z = x(0.0), h = ROW * rows.len() as f64);
            }
        }));
    }
    out
}

fn y(i: usize) -> f64 {
    i as f64 * ROW
}

/// An SVG of `n` rows drawn by `row`.
fn svg(n: usize, mut row: impl FnMut(usize, &mut String)) -> String {
    let mut g = String::new();
    for i in 0..n {
        row(i, &mut g);
    }
    format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='{:.0}' height='{:.0}'>{g}</svg>\n",
        LABEL + WIDTH + 80.0,
        ROW * n as f64 + 4.0
    )
}

fn bar(g: &mut String, i: usize, name: &str, x: f64, w: f64, significant: bool) {
    let colour = if significant { "#234" } else { "#aaa" };
    let _ = write!(
        g,
        "<text x='0' y='{:.0}'>{}</text><rect x='{x:.0}' y='{:.0}' width='{w:.1}' height='16' fill='{colour}'/>",
        y(i) + 15.0,
        esc(name),
        y(i) + 3.0
    );
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\'', "&#39;")
}

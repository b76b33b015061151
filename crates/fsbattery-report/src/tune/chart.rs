//! `tune.html`: per filesystem an importance chart (each option's share of the variance) and
//! an effect chart (each option's headline effect over its default with the interval its
//! verdict used, [`super::outcome`]: the same numbers as the text and the JSON, with the
//! ±margin band drawn), as inline SVG with no script, so the file opens anywhere and can be
//! mailed on its own. Options that matter are drawn dark, negligible ones green, unresolved
//! ones grey.

use super::outcome::{outcomes, Outcome};
use super::search::FsSearch;
use fsbattery_stats::tune::Verdict;
use std::fmt::Write;

const ROW: f64 = 22.0;
const LABEL: f64 = 190.0;
const WIDTH: f64 = 360.0;

/// The page.
pub fn html(searches: &[FsSearch], objective: &str, alpha: f64, margin: f64) -> String {
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
        if s.effects.is_none() {
            out.push_str("<p>The screen could not separate the options.</p>\n");
            continue;
        }
        let rows: Vec<Outcome> = outcomes(s, alpha)
            .into_iter()
            .filter(|r| r.ci.is_some() && r.effect.is_some())
            .collect();
        out.push_str("<h3>Importance (share of the measured variance)</h3>\n");
        out.push_str(&svg(rows.len(), |i, g| {
            let r = &rows[i];
            let w = r.importance.clamp(0.0, 1.0) * WIDTH;
            bar(g, i, &s.space.options[r.factor].name, LABEL, w, colour(r));
            let _ = write!(
                g,
                "<text x='{:.0}' y='{:.0}'>{:.0} %</text>",
                LABEL + w + 4.0,
                y(i) + 15.0,
                r.importance * 100.0
            );
        }));
        let _ = writeln!(
            out,
            "<h3>Effect over the default (%, the interval the verdict used; band ±{margin} %)</h3>"
        );
        let reach = rows
            .iter()
            .filter_map(|r| r.ci)
            .map(|(a, b)| a.abs().max(b.abs()))
            .fold(margin * 1.5, f64::max);
        let x = |v: f64| LABEL + WIDTH / 2.0 + v / reach * WIDTH / 2.0;
        out.push_str(&svg(rows.len(), |i, g| {
            let r = &rows[i];
            let o = &s.space.options[r.factor];
            let h = Head {
                lo: r.ci.map_or(0.0, |c| c.0),
                hi: r.ci.map_or(0.0, |c| c.1),
                effect: r.effect.unwrap_or(0.0),
            };
            let label = match (r.verdict, r.level) {
                (Verdict::Matters, Some(l)) => format!("{}={}", o.name, o.values[l]),
                _ => format!("{} (all levels)", o.name),
            };
            let colour = colour(r);
            if i == 0 {
                let _ = write!(
                    g,
                    "<rect x='{a:.1}' y='0' width='{w:.1}' height='{h:.0}' fill='#dfd'/>",
                    a = x(-margin),
                    w = x(margin) - x(-margin),
                    h = ROW * rows.len() as f64
                );
            }
            let _ = write!(
                g,
                "<text x='0' y='{ty:.0}'>{l}</text><line x1='{a:.1}' x2='{b:.1}' y1='{m:.1}' y2='{m:.1}' stroke='{colour}' stroke-width='2'/>\
                 <circle cx='{c:.1}' cy='{m:.1}' r='4' fill='{colour}'/><text x='{t:.0}' y='{ty:.0}'>{v:+.1} %</text>",
                ty = y(i) + 15.0, l = esc(&label), a = x(h.lo), b = x(h.hi), m = y(i) + 11.0,
                c = x(h.effect), t = LABEL + WIDTH + 8.0, v = h.effect
            );
            if i == 0 {
                let _ = write!(g, "<line x1='{z:.1}' x2='{z:.1}' y1='0' y2='{h:.0}' stroke='#888' stroke-dasharray='3'/>", z = x(0.0), h = ROW * rows.len() as f64);
            }
        }));
    }
    out
}

/// The point and interval of one row, percent.
struct Head {
    lo: f64,
    hi: f64,
    effect: f64,
}

/// Dark for an option that matters, green for a negligible one, grey when unresolved.
fn colour(r: &Outcome) -> &'static str {
    match r.verdict {
        Verdict::Matters => "#234",
        Verdict::Negligible => "#3a3",
        Verdict::Unresolved { .. } => "#aaa",
    }
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

fn bar(g: &mut String, i: usize, name: &str, x: f64, w: f64, colour: &str) {
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

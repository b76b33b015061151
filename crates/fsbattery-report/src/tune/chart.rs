//! `tune.html`: per filesystem an importance chart (each option's share of the variance) and
//! an effect chart (each option's headline effect over its default with the interval its
//! verdict used, each [`super::OptionRow`]: the same numbers as the text and the JSON, with the
//! ±margin band drawn), as inline SVG with no script, so the file opens anywhere and can be
//! mailed on its own. Options that matter are drawn dark, negligible ones green, unresolved
//! ones grey.

use super::{OptionRow, TuneView};
use fsbattery_stats::tune::Verdict;
use std::fmt::Write;

const ROW: f64 = 22.0;
const LABEL: f64 = 190.0;
const WIDTH: f64 = 360.0;

/// The page.
pub fn html(t: &TuneView) -> String {
    let margin = t.margin;
    let mut out = String::from(
        "<!doctype html><meta charset=utf-8><title>fsbattery tune</title>\
         <style>body{font:14px sans-serif;margin:2em}text{font:12px sans-serif}</style>\n",
    );
    let _ = writeln!(
        out,
        "<h1>fsbattery tune — objective {}</h1>",
        esc(&t.objective)
    );
    for s in &t.filesystems {
        let _ = writeln!(out, "<h2>{}</h2>", esc(&s.target));
        if !s.separated {
            out.push_str("<p>The screen could not separate the options.</p>\n");
            continue;
        }
        let rows: Vec<&OptionRow> = s
            .options
            .iter()
            .filter(|r| r.ci.is_some() && r.effect.is_some())
            .collect();
        out.push_str("<h3>Importance (share of the measured variance)</h3>\n");
        out.push_str(&svg(rows.len(), |i, g| {
            let r = rows[i];
            let w = r.importance.clamp(0.0, 1.0) * WIDTH;
            bar(g, i, &r.name, LABEL, w, colour(r));
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
            let r = rows[i];
            let h = Head {
                lo: r.ci.map_or(0.0, |c| c.0),
                hi: r.ci.map_or(0.0, |c| c.1),
                effect: r.effect.unwrap_or(0.0),
            };
            let label = match (r.verdict, &r.value) {
                (Verdict::Matters, Some(v)) => format!("{}={v}", r.name),
                _ => format!("{} (all levels)", r.name),
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
fn colour(r: &OptionRow) -> &'static str {
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

#[cfg(test)]
mod tests {
    use crate::tune::{FsView, OptionRow, Paste, Race, TuneView};
    use fsbattery_stats::tune::Verdict;

    fn row(name: &str, verdict: Verdict, ci: Option<(f64, f64)>) -> OptionRow {
        OptionRow {
            name: name.into(),
            value: Some("on".into()),
            verdict,
            effect: ci.map(|(a, b)| (a + b) / 2.0),
            ci,
            importance: 0.5,
            repeats_needed: None,
        }
    }

    /// Rows without an interval are left out of the charts, each drawn row has a bar and a
    /// point, and a filesystem the screen could not separate gets a sentence instead.
    #[test]
    fn rows_with_an_interval_are_drawn_and_names_are_escaped() {
        let fs = |target: &str, separated: bool| FsView {
            target: target.into(),
            configurations: 4,
            separated,
            options: vec![
                row("a<b", Verdict::Matters, Some((2.0, 8.0))),
                row("never", Verdict::Unresolved { grow: None }, None),
            ],
            repeats_per_config: 2.0,
            changes: None,
            verified: None,
            confirmed: true,
            paste: Paste {
                mkfs: String::new(),
                mkfs_defaults: true,
                mount_options: String::new(),
                fstab: String::new(),
            },
            risks: Vec::new(),
            race: Race::Recommendation,
        };
        let page = super::html(&TuneView {
            objective: "x".into(),
            margin: 5.0,
            filesystems: vec![fs("loop:ext4", true), fs("loop:xfs", false)],
            ranking: Vec::new(),
            secs: 0.0,
            budget: 1.0,
            ended: String::new(),
        });
        assert_eq!(page.matches("<svg").count(), 2, "{page}");
        assert!(
            page.contains("a&lt;b=on") && !page.contains("never"),
            "{page}"
        );
        assert!(page.contains("<h2>loop:xfs</h2>\n<p>The screen could not separate"));
    }
}

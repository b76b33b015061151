//! A series as an inline SVG trend chart: each run's mean with its 95 % interval, joined in
//! run order, and a dashed line before each change point (red for a regression, green for
//! an improvement) whose tooltip gives its size, interval and p. No script, no network.

use crate::format::num;
use crate::html::esc;
use fsbattery_store::Series;
use std::fmt::Write;

const W: f64 = 640.0;
const H: f64 = 220.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 30.0;

/// The chart of `series`, an `<svg>` element with class `trend`.
pub fn svg(series: &Series) -> String {
    let n = series.points.len();
    let (lo, hi) = range(series);
    let x = |i: usize| LEFT + (W - LEFT - RIGHT) * (i as f64 + 0.5) / n as f64;
    let y = |v: f64| TOP + (H - TOP - BOTTOM) * (1.0 - (v - lo) / (hi - lo));
    let mut s = format!(
        "<svg class=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"{}\">",
        esc(&format!("{} {} over {} runs", series.workload, series.metric, n))
    );
    axes(&mut s, lo, hi, &series.unit, &y);
    for c in &series.changes {
        let cx = (x(c.index - 1) + x(c.index)) / 2.0;
        let colour = if series.is_regression(c) {
            "#c62828"
        } else {
            "#2e7d32"
        };
        let size = c
            .change_pct
            .map(|p| format!("{p:+.1} %"))
            .unwrap_or_default();
        let _ = write!(
            s,
            "<line class=\"change\" x1=\"{cx:.1}\" y1=\"{TOP}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-dasharray=\"4 3\"><title>{}</title></line>",
            H - BOTTOM,
            esc(&format!("change before run {}: {size}, p = {:.2e}", c.index + 1, c.p))
        );
    }
    let path: Vec<String> = (0..n)
        .map(|i| format!("{:.1},{:.1}", x(i), y(series.points[i].mean)))
        .collect();
    let _ = write!(
        s,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"1.5\"/>",
        path.join(" ")
    );
    for (i, p) in series.points.iter().enumerate() {
        let f = &p.point.facts;
        if let (Some(a), Some(b)) = (f.ci_low, f.ci_high) {
            let _ = write!(
                s,
                "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1:.1}\" y2=\"{2:.1}\" stroke=\"#90a4ae\"/>",
                x(i),
                y(a),
                y(b)
            );
        }
        let _ = write!(
            s,
            "<circle class=\"point\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#1565c0\"><title>{}</title></circle>",
            x(i),
            y(p.mean),
            esc(&format!("run {}: {} {} — {}", i + 1, num(p.mean), series.unit, p.dimension))
        );
    }
    s.push_str("</svg>");
    s
}

/// The value range shown: every mean and interval, padded, never empty.
fn range(series: &Series) -> (f64, f64) {
    let vals = series.points.iter().flat_map(|p| {
        let f = &p.point.facts;
        [Some(p.mean), f.ci_low, f.ci_high].into_iter().flatten()
    });
    let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.01).max(1e-12);
    (lo - pad, hi + pad)
}

/// The y axis with three labelled values and the unit.
fn axes(s: &mut String, lo: f64, hi: f64, unit: &str, y: &dyn Fn(f64) -> f64) {
    let _ = write!(
        s,
        "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{:.1}\" stroke=\"#555\"/><line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{:.1}\" y2=\"{0:.1}\" stroke=\"#555\"/>",
        H - BOTTOM,
        W - RIGHT
    );
    for v in [lo, (lo + hi) / 2.0, hi] {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{}</text>",
            LEFT - 4.0,
            y(v) + 3.0,
            esc(&num(v))
        );
    }
    let _ = write!(
        s,
        "<text x=\"{LEFT}\" y=\"{:.1}\" font-size=\"10\">runs in order →  ({})</text>",
        H - 8.0,
        esc(unit)
    );
}

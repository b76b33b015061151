//! Hand-written SVG charts: horizontal bar charts with CI95 error bars, and line charts.
//!
//! Role: turn plain numbers into SVG text. Invariants:
//! - deterministic: the same input gives the same bytes (golden tests compare them), so
//!   coordinates are printed with a fixed number of decimals and nothing depends on time;
//! - every chart is one `<svg class="chart KIND" data-chart="KIND" data-test="...">` whose
//!   first child is a `<title>` (screen readers announce it, a browser test counts it);
//! - all styling is in presentation attributes, never in the page's CSS, so a chart saved on
//!   its own (SVG or PNG download) looks exactly as it does in the page;
//! - text never overlaps: label columns are sized from the longest label and labels that
//!   still do not fit are cut with "…", the full text kept in a `<title>` tooltip.

use super::esc;

/// System font stack: nothing is downloaded, every platform has one of these.
pub(crate) const FONT: &str =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
/// Average advance of a 12 px sans-serif glyph; only used to reserve room for text.
const CHAR_W: f64 = 6.6;
/// Longest x label of a line chart before it is cut.
const LABEL_MAX: usize = 30;
const INK: &str = "#1f2937";
const MUTED: &str = "#6b7280";
const GRID: &str = "#e5e7eb";
const FAILED: &str = "#b91c1c";

/// One bar of a bar chart: a column of the report.
pub(crate) struct Bar {
    /// Column name.
    pub label: String,
    /// Fill colour.
    pub colour: String,
    /// What to draw.
    pub state: BarState,
    /// The row's winner: its value is printed in bold.
    pub best: bool,
}

/// A bar's content.
pub(crate) enum BarState {
    /// A number, with its CI95, sample count and a note ("incomplete").
    Value {
        /// The aggregate.
        v: f64,
        /// (mean, CI95 half width): the whisker is drawn around the mean, which is where the
        /// interval is, even when the bar shows the best or the median.
        ci: Option<(f64, f64)>,
        /// Number of samples.
        n: Option<usize>,
        /// Shown after the value.
        note: Option<String>,
    },
    /// No number: a word ("failed", "pending") where the bar would be, the reason as tooltip.
    Empty {
        /// The word shown.
        word: String,
        /// The tooltip.
        reason: String,
        /// A failure (drawn red); every other empty state is drawn in neutral grey.
        failed: bool,
    },
}

/// A horizontal bar chart, one bar per column.
pub(crate) struct BarChart {
    /// Chart kind, used as class and `data-chart`: bar, cpu, total, score.
    pub kind: &'static str,
    /// `data-test` value.
    pub test: String,
    /// Accessible title.
    pub title: String,
    /// Axis caption, e.g. "seconds — lower is better".
    pub axis: String,
    /// Bars, top to bottom.
    pub bars: Vec<Bar>,
}

/// One line of a line chart.
pub(crate) struct Series {
    /// Legend name.
    pub name: String,
    /// Stroke colour.
    pub colour: String,
    /// One point per x position: value and tooltip, `None` for a gap.
    pub points: Vec<Option<(f64, String)>>,
}

/// A line chart over categorical or log-spaced x positions.
pub(crate) struct LineChart {
    /// Chart kind: line, recsize.
    pub kind: &'static str,
    /// Element id, when the page links to it.
    pub id: Option<String>,
    /// `data-test` value.
    pub test: String,
    /// Accessible title.
    pub title: String,
    /// Label of each x position.
    pub x_labels: Vec<String>,
    /// Position of each x label in 0..=1.
    pub x_pos: Vec<f64>,
    /// Rotate x labels (long test names).
    pub rotate: bool,
    /// X axis caption.
    pub x_axis: String,
    /// Y axis caption.
    pub y_axis: String,
    /// Logarithmic y axis.
    pub log: bool,
    /// The lines.
    pub series: Vec<Series>,
    /// Width in px.
    pub width: f64,
}

fn open_svg(kind: &str, id: Option<&str>, test: &str, w: f64, h: f64, title: &str) -> String {
    let id = id
        .map(|i| format!(" id=\"{}\"", esc(i)))
        .unwrap_or_default();
    format!(
        "<svg{id} class=\"chart {kind}\" data-chart=\"{kind}\" data-test=\"{}\" viewBox=\"0 0 {w:.0} {h:.0}\" \
         width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\" font-family=\"{FONT}\" font-size=\"12\">\
         <title>{}</title><rect class=\"bg\" width=\"{w:.0}\" height=\"{h:.0}\" fill=\"#ffffff\"/>\n",
        esc(test),
        esc(title)
    )
}

/// Cut `s` to `max` characters with an ellipsis.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}

/// Text with a tooltip when it had to be cut.
fn text_el(attrs: &str, full: &str, max: usize) -> String {
    let shown = truncate(full, max);
    let tip = if shown == full {
        String::new()
    } else {
        format!("<title>{}</title>", esc(full))
    };
    format!("<text {attrs}>{tip}{}</text>", esc(&shown))
}

/// A bar chart as SVG text.
pub(crate) fn bar_chart(c: &BarChart) -> String {
    const W: f64 = 560.0;
    const ROW: f64 = 26.0;
    const BAR: f64 = 16.0;
    const TOP: f64 = 10.0;
    const AXIS: f64 = 42.0;
    const TEXT: f64 = 150.0;
    let longest = c
        .bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(4);
    let label_w = (longest as f64 * CHAR_W + 16.0).clamp(60.0, 190.0);
    let max_chars = ((label_w - 16.0) / CHAR_W) as usize;
    let (x0, x1) = (label_w, W - TEXT);
    let hi = c
        .bars
        .iter()
        .filter_map(|b| match b.state {
            BarState::Value { v, ci, .. } => Some(ci.map_or(v, |(m, h)| v.max(m + h))),
            BarState::Empty { .. } => None,
        })
        .fold(0.0, f64::max);
    let ticks = linear_ticks(hi, 5);
    let top_v = ticks.last().copied().unwrap_or(1.0);
    let sx = |v: f64| x0 + v.max(0.0) / top_v * (x1 - x0);
    let plot_bottom = TOP + ROW * c.bars.len() as f64;
    let h = plot_bottom + AXIS;
    let mut out = open_svg(c.kind, None, &c.test, W, h, &c.title);
    out.push_str(&x_ticks(&ticks, &sx, TOP, plot_bottom));
    out.push_str(&format!(
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{MUTED}\">{}</text>\n",
        (x0 + x1) / 2.0,
        h - 6.0,
        esc(&c.axis)
    ));
    for (i, b) in c.bars.iter().enumerate() {
        let y = TOP + ROW * i as f64 + (ROW - BAR) / 2.0;
        out.push_str(&bar_row(b, y, BAR, x0, max_chars, &sx));
    }
    out.push_str(&format!(
        "<line class=\"axis\" x1=\"{x0:.1}\" y1=\"{TOP:.1}\" x2=\"{x0:.1}\" y2=\"{plot_bottom:.1}\" stroke=\"{MUTED}\"/>\n</svg>"
    ));
    out
}

fn x_ticks(ticks: &[f64], sx: &dyn Fn(f64) -> f64, top: f64, bottom: f64) -> String {
    let step = if ticks.len() > 1 {
        ticks[1] - ticks[0]
    } else {
        1.0
    };
    let max = ticks.last().copied().unwrap_or(1.0);
    let mut out = String::new();
    for t in ticks {
        let x = sx(*t);
        out.push_str(&format!(
            "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{top:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" stroke=\"{GRID}\"/>\
             <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{MUTED}\" font-size=\"11\">{}</text>\n",
            bottom + 15.0,
            tick_label(*t, step, max)
        ));
    }
    out
}

fn bar_row(
    b: &Bar,
    y: f64,
    bar_h: f64,
    x0: f64,
    max_chars: usize,
    sx: &dyn Fn(f64) -> f64,
) -> String {
    let mid = y + bar_h / 2.0 + 4.0;
    let label = text_el(
        &format!(
            "class=\"label\" x=\"{:.1}\" y=\"{mid:.1}\" text-anchor=\"end\" fill=\"{INK}\"",
            x0 - 8.0
        ),
        &b.label,
        max_chars,
    );
    let mut out = format!(
        "<g class=\"bar-row\" data-column=\"{}\">{label}",
        esc(&b.label)
    );
    match &b.state {
        BarState::Value { v, ci, n, note } => {
            let x = sx(*v);
            let n_text = n.map(|n| format!(" · n={n}")).unwrap_or_default();
            let ci_text = ci.map(|(_, h)| format!(" ±{}", crate::format::num(h))).unwrap_or_default();
            let note_text = note.as_ref().map(|t| format!(" ({t})")).unwrap_or_default();
            let opacity = if note.is_some() { " fill-opacity=\"0.45\"" } else { "" };
            out.push_str(&format!(
                "<rect class=\"bar\" x=\"{x0:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bar_h:.1}\" fill=\"{}\"{opacity} rx=\"2\" data-value=\"{v}\">\
                 <title>{}: {}{ci_text}{n_text}{note_text}</title></rect>",
                (x - x0).max(0.5),
                b.colour,
                esc(&b.label),
                crate::format::num(*v)
            ));
            let mut end = x;
            let mut below = String::new();
            if let Some((m, h)) = ci {
                out.push_str(&whisker(*m, *h, y, bar_h, sx));
                end = end.max(sx(m + h));
                if m - h < 0.0 {
                    below = format!(" (CI extends below 0, to {})", crate::format::num(m - h));
                }
            }
            let note_text = format!("{note_text}{below}");
            let weight = if b.best { " font-weight=\"700\"" } else { "" };
            out.push_str(&format!(
                "<text class=\"value\" x=\"{:.1}\" y=\"{mid:.1}\" fill=\"{INK}\" font-size=\"11\"{weight}>{}{ci_text}<tspan class=\"n\" fill=\"{MUTED}\">{n_text}{note_text}</tspan></text>",
                end + 6.0,
                crate::format::num(*v)
            ));
        }
        BarState::Empty {
            word,
            reason,
            failed,
        } => out.push_str(&format!(
            // Only a failure is an alarm; n/a, pending and not-run are neutral facts.
            "<text class=\"empty{}\" x=\"{:.1}\" y=\"{mid:.1}\" fill=\"{}\" font-style=\"italic\">{}<title>{}</title></text>",
            if *failed { " failed" } else { "" },
            x0 + 6.0,
            if *failed { FAILED } else { MUTED },
            esc(word),
            esc(reason)
        )),
    }
    out.push_str("</g>\n");
    out
}

/// The CI95 whisker around `m ± h`. A linear axis starts at 0, so an interval reaching below
/// 0 cannot be drawn whole: rather than clip it silently, its lower end is drawn as an open
/// arrow at the axis (class `err-below`) and the value text says "CI extends below 0".
fn whisker(m: f64, h: f64, y: f64, bar_h: f64, sx: &dyn Fn(f64) -> f64) -> String {
    let (lo, hi) = (sx(m - h), sx(m + h));
    let (t, bt, mid) = (y + 3.0, y + bar_h - 3.0, y + bar_h / 2.0);
    if m - h >= 0.0 {
        return format!(
            "<path class=\"err\" d=\"M{lo:.1} {mid:.1}H{hi:.1}M{lo:.1} {t:.1}V{bt:.1}M{hi:.1} {t:.1}V{bt:.1}\" stroke=\"{INK}\" stroke-width=\"1.2\" fill=\"none\"/>"
        );
    }
    format!(
        "<path class=\"err err-below\" d=\"M{lo:.1} {mid:.1}H{hi:.1}M{hi:.1} {t:.1}V{bt:.1}M{a:.1} {t:.1}L{lo:.1} {mid:.1}L{a:.1} {bt:.1}\" stroke=\"{INK}\" stroke-width=\"1.2\" fill=\"none\">\
         <title>the 95% interval extends below 0, past the axis</title></path>",
        a = lo + 5.0
    )
}

/// A line chart as SVG text.
pub(crate) fn line_chart(c: &LineChart) -> String {
    let longest = c
        .x_labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1)
        .min(LABEL_MAX);
    // A rotated label reaches left of its tick by its length × cos 40°: the first one must
    // stay inside the drawing.
    let reach = c
        .x_labels
        .first()
        .map_or(0, |l| l.chars().count().min(LABEL_MAX)) as f64
        * CHAR_W
        * 0.72;
    let left = if c.rotate {
        (reach - 24.0 + 8.0).max(70.0)
    } else {
        70.0
    };
    let right = 24.0;
    let (legend, legend_h) = legend(&c.series, left, c.width - right);
    let top = legend_h + 14.0;
    let plot_h = 300.0;
    let label_h = if c.rotate {
        longest as f64 * CHAR_W * 0.64 + 16.0
    } else {
        22.0
    };
    let bottom = top + plot_h;
    let h = bottom + label_h + 24.0;
    let mut out = open_svg(c.kind, c.id.as_deref(), &c.test, c.width, h, &c.title);
    out.push_str(&legend);
    let values: Vec<f64> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().flatten().map(|p| p.0))
        .collect();
    let y = YScale::new(&values, c.log, top, bottom);
    out.push_str(&y.ticks_svg(left, c.width - right));
    out.push_str(&format!(
        "<text class=\"axis-title\" transform=\"rotate(-90 16 {mid:.1})\" x=\"16\" y=\"{mid:.1}\" text-anchor=\"middle\" fill=\"{MUTED}\">{}</text>\n",
        esc(&c.y_axis),
        mid = (top + bottom) / 2.0
    ));
    let pad = 24.0;
    let px = |p: f64| left + pad + p * (c.width - right - left - 2.0 * pad);
    out.push_str(&x_labels(c, &px, bottom));
    out.push_str(&format!(
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{MUTED}\">{}</text>\n",
        (left + c.width - right) / 2.0,
        h - 6.0,
        esc(&c.x_axis)
    ));
    for s in &c.series {
        out.push_str(&series_svg(s, &c.x_pos, &px, &y));
    }
    out.push_str(&format!(
        "<line class=\"axis\" x1=\"{left:.1}\" y1=\"{bottom:.1}\" x2=\"{:.1}\" y2=\"{bottom:.1}\" stroke=\"{MUTED}\"/>\n</svg>",
        c.width - right
    ));
    out
}

fn x_labels(c: &LineChart, px: &dyn Fn(f64) -> f64, bottom: f64) -> String {
    let mut out = String::new();
    for (label, p) in c.x_labels.iter().zip(&c.x_pos) {
        let x = px(*p);
        let y = bottom + 16.0;
        let attrs = if c.rotate {
            format!("class=\"x-label\" x=\"{x:.1}\" y=\"{y:.1}\" transform=\"rotate(-40 {x:.1} {y:.1})\" text-anchor=\"end\" fill=\"{INK}\" font-size=\"11\"")
        } else {
            format!("class=\"x-label\" x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" fill=\"{INK}\" font-size=\"11\"")
        };
        out.push_str(&format!(
            "<line class=\"x-tick\" x1=\"{x:.1}\" y1=\"{bottom:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{MUTED}\"/>{}\n",
            bottom + 4.0,
            text_el(&attrs, label, LABEL_MAX)
        ));
    }
    out
}

fn series_svg(s: &Series, xs: &[f64], px: &dyn Fn(f64) -> f64, y: &YScale) -> String {
    let mut d = String::new();
    let mut dots = String::new();
    let mut pen_down = false;
    for (p, x) in s.points.iter().zip(xs) {
        match p {
            Some((v, tip)) if y.shows(*v) => {
                let (cx, cy) = (px(*x), y.at(*v));
                d.push_str(&format!(
                    "{}{cx:.1} {cy:.1}",
                    if pen_down { "L" } else { "M" }
                ));
                dots.push_str(&format!(
                    "<circle class=\"point\" cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"3.5\" fill=\"{}\"><title>{}</title></circle>",
                    s.colour,
                    esc(tip)
                ));
                pen_down = true;
            }
            // A failed or missing point breaks the line rather than bridging it.
            _ => pen_down = false,
        }
    }
    format!(
        "<g class=\"series\" data-column=\"{}\"><path class=\"line\" d=\"{d}\" stroke=\"{}\" stroke-width=\"2\" fill=\"none\"/>{dots}</g>\n",
        esc(&s.name),
        s.colour
    )
}

fn legend(series: &[Series], x0: f64, x1: f64) -> (String, f64) {
    let mut out = String::from("<g class=\"legend\">");
    let (mut x, mut y) = (x0, 16.0);
    for s in series {
        let w = 30.0 + s.name.chars().count() as f64 * CHAR_W + 18.0;
        if x + w > x1 && x > x0 {
            (x, y) = (x0, y + 20.0);
        }
        out.push_str(&format!(
            "<g class=\"legend-item\"><line x1=\"{x:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{c}\" stroke-width=\"2\"/>\
             <circle cx=\"{:.1}\" cy=\"{ly:.1}\" r=\"3.5\" fill=\"{c}\"/><text x=\"{:.1}\" y=\"{y:.1}\" fill=\"{INK}\">{}</text></g>",
            x + 22.0,
            x + 11.0,
            x + 28.0,
            esc(&s.name),
            ly = y - 4.0,
            c = s.colour
        ));
        x += w;
    }
    out.push_str("</g>\n");
    (out, y + 6.0)
}

/// The y axis of a line chart: linear from 0, or decades when `log`.
struct YScale {
    log: bool,
    lo: f64,
    hi: f64,
    top: f64,
    bottom: f64,
    ticks: Vec<f64>,
}

impl YScale {
    fn new(values: &[f64], log: bool, top: f64, bottom: f64) -> Self {
        if log {
            let pos: Vec<f64> = values.iter().copied().filter(|v| *v > 0.0).collect();
            let lo = pos
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min)
                .log10()
                .floor();
            let hi = pos.iter().copied().fold(0.0, f64::max).log10().ceil();
            let (lo, hi) = if lo.is_finite() && hi > lo {
                (lo, hi)
            } else {
                (0.0, 1.0)
            };
            let ticks = (lo as i32..=hi as i32).map(|k| 10f64.powi(k)).collect();
            YScale {
                log,
                lo,
                hi,
                top,
                bottom,
                ticks,
            }
        } else {
            let ticks = linear_ticks(values.iter().copied().fold(0.0, f64::max), 5);
            let hi = ticks.last().copied().unwrap_or(1.0);
            YScale {
                log,
                lo: 0.0,
                hi,
                top,
                bottom,
                ticks,
            }
        }
    }

    fn shows(&self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }

    fn at(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.log10() - self.lo) / (self.hi - self.lo)
        } else {
            v / self.hi
        };
        self.bottom - f * (self.bottom - self.top)
    }

    fn ticks_svg(&self, x0: f64, x1: f64) -> String {
        let step = if self.ticks.len() > 1 {
            self.ticks[1] - self.ticks[0]
        } else {
            1.0
        };
        let mut out = String::new();
        for t in &self.ticks {
            let y = self.at(*t);
            let label = if self.log {
                tick_label(*t, *t, *t)
            } else {
                tick_label(*t, step, self.hi)
            };
            out.push_str(&format!(
                "<line class=\"grid\" x1=\"{x0:.1}\" y1=\"{y:.1}\" x2=\"{x1:.1}\" y2=\"{y:.1}\" stroke=\"{GRID}\"/>\
                 <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"{MUTED}\" font-size=\"11\">{label}</text>\n",
                x0 - 6.0,
                y + 4.0
            ));
        }
        out
    }
}

/// Round tick positions from 0 to at least `max`, about `target` of them.
pub(crate) fn linear_ticks(max: f64, target: usize) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = mag
        * match raw / mag {
            n if n <= 1.0 => 1.0,
            n if n <= 2.0 => 2.0,
            n if n <= 2.5 => 2.5,
            n if n <= 5.0 => 5.0,
            _ => 10.0,
        };
    let n = (max / step - 1e-9).ceil().max(1.0) as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

/// A tick label with just the decimals its step needs; large values as 200k, 1.5M.
/// The unit suffix is chosen from the axis maximum `top`, so one axis never mixes k and M.
pub(crate) fn tick_label(v: f64, step: f64, top: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let (scale, suffix) = match top.abs() {
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e4 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let step = step / scale;
    let decimals = (0..=6)
        .find(|d| {
            let s = step * 10f64.powi(*d);
            (s - s.round()).abs() < 1e-6 * s.abs().max(1.0)
        })
        .unwrap_or(6) as usize;
    format!("{:.*}{suffix}", decimals, v / scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(linear_ticks(0.0524, 5), vec![0.0, 0.02, 0.04, 0.06]);
        assert_eq!(linear_ticks(9.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(tick_label(0.30000000000000004, 0.1, 0.5), "0.3");
        assert_eq!(tick_label(250000.0, 250000.0, 750000.0), "250k");
        assert_eq!(tick_label(1.5e6, 2.5e5, 1.5e6), "1.50M");
        assert_eq!(tick_label(0.001, 0.001, 0.001), "0.001");
        assert_eq!(tick_label(0.0, 0.2e6, 1e6), "0");
    }

    #[test]
    fn truncation_keeps_short_text() {
        assert_eq!(truncate("ext4", 10), "ext4");
        assert_eq!(
            truncate("Split 10M File into 1000 Byte Pieces", 12),
            "Split 10M F…"
        );
    }

    #[test]
    fn bar_chart_has_title_and_error_bars() {
        let c = BarChart {
            kind: "bar",
            test: "m/t".into(),
            title: "T <1>".into(),
            axis: "s".into(),
            bars: vec![Bar {
                label: "ext4".into(),
                colour: "#4e79a7".into(),
                state: BarState::Value {
                    v: 1.0,
                    ci: Some((1.0, 0.1)),
                    n: Some(3),
                    note: None,
                },
                best: true,
            }],
        };
        let svg = bar_chart(&c);
        assert!(svg.starts_with("<svg class=\"chart bar\""));
        assert!(svg.contains("<title>T &lt;1&gt;</title>"));
        assert!(svg.contains("class=\"err\"") && svg.contains("n=3"));
        assert!(!svg.contains("err-below") && !svg.contains("below 0"));
    }

    #[test]
    fn a_ci_wider_than_the_mean_is_drawn_to_the_axis_with_a_note() {
        let c = BarChart {
            kind: "bar",
            test: "m/t".into(),
            title: "T".into(),
            axis: "s".into(),
            bars: vec![Bar {
                label: "tmpfs".into(),
                colour: "#4e79a7".into(),
                state: BarState::Value {
                    v: 1.0,
                    ci: Some((1.0, 5.0)),
                    n: Some(3),
                    note: None,
                },
                best: false,
            }],
        };
        let svg = bar_chart(&c);
        assert!(svg.contains("class=\"err err-below\""), "{svg}");
        assert!(svg.contains("CI extends below 0, to -4.00"), "{svg}");
    }

    #[test]
    fn only_a_failure_is_drawn_red() {
        let empty = |word: &str, failed| Bar {
            label: "tmpfs".into(),
            colour: "#4e79a7".into(),
            state: BarState::Empty {
                word: word.into(),
                reason: "why".into(),
                failed,
            },
            best: false,
        };
        let c = BarChart {
            kind: "bar",
            test: "m/t".into(),
            title: "T".into(),
            axis: "s".into(),
            bars: vec![empty("n/a", false), empty("failed", true)],
        };
        let svg = bar_chart(&c);
        assert_eq!(svg.matches(FAILED).count(), 1, "{svg}");
        assert!(svg.contains(&format!("fill=\"{MUTED}\" font-style=\"italic\">n/a")));
    }
}

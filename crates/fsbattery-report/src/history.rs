//! `fsbattery history` as text: each series of comparable runs from the results store as a
//! trend table (run, start, mean, 95 % interval, and the dimension that differs) with its
//! change points (size, interval, p, and the runs either side). Pure: the binary reads the
//! store and prints.

use crate::format::num;
use fsbattery_store::{By, Series};
use std::fmt::Write;

/// The value every run of `s` shares for `name` (`target`, `suite`, ...), or "".
pub fn shared<'a>(s: &'a Series, name: &str) -> &'a str {
    s.shared
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or("")
}

/// One series: its title, what its runs share, the trend table and the change points.
pub fn text(s: &Series, p: f64) -> String {
    let better = match s.better {
        fsbattery_stats::Better::Higher => "higher",
        fsbattery_stats::Better::Lower => "lower",
    };
    let mut out = format!(
        "{} {} [{}, {better} is better] on {}, by {}\n",
        s.workload,
        s.metric,
        s.unit,
        shared(s, "target"),
        s.by.name()
    );
    let facts: Vec<String> = s
        .shared
        .iter()
        .filter(|(k, v)| !["workload", "metric", "target", "unit"].contains(k) && !v.is_empty())
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let _ = writeln!(out, "  same in every run: {}", facts.join("; "));
    let dim = if s.by == By::Time { "" } else { s.by.name() };
    let _ = writeln!(
        out,
        "  {:>3}  {:<25}  {:>10}  {:<21}  {dim}",
        "run", "started", "mean", "95 % CI"
    );
    for (i, pt) in s.points.iter().enumerate() {
        let f = &pt.point.facts;
        let ci = match (f.ci_low, f.ci_high) {
            (Some(a), Some(b)) => format!("{} – {}", num(a), num(b)),
            _ => "(one sample)".into(),
        };
        let started = match pt.run.facts.flag() {
            Some(f) => format!(
                "{} ({f})",
                pt.run.facts.started.chars().take(25).collect::<String>()
            ),
            None => pt.run.facts.started.chars().take(25).collect(),
        };
        let d = if s.by == By::Time {
            ""
        } else {
            pt.dimension.as_str()
        };
        let _ = writeln!(
            out,
            "  {:>3}  {started:<25}  {:>10}  {ci:<21}  {d}",
            i + 1,
            num(pt.mean)
        );
    }
    if s.changes.is_empty() {
        let _ = writeln!(out, "  no change point at p = {p}");
    }
    for c in &s.changes {
        out.push_str(&change_text(s, c));
    }
    out
}

/// A change point in three lines: size and interval, the segments, the runs either side.
fn change_text(s: &Series, c: &fsbattery_stats::ChangePoint) -> String {
    let size = c
        .change_pct
        .map(|v| format!("{v:+.1} %"))
        .unwrap_or_else(|| "from 0".into());
    let ci = c
        .ci95_pct
        .map(|(a, b)| format!(" (95 % CI {a:+.1} % to {b:+.1} %)"))
        .unwrap_or_default();
    let kind = if s.is_regression(c) {
        "a regression"
    } else {
        "an improvement"
    };
    let (before, after) = (&s.points[c.index - 1], &s.points[c.index]);
    let first = c.index - c.n_before + 1;
    let last = c.index + c.n_after;
    format!(
        "  change before run {}: {size}{ci}, p = {:.2e}, {kind}\n    runs {first}–{}: mean {} {unit}; runs {}–{last}: mean {} {unit}\n    either side: {} → {}\n",
        c.index + 1,
        c.p,
        c.index,
        num(c.mean_before),
        c.index + 1,
        num(c.mean_after),
        before.run.dir,
        after.run.dir,
        unit = s.unit,
    )
}

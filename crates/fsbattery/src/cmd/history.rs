//! `fsbattery history`: the series of comparable runs in the results store, each as a trend
//! table with its change points (size, 95 % interval, p, and the runs either side), and the
//! exit status a CI job reads (`--fail-on-regression`).

use crate::cli::{ByArg, HistoryArgs};
use fsbattery_core::error::{UsageError, EXIT_REGRESSION};
use fsbattery_report::format::num;
use fsbattery_report::site;
use fsbattery_store::{By, Filter, Series};
use std::fmt::Write;
use std::process::ExitCode;

/// Print every series the filters select; exit 4 on a regression at the newest point.
pub fn history(args: HistoryArgs) -> anyhow::Result<ExitCode> {
    if !(args.p > 0.0 && args.p < 1.0) {
        return Err(UsageError::Invalid(format!(
            "--p {}: give a level in (0, 1), e.g. 0.01",
            args.p
        ))
        .into());
    }
    if !(args.threshold.is_finite() && args.threshold >= 0.0) {
        return Err(UsageError::Invalid(format!(
            "--threshold {}: give a percentage ≥ 0",
            args.threshold
        ))
        .into());
    }
    let store = super::store::existing(args.store.as_deref())?;
    let filter = Filter {
        suite: args.suite.clone(),
        workload: args.workload.clone(),
        metric: args.metric.clone(),
        target: args.target.clone(),
        include_partial: args.include_partial,
    };
    let all = fsbattery_store::series(&store, &filter, by(args.by), args.p)?;
    let mut out = String::new();
    if all.is_empty() {
        let _ = writeln!(
            out,
            "no series of two or more comparable runs{} in {}",
            if args.by == ByArg::Time {
                String::new()
            } else {
                format!(" differing in {}", by(args.by).name())
            },
            store.path().display()
        );
    }
    for s in &all {
        out.push_str(&text(s, args.p));
        out.push('\n');
    }
    if let Some(path) = &args.html {
        let body: String = all.iter().map(site::series_section).collect();
        let page = site::page("fsbattery history", "", &body);
        std::fs::write(path, page)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
        let _ = writeln!(out, "charts: {}", path.display());
    }
    crate::stdout::write_unless_closed(out)?;
    if args.fail_on_regression {
        let worst: Vec<&Series> = all
            .iter()
            .filter(|s| s.newest_regression(args.threshold).is_some())
            .collect();
        if !worst.is_empty() {
            crate::stderr::errln!(
                "fsbattery: {} series end in a significant regression beyond {} % (first: {} {} on {})",
                worst.len(),
                args.threshold,
                worst[0].workload,
                worst[0].metric,
                shared(worst[0], "target")
            );
            return Ok(ExitCode::from(EXIT_REGRESSION));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn by(b: ByArg) -> By {
    match b {
        ByArg::Kernel => By::Kernel,
        ByArg::FsVersion => By::FsVersion,
        ByArg::Options => By::Options,
        ByArg::Time => By::Time,
    }
}

fn shared<'a>(s: &'a Series, name: &str) -> &'a str {
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

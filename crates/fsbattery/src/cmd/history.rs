//! `fsbattery history`: the series of comparable runs in the results store, each as a trend
//! table with its change points (rendered by `fsbattery_report::history`, or as HTML by its
//! `site`), and the exit status a CI job reads (`--fail-on-regression`).

use crate::cli::{ByArg, HistoryArgs};
use fsbattery_core::error::{UsageError, EXIT_REGRESSION};
use fsbattery_report::history::{shared, text};
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

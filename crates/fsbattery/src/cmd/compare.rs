//! `fsbattery compare BASE NEW...`: ratios with significance, for people and for CI gating.
//!
//! Runs that measured different things (see `fsbattery_report::comparable`) are refused with
//! every difference on stderr, before anything is printed, unless `--allow-different`; then
//! the differing rows are marked and never trip `--fail-if-worse`, so the gate cannot pass or
//! fail a build on a ratio between unlike runs.

use crate::cli::{CompareArgs, CompareFormat};
use crate::stderr::errln;
use fsbattery_core::error::{UsageError, EXIT_REGRESSION};
use fsbattery_report::compare::CompareReport;
use fsbattery_report::{compare_out, import_hints};
use std::process::ExitCode;

/// Compare each NEW run against BASE.
pub fn compare(args: CompareArgs) -> anyhow::Result<ExitCode> {
    validate(&args)?;
    let base = super::record::load(&args.base)?;
    let base_name = run_name(&base, &args.base);
    // A side that did not finish has cells it never measured: say why, not only "not ok".
    if base.unfinished() {
        errln!(
            "fsbattery: the base run {} was interrupted: its cells not measured are \"base cell incomplete\"{}",
            args.base.display(),
            resume_hint(&args.base)
        );
    }
    let mut reports = Vec::new();
    let mut hints = Vec::new();
    for dir in &args.new {
        let new = super::record::load(dir)?;
        let name = run_name(&new, dir);
        if new.unfinished() {
            errln!(
                "fsbattery: the new run {} was interrupted: its cells not measured are \"new cell incomplete\"{}",
                dir.display(),
                resume_hint(dir)
            );
        }
        let report = CompareReport::new(&base_name, &base, &name, &new, args.alpha);
        hints.extend(import_hints::hints(
            &base,
            &base_name,
            &new,
            &name,
            &report.differences,
        ));
        reports.push(report);
    }
    refuse_unlike(&reports, &hints, args.allow_different)?;
    let bytes = match args.format {
        CompareFormat::Table => compare_out::terminal(&reports),
        CompareFormat::Markdown => compare_out::markdown(&reports),
        CompareFormat::Csv => compare_out::csv(&reports)?,
        CompareFormat::Json => compare_out::json(&reports)?,
    };
    // The gate's status must not depend on whether anyone still reads stdout.
    crate::stdout::write_unless_closed(bytes)?;
    Ok(gate(&reports, args.fail_if_worse))
}

/// "; `fsbattery run --resume DIR` continues it" when it can be continued.
fn resume_hint(dir: &std::path::Path) -> String {
    match super::resume::resumable(dir) {
        true => format!("; `fsbattery run --resume {}` continues it", dir.display()),
        false => String::new(),
    }
}

/// A run's `--label`, else its directory as given; with its age when it was aged ("aged
/// (aged 70 %)"): the age names a side, like the label, so a fresh and an aged run of the same
/// suite compare without `--allow-different` and the reader still sees which side lived.
fn run_name(rec: &fsbattery_core::model::RunRecord, dir: &std::path::Path) -> String {
    let name = rec
        .plan
        .label
        .clone()
        .unwrap_or_else(|| dir.display().to_string());
    match &rec.plan.age {
        Some(age) => format!("{name} ({})", age.describe()),
        None => name,
    }
}

/// `--alpha` in (0, 1) and `--fail-if-worse` a finite number ≥ 0: NaN would make a gate that
/// can never fire.
fn validate(args: &CompareArgs) -> Result<(), UsageError> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(UsageError::Invalid(format!(
            "--alpha {}: must be in (0, 1), e.g. 0.05",
            args.alpha
        )));
    }
    if let Some(limit) = args.fail_if_worse {
        if !(limit.is_finite() && limit >= 0.0) {
            return Err(UsageError::Invalid(format!(
                "--fail-if-worse {limit}: must be a finite percentage ≥ 0, e.g. 10"
            )));
        }
    }
    Ok(())
}

/// Without `--allow-different`: every difference on stderr, what would make an import
/// comparable (`hints`), then one line (exit 2).
fn refuse_unlike(
    reports: &[CompareReport],
    hints: &[String],
    allowed: bool,
) -> Result<(), UsageError> {
    let count: usize = reports.iter().map(|r| r.differences.len()).sum();
    if allowed || count == 0 {
        return Ok(());
    }
    for r in reports {
        for d in &r.differences {
            errln!("fsbattery: {} vs {}: {d}", r.base, r.new);
        }
    }
    for h in hints {
        errln!("fsbattery: {h}");
    }
    Err(UsageError::Invalid(format!(
        "the runs did not measure the same thing ({count} difference(s) above): compare runs \
         of the same suite, scale, method, parameters and targets, or pass --allow-different \
         to compare them with the differing rows marked"
    )))
}

/// Exit 4 when a like-for-like row regressed by more than `limit` percent.
fn gate(reports: &[CompareReport], limit: Option<f64>) -> ExitCode {
    let Some(limit) = limit else {
        return ExitCode::SUCCESS;
    };
    let mut regressed = false;
    for r in reports {
        for row in r.rows.iter().filter(|row| row.regressed(limit)) {
            errln!(
                "fsbattery: regression: {} on {} ({}): {:+.1}% worse",
                row.label,
                row.target,
                r.new,
                row.worse_pct().unwrap_or(0.0)
            );
            regressed = true;
        }
        let unlike = r.rows.iter().filter(|row| !row.differs.is_empty()).count();
        if unlike > 0 {
            errln!(
                "fsbattery: --fail-if-worse ignored {unlike} row(s) of {} marked ≠ (measured \
                 differently)",
                r.new
            );
        }
    }
    if regressed {
        ExitCode::from(EXIT_REGRESSION)
    } else {
        ExitCode::SUCCESS
    }
}

//! `fsbattery compare BASE NEW...`: ratios with significance, for people and for CI gating.

use crate::cli::{CompareArgs, ReportFormat};
use fsbattery_core::error::{UsageError, EXIT_REGRESSION};
use fsbattery_report::compare;
use std::process::ExitCode;

/// Compare each NEW run against BASE.
pub fn compare(args: CompareArgs) -> anyhow::Result<ExitCode> {
    if !(0.0..1.0).contains(&args.alpha) || args.alpha == 0.0 {
        return Err(
            UsageError::Invalid(format!("--alpha {}: must be in (0, 1)", args.alpha)).into(),
        );
    }
    let base = super::report::load(&args.base)?;
    let mut regressions = Vec::new();
    for new_dir in &args.new {
        let new = super::report::load(new_dir)?;
        let rows = compare::build(&base, &new, args.alpha);
        println!("{} → {}", args.base.display(), new_dir.display());
        match args.format {
            ReportFormat::Markdown => print!("{}", compare::markdown(&rows)),
            _ => print!("{}", compare::terminal(&rows)),
        }
        if let Some(limit) = args.fail_if_worse {
            for r in &rows {
                let significant = r
                    .comparison
                    .is_some_and(|c| c.verdict == fsbattery_stats::Verdict::Worse);
                if significant && r.worse_pct().is_some_and(|w| w > limit) {
                    regressions.push(format!(
                        "{} on {}: {:+.1}% worse",
                        r.label,
                        r.target,
                        r.worse_pct().unwrap_or(0.0)
                    ));
                }
            }
        }
    }
    if !regressions.is_empty() {
        for r in &regressions {
            eprintln!("fsbattery: regression: {r}");
        }
        return Ok(ExitCode::from(EXIT_REGRESSION));
    }
    Ok(ExitCode::SUCCESS)
}

//! The tune's plan: which filesystems and option spaces, narrowed by the command line; the
//! dry run; `fsbattery list options`.

use super::budget::{sizes, Cost, RACE_CANDIDATES, RACE_REPEATS, SCREEN_REPEATS};
use super::search::FsSearch;
use crate::cli::TuneArgs;
use fsbattery_core::error::UsageError;
use fsbattery_core::tune::{self, At, OptionSpace};
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// One search per `--target`, its space loaded and narrowed (not probed yet).
pub fn spaces(args: &TuneArgs) -> Result<Vec<FsSearch>, UsageError> {
    if args.suite.is_none() && args.workloads.is_empty() {
        return Err(UsageError::Invalid(
            "tune needs what to tune for: --workload NAME[,NAME...] or --suite NAME".into(),
        ));
    }
    check_names(args)?;
    let files: Vec<OptionSpace> = args
        .option_files
        .iter()
        .map(|p| tune::from_file(p))
        .collect::<Result<_, _>>()?;
    let mut out = Vec::new();
    for t in &args.targets {
        let rest = t.strip_prefix("loop:").ok_or_else(|| {
            UsageError::Invalid(format!(
                "--target {t}: tune makes each configuration afresh, so it takes loop:FS[,size=SIZE] targets"
            ))
        })?;
        let fs = rest.split(',').next().unwrap_or("");
        if rest.contains("mkfs=") || rest.contains("mount=") {
            return Err(UsageError::Invalid(format!(
                "--target {t}: the tune chooses mkfs= and mount=; hold an option with --fix NAME=VALUE"
            )));
        }
        let mut space = match files.iter().find(|s| s.fs == fs) {
            Some(s) => s.clone(),
            None => tune::space(fs)?,
        };
        space.narrow(&args.options, &args.fix, args.safe_only)?;
        out.push(FsSearch::new(t, space));
    }
    Ok(out)
}

/// Every workload named exists, and so does the objective's metric (a suite names its own
/// workloads, checked when its phase plans): a typo fails here, dry run included, with a
/// suggestion, rather than after every option was probed.
fn check_names(args: &TuneArgs) -> Result<(), UsageError> {
    use fsbattery_core::params::Params;
    use fsbattery_core::workload;
    for w in &args.workloads {
        workload::find_or_refuse(w)?;
    }
    let Some((wname, metric)) = args.objective.split_once('.') else {
        return Ok(());
    };
    if args.suite.is_some() {
        return Ok(());
    }
    if !args.workloads.iter().any(|w| w == wname) {
        return Err(UsageError::Invalid(format!(
            "--objective {}: workload '{wname}' is not tuned here{} (tuned: {})",
            args.objective,
            fsbattery_core::suggest::hint(wname, args.workloads.iter().map(String::as_str)),
            args.workloads.join(", ")
        )));
    }
    let w = workload::find_or_refuse(wname)?;
    let known = w.metrics(&Params::default_for(w.params()));
    let names: Vec<&str> = known.iter().map(|m| m.name.as_str()).collect();
    // A swept metric (iozone's `write@8192`) is named by its base, as suite rows do.
    let base = metric.split('@').next().unwrap_or(metric);
    if !names
        .iter()
        .any(|n| *n == metric || n.split('@').next() == Some(base))
    {
        return Err(UsageError::Invalid(format!(
            "--objective {}: workload '{wname}' has no metric '{metric}'{} (known: {})",
            args.objective,
            fsbattery_core::suggest::hint(metric, names.iter().copied()),
            names.join(", ")
        )));
    }
    Ok(())
}

/// Where the phases go: `--out`, else a fresh timestamped directory.
pub fn out_dir(args: &TuneArgs) -> Result<PathBuf, UsageError> {
    let dir = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("fsbattery-results").join(format!(
            "tune-{}",
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        ))
    });
    if !args.resume && (dir.join("tune.json").exists() || dir.join("01-pilot").exists()) {
        return Err(UsageError::Invalid(format!(
            "--out {}: already holds a tune; choose another directory, or --resume it",
            dir.display()
        )));
    }
    Ok(dir)
}

/// The cost of a configuration before anything was measured: the dry run's nominal seconds
/// per workload run at this scale, and as much again for the trial mount.
pub fn nominal_cost(args: &TuneArgs) -> Cost {
    let workloads = args.workloads.len().max(1) as f64;
    let per = super::super::dry_run::nominal_secs(args.scale.into()) * workloads;
    Cost {
        repeat: per,
        trial: 1.0,
    }
}

/// Print the plan and exit 0: nothing is made or mounted.
pub fn dry_run(args: &TuneArgs, searches: &[FsSearch]) -> anyhow::Result<ExitCode> {
    let cost = nominal_cost(args);
    let budget = args.budget.as_secs_f64();
    let mut out = String::new();
    let columns: Vec<usize> = searches.iter().map(FsSearch::columns).collect();
    let max: Vec<usize> = searches.iter().map(|s| s.valid_configs(10_000)).collect();
    for s in searches {
        writeln!(
            out,
            "{}: {} options, {} model columns",
            s.target,
            s.space.options.len(),
            s.columns()
        )?;
        for o in &s.space.options {
            writeln!(out, "  {:<18} {}", o.name, o.values.join(" / "))?;
        }
    }
    match sizes(&columns, &max, cost, budget) {
        Ok(z) => {
            for (s, n) in searches.iter().zip(&z.screen) {
                writeln!(out, "screen {}: {n} configurations × {SCREEN_REPEATS} repeats", s.target)?;
            }
            writeln!(out, "race: {} round(s) of up to {RACE_CANDIDATES} candidates per filesystem × {RACE_REPEATS} repeats", z.rounds)?;
            writeln!(out, "verify: adaptive repeats (3 to 30) within {}", super::super::dry_run::human(z.verify_secs))?;
            let total = cost.phase(z.screen.iter().sum(), SCREEN_REPEATS)
                + z.rounds as f64 * cost.phase(RACE_CANDIDATES * searches.len(), RACE_REPEATS)
                + z.verify_secs;
            writeln!(
                out,
                "time: about {} of a {} budget (~{:.0} s per configuration and repeat, from the scale; \
                 the pilot measures it before the screen is sized)",
                super::super::dry_run::human(total),
                super::super::dry_run::human(budget),
                cost.repeat
            )?;
        }
        Err(need) => writeln!(
            out,
            "budget: too small for this space (the smallest screen needs about {}); give more --budget or fewer --option",
            super::super::dry_run::human(need)
        )?,
    }
    crate::stdout::write(out)?;
    Ok(ExitCode::SUCCESS)
}

/// `fsbattery list options [FS]`.
pub fn list_options(fs: Option<&str>) -> anyhow::Result<String> {
    let names: Vec<&str> = match fs {
        Some(f) => vec![f],
        None => tune::shipped(),
    };
    let mut out = String::new();
    for f in names {
        let s = tune::space(f)?;
        writeln!(out, "{f} (suites/options/{f}.toml, common.toml):")?;
        for o in &s.options {
            let at = if o.at == At::Mkfs { "mkfs " } else { "mount" };
            let values: Vec<String> = o
                .values
                .iter()
                .map(|v| {
                    if *v == o.default {
                        format!("[{v}]")
                    } else {
                        v.clone()
                    }
                })
                .collect();
            writeln!(
                out,
                "  {:<17} {at}  {:<28} {}",
                o.name,
                values.join(" "),
                o.help
            )?;
            for (v, r) in &o.risk {
                writeln!(out, "  {:<17}        risk {}={v}: {r}", "", o.name)?;
            }
            if let Some(n) = &o.needs {
                writeln!(out, "  {:<17}        needs: {n}", "")?;
            }
        }
        for r in &s.invalid {
            let when: Vec<String> = r.when.iter().map(|(k, v)| format!("{k}={v}")).collect();
            writeln!(out, "  invalid: {} ({})", when.join(" with "), r.why)?;
        }
        out.push('\n');
    }
    Ok(out)
}

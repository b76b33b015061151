//! Options of `fsbattery tune`.

use super::{conditions, ScaleArg};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Options of `tune`.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// A filesystem to tune, as a loop target: `loop:FS[,size=SIZE]` (repeatable; FS one of
    /// `fsbattery list options`). Every configuration is this target with mkfs= and mount=.
    #[arg(long = "target", value_name = "SPEC", required = true)]
    pub targets: Vec<String>,
    /// The suite whose workloads are the objective (preset name or FILE.toml).
    #[arg(long, value_name = "NAME|FILE.toml", conflicts_with = "workloads")]
    pub suite: Option<String>,
    /// The workloads whose metrics are the objective (comma-separated).
    #[arg(long = "workload", value_name = "NAME,...", value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// Override a workload parameter, as `run --set` (repeatable).
    #[arg(long = "set", value_name = "WORKLOAD.PARAM=VALUE")]
    pub set: Vec<String>,
    /// What to maximise: `score` (the geometric mean of every metric of the workloads, each
    /// oriented so higher is better) or one metric as WORKLOAD.METRIC.
    #[arg(long, value_name = "score|WORKLOAD.METRIC", default_value = "score")]
    pub objective: String,
    /// Wall time for the whole tune (probe, screen, race, verify), e.g. `10m`.
    #[arg(long, value_name = "DURATION", value_parser = conditions::budget, default_value = "10m")]
    pub budget: std::time::Duration,
    /// Leave out option values that trade durability for speed (data=writeback, nodatacow,
    /// a long commit, no journal, ...).
    #[arg(long)]
    pub safe_only: bool,
    /// Search only these options (repeatable); the others keep the filesystem's defaults.
    #[arg(long = "option", value_name = "NAME")]
    pub options: Vec<String>,
    /// Hold an option at a value (repeatable), e.g. `--fix data=journal`.
    #[arg(long = "fix", value_name = "NAME=VALUE")]
    pub fix: Vec<String>,
    /// An option file of your own (the grammar of suites/options/ext4.toml) for the
    /// filesystem its `fs` names, instead of the shipped one.
    #[arg(long = "options", value_name = "FILE.toml")]
    pub option_files: Vec<PathBuf>,
    /// Go on with an interrupted tune in --out: finished phases are read back, not measured
    /// again (give the same options; --budget counts from the resume).
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Print the plan (options, configurations, repeats, estimated time) and exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Output directory: one run directory per phase, `tune.json` and `report.html`
    /// [default: ./fsbattery-results/tune-<timestamp>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The answer on stdout as a table or as JSON.
    #[arg(long, value_enum, default_value = "table")]
    pub format: TuneFormat,
    /// Problem sizes of the workloads.
    #[arg(long, value_enum, default_value = "quick")]
    pub scale: ScaleArg,
    /// Work directory: loop images, mount points, state files.
    #[arg(long, value_name = "DIR", default_value = "fsbattery-work")]
    pub workdir: PathBuf,
    /// Seed of the screening design (the same seed, the same configurations).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Significance level of every decision.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Equivalence margin in percent: an option is called negligible only when every level's
    /// interval lies within ±this of its default.
    #[arg(long, value_name = "PCT", default_value_t = 5.0, value_parser = margin)]
    pub margin: f64,
}

/// `--margin`: a percentage above 0 and below 100.
fn margin(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(m) if m > 0.0 && m < 100.0 => Ok(m),
        _ => Err(format!(
            "{s}: give a percentage above 0 and below 100, e.g. 5"
        )),
    }
}

/// How the answer is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TuneFormat {
    /// Short text for a terminal.
    Table,
    /// `{"targets": [...], "ranking": [...]}`.
    Json,
}

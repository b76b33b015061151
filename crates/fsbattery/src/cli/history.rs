//! The command line of the results store and what reads it: `store`, `history`, `site`.

use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

/// `store`'s examples and exit statuses.
pub const STORE_HELP: &str = "Examples:\n  \
    fsbattery store add fsbattery-results/*          # every run directory, imports too\n  \
    fsbattery store rebuild                          # recreate the store from its run directories\n  \
    fsbattery store check                            # integrity, and runs whose directory is gone\n\n\
    The run directories stay the source of truth: adding one again replaces it.\n\n\
    Exit status: 0 done, 2 bad input (a directory that holds no run), 8 the store is damaged\n\
    or locked (nothing was lost: every run is still in its directory).";

/// `history`'s examples and exit statuses.
pub const HISTORY_HELP: &str = "Examples:\n  \
    fsbattery history                                  # every series over time\n  \
    fsbattery history --workload stream --by options   # runs that differ in their options\n  \
    fsbattery history --fail-on-regression --threshold 5   # for CI: exit 4 on a regression\n\n\
    A series is the runs that measured the same thing (suite, scale, method, cache policy,\n\
    workload and parameters, metric, target kind and filesystem, machine, fsbattery version)\n\
    and agree in every dimension but --by: kernel, fs-version (mkfs and tool versions),\n\
    options (mkfs and mount options), or none (time). Change points: E-divisive means with a\n\
    Student t-test at each candidate split, as Apache Otava (formerly Hunter) finds them.\n\n\
    Exit status: 0 done, 2 bad input, 4 --fail-on-regression and the newest point of a series\n\
    is a significant regression beyond --threshold, 8 the store is damaged or locked.";

/// `site`'s examples.
pub const SITE_HELP: &str = "Examples:\n  \
    fsbattery site results-site/ && xdg-open results-site/index.html\n  \
    fsbattery site --store merged.db /var/www/fsbattery/\n\n\
    Plain files that open from disk: no server, no network.";

/// Options of `store`.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// The results store [default: $XDG_DATA_HOME/fsbattery/results.db, else
    /// ~/.local/share/fsbattery/results.db].
    #[arg(long, value_name = "PATH", global = true)]
    pub store: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub action: StoreAction,
}

/// What `store` does.
#[derive(Debug, Subcommand)]
pub enum StoreAction {
    /// Add run directories (`fsbattery run`'s, and `fsbattery import`'s of fio, bonnie++ and
    /// iozone output); one added again is replaced.
    Add {
        /// Run directories.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// Check the store: SQLite's integrity check, its runs (how many interrupted or resumed),
    /// and the runs whose results directory is gone (exit 8 when it is damaged).
    Check,
    /// Recreate the store from its run directories (and DIR...), e.g. after it was damaged.
    Rebuild {
        /// More run directories to add.
        #[arg(value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
}

/// The dimension a series varies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    /// The kernel differs, everything else equal.
    Kernel,
    /// The mkfs and other tool versions differ.
    FsVersion,
    /// The mkfs and mount options differ.
    Options,
    /// Nothing differs but the time of the run.
    Time,
}

/// Options of `history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The results store [default: $XDG_DATA_HOME/fsbattery/results.db].
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Only runs of this suite.
    #[arg(long, value_name = "NAME")]
    pub suite: Option<String>,
    /// Only this workload.
    #[arg(long, value_name = "NAME")]
    pub workload: Option<String>,
    /// Only this metric.
    #[arg(long, value_name = "NAME")]
    pub metric: Option<String>,
    /// Only this target: a filesystem type (ext4), a target label or kind (tmpfs, loop).
    #[arg(long, value_name = "FS")]
    pub target: Option<String>,
    /// The dimension the runs of a series may differ in.
    #[arg(long, value_enum, default_value = "time")]
    pub by: ByArg,
    /// Significance level of a change point, in (0, 1).
    #[arg(
        long = "p",
        value_name = "P",
        default_value_t = 0.01,
        allow_negative_numbers = true
    )]
    pub p: f64,
    /// Exit 4 when the newest point of a series is a significant regression (its segment
    /// worse than the one before by more than --threshold).
    #[arg(long)]
    pub fail_on_regression: bool,
    /// With --fail-on-regression: the smallest change, in percent, that counts.
    #[arg(
        long,
        value_name = "PCT",
        default_value_t = 0.0,
        requires = "fail_on_regression"
    )]
    pub threshold: f64,
    /// Also write the trend charts to FILE (HTML with inline SVG).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also count runs that did not finish (interrupted, killed, or resumed and cut short
    /// again), flagged as interrupted; by default series and change points hold finished
    /// work only.
    #[arg(long)]
    pub include_partial: bool,
}

/// Options of `site`.
#[derive(Debug, Args)]
pub struct SiteArgs {
    /// Output directory (made if missing; its index.html and pages are replaced).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// The results store [default: $XDG_DATA_HOME/fsbattery/results.db].
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Also show runs that did not finish (interrupted, killed, or resumed and cut short
    /// again), flagged as interrupted; by default the site holds finished work only.
    #[arg(long)]
    pub include_partial: bool,
}

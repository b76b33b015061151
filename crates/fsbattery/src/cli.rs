//! The command line, as clap derive types. Parsing only: nothing here touches the system;
//! `cmd::*` turns these into a validated plan.
// Doc comments here are clap help text shown verbatim to users, where `<timestamp>` is a
// placeholder, not an HTML tag.
#![allow(rustdoc::invalid_html_tags)]

use clap::{Args, Parser, Subcommand, ValueEnum};
use fsbattery_core::params;
use std::path::PathBuf;

mod conditions;
pub use conditions::RepeatArg;
mod formats;
pub use formats::{ExportArg, FormatArg};
mod history;
mod request;
pub use history::{ByArg, HistoryArgs, SiteArgs, StoreAction, StoreArgs};
mod tune;
pub use tune::{TuneArgs, TuneFormat};

/// fsbattery — a filesystem benchmark suite.
///
/// Makes each filesystem freshly, times mkfs and mount, runs the classic studies' workloads
/// (touch/find/rm of 10,000 files, 1 GB files, split, ...), repeats them, and prints the
/// matrix of tests × filesystems with confidence intervals.
#[derive(Debug, Parser)]
#[command(name = "fsbattery", version, propagate_version = true)]
#[command(after_help = "Examples:\n  \
    fsbattery setup                                # install the default filesystems' tools\n  \
    fsbattery run                                  # classic's workloads, native, quick scale\n  \
    fsbattery run --suite piszcz2006               # S1 as it measured: its commands, cache, pause\n  \
    fsbattery run --target dir:/mnt/test --repeat 5 --aggregate best\n  \
    fsbattery list workloads\n  \
    fsbattery report fsbattery-results/20261122-150000")]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
// Parsed once per process: the size of the `run` variant costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a suite on one or more targets and print the results matrix.
    #[command(
        after_help = "Examples:\n  \
            fsbattery run                                   # the default comparison\n  \
            fsbattery run --target loop:ext4 --target loop:xfs --scale standard\n  \
            fsbattery run --suite piszcz2006 --dry-run      # a study's plan\n\n\
            `fsbattery run --help` shows every flag, grouped, with target specs and exit statuses.",
        after_long_help = run_after_help()
    )]
    Run(RunArgs),
    /// Find the mkfs and mount options that matter for a workload, and the best configuration
    /// of each filesystem: screen, race, verify against the defaults.
    #[command(after_help = "Examples:\n  \
        fsbattery tune --target loop:ext4 --workload stream --budget 10m\n  \
        fsbattery tune --target loop:ext4 --target loop:xfs --workload metadata --safe-only\n  \
        fsbattery tune --target loop:ext4 --workload stream --option data --option commit --dry-run\n  \
        fsbattery list options ext4")]
    Tune(TuneArgs),
    /// List workloads (with parameters and defaults), suites or target kinds.
    #[command(
        after_help = "Examples:\n  fsbattery list\n  fsbattery list workloads\n  fsbattery list workloads iozone\n  fsbattery list suites"
    )]
    List {
        /// What to list (all when omitted).
        what: Option<ListWhat>,
        /// With `workloads`: only this one; with `options`: the filesystem.
        #[arg(value_name = "NAME", requires = "what")]
        name: Option<String>,
    },
    /// Re-render saved runs (terminal table, Markdown, CSV, TSV, JSON, HTML, XLSX) without re-running.
    #[command(after_help = "Examples:\n  \
        fsbattery report fsbattery-results/20261122-150000\n  \
        fsbattery report RUN_DIR --format markdown --aggregate best > table.md\n  \
        fsbattery report RUN_DIR --html report.html --xlsx report.xlsx\n  \
        fsbattery report old/ new/ --label 'kernel 6.1' --label 'kernel 6.18' --html rounds.html")]
    Report(ReportArgs),
    /// Remove what a killed run left behind (mounts, loop devices, images, FUSE daemons, pools),
    /// exactly as recorded in the work directory's state files, and nothing else.
    #[command(after_help = "Examples:\n  \
        fsbattery cleanup                       # the default work directory ./fsbattery-work\n  \
        fsbattery cleanup --workdir /scratch/fsb\n\n\
        Only what a state file records inside its own private session, and what still matches its\n\
        record, is removed; anything else is reported as refused and left alone.\n\n\
        Exit status: 0 done, 2 bad input (an unsafe work directory), 6 something was refused.")]
    Cleanup {
        /// The work directory the run used.
        #[arg(long, value_name = "DIR", default_value = "fsbattery-work")]
        workdir: PathBuf,
    },
    /// Compare runs: per metric the ratio to BASE and whether the difference is significant.
    #[command(after_help = "Examples:\n  \
        fsbattery compare fsbattery-results/monday fsbattery-results/tuesday\n  \
        fsbattery compare base/ new/ --fail-if-worse 10     # exit 4 on a significant >10% regression\n\n\
        Verdicts come from Welch's t-test on the samples (n ≥ 3 per side, else \"not enough samples\").\n\
        Runs must have the same suite, scale, method, workload parameters and targets (paired by\n\
        spec, else by label: filesystem type, spec options, mount options in effect); else the\n\
        differences are listed and compare exits 2, unless --allow-different. One run may hold a\n\
        subset of the other's targets. Rows only in one run are listed.")]
    Compare(CompareArgs),
    /// Turn fio JSON, bonnie++ CSV or iozone -R output into a run directory that `report` and
    /// `compare` read beside fsbattery's own runs (one repeat per FILE).
    #[command(after_help = "Examples:\n  \
        fio --name=r --filename=/mnt/x/f --size=64M --rw=randread --bs=4k --runtime=10 \\\n      \
        --time_based --output-format=json > run1.json            # three times\n  \
        fsbattery import run1.json run2.json run3.json --label fio --target dir --out fio-run\n  \
        fsbattery compare native-run/ fio-run/\n  \
        bonnie++ -d /mnt/x -q > bonnie.csv && fsbattery import bonnie.csv --label bonnie++\n\n\
        Random fio jobs become the randomio workload (fio's rw, bs, numjobs, size, runtime,\n\
        direct, ioengine, iodepth mapped onto its parameters); bonnie++ becomes bonnie.")]
    Import(ImportArgs),
    /// Install the system packages (mkfs tools, FUSE helpers, command-mode and test tools)
    /// that the chosen targets and workloads need, with the distribution's package manager.
    #[command(after_help = "Examples:\n  \
        fsbattery setup                          # the six default filesystems, the default suite\n  \
        fsbattery setup --target loop:zfs --target loop:ntfs\n  \
        fsbattery setup --method commands        # also the seeds' commands (cpio, tar, ...)\n  \
        fsbattery setup --tests --dry-run        # what `cargo test --workspace` needs, not installed\n\n\
        Says what it installs and does nothing when everything is there. apt-get is run as root\n\
        (Debian, Ubuntu); not root, or on dnf/zypper systems, the exact command is printed instead.\n\n\
        Exit status: 0 nothing missing (or installed, or --dry-run), 2 bad input (an unknown\n\
        filesystem, one this kernel cannot mount), 5 something is missing that you must install\n\
        (the command is printed), 1 the package manager failed.")]
    Setup(SetupArgs),
    /// Keep runs in a results store: add run directories, or rebuild it from them.
    #[command(after_help = history::STORE_HELP)]
    Store(StoreArgs),
    /// Trends across the runs of a results store, with the change points in each series.
    #[command(after_help = history::HISTORY_HELP)]
    History(HistoryArgs),
    /// Write a static results site (plain HTML files, no server) over a results store.
    #[command(after_help = history::SITE_HELP)]
    Site(SiteArgs),
    /// Print a shell completion script: `fsbattery completions bash > /etc/bash_completion.d/fsbattery`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) of fsbattery or of one subcommand: `fsbattery man | man -l -`.
    Man {
        /// A subcommand (run, report, ...) [default: the whole tool].
        subcommand: Option<String>,
    },
}

/// Options of `setup`.
#[derive(Debug, Args)]
pub struct SetupArgs {
    /// Targets to prepare for (repeatable) [default: ext2 ext3 ext4 xfs btrfs on loop images, tmpfs].
    #[arg(long = "target", value_name = "SPEC")]
    pub targets: Vec<String>,
    /// Suite whose workloads will run (matters with --method commands, or a suite that runs
    /// some as commands) [default: no suite: classic's workloads, native].
    #[arg(long, value_name = "NAME|FILE.toml")]
    pub suite: Option<String>,
    /// Only these workloads (comma-separated).
    #[arg(long = "workload", value_name = "NAME,...", value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// commands: also the programs the seeds' commands need (touch, cp, tar, cpio, ...).
    #[arg(long, value_enum, default_value = "native")]
    pub method: MethodArg,
    /// Also everything `cargo test --workspace` needs (every FUSE filesystem, command mode,
    /// fio, bonnie++, chromium, python3-openpyxl, Open MPI, ...).
    #[arg(long)]
    pub tests: bool,
    /// Also what building and running with `--features mpi` needs (Open MPI, libclang).
    #[arg(long)]
    pub mpi: bool,
    /// Print what would be installed and install nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline run directory.
    pub base: PathBuf,
    /// One or more run directories compared against BASE.
    #[arg(required = true)]
    pub new: Vec<PathBuf>,
    /// Output format (compare's own, not `report`'s): table — per NEW run, each row and
    /// target with the base and new means, their ratio, the change and its verdict; markdown —
    /// the same tables in Markdown; csv — one line per row and target with those fields and the
    /// p-value; json — every NEW run's differences from BASE and its rows. Rows only one run
    /// holds are listed apart, and rows a difference touches are marked ≠, in every format.
    #[arg(
        long,
        value_enum,
        default_value = "table",
        hide_possible_values = true,
        value_name = "table|markdown|csv|json"
    )]
    pub format: CompareFormat,
    /// Exit with status 4 if any metric is significantly worse by more than PCT percent
    /// (a finite number ≥ 0). Rows marked ≠ by --allow-different never count.
    #[arg(long, value_name = "PCT", allow_negative_numbers = true)]
    pub fail_if_worse: Option<f64>,
    /// Significance level of the test, in (0, 1).
    #[arg(long, default_value_t = 0.05, allow_negative_numbers = true)]
    pub alpha: f64,
    /// Compare runs that measured different things (suite, scale, method, a workload
    /// parameter, a target's filesystem or options): the differing rows are marked ≠.
    /// Without it such runs are refused (exit 2) with the differences listed.
    #[arg(long)]
    pub allow_different: bool,
}

/// Options of `import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Output files of one tool, one per repeat (the same job each time); an io500 app
    /// result directory stands for its result_summary.txt.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Name of the imported run (recorded as its suite).
    #[arg(long)]
    pub label: String,
    /// Column label of the imported target [default: the tool's name]; use the native run's
    /// target label to compare the two.
    #[arg(long, value_name = "LABEL")]
    pub target: Option<String>,
    /// The tool that wrote FILE: fio, bonnie, iozone, io500 or fs_mark [default: recognised
    /// from the content].
    #[arg(long, value_name = "TOOL")]
    pub from: Option<String>,
    /// Record fio's JSON of a job file as this `fio:FILE` workload (with fio's metric names,
    /// one entry per group: run fio with --group_reporting), to compare with `run --workload
    /// fio:FILE`.
    #[arg(long, value_name = "fio:FILE")]
    pub workload: Option<String>,
    /// Output directory [default: ./fsbattery-results/import-<timestamp>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// What `list` shows.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ListWhat {
    /// Workloads, their metrics and parameters with defaults per scale.
    Workloads,
    /// Shipped suites (presets).
    Suites,
    /// Target kinds and their spec grammar.
    Targets,
    /// The mkfs and mount options `fsbattery tune` searches for a filesystem (`list options
    /// ext4`).
    Options,
    /// The fio job-file options `--workload fio:FILE` covers (`--set fio.OPTION=VALUE`).
    FioOptions,
    /// Guest kernels for `vm:` targets: fetched ones, and those the distribution serves.
    Kernels,
}

/// Options of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Where to run (repeatable): loop:FSTYPE, dev:/dev/NAME, tmpfs, dir:PATH.
    ///
    /// Where to run (repeatable). Default: a fresh directory under ./fsbattery-work, removed afterwards.
    #[arg(long = "target", value_name = "SPEC", help_heading = "Targets")]
    pub targets: Vec<String>,
    /// A suite preset (`fsbattery list suites`) or FILE.toml, with its seed's conditions.
    ///
    /// Suite preset name (see `fsbattery list suites`) or a suite FILE.toml: its workloads,
    /// parameters and its seed's conditions (cache, pause, method, memory, mkfs/mount options)
    /// [default: no suite: the workloads (--workload, else classic's list) at their own
    /// defaults, native, cache tool, no pause].
    #[arg(long, value_name = "NAME|FILE.toml", help_heading = "Workloads")]
    pub suite: Option<String>,
    /// Run only these workloads (comma-separated).
    #[arg(
        long = "workload",
        value_name = "NAME,...",
        value_delimiter = ',',
        help_heading = "Workloads"
    )]
    pub workloads: Vec<String>,
    /// Repeats per test, or `auto[:MIN..MAX]`: repeat until each row is decided.
    ///
    /// Repeats per test, 1 to 10000; or `auto` (`auto:MIN..MAX`, default 3..30): with two or
    /// more targets, repeat each target × workload in interleaved rounds until its place in
    /// every ranked row is decided — significantly better or worse than the best, or
    /// equivalent within --margin — or MAX or --budget is reached; a target alone repeats until
    /// every comparable metric's 95 % confidence interval is within --precision of its mean.
    /// Under a best, min or max aggregate every ranked target of a workload gets the same
    /// count. [default: with --suite, the suite's count, so a preset repeats as its study did
    /// (piszcz2006 3, prolinux2013 5, zfs2007 1); without, auto from 3 to 30 with two or more
    /// targets, 3 for one]
    #[arg(long, value_name = "N|auto[:MIN..MAX]", value_parser = conditions::repeat, allow_hyphen_values = true, help_heading = "Repeats and verdicts")]
    pub repeat: Option<RepeatArg>,
    /// With --repeat auto, a target alone: the CI95 half-width, in percent of the mean, to stop
    /// at [default: 3].
    #[arg(long, value_name = "PCT", value_parser = conditions::precision, allow_hyphen_values = true, help_heading = "Repeats and verdicts", hide_short_help = true)]
    pub precision: Option<f64>,
    /// With --repeat auto: differences within ±PCT % of the better mean count as equivalent
    /// (two one-sided tests) [default: 5].
    #[arg(long, value_name = "PCT", value_parser = conditions::precision, allow_hyphen_values = true, help_heading = "Repeats and verdicts", hide_short_help = true)]
    pub margin: Option<f64>,
    /// With --repeat auto: the time repeats may take, e.g. 30m [default: 10m at quick scale].
    ///
    /// With --repeat auto: start no round that would end after this much time in repeats, e.g.
    /// `30m`, `2h`, `90s` [default: 10m at quick scale, none otherwise].
    #[arg(long, value_name = "DURATION", value_parser = conditions::budget, help_heading = "Repeats and verdicts")]
    pub budget: Option<std::time::Duration>,
    /// Age every made filesystem before its workloads: fill it to PCT % (1 to 95) with a seeded,
    /// fragmenting churn of creates, appends and deletes (not timed in any cell).
    #[arg(long, value_name = "PCT[,seed=N]", value_parser = conditions::age, help_heading = "Conditions", hide_short_help = true)]
    pub age: Option<fsbattery_record::aging::AgeSpec>,
    /// Problem sizes: quick (seconds), standard (the seeds' sizes), full (≥ 2 × RAM files).
    #[arg(long, value_enum, default_value = "quick", help_heading = "Workloads")]
    pub scale: ScaleArg,
    /// Aggregate shown in tables [default: the suite's; S1 used mean, S2 best].
    #[arg(
        long,
        value_enum,
        help_heading = "Repeats and verdicts",
        hide_short_help = true
    )]
    pub aggregate: Option<AggregateArg>,
    /// Rank targets whose filesystem is in RAM (tmpfs, ramfs) against disks too. By default
    /// they are shown as a reference but take no part in the verdicts or the score.
    #[arg(long, help_heading = "Repeats and verdicts", hide_short_help = true)]
    pub rank_reference: bool,
    /// Weigh a workload GROUP W times in the overall composite (repeatable), e.g.
    /// `--weights tree=2`; every workload weighs 1 and the lifecycle rows (`filesystem`: mkfs,
    /// mount, unmount) 0 unless named, so `--weights filesystem=1` adds them.
    #[arg(long = "weights", value_name = "GROUP=W", value_parser = conditions::weight, help_heading = "Repeats and verdicts", hide_short_help = true)]
    pub weights: Vec<(String, f64)>,
    /// Seconds to pause after sync before each timed phase, 0 to 3600 [default: the suite's
    /// `pause` (S1: 10 s) at standard and full scale; quick shortens it to 0.1 s unless the
    /// suite sets `pause_quick`, and says so].
    #[arg(long, value_name = "SECS", value_parser = pause, allow_hyphen_values = true, help_heading = "Conditions", hide_short_help = true)]
    pub pause: Option<f64>,
    /// Page cache before each timed phase: cold (sync, drop caches; fadvise without root),
    /// warm (the phase's files read in first), tool (what the workload's reference tool
    /// does, which every workload declares: tar, cp, rm, dd, bonnie++, PostMark, io500 ...
    /// nothing, fio's invalidate for randomio, FFSB a sync; a suite may set phases cold),
    /// none (sync only, as S1). Residency is measured and recorded either way [default: the
    /// suite's `cache`, else tool].
    #[arg(long, value_enum, help_heading = "Conditions", hide_short_help = true)]
    pub cache: Option<CacheArg>,
    /// Run every workload inside a memory cgroup of SIZE (e.g. 768MiB), which bounds the page
    /// cache as the seed's smaller machine did; `seed`: the suite's seed_memory; `none`: no
    /// limit. Root only; loop targets then use dio=on so the image is not cached twice
    /// [default: at standard scale, the suite's seed_memory where this machine allows it].
    #[arg(
        long,
        value_name = "SIZE|seed|none",
        help_heading = "Conditions",
        hide_short_help = true
    )]
    pub memory: Option<String>,
    /// Output directory [default: ./fsbattery-results/<timestamp>].
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub out: Option<PathBuf>,
    /// Threads for the multithreaded workloads (every workload with a `threads` parameter:
    /// ffsb, randomio, the personalities), 1 to 4096 [default: each workload's own].
    #[arg(long, value_name = "N", value_parser = jobs, allow_hyphen_values = true, help_heading = "Workloads", hide_short_help = true)]
    pub jobs: Option<u32>,
    /// Override a workload parameter, e.g. `--set metadata.files=500` (repeatable);
    /// `--set fio.OPTION=VALUE` sets a fio option in every job of every `fio:FILE` workload.
    #[arg(
        long = "set",
        value_name = "WORKLOAD.PARAM=VALUE",
        help_heading = "Workloads",
        hide_short_help = true
    )]
    pub set: Vec<String>,
    /// Work directory: loop images, mount points, state files, default targets.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "fsbattery-work",
        help_heading = "Targets",
        hide_short_help = true
    )]
    pub workdir: PathBuf,
    /// native: system calls from fsbattery (measures the filesystem); commands: the seeds' own
    /// commands (touch, mkdir, find, rm, dd, cp, cat, split, tar, cpio) as child processes.
    /// Given, it applies to every workload [default: each suite workload's `method`, else
    /// native].
    #[arg(long, value_enum, help_heading = "Conditions", hide_short_help = true)]
    pub method: Option<MethodArg>,
    /// When a made filesystem is made afresh: for each repeat (the seeds' way), for each
    /// workload, or once per target.
    #[arg(
        long,
        value_enum,
        default_value = "per-repeat",
        help_heading = "Conditions",
        hide_short_help = true
    )]
    pub fresh: FreshArg,
    /// The "other disk" the kernel tarball is copied from and back to (S1 007/008); must not
    /// be a target, and the run warns when it shares a target's device; the tarball is
    /// evicted from the page cache before it is read [default: the work directory].
    #[arg(
        long,
        value_name = "DIR",
        help_heading = "Conditions",
        hide_short_help = true
    )]
    pub source_dir: Option<PathBuf>,
    /// Use this real, uncompressed kernel tarball instead of the generated tree.
    #[arg(
        long,
        value_name = "PATH",
        help_heading = "Conditions",
        hide_short_help = true
    )]
    pub tree_tarball: Option<PathBuf>,
    /// Seconds a FUSE daemon (ntfs-3g, exfat, fuse2fs; not zfs-fuse) may answer nothing while it is stopped or the
    /// run waits on it, 1 to 3600; then its connection is aborted (umount -f), the cell fails
    /// and the teardown stops the daemon.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = fuse_timeout, help_heading = "Targets", hide_short_help = true)]
    pub fuse_timeout: u64,
    /// Allow `dev:` targets that hold a filesystem, partition table or other signature.
    /// Everything on them is destroyed.
    #[arg(long, help_heading = "Targets", hide_short_help = true)]
    pub destroy_data: bool,
    /// Progress as one line per target and repeat, as when piped (no bar).
    #[arg(long, short, help_heading = "Output")]
    pub quiet: bool,
    /// Also print the per-phase progress, the CPU % table, each row's verdict, the cell notes.
    ///
    /// Also print, off a terminal, one progress line per phase; after the table, the CPU %
    /// table, each row's verdict in words, the per-cell repeat notes, the seed studies' numbers and labels beside this
    /// run's ("Then and now") and what the block devices wrote; the report files always hold
    /// them.
    #[arg(long, help_heading = "Output")]
    pub verbose: bool,
    /// Do not measure fsbattery's own ceiling (well under 1 s at the start), so no cell is marked
    /// tool-bound.
    #[arg(long, help_heading = "Output", hide_short_help = true)]
    pub no_ceiling: bool,
    /// Add the run to this results store [default: $XDG_DATA_HOME/fsbattery/results.db, else
    /// ~/.local/share/fsbattery/results.db]; the run directory is written first, and a store
    /// that cannot take the run is one line on stderr, never a failed run.
    #[arg(
        long,
        value_name = "PATH",
        conflicts_with = "no_store",
        help_heading = "Output",
        hide_short_help = true
    )]
    pub store: Option<PathBuf>,
    /// Add the run to no results store.
    #[arg(long, help_heading = "Output", hide_short_help = true)]
    pub no_store: bool,
    /// What stdout gets: the table, or another format (json: the run record) alone, with the
    /// table then on stderr (`fsbattery run --format json | jq`).
    #[arg(
        long,
        value_enum,
        default_value = "table",
        help_heading = "Output",
        hide_short_help = true
    )]
    pub format: FormatArg,
    /// Name of this run, shown by `report` and `compare` [default: the directory's name].
    #[arg(
        long,
        value_name = "NAME",
        help_heading = "Output",
        hide_short_help = true
    )]
    pub label: Option<String>,
    /// Also write the run record (results.json) to FILE (as `--export json:FILE`).
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Output",
        hide_short_help = true
    )]
    pub json: Option<PathBuf>,
    /// Also write the results in FORMAT (any of `--format`'s, or xlsx) to FILE, `-` for
    /// stdout (repeatable).
    #[arg(
        long,
        value_name = "FORMAT:FILE",
        help_heading = "Output",
        hide_short_help = true
    )]
    pub export: Vec<ExportArg>,
    /// Print the plan (targets, workloads and parameters, cells, disk and time estimates)
    /// and exit without touching anything.
    #[arg(long, help_heading = "Output")]
    pub dry_run: bool,
    /// Continue the interrupted run in DIR.
    ///
    /// Continue the interrupted run in DIR (SIGINT, SIGTERM, a hang-up, or kill -9 then
    /// `fsbattery cleanup`) with the command line it was started with: finished steps are
    /// kept, missing and failed ones measured. Refused when this binary, the plan or the
    /// machine differ from the run's.
    #[arg(long, value_name = "DIR", exclusive = true, help_heading = "Output")]
    pub resume: Option<PathBuf>,
}

// Numeric flags take hyphen values so that `--repeat -1` reaches these parsers and is refused
// with the range, instead of clap reading `-1` as an unknown flag.

/// A whole number as the user typed it, or the range message.
fn whole(s: &str, range: std::ops::RangeInclusive<i64>) -> Result<i64, String> {
    let bad = || {
        format!(
            "must be a whole number from {} to {}",
            range.start(),
            range.end()
        )
    };
    let t = s.trim();
    if t.is_empty()
        || !t
            .trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    t.parse::<i64>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(bad)
}

/// `--jobs`: 1 to [`params::MAX_THREADS`].
fn jobs(s: &str) -> Result<u32, String> {
    let n = whole(s, 1..=params::MAX_THREADS as i64)?;
    u32::try_from(n).map_err(|e| e.to_string())
}

/// `--pause`: seconds, finite, 0 to [`params::MAX_PAUSE_SECS`].
fn pause(s: &str) -> Result<f64, String> {
    let secs: f64 = s.trim().parse().map_err(|_| {
        format!(
            "must be a number of seconds from 0 to {}",
            params::MAX_PAUSE_SECS
        )
    })?;
    params::pause(secs)?;
    Ok(secs)
}

/// `--fuse-timeout`: whole seconds, 1 to 3600 (0 would abort every daemon that pauses).
fn fuse_timeout(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (1..=3600).contains(&n) => Ok(n),
        _ => Err("must be a whole number of seconds from 1 to 3600".into()),
    }
}

/// `--method` on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum MethodArg {
    /// System calls in process.
    Native,
    /// The seeds' commands as child processes, spawn cost included.
    Commands,
}

impl From<MethodArg> for fsbattery_core::workload::Method {
    fn from(m: MethodArg) -> Self {
        match m {
            MethodArg::Native => Self::Native,
            MethodArg::Commands => Self::Commands,
        }
    }
}

/// `--cache` on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CacheArg {
    /// Sync and drop the page cache before every timed phase.
    Cold,
    /// Read the phase's files in before it.
    Warm,
    /// What the workload's reference tool does (every workload declares it).
    Tool,
    /// Sync only, drop nothing (S1: `sync` and a pause between tests).
    None,
}

impl From<CacheArg> for fsbattery_core::model::CachePolicy {
    fn from(c: CacheArg) -> Self {
        match c {
            CacheArg::Cold => Self::Cold,
            CacheArg::Warm => Self::Warm,
            CacheArg::Tool => Self::Tool,
            CacheArg::None => Self::None,
        }
    }
}

/// `--fresh` on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FreshArg {
    /// A fresh filesystem for each repeat.
    PerRepeat,
    /// A fresh filesystem for each workload run.
    PerWorkload,
    /// One filesystem per target for the whole run.
    Once,
}

impl From<FreshArg> for fsbattery_core::runner::Fresh {
    fn from(f: FreshArg) -> Self {
        match f {
            FreshArg::PerRepeat => Self::PerRepeat,
            FreshArg::PerWorkload => Self::PerWorkload,
            FreshArg::Once => Self::Once,
        }
    }
}

/// Scale on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScaleArg {
    /// Small sizes; the classic suite on one target well under a minute.
    Quick,
    /// The seeds' own sizes: 10,000 files, 1 GiB files.
    Standard,
    /// Standard plus files of at least 2 × RAM where the page cache would be measured.
    Full,
}

/// Aggregate on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AggregateArg {
    /// Arithmetic mean (S1: mean of 3).
    Mean,
    /// Best by the metric's direction (S2: best of 5).
    Best,
    /// Median.
    Median,
}

/// Options of `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run directories written by `fsbattery run` (results.json or, after a crash,
    /// journal.jsonl). Several are reported together in --html and --xlsx, each labelled.
    #[arg(required_unless_present = "then", value_name = "RUN_DIR")]
    pub run_dirs: Vec<PathBuf>,
    /// Show the seed's published tables of preset SUITE alone (its values as printed, each
    /// filesystem's rank per row), no run needed; --format markdown or json for those forms.
    #[arg(long, value_name = "SUITE", conflicts_with_all = ["run_dirs", "html", "xlsx", "export"])]
    pub then: Option<String>,
    /// Write one self-contained HTML report (charts, matrices, environment) to FILE (as
    /// `--export html:FILE`).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write a spreadsheet (one sheet per table, numbers as numbers) to FILE (as `--export
    /// xlsx:FILE`).
    #[arg(long, value_name = "FILE")]
    pub xlsx: Option<PathBuf>,
    /// Write the runs in FORMAT (any of `--format`'s, or xlsx) to FILE, `-` for stdout
    /// (repeatable); html and xlsx show several runs side by side, the others one after the
    /// other. With any of --html, --xlsx or --export, stdout gets no `--format`.
    #[arg(long, value_name = "FORMAT:FILE")]
    pub export: Vec<ExportArg>,
    /// Label of each run in --html/--xlsx, in order [default: the directory names].
    #[arg(long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Aggregate shown [default: the run's].
    #[arg(long, value_enum)]
    pub aggregate: Option<AggregateArg>,
    /// Rank targets whose filesystem is in RAM (tmpfs, ramfs) against disks too. By default
    /// they are shown as a reference but take no part in the verdicts or the score.
    #[arg(long)]
    pub rank_reference: bool,
}

/// Formats of `compare`'s own output (not the report formats of `run` and `report`).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CompareFormat {
    /// The terminal matrix.
    Table,
    /// Markdown with the best value of each row in bold.
    Markdown,
    /// One row per sample, with its cell's n, mean, median, CI, verdict and p.
    Csv,
    /// The run record, each cell with its n, mean, median, CI, verdict and p beside the samples.
    Json,
}

impl From<ScaleArg> for fsbattery_core::params::Scale {
    fn from(s: ScaleArg) -> Self {
        match s {
            ScaleArg::Quick => Self::Quick,
            ScaleArg::Standard => Self::Standard,
            ScaleArg::Full => Self::Full,
        }
    }
}

impl From<AggregateArg> for fsbattery_stats::Aggregate {
    fn from(a: AggregateArg) -> Self {
        match a {
            AggregateArg::Mean => Self::Mean,
            AggregateArg::Best => Self::Best,
            AggregateArg::Median => Self::Median,
        }
    }
}

/// `run --help`'s examples and target specs. The filesystems a loop image can hold come from
/// the kinds table at start-up, so a kind added there is listed here too.
fn run_after_help() -> String {
    RUN_AFTER_HELP.replace("{FSTYPES}", &fsbattery_core::targets::loop_fstypes())
}

const RUN_AFTER_HELP: &str = "Examples:\n  \
        fsbattery run                                   # classic's workloads, native, quick scale\n  \
        fsbattery run --suite piszcz2006                # S1's workloads and its conditions\n  \
        fsbattery run --target dir:/mnt/a --target dir:/mnt/b --repeat 3\n  \
        fsbattery run --workload metadata,split --scale standard --pause 10\n  \
        fsbattery run --suite my-suite.toml --set stream.size=256MiB --out results/today\n  \
        fsbattery run --target tmpfs --format json | jq '.cells | length'   # table on stderr\n  \
        fsbattery run --dry-run                         # the plan, disk and time estimates\n\n\
        Target specs (see `fsbattery list targets`):\n  \
        dir:PATH[,label=NAME]         an existing, writable directory (no filesystem made)\n  \
        tmpfs[:size=SIZE]             a private tmpfs\n  \
        loop:FSTYPE[,size=SIZE][,mkfs=OPTS][,mount=OPTS]\n                                \
        a fresh FSTYPE on a sparse loop image:\n                                \
        {FSTYPES}\n  \
        loop:btrfs,devices=4,profile=raid10   loop:zfs,devices=6,layout=mirror\n  \
        loop:ext4,journal=external[,journal_size=SIZE]   loop:xfs,log=external\n  \
        dev:/dev/NAME                 a whole, empty block device (--destroy-data to overwrite)\n\n\
        With no --target: as root with loop devices, ext2 ext3 ext4 xfs btrfs tmpfs (those\n\
        this machine can make; the others are named with why and the fix before the first\n\
        mkfs, and `fsbattery setup` installs their tools); otherwise a fresh directory.\n\n\
        Exit status: 0 all cells measured, 2 bad input, 3 some cell failed, 7 a target's own\n\
        mkfs=/mount= options refused by a trial mkfs and mount before the run, 130 interrupted.";

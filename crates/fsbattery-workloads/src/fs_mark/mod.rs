//! `fs_mark` and `fs_mark:ARGS`: fs_mark 3.3 (Ric Wheeler, EMC 2003; Debian's `fsmark`), the
//! file-creation benchmark the XFS and ext4 maintainers and the kernel test robot run, natively.
//!
//! `fs_mark:ARGS` takes fs_mark's own command line (`fs_mark:-n 1000 -s 4096 -S 1 -L 3`), so
//! a user pastes what they run; it is parsed when the plan is built ([`args`]: an option
//! fs_mark lacks, a value it refuses, an absolute `-d`, are refused then in one line) and the
//! workload is interned under its name for the rest of the process, as `fio:FILE` is. Plain
//! `fs_mark` runs fs_mark's defaults with `--set fs_mark.KEY=VALUE` parameters, built into the
//! same command line and parsed by the same parser, so both take one path.
//!
//! What runs is fs_mark's loop (`run.rs`); the figures are fs_mark's ([`metrics`]): Files/sec
//! (the headline, `files_per_sec`) and App Overhead per loop, and the per-call averages its
//! verbose table prints. fs_mark does nothing to the page cache, nor does this workload under
//! `--cache tool`; `-d` directories are made inside the target's scratch directory.

pub mod args;
pub mod metrics;
mod run;

pub use run::Stats;

use super::blockio::{bytes, flag};
use super::fileset::count;
use super::{Scratch, Workload, WorkloadCtx};
use crate::error::{UsageError, WorkloadError};
use crate::model::MetricSpec;
use crate::settings::{Bytes, NoSettings};
use crate::TypedWorkload;
use args::Config;

/// How an fs_mark command-line workload's name starts.
pub const PREFIX: &str = "fs_mark:";

crate::settings! {
    /// Plain `fs_mark`'s settings: fs_mark's options by name.
    pub struct Plain {
        /// `files`.
        pub files: u64 = count("files", "-n: files per thread per loop", 1000, 10_000).range(1, 1_000_000),
        /// `size`.
        pub size: Bytes = bytes("size", "-s: bytes per file", 51_200, 51_200, false).range(0, 1 << 30),
        /// `sync`.
        pub sync: u64 = count(
            "sync",
            "-S: sync method (0 none, 1 fsync before close, 2 sync + 1 fsync, 3 post reverse fsync, \
             4 sync + post reverse, 5 post fsync, 6 sync + post fsync)",
            1,
            1,
        )
        .range(0, 6),
        /// `loops`.
        pub loops: u64 = count(
            "loops",
            "-L: loops (files are kept between loops, as in fs_mark)",
            1,
            1,
        )
        .range(1, 1000),
        /// `threads`.
        pub threads: u64 = count("threads", "-t: threads, all in one directory", 1, 1).range(1, 64),
        /// `subdirs`.
        pub subdirs: u64 = count("subdirs", "-D: subdirectories (0: none)", 0, 0).range(0, 4096),
        /// `per_subdir`.
        pub per_subdir: u64 = count(
            "per_subdir",
            "-N: files per subdirectory in turn (0: fs_mark's time hash, needs subdirs)",
            0,
            0,
        )
        .range(0, 1_000_000),
        /// `write_size`.
        pub write_size: Bytes = bytes("write_size", "-w: bytes per write() call", 16_384, 16_384, false).range(1, 1 << 20),
        /// `name_len`.
        pub name_len: u64 = count("name_len", "-p: bytes per file name", 40, 40).range(1, 128),
        /// `rand_len`.
        pub rand_len: u64 = count(
            "rand_len",
            "-r: random bytes at the end of each name",
            24,
            24,
        )
        .range(0, 128),
        /// `keep`.
        pub keep: bool = flag("keep", "-k: keep the files after each loop", 0),
    }
}

/// Plain `fs_mark` (`--set` parameters).
pub struct FsMark;

/// The command line plain `fs_mark` runs for `p`.
pub fn args_of(c: &Plain) -> String {
    let mut a = format!(
        "-d test -n {} -s {} -S {} -t {} -w {} -p {} -r {}",
        c.files,
        c.size.get(),
        c.sync,
        c.threads,
        c.write_size.get(),
        c.name_len,
        c.rand_len,
    );
    if c.loops > 1 {
        a += &format!(" -L {}", c.loops);
    }
    if c.subdirs > 0 {
        a += &format!(" -D {}", c.subdirs);
        if c.per_subdir > 0 {
            a += &format!(" -N {}", c.per_subdir);
        }
    }
    if c.keep {
        a += " -k";
    }
    a
}

fn config_of(c: &Plain) -> Result<Config, WorkloadError> {
    args::parse(&args_of(c)).map_err(|e| WorkloadError::Failed(format!("fs_mark: {e}")))
}

const SUMMARY: &str = "fs_mark 3.3 file creation: each thread creates -n files of -s bytes \
     (open, write in -w pieces, the -S sync method's fsync/sync, close), per loop; Files/sec \
     (fs_mark's figure), App Overhead and per-call µs. Or paste fs_mark's own command line: \
     --workload 'fs_mark:-n 1000 -s 4096 -S 1 -L 3' (see docs/src/fs_mark.md).";

impl TypedWorkload for FsMark {
    type Settings = Plain;
    fn name(&self) -> &'static str {
        "fs_mark"
    }
    fn summary(&self) -> &'static str {
        SUMMARY
    }
    fn metrics(&self, c: &Plain) -> Vec<MetricSpec> {
        config_of(c).map(|c| metrics::specs(&c)).unwrap_or_default()
    }
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn check(&self, c: &Plain) -> Result<(), WorkloadError> {
        config_of(c).map(drop)
    }
    fn needs(&self, c: &Plain) -> super::needs::Needs {
        config_of(c)
            .map(|c| needs(&c, "files, size, loops and threads"))
            .unwrap_or_default()
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Plain) -> Result<(), WorkloadError> {
        run_config(ctx, &config_of(c)?)
    }
}

/// `fs_mark:ARGS`, parsed.
#[derive(Debug)]
pub struct FsMarkArgs {
    name: &'static str,
    summary: &'static str,
    config: Config,
}

/// Parse `name` (`fs_mark:ARGS`) into its workload, or the one-line refusal (exit 2).
pub fn build(name: &str) -> Result<Box<dyn Workload>, UsageError> {
    let text = name.strip_prefix(PREFIX).unwrap_or(name);
    let config = args::parse(text).map_err(|e| UsageError::Invalid(format!("{name}: {e}")))?;
    let summary = format!("fs_mark 3.3 run as `fs_mark {}`", args::canonical(&config));
    Ok(Box::new(FsMarkArgs {
        name: Box::leak(name.to_string().into_boxed_str()),
        summary: Box::leak(summary.into_boxed_str()),
        config,
    }))
}

impl TypedWorkload for FsMarkArgs {
    type Settings = NoSettings;
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn metrics(&self, _: &NoSettings) -> Vec<MetricSpec> {
        metrics::specs(&self.config)
    }
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn needs(&self, _: &NoSettings) -> super::needs::Needs {
        needs(&self.config, "-n, -s, -L and -t in the command line")
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, _: &NoSettings) -> Result<(), WorkloadError> {
        run_config(ctx, &self.config)
    }
}

/// The most the run holds at once: every loop's files when they are kept (one loop's with
/// -F, which then fills what is left), one loop's otherwise, plus the directories.
fn needs(c: &Config, set_by: &'static str) -> super::needs::Needs {
    let per_loop = u64::from(c.files) * u64::from(c.threads);
    let held = if c.keep && !c.fill {
        per_loop * u64::from(c.loops)
    } else {
        per_loop
    };
    let dirs = c.dir_list().len() as u64 * (1 + u64::from(c.subdirs));
    let bytes = super::needs::files_bytes(held, u64::from(c.size));
    super::needs::Needs::space(bytes, held + dirs + 1, set_by)
}

/// Every loop, then the figures fs_mark prints for them.
fn run_config(ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
    let scratch = Scratch::create(ctx.root(), "fs_mark")?;
    let root = scratch.path().to_path_buf();
    let (loops, t) = ctx.phase(&[scratch.path()], || {
        let mut loops = Vec::new();
        while c.fill || loops.len() < c.loops as usize {
            if !run::room_for_loop(c, &root)? {
                if c.fill && !loops.is_empty() {
                    break;
                }
                return Err(WorkloadError::Failed(format!(
                    "fs_mark: insufficient free space in {} to create {} new files of {} \
                     bytes: give the target more room or lower -n/-s",
                    root.display(),
                    c.files,
                    c.size
                )));
            }
            loops.push(run::one_loop(c, &root)?);
        }
        Ok(loops)
    })?;
    for (name, v) in metrics::values(c, &loops) {
        ctx.record(&name, &t, v);
    }
    Ok(())
}

#[cfg(test)]
mod tests;

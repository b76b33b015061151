//! `fio:FILE`: a fio job file as a workload, run by fsbattery's own engine on each target's
//! fresh filesystem, inside the target's folder, with fio's metrics under fio's names
//! ([`metrics`]). The file is read, resolved and checked when the plan is built (the workload
//! is then interned under its name for the rest of the process, so the runner, the journal
//! and the reports find it as they find a built-in); an option or engine fsbattery does not
//! cover is refused then, in one line naming it and its line.
//!
//! `--set fio.OPTION=VALUE` applies to every job of every job file of the run
//! ([`set_overrides`], called once by the plan before any job file is read).
//!
//! Layers: [`ini`] (fio's syntax), [`options`] (the covered options, typed), [`jobs`] (jobs,
//! groups, files), `rand` (offsets), `source` (one clone's operations), `run` (layout
//! and a group's clones), [`metrics`] (names and values).

pub mod ini;
pub mod jobs;
pub mod metrics;
pub mod options;
mod rand;
mod run;
mod source;
mod units;

use super::{Scratch, Workload, WorkloadCtx};
use crate::error::{UsageError, WorkloadError};
use crate::model::MetricSpec;
use crate::settings::NoSettings;
use crate::TypedWorkload;
use jobs::JobFile;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How a job-file workload's name starts (declared in the shared leaf, which the space and
/// needs messages read without importing this module).
pub use super::shared::needs::FIO_PREFIX as PREFIX;

/// Job files shipped with fsbattery (the presets' own), by the name a suite gives them.
pub const SHIPPED: &[(&str, &str)] = &[
    ("oltp.fio", include_str!("../../../../suites/fio/oltp.fio")),
    ("wal.fio", include_str!("../../../../suites/fio/wal.fio")),
    (
        "vm-image.fio",
        include_str!("../../../../suites/fio/vm-image.fio"),
    ),
];

/// The run's `--set fio.OPTION=VALUE`s.
static OVERRIDES: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// A job file as a workload.
#[derive(Debug)]
pub struct FioJobs {
    name: &'static str,
    summary: &'static str,
    set_by: &'static str,
    file: JobFile,
}

/// Set the run's `--set fio.OPTION=VALUE` overrides (before any job file is read: files
/// read earlier are read again).
pub fn set_overrides(o: Vec<(String, String)>) {
    *OVERRIDES.lock().unwrap_or_else(|e| e.into_inner()) = o;
    super::prefixed::forget(PREFIX);
}

/// Read, resolve and check the job file of `name` (`fio:FILE`), or the one-line refusal (kept
/// by [`super::prefixed`]).
pub fn build(name: &str) -> Result<Box<dyn Workload>, UsageError> {
    let spec = name.strip_prefix(PREFIX).unwrap_or(name).trim();
    let overrides = OVERRIDES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let file = read(spec, &overrides).map_err(|e| UsageError::Invalid(format!("{name}: {e}")))?;
    let jobs = file.jobs().count();
    let summary = format!(
        "fio job file {spec}: {jobs} job{} in {} group{}, run by fsbattery's engine",
        if jobs == 1 { "" } else { "s" },
        file.groups.len(),
        if file.groups.len() == 1 { "" } else { "s" },
    );
    Ok(Box::new(FioJobs {
        name: Box::leak(name.to_string().into_boxed_str()),
        summary: Box::leak(summary.into_boxed_str()),
        set_by: Box::leak(format!("size/filesize and nrfiles in {spec}").into_boxed_str()),
        file,
    }))
}

/// The text of job file `spec` (a path, else a shipped name), resolved.
pub fn read(spec: &str, overrides: &[(String, String)]) -> Result<JobFile, String> {
    let path = Path::new(spec);
    let text = match (path.is_file(), SHIPPED.iter().find(|s| s.0 == spec)) {
        (false, Some((_, text))) => text.to_string(),
        _ => std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the job file: {e} (give a fio job file's path)"))?,
    };
    parse(&text, spec, &SystemHost, overrides)
}

/// Parse and resolve job-file `text` called `file` (pure but for `host`): what the fuzz
/// target and the tests run.
pub fn parse(
    text: &str,
    file: &str,
    host: &dyn ini::Host,
    overrides: &[(String, String)],
) -> Result<JobFile, String> {
    let sections = ini::parse(text, file, host)?;
    jobs::resolve(&sections, overrides)
}

/// The host's figures, environment and files.
struct SystemHost;

impl ini::Host for SystemHost {
    fn ncpus(&self) -> u64 {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
    }
    fn mb_memory(&self) -> u64 {
        crate::host::ram_bytes() >> 20
    }
    fn pagesize(&self) -> u64 {
        // SAFETY: sysconf has no preconditions.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(p).unwrap_or(4096)
    }
    fn env(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
}

impl TypedWorkload for FioJobs {
    type Settings = NoSettings;
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn metrics(&self, _: &NoSettings) -> Vec<MetricSpec> {
        let n = self.file.groups.len();
        self.file
            .groups
            .iter()
            .flat_map(|g| metrics::names_for(&metrics::Shape::of(g, n)))
            .collect()
    }
    /// fio's `invalidate=1` (its default): the job's files are evicted before each group.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Invalidate
    }
    fn reference(&self) -> &'static str {
        "fio"
    }
    fn needs(&self, _: &NoSettings) -> super::needs::Needs {
        let files = self.file.files();
        let bytes: u64 = files.values().fold(0u64, |a, s| a.saturating_add(*s));
        let dirs: std::collections::BTreeSet<&Path> =
            files.keys().filter_map(|p| p.parent()).collect();
        let mut n =
            super::needs::Needs::space(bytes, (files.len() + dirs.len()) as u64, self.set_by);
        let jobs = || self.file.jobs();
        n.uring = jobs().any(|j| run::engine_of(&j.opts).entry().caps.queued);
        let sizes: Vec<(&'static str, u64)> = jobs()
            .filter(|j| j.opts.direct)
            .flat_map(|j| j.opts.bs.iter().flat_map(|b| [b.bounds().0, b.bounds().1]))
            .map(|v| ("bs", v))
            .collect();
        if !sizes.is_empty() {
            n.direct = Some(super::needs::Direct {
                fallback: None,
                off: "0",
                sizes,
            });
        }
        n
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, _: &NoSettings) -> Result<(), WorkloadError> {
        let scratch = Scratch::create(ctx.root(), "fio")?;
        let groups = self.file.groups.len();
        for (gi, g) in self.file.groups.iter().enumerate() {
            run::lay_out(scratch.path(), g)?;
            let paths: Vec<PathBuf> = g
                .jobs
                .iter()
                .filter(|j| j.opts.invalidate)
                .flat_map(|j| j.files.iter().flatten().map(|f| scratch.join(&f.0)))
                .filter(|p| p.exists())
                .collect();
            let evict: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
            let shape = metrics::Shape::of(g, groups);
            ctx.next_phase(&format!("{}iops", shape.prefix));
            let seed = 0xf10_5eed ^ gi as u64;
            let (res, t) = ctx.phase(&evict, || run::run_group(scratch.path(), g, seed))?;
            for (name, v) in metrics::values(&shape, &res) {
                ctx.record(&name, &t, v);
            }
            for j in g.jobs.iter().filter(|j| j.opts.unlink) {
                for (p, _) in j.files.iter().flatten() {
                    let _ = std::fs::remove_file(scratch.join(p));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;

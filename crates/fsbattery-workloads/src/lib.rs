//! fsbattery-workloads — what is measured: one trait, one file (or folder, with its helpers)
//! per workload, one registry.
//!
//! A workload runs in its own scratch directory on the target and reports its metrics through
//! [`WorkloadCtx::phase`], which quiesces the machine (sync, drop caches, pause) before each
//! timed phase, exactly as the seeds did between tests. Workloads never format output and
//! never decide how results are stored; they poll the interruption flag and clean up their
//! files on every exit path (the scratch directory is a guard).
//!
//! What it may use: the foundation (`fsbattery-base`) and the filesystem lifecycle
//! (`fsbattery-targets`: a device's block counters, the guard sessions a database server is
//! recorded in), both imported at this crate's root so `crate::error`, `crate::settings`,
//! `crate::targets` read as in the rest of fsbattery, and the leaves (`fsbattery-engine`,
//! `fsbattery-record`, `fsbattery-stats`). It never names the plan or the runner, which sit
//! above it in `fsbattery-core` and reach the workloads through [`registry`] and [`find`].
//! `dataset` (the kernel trees and generated sources the tree workloads read) lives here too.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

use fsbattery_base::{
    cache, choice, collective, engine, error, host, interrupt, measure, model, notice, packages,
    params, process, regular_files, residency, settings, units,
};
use fsbattery_targets as targets;

#[macro_use]
mod register;

pub mod dataset;
pub mod fio;
pub mod prefixed;
mod shared;
mod typed;

// The shared pieces keep the paths every workload names them by (`super::blockio`, ...).
use shared::{app_cmd, blockio, ctx, fileset, fsops, io, quantile, scratch, specs};
pub use shared::{command, layout, needs};

pub use ctx::{Method, WorkloadCtx};
pub use iozone::test_of_report;
pub use pgbench::set_workdir;
pub use scratch::Scratch;

pub use typed::TypedWorkload;

use crate::dataset::DatasetSpec;
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::params::ParamSpec;
use crate::settings::Resolved;

/// A benchmark workload as the registry, the plan and the runner hold it: its values in their
/// erased form. Workloads implement [`TypedWorkload`] and get
/// this by its blanket impl.
pub trait Workload: Sync {
    /// Registry name, used on the command line and in suite files.
    fn name(&self) -> &'static str;
    /// One line: what it does and which seed rows it reproduces.
    fn summary(&self) -> &'static str;
    /// Its parameters with defaults per scale.
    fn params(&self) -> &'static [ParamSpec];
    /// The metrics a run with `params` produces, in report order.
    fn metrics(&self, params: &Resolved) -> Vec<MetricSpec>;
    /// The source dataset this workload reads (kernel trees), prepared once per run by the
    /// runner before any target is touched; `None` for workloads that need none.
    fn dataset(&self, _params: &Resolved) -> Option<DatasetSpec> {
        None
    }
    /// A source other than a kernel tree that it reads (a git repository, a C project),
    /// generated once per run on the source disk before any target is touched, like
    /// [`Self::dataset`]; `None` for workloads that need none.
    fn generated(&self, _params: &Resolved) -> Option<crate::dataset::Generated> {
        None
    }
    /// The programs it runs as child processes with `--method commands` (checked when the
    /// plan is built; `fsbattery setup --method commands` installs them).
    fn commands(&self) -> &'static [&'static str] {
        &[]
    }
    /// Whether it runs [`Self::commands`] whatever the method (an application such as git or
    /// make has no native form): the plan then checks them and `fsbattery setup` installs
    /// them for every run that names it.
    fn always_commands(&self) -> bool {
        false
    }
    /// The versions of the programs it runs, one line each ("git version 2.39.5"), read
    /// once when the plan is built and kept in the run's settings; empty for workloads that
    /// run none.
    fn tool_versions(&self) -> Vec<String> {
        Vec::new()
    }
    /// Programs it runs whatever the method (a database server), which `fsbattery setup`
    /// installs; [`Self::unavailable`] says when they are missing.
    fn programs(&self) -> &'static [&'static str] {
        &[]
    }
    /// Why it cannot run on this machine at all — a server or client program it drives is
    /// not installed — probed once when the plan is built, which then leaves it out with this
    /// reason (the fix included); `None` when it can run.
    fn unavailable(&self) -> Option<String> {
        None
    }
    /// What it runs that is not fsbattery — versions of the database or tool and the
    /// settings fsbattery writes for it — as (name, value) pairs, recorded in the run's
    /// settings when the plan is built. Empty for workloads that are fsbattery's own code.
    fn software(&self, _params: &Resolved) -> Vec<(String, String)> {
        Vec::new()
    }
    /// What the reference tool this workload follows does to the page cache before each
    /// timed phase (`run --cache tool`, the default). No default: a workload that forgot to
    /// say would silently run cold, which no seed's tool did.
    fn tool_cache(&self) -> crate::cache::ToolCache;
    /// The tool whose measurements it follows, named in `fsbattery list workloads` ("" when
    /// it follows none).
    fn reference(&self) -> &'static str {
        ""
    }
    /// Whether it runs as many MPI ranks at once, its phases in step across them (see
    /// [`crate::collective`]); the others run on one process, and `run` under mpirun refuses
    /// them.
    fn runs_on_ranks(&self) -> bool {
        false
    }
    /// Relations between parameters that no single range expresses (size_low ≤ size_high, a
    /// size of at least one block), checked when the plan is built so an impossible
    /// combination is refused before any target is made. Pure: no I/O. The message names the
    /// parameters and says what to change.
    fn check(&self, _params: &Resolved) -> Result<(), WorkloadError> {
        Ok(())
    }
    /// What a run with `params` needs from its target — O_DIRECT and the sizes it moves,
    /// io_uring, the most bytes and inodes it holds at once — checked against every target's
    /// capabilities when the plan is built (see [`needs::check`]). Pure: no I/O.
    fn needs(&self, params: &Resolved) -> needs::Needs;
    /// What a run with `params` reads beyond its parameters, for the run's settings (a
    /// tool's command line, a loadfile's path and checksum); `None` when nothing.
    fn recorded(&self, _params: &Resolved) -> Option<String> {
        None
    }
    /// Run once (one repeat) in `ctx`, recording every metric through it.
    fn run(&self, ctx: &mut WorkloadCtx<'_>, params: &Resolved) -> Result<(), WorkloadError>;
}

workloads! {
    mod metadata::Metadata,
    mod tree::Tree,
    mod stream::Stream,
    mod split::Split,
    tree::Tree4,
    mod dd::Dd,
    mod bigfile::BigFile,
    mod randomio::RandomIo,
    mod bonnie::Bonnie,
    mod iozone::Iozone,
    mod ffsb::Ffsb,
    mod postmark::POSTMARK,
    postmark::POSTMARK_1,
    postmark::POSTMARK_10,
    postmark::POSTMARK_100,
    mod personality::FILESERVER,
    personality::VARMAIL,
    personality::WEBSERVER,
    mod io500::Io500,
    mod git::Git,
    mod build::Build,
    pub mod dbench::DBENCH,
    pub mod fs_mark::FsMark,
    mod sqlite::Sqlite,
    mod pgbench::Pgbench,
}

/// Every name prefix fsbattery knows (see [`prefixed`]). A new one is one line.
pub const PREFIXES: &[prefixed::Prefix] = &[
    prefixed::Prefix {
        prefix: fio::PREFIX,
        build: fio::build,
    },
    prefixed::Prefix {
        prefix: dbench::PREFIX,
        build: dbench::build,
    },
    prefixed::Prefix {
        prefix: fs_mark::PREFIX,
        build: fs_mark::build,
    },
];

/// The workloads that run as many MPI ranks ([`Workload::runs_on_ranks`]), in listing order.
pub fn rank_workloads() -> impl Iterator<Item = &'static dyn Workload> {
    registry().iter().copied().filter(|w| w.runs_on_ranks())
}

/// Look a workload up by name: a registered one, or a job file (`fio:FILE`), read on first
/// use (an unreadable or refused job file is `None`; [`find_or_refuse`] says why).
pub fn find(name: &str) -> Option<&'static dyn Workload> {
    if let Some(w) = prefixed::load(name) {
        return w.ok();
    }
    registry().iter().copied().find(|w| w.name() == name)
}

/// What a name in a suite row, the plan or the journal stands for: a registered workload, or a
/// participant the runner measures itself around each filesystem it makes (the lifecycle,
/// [`fsbattery_record::lifecycle::BuiltIn`]). One lookup, [`participant`], for both.
#[derive(Clone, Copy)]
pub enum Participant {
    /// A workload of the registry: it runs when the plan lists it.
    Workload(&'static dyn Workload),
    /// Measured at setup and teardown: it runs whenever a target makes a filesystem.
    BuiltIn(&'static fsbattery_record::lifecycle::BuiltIn),
}

impl Participant {
    /// The metrics it produces with `params` (a built-in has no parameters).
    pub fn metrics(&self, params: &Resolved) -> Vec<MetricSpec> {
        match self {
            Participant::Workload(w) => w.metrics(params),
            Participant::BuiltIn(b) => (b.metrics)(),
        }
    }

    /// Its parameters (none for a built-in).
    pub fn params(&self) -> &'static [ParamSpec] {
        match self {
            Participant::Workload(w) => w.params(),
            Participant::BuiltIn(_) => &[],
        }
    }

    /// Whether it runs with these planned workloads: a workload when listed, a built-in always
    /// (its rows exist whenever a target makes a filesystem; renderers hide them otherwise).
    pub fn runs_with<'a>(&self, mut planned: impl Iterator<Item = &'a str>) -> bool {
        match self {
            Participant::Workload(w) => planned.any(|n| n == w.name()),
            Participant::BuiltIn(_) => true,
        }
    }

    /// How an error message names its rows.
    pub fn rows_subject(&self) -> String {
        match self {
            Participant::Workload(w) => format!("workload '{}' has", w.name()),
            Participant::BuiltIn(b) => format!("the built-in '{}' rows have", b.name),
        }
    }
}

/// The workload or built-in participant called `name`.
pub fn participant(name: &str) -> Option<Participant> {
    match fsbattery_record::lifecycle::builtin(name) {
        Some(b) => Some(Participant::BuiltIn(b)),
        None => find(name).map(Participant::Workload),
    }
}

/// Look a workload up by name, or the one-line error that lists the known names (exit 2).
pub fn find_or_refuse(name: &str) -> Result<&'static dyn Workload, crate::error::UsageError> {
    if let Some(w) = prefixed::load(name) {
        return w;
    }
    find(name).ok_or_else(|| crate::error::UsageError::Unknown {
        kind: "workload",
        name: name.into(),
        choices: names(),
        list: "workloads",
    })
}

/// Comma-separated names, for error messages.
pub fn names() -> String {
    registry()
        .iter()
        .map(|w| w.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sleep for `d`, waking every 100 ms to fail with [`WorkloadError::Interrupted`] once a
/// signal came (a long pause must not hold up Ctrl-C).
pub(crate) fn sleep_interruptibly(d: std::time::Duration) -> Result<(), WorkloadError> {
    let step = std::time::Duration::from_millis(100);
    let mut left = d;
    loop {
        if crate::interrupt::requested() {
            return Err(WorkloadError::Interrupted);
        }
        if left.is_zero() {
            return Ok(());
        }
        let d = left.min(step);
        std::thread::sleep(d);
        left -= d;
    }
}

/// Fail with [`WorkloadError::Interrupted`] once a signal came, reading the flag as
/// [`crate::interrupt::due`] does (every `POLL_EVERY` iterations).
#[inline]
pub(crate) fn poll(i: u64) -> Result<(), WorkloadError> {
    if crate::interrupt::due(i) {
        Err(WorkloadError::Interrupted)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::cache::{CacheMode, ToolCache};
    use crate::model::{CachePolicy, CachePrep};

    /// The reference tools of the seeds' tar, cpio, cp, cat, rm, dd and split rows drop
    /// nothing, nor does the io500 app between its phases: under `tool` their phases find the
    /// cache as the previous phase left it, and a file the phase reads stays resident.
    #[test]
    fn tool_workloads_that_drop_nothing_leave_the_cache_alone() {
        for name in [
            "metadata", "tree", "tree4", "stream", "split", "dd", "bigfile", "io500",
        ] {
            let w = find(name).unwrap();
            assert_eq!(w.tool_cache(), ToolCache::Nothing, "{name}");
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, vec![1u8; 1 << 20]).unwrap();
        let mode = CacheMode {
            policy: CachePolicy::Tool,
            tool: find("io500").unwrap().tool_cache(),
        };
        assert_eq!(mode.effective(), CachePolicy::Tool);
        assert_eq!(mode.prepare(&[&file]), CachePrep::Nothing);
    }

    use super::*;
    use crate::params::{ParamKind, Scale, MAX_SIZE};

    /// One lookup for workloads and the built-in lifecycle: a workload runs when planned, the
    /// lifecycle always, with its declared metrics; no workload may take a built-in's name
    /// (the built-in would shadow it).
    #[test]
    fn participants_are_workloads_and_the_lifecycle() {
        let fs = participant("filesystem").expect("the lifecycle is a participant");
        assert!(matches!(fs, Participant::BuiltIn(_)) && fs.params().is_empty());
        let names = |p: Participant| -> Vec<String> {
            let m = p.metrics(&crate::settings::defaults_for(p.params()));
            m.into_iter().map(|m| m.name).collect()
        };
        assert_eq!(names(fs), ["mkfs", "mount", "avail_mib", "umount"]);
        assert!(fs.runs_with(std::iter::empty()));
        let dd = participant("dd").expect("dd is a workload");
        assert!(!dd.runs_with(["metadata"].into_iter()));
        assert!(dd.runs_with(["metadata", "dd"].into_iter()));
        assert!(participant("nosuch").is_none());
        for w in registry() {
            assert!(
                fsbattery_record::lifecycle::builtin(w.name()).is_none(),
                "{}",
                w.name()
            );
        }
    }

    /// Defaults are not checked at run time (overrides are): a default outside its own range
    /// would reach a workload unchecked.
    #[test]
    fn every_default_lies_in_its_range() {
        for w in registry() {
            for p in w.params() {
                assert!(p.min <= p.max, "{}.{}", w.name(), p.name);
                for scale in [Scale::Quick, Scale::Standard, Scale::Full] {
                    let v = p.default_at(scale, 64 << 30);
                    assert!(
                        (p.min..=p.max).contains(&v),
                        "{}.{} = {v} at {scale} is outside {}",
                        w.name(),
                        p.name,
                        p.range_text()
                    );
                }
                if let ParamKind::Choice(names) = p.kind {
                    assert_eq!((p.min, p.max), (0, names.len() as u64 - 1), "{}", p.name);
                }
            }
        }
    }

    /// Every workload declares the room it needs at every scale (the loop image size and the
    /// plan's space check read it), within what a target can hold.
    #[test]
    fn every_workload_declares_the_room_it_needs() {
        for w in registry() {
            for scale in [Scale::Quick, Scale::Standard, Scale::Full] {
                let none = std::collections::BTreeMap::new();
                let p =
                    crate::settings::resolve(w.name(), w.params(), scale, 8 << 30, &none).unwrap();
                let n = w.needs(&p);
                let what = format!("{} at {scale}: {n:?}", w.name());
                assert!(
                    n.bytes > 0 && n.inodes > 0 && !n.set_by.is_empty(),
                    "{what}"
                );
                assert!(n.bytes <= MAX_SIZE, "{what}");
            }
        }
    }

    /// Bounded ranges are what let workloads multiply and cast parameters without overflow:
    /// sizes stay within MAX_SIZE, counts within u32 (seeds excepted: any u64 is a seed).
    #[test]
    fn every_range_is_bounded() {
        for w in registry() {
            for p in w.params() {
                let cap = match p.kind {
                    ParamKind::Bytes => MAX_SIZE,
                    _ if p.name == "seed" => u64::MAX,
                    _ => u64::from(u32::MAX),
                };
                assert!(p.max <= cap, "{}.{}: {}", w.name(), p.name, p.range_text());
            }
        }
    }

    /// Malformed and out-of-range text is refused for every parameter with one line that
    /// names the parameter and the value as written.
    #[test]
    fn every_parameter_refuses_bad_text_in_one_line() {
        let bad = [
            "",
            " ",
            "-1",
            "nan",
            "inf",
            "-inf",
            "1e300",
            "18446744073709551616",
            "99999999999999999999999",
            "12XB",
            "1.5",
            "0x10",
            "1 2",
            "1K1",
        ];
        for w in registry() {
            for p in w.params() {
                let mut values: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
                if p.min > 0 {
                    values.push((p.min - 1).to_string());
                }
                if p.max < u64::MAX {
                    values.push((p.max as u128 + 1).to_string());
                }
                for v in values {
                    let e = p
                        .parse(w.name(), &v)
                        .expect_err(&format!("{}.{}={v:?} accepted", w.name(), p.name))
                        .to_string();
                    assert!(e.contains(&format!("{}.{}={v}", w.name(), p.name)), "{e}");
                    assert_eq!(e.lines().count(), 1, "{e}");
                }
                for ok in [p.min, p.max] {
                    let text = match p.kind {
                        ParamKind::Choice(_) => p.show(ok),
                        _ => ok.to_string(),
                    };
                    assert_eq!(p.parse(w.name(), &text).unwrap(), ok, "{}", p.name);
                }
            }
        }
    }
}

//! `build`: a build directory's filesystem work, with the real compiler — a C project
//! generated once per run on the source disk ([`project`]) is copied onto the target
//! (untimed), then `make -jN` and `make clean` are timed.
//!
//! The compiler's CPU is kept apart from the wall time: every phase's CPU is read from
//! `RUSAGE_CHILDREN` (make waits for each gcc, fsbattery for make), recorded with the
//! `make` sample and as its own row, `compile_cpu` (user + system seconds of make and
//! everything it ran), so a filesystem that makes the build wait shows as wall time the CPU
//! does not explain. make and gcc run in a clean environment (`app_cmd`): no `MAKEFLAGS`,
//! `CFLAGS` or `CC` from the host.
//!
//! Invariants: `make` must leave one object per source (counted, untimed) and `make clean`
//! none, or the cell fails; the copy lives in the scratch directory, removed on every path.

mod project;

pub use project::ProjectPlan;

use super::app_cmd::{self, CleanEnv};
use super::{Scratch, WorkloadCtx};
use crate::dataset::{DatasetError, Generated};
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::TypedWorkload;
use std::path::Path;

/// The build workload.
pub struct Build;

crate::settings! {
    /// build's settings.
    pub struct Config {
        /// `sources`.
        pub sources: u64 = super::blockio::count(
            "sources",
            "C sources (modules) in the generated project, each with its header",
            60,
            600,
        )
        .range(1, 100_000),
        /// `jobs`.
        pub jobs: u64 = super::blockio::count("jobs", "make -jN: parallel jobs (0 = one per CPU)", 0, 0).range(0, 1024),
        /// `seed`.
        pub seed: u64 = super::blockio::count(
            "seed",
            "seed of the project generator: same seed, same sources",
            1,
            1,
        )
        .range(0, u64::MAX),
    }
}

fn plan_of(c: &Config) -> ProjectPlan {
    ProjectPlan::new(c.sources, c.seed)
}

/// make's `-j`: the parameter, or one job per CPU for 0.
fn jobs(c: &Config) -> u64 {
    match c.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
        n => n,
    }
}

impl TypedWorkload for Build {
    type Settings = Config;
    fn name(&self) -> &'static str {
        "build"
    }
    fn summary(&self) -> &'static str {
        "a generated C project compiled with make -jN and cleaned; compiler CPU apart from \
         wall time (a build directory)"
    }
    fn metrics(&self, _: &Config) -> Vec<MetricSpec> {
        let mut cpu = MetricSpec::seconds(
            "compile_cpu",
            "CPU seconds (user + system) of make and the compilers during make -jN",
        );
        // Seconds of CPU, not of a phase's wall time: not summed into time totals.
        cpu.meta = Some(fsbattery_record::meta::MetricMeta::of_kind(
            fsbattery_record::meta::MetricKind::Other,
        ));
        vec![
            MetricSpec::seconds("make", "make -jN of the copied project (wall time)"),
            cpu,
            MetricSpec::seconds("clean", "make clean"),
        ]
    }
    fn generated(&self, c: &Config) -> Option<Generated> {
        let plan = plan_of(c);
        Some(Generated {
            name: format!("c-project-s{}-seed{}", c.sources, c.seed),
            make: Box::new(move |dir| {
                plan.write(dir).map_err(|e| {
                    DatasetError::io(format!("write the C project in {}", dir.display()), e)
                })
            }),
        })
    }
    fn commands(&self) -> &'static [&'static str] {
        &["make", "gcc"]
    }
    fn always_commands(&self) -> bool {
        true
    }
    fn tool_versions(&self) -> Vec<String> {
        vec![
            app_cmd::version("gcc", "--version"),
            app_cmd::version("make", "--version"),
        ]
    }
    /// make and gcc drop nothing.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // Per module: source, header, object, dependency file; the binary besides.
        let n = c.sources + 1;
        let bytes = super::needs::files_bytes(n.saturating_mul(4), 8192);
        super::needs::Needs::space(bytes.saturating_add(4 << 20), n * 5, "sources")
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        let store = ctx.datasets().ok_or_else(|| {
            WorkloadError::Failed(
                "build needs the run's generated C project, but no dataset store was given to \
                 the workload context (the runner makes one)"
                    .into(),
            )
        })?;
        let plan = plan_of(c);
        let g = self.generated(c).expect("build generates its project");
        let source = store.prepare_generated(&g)?;
        let env = CleanEnv::new()?;
        let scratch = Scratch::create(ctx.root(), "build")?;
        let tree = scratch.join("project");
        copy_tree(&source, &tree)?;
        let j = format!("-j{}", jobs(c));
        let t = ctx.timed("make", &[scratch.path()], || make(&env, &tree, &["-s", &j]))?;
        ctx.record("compile_cpu", &t, t.user_s + t.sys_s);
        expect_objects(&tree, plan.objects(), "make")?;
        ctx.timed("clean", &[scratch.path()], || {
            make(&env, &tree, &["-s", "clean"])
        })?;
        expect_objects(&tree, 0, "make clean")
    }
}

/// Run make with `args` in `dir`.
fn make(env: &CleanEnv, dir: &Path, args: &[&str]) -> Result<(), WorkloadError> {
    let mut c = env.command("make", dir);
    c.args(args);
    app_cmd::output(c, &format!("make {}", args.join(" "))).map(|_| ())
}

/// The number of `.o` files under `dir` is `want`, or the cell fails naming `after`.
fn expect_objects(dir: &Path, want: u64, after: &str) -> Result<(), WorkloadError> {
    let got = objects(dir);
    if got != want {
        return Err(WorkloadError::Failed(format!(
            "{after} left {got} object files in {}, expected {want}",
            dir.display()
        )));
    }
    Ok(())
}

/// Object files under `dir`.
pub(crate) fn objects(dir: &Path) -> u64 {
    crate::regular_files::regular_files(dir)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "o"))
        .count() as u64
}

/// Copy the project (directories and regular files) from `from` to `to` (untimed).
fn copy_tree(from: &Path, to: &Path) -> Result<(), WorkloadError> {
    use crate::error::IoContext;
    std::fs::create_dir(to).ctx(|| format!("create {}", to.display()))?;
    let entries = std::fs::read_dir(from).ctx(|| format!("read {}", from.display()))?;
    for e in entries {
        let e = e.ctx(|| format!("read {}", from.display()))?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type()
            .ctx(|| format!("stat {}", src.display()))?
            .is_dir()
        {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst)
                .ctx(|| format!("copy {} to {}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}

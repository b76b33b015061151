//! `git`: a git-heavy CI runner's filesystem work, with the real git — on a repository
//! generated once per run on the source disk ([`repo`]), every cell times `clone --no-local`
//! from there onto the target, `checkout` between two distant commits (`main` → `base`),
//! `status` with nothing changed, and `gc`.
//!
//! Phases go through [`WorkloadCtx::timed`] (sync, the cache policy, pause); git's own habit
//! is to drop nothing between commands, so `--cache tool` runs them back to back, and the
//! `build` suite asks `status` to start cold (`phase_cache`), the case a CI runner meets
//! on a fresh job. Every git runs in a clean environment (`app_cmd`), so neither
//! `~/.gitconfig` nor `/etc/gitconfig` changes what is measured.
//!
//! Invariants: the checkout is verified (HEAD is `base`) and `status` must report a clean
//! tree, or the cell fails; the clone lives in the scratch directory, removed on every path.

mod repo;

pub use repo::RepoPlan;

use super::app_cmd::{self, CleanEnv};
use super::{Scratch, WorkloadCtx};
use crate::dataset::Generated;
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::TypedWorkload;
use std::path::Path;

/// The git workload.
pub struct Git;

crate::settings! {
    /// git's settings.
    pub struct Config {
        /// `files`.
        pub files: u64 = super::blockio::count(
            "files",
            "files created over the generated repository's history",
            2_000,
            20_000,
        )
        .range(10, 1_000_000),
        /// `commits`.
        pub commits: u64 = super::blockio::count("commits", "commits in the generated history", 40, 400)
            .range(10, 100_000),
        /// `seed`.
        pub seed: u64 = super::blockio::count(
            "seed",
            "seed of the repository generator: same seed, same commits",
            1,
            1,
        )
        .range(0, u64::MAX),
    }
}

fn plan_of(c: &Config) -> RepoPlan {
    RepoPlan::new(c.files, c.commits, c.seed)
}

impl TypedWorkload for Git {
    type Settings = Config;
    fn name(&self) -> &'static str {
        "git"
    }
    fn summary(&self) -> &'static str {
        "git on a generated repository: clone --no-local, checkout between distant commits, \
         status, gc (a CI runner's checkout)"
    }
    fn metrics(&self, _: &Config) -> Vec<MetricSpec> {
        vec![
            MetricSpec::seconds("clone", "git clone --no-local from the source disk"),
            MetricSpec::seconds("checkout", "git checkout between two distant commits"),
            MetricSpec::seconds("status", "git status of the unchanged working tree"),
            MetricSpec::seconds("gc", "git gc of the clone"),
        ]
    }
    fn generated(&self, c: &Config) -> Option<Generated> {
        let plan = plan_of(c);
        Some(Generated {
            name: format!("git-repo-f{}-c{}-seed{}", c.files, c.commits, c.seed),
            make: Box::new(move |dir| repo::make(&plan, dir)),
        })
    }
    fn commands(&self) -> &'static [&'static str] {
        &["git"]
    }
    fn always_commands(&self) -> bool {
        true
    }
    fn tool_versions(&self) -> Vec<String> {
        vec![app_cmd::version("git", "--version")]
    }
    /// git drops nothing between commands.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // The working tree, its packed history (about as large again) and gc's second pack.
        let files = c.files;
        let tree = super::needs::files_bytes(files, 4096 + 2048);
        super::needs::Needs::space(tree.saturating_mul(3), files * 2, "files")
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        let store = ctx.datasets().ok_or_else(|| {
            WorkloadError::Failed(
                "git needs the run's generated repository, but no dataset store was given to \
                 the workload context (the runner makes one)"
                    .into(),
            )
        })?;
        let g = self.generated(c).expect("git generates its repository");
        let source = store.prepare_generated(&g)?.join("source.git");
        let env = CleanEnv::new()?;
        let scratch = Scratch::create(ctx.root(), "git")?;
        let clone = scratch.join("repo");
        for pack in crate::regular_files::regular_files(&source) {
            crate::cache::evict_source(&pack);
        }
        let src = source.display().to_string();
        let dst = clone.display().to_string();
        ctx.timed("clone", &[&source, scratch.path()], || {
            git(
                &env,
                scratch.path(),
                &["clone", "-q", "--no-local", &src, &dst],
            )
        })?;
        ctx.timed("checkout", &[scratch.path()], || {
            git(&env, &clone, &["checkout", "-q", "base"])
        })?;
        check_head(&env, &clone)?;
        let mut dirty = String::new();
        ctx.timed("status", &[scratch.path()], || {
            dirty = git_out(&env, &clone, &["status", "--porcelain"])?;
            Ok(())
        })?;
        if !dirty.trim().is_empty() {
            return Err(WorkloadError::Failed(format!(
                "git status after the checkout found changes in an untouched tree: {}",
                dirty.lines().take(3).collect::<Vec<_>>().join(" / ")
            )));
        }
        ctx.timed("gc", &[scratch.path()], || git(&env, &clone, &["gc", "-q"]))?;
        Ok(())
    }
}

/// Run git with `args` in `cwd`, output discarded.
fn git(env: &CleanEnv, cwd: &Path, args: &[&str]) -> Result<(), WorkloadError> {
    git_out(env, cwd, args).map(|_| ())
}

/// Run git with `args` in `cwd`; its stdout.
fn git_out(env: &CleanEnv, cwd: &Path, args: &[&str]) -> Result<String, WorkloadError> {
    let mut c = env.command("git", cwd);
    c.args(args);
    app_cmd::output(c, &format!("git {}", args.join(" ")))
}

/// The checkout reached `base`: HEAD is the tagged commit.
fn check_head(env: &CleanEnv, clone: &Path) -> Result<(), WorkloadError> {
    let head = git_out(env, clone, &["rev-parse", "HEAD"])?;
    let base = git_out(env, clone, &["rev-parse", "base^{commit}"])?;
    if head.trim() != base.trim() {
        return Err(WorkloadError::Failed(format!(
            "git checkout base left HEAD at {} instead of {}",
            head.trim(),
            base.trim()
        )));
    }
    Ok(())
}

//! `metadata`: seed S1 tests 001–006 — touch N files in one directory, find over them, remove
//! them; then the same with N directories made by mkdir.
//!
//! Files are made as touch(1) makes them: open(O_CREAT|O_WRONLY) and close, nothing written.
//! In command mode each file is one `touch` process and each directory one `mkdir`, as the
//! seed's shell loop did; find and removal are one `find` and one `rm -rf`.

use super::blockio::count;
use super::fsops::{remove_tree, walk};
use super::layout::{Layout, LayoutDefaults, LayoutSettings, SharedDir};
use super::{command, poll, Method, Scratch, WorkloadCtx};
use crate::error::{IoContext, WorkloadError};
use crate::model::MetricSpec;
use crate::TypedWorkload;
use std::path::Path;

/// The metadata workload.
pub struct Metadata;

crate::settings! {
    /// metadata's settings.
    pub struct Config {
        /// Files (and directories) made in the one directory.
        pub files: u64 = count(
            "files",
            "files (and directories) created in one directory (under MPI: per rank)",
            2_000,
            10_000,
        )
        .range(1, super::blockio::MAX_FILES),
        /// Where MPI ranks make them.
        pub layout: LayoutSettings => LayoutDefaults::Layout,
    }
}

impl TypedWorkload for Metadata {
    type Settings = Config;
    /// Touch, mkdir, find and rm drop nothing (S1 synced between tests: `cache = "none"`).
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "touch, find, rm"
    }
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // Empty files, and directories of one block each.
        let n = c.files;
        super::needs::Needs::space(super::needs::files_bytes(n, 0), n + 1, "files")
    }
    fn commands(&self) -> &'static [&'static str] {
        &["touch", "find", "rm", "mkdir"]
    }
    fn name(&self) -> &'static str {
        "metadata"
    }
    /// Its phases run in step on every MPI rank (see [`crate::collective`]).
    fn runs_on_ranks(&self) -> bool {
        true
    }
    fn summary(&self) -> &'static str {
        "touch N files in one directory, find them, remove them; the same with N mkdir'd \
         directories (S1 001-006)"
    }
    fn metrics(&self, _: &Config) -> Vec<MetricSpec> {
        vec![
            MetricSpec::seconds("touch_files", "create N empty files (open O_CREAT + close)"),
            MetricSpec::seconds("find_files", "readdir + lstat of every file"),
            MetricSpec::seconds("remove_files", "remove the directory and its files"),
            MetricSpec::seconds("mkdir_dirs", "create N directories in one directory"),
            MetricSpec::seconds("find_dirs", "readdir + lstat of every directory"),
            MetricSpec::seconds("remove_dirs", "remove the directory and its directories"),
        ]
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        let n = c.files;
        let scratch = Scratch::create(ctx.root(), "metadata")?;
        let files = scratch.join("files");
        std::fs::create_dir(&files).ctx(|| format!("mkdir {}", files.display()))?;
        let dirs = scratch.join("dirs");
        std::fs::create_dir(&dirs).ctx(|| format!("mkdir {}", dirs.display()))?;
        let layout = Layout::of(ctx, &c.layout);
        if layout.shared {
            return shared_dirs(ctx, &layout, n, &scratch);
        }
        match ctx.method() {
            Method::Native => {
                ctx.timed("touch_files", &[&files], || touch_n(&files, n))?;
                ctx.timed("find_files", &[&files], || expect_entries(&files, n))?;
                ctx.timed("remove_files", &[&files], || remove_tree(&files))?;
                ctx.timed("mkdir_dirs", &[&dirs], || mkdir_n(&dirs, n))?;
                ctx.timed("find_dirs", &[&dirs], || expect_entries(&dirs, n))?;
                ctx.timed("remove_dirs", &[&dirs], || remove_tree(&dirs))?;
            }
            Method::Commands => {
                let names = |prefix: &'static str| (0..n).map(move |i| format!("{prefix}{i:06}"));
                ctx.timed("touch_files", &[&files], || {
                    command::run_each(&files, "touch", names("file"))
                })?;
                ctx.timed("find_files", &[&files], || {
                    command::run(&files, "find", &["."])
                })?;
                ctx.timed("remove_files", &[&files], || {
                    command::run(scratch.path(), "rm", &["-rf", "files"])
                })?;
                ctx.timed("mkdir_dirs", &[&dirs], || {
                    command::run_each(&dirs, "mkdir", names("dir"))
                })?;
                ctx.timed("find_dirs", &[&dirs], || {
                    command::run(&dirs, "find", &["."])
                })?;
                ctx.timed("remove_dirs", &[&dirs], || {
                    command::run(scratch.path(), "rm", &["-rf", "dirs"])
                })?;
            }
        }
        Ok(())
    }
}

/// Create `file000000`.. in `dir` by name relative to the directory's descriptor (openat), as
/// a C loop would: a whole path per file made the kernel walk every component of it again
/// (bench/meta_floor.c is the floor this is held to).
fn touch_n(dir: &Path, n: u64) -> Result<(), WorkloadError> {
    use nix::fcntl::{openat, OFlag};
    use nix::sys::stat::Mode;
    use std::fmt::Write;
    let d = std::fs::File::open(dir).ctx(|| format!("open directory {}", dir.display()))?;
    let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_CLOEXEC;
    let mode = Mode::from_bits_truncate(0o666);
    let mut name = String::with_capacity(16);
    for i in 0..n {
        poll(i)?;
        name.clear();
        let _ = write!(name, "file{i:06}");
        // Dropping the descriptor closes it.
        openat(&d, name.as_str(), flags, mode).map_err(|e| {
            let path = dir.join(&name);
            WorkloadError::io(format!("create {}", path.display()), e.into())
        })?;
    }
    Ok(())
}

/// Make `dir000000`.. in `dir` relative to the directory's descriptor (mkdirat), as
/// [`touch_n`] creates its files.
fn mkdir_n(dir: &Path, n: u64) -> Result<(), WorkloadError> {
    use nix::sys::stat::{mkdirat, Mode};
    use std::fmt::Write;
    let d = std::fs::File::open(dir).ctx(|| format!("open directory {}", dir.display()))?;
    let mut name = String::with_capacity(16);
    for i in 0..n {
        poll(i)?;
        name.clear();
        let _ = write!(name, "dir{i:06}");
        mkdirat(&d, name.as_str(), Mode::from_bits_truncate(0o777)).map_err(|e| {
            let path = dir.join(&name);
            WorkloadError::io(format!("mkdir {}", path.display()), e.into())
        })?;
    }
    Ok(())
}

/// find over `dir`, checking it saw exactly the N entries made (plus the directory itself), so
/// a filesystem that lost entries fails the cell instead of looking fast.
fn expect_entries(dir: &Path, n: u64) -> Result<(), WorkloadError> {
    let seen = walk(dir)?;
    if seen != n + 1 {
        return Err(WorkloadError::Failed(format!(
            "find over {} saw {seen} entries, expected {}",
            dir.display(),
            n + 1
        )));
    }
    Ok(())
}

/// All ranks in one directory for files and one for directories (mdtest without `-u`): each
/// rank makes, finds (lstat of its own entries among everyone's) and removes its own `n`
/// entries, named `file000042.r3`. Native calls only: one `touch` per name from many ranks
/// would measure process spawning.
fn shared_dirs(
    ctx: &mut WorkloadCtx<'_>,
    l: &Layout,
    n: u64,
    scratch: &Scratch,
) -> Result<(), WorkloadError> {
    if ctx.method() == Method::Commands {
        return Err(WorkloadError::Failed(
            "metadata.layout=shared runs with --method native only".into(),
        ));
    }
    let files = SharedDir::make(ctx, l, "metadata-files", &scratch.join("files"))?;
    let dirs = SharedDir::make(ctx, l, "metadata-dirs", &scratch.join("dirs"))?;
    let (f, d) = (files.path(), dirs.path());
    let name = |prefix: &str, i: u64| l.name(&format!("{prefix}{i:06}"), l.rank);
    // (directory, name prefix, verb for the error, the call) over this rank's n names.
    let each = |dir: &Path, prefix: &str, verb: &str, op: fn(&Path) -> std::io::Result<()>| {
        (0..n).try_for_each(|i| {
            poll(i)?;
            let path = dir.join(name(prefix, i));
            op(&path).ctx(|| format!("{verb} {}", path.display()))
        })
    };
    let touch = |p: &Path| std::fs::File::create(p).map(drop);
    ctx.timed("touch_files", &[f], || each(f, "file", "create", touch))?;
    ctx.timed("find_files", &[f], || expect_own(f, l, n))?;
    ctx.timed("remove_files", &[f], || {
        each(f, "file", "unlink", |p| std::fs::remove_file(p))
    })?;
    ctx.timed("mkdir_dirs", &[d], || {
        each(d, "dir", "mkdir", |p| std::fs::create_dir(p))
    })?;
    ctx.timed("find_dirs", &[d], || expect_own(d, l, n))?;
    ctx.timed("remove_dirs", &[d], || {
        each(d, "dir", "rmdir", |p| std::fs::remove_dir(p))
    })?;
    Ok(())
}

/// find in a shared directory: readdir of everyone's entries, lstat of this rank's, which
/// must be exactly the `n` it made.
fn expect_own(dir: &Path, l: &Layout, n: u64) -> Result<(), WorkloadError> {
    let suffix = format!(".r{}", l.rank);
    let mut own = 0u64;
    for e in std::fs::read_dir(dir).ctx(|| format!("readdir {}", dir.display()))? {
        let e = e.ctx(|| format!("readdir {}", dir.display()))?;
        if e.file_name().to_string_lossy().ends_with(&suffix) {
            std::fs::symlink_metadata(e.path()).ctx(|| format!("lstat {}", e.path().display()))?;
            own += 1;
        }
    }
    if own != n {
        return Err(WorkloadError::Failed(format!(
            "find over {} saw {own} entries of rank {}, expected {n}",
            dir.display(),
            l.rank
        )));
    }
    Ok(())
}

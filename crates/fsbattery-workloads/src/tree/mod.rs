//! `tree`: the kernel tarball and source tree tests — S1 007–012 and 020, S4's copy / untar /
//! copy-tree / tar rows, and S2's cpio row — on one generated kernel tree (or the user's).
//!
//! Phases, each timed through [`WorkloadCtx::timed`] (sync, drop caches, pause first), in
//! S1's order: `tarball_in` (copy the tarball from the source disk to the target),
//! `tarball_out` (copy it back to the source disk), `untar`, `tar`, `cpio` (newc),
//! `copy_tree` (preserving modes and mtimes), `remove_tree`, `tarball_copy10`. The flags of
//! the same names leave `tarball_out`, `cpio`, `remove_tree` and `tarball_copy10` out, so a
//! preset runs only its seed's phases.
//!
//! Invariants: the extracted tree and its copy must equal the dataset within what the
//! filesystem stores (probed once per run: ntfs-3g without `permissions` and exFAT keep no
//! permission bits), or the cell fails naming the entries that differ and how; what a phase made for the next one is kept, anything else is removed untimed
//! right after its phase; nothing is left on the target (the scratch guard) or on the source
//! disk (the tarball_out guard) on any exit path. Native and command mode produce the same
//! metrics from the same trees. Helper modules (`tree_*.rs`) are children of this one.

mod cmd;
mod cpio;
mod four;
mod ops;

pub(super) use four::Tree4;

use super::{Method, Scratch, WorkloadCtx};
use crate::dataset::{Comparison, DatasetSpec, SourceDataset, Stores, StoresProbe};
use crate::error::{IoContext, WorkloadError};
use crate::model::MetricSpec;
use crate::params::ParamSpec;
use crate::settings::{Group, Raw};
use crate::TypedWorkload;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The tree workload.
pub struct Tree;

/// How many times `tarball_copy10` copies the tarball (S1 012).
const TARBALL_COPIES: u32 = 10;

crate::settings! {
    /// tree's settings.
    pub struct TreeSettings {
        /// The kernel tree it works on.
        pub source: TreeSource => SourceDefaults {
            kernel_help: "kernel tree profile: 2614 = 2.6.14.4 (S1), 2622 = 2.6.22.5 (S4), 2637 = \
                          2.6.37 (S2)",
            kernel: 2614,
            scale_div_help: "divide the tree's files, directories and bytes by this (1 = the real \
                             tree)",
            quick_div: 16,
            copies: false,
        },
        // The phases a seed did not run can be left out (S1 ran no cpio; S4 neither copied the
        // tarball back, nor ran cpio -o, removed the tree or copied the tarball ten times).
        /// Run tarball_out.
        pub tarball_out: bool = super::blockio::flag("tarball_out", "run tarball_out (S1 008)", 1),
        /// Run cpio.
        pub cpio: bool =
            super::blockio::flag("cpio", "run cpio, the tree as a newc archive (S2's row)", 1),
        /// Run remove_tree.
        pub remove_tree: bool = super::blockio::flag("remove_tree", "run remove_tree (S1 011)", 1),
        /// Run tarball_copy10.
        pub tarball_copy10: bool =
            super::blockio::flag("tarball_copy10", "run tarball_copy10 (S1 012)", 1),
    }
}

/// What a tree workload states about its source tree: the defaults and help of `kernel` and
/// `scale_div`, and whether it has `copies` (tree4).
#[derive(Debug, Clone, Copy)]
pub struct SourceDefaults {
    /// Help of `kernel`.
    pub kernel_help: &'static str,
    /// Default kernel profile, every scale.
    pub kernel: u64,
    /// Help of `scale_div`.
    pub scale_div_help: &'static str,
    /// `scale_div` at quick scale (the real tree, 1, otherwise).
    pub quick_div: u64,
    /// Whether it declares `copies`.
    pub copies: bool,
}

/// The source tree of a tree workload (`kernel`, `scale_div`, `seed`, and `copies` where
/// declared): the dataset it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeSource(DatasetSpec);

impl TreeSource {
    /// The dataset: `copies` of the tree where the workload declares it (tree4), else one.
    pub fn dataset(&self) -> DatasetSpec {
        self.0
    }
}

impl Group for TreeSource {
    type Defaults = SourceDefaults;
    fn specs(d: &SourceDefaults) -> Vec<ParamSpec> {
        let count = super::blockio::count;
        let mut v = vec![
            count("kernel", d.kernel_help, d.kernel, d.kernel).range(2614, 2637),
            count("scale_div", d.scale_div_help, d.quick_div, 1).range(1, 1_000_000),
            count(
                "seed",
                "seed of the tree generator: same seed, same tree, same content hash",
                1,
                1,
            )
            .range(0, u64::MAX),
        ];
        if d.copies {
            v.push(
                count(
                    "copies",
                    "copies of the tree in the tarball, in data1/ … dataN/ (S2: 4)",
                    4,
                    4,
                )
                .range(1, 100),
            );
        }
        v
    }
    fn decode(_: &SourceDefaults, r: &Raw<'_>) -> Result<Self, String> {
        Ok(TreeSource(DatasetSpec {
            kernel: r.field("kernel")?,
            scale_div: r.field("scale_div")?,
            seed: r.field("seed")?,
            copies: r.member(&["copies"], 1u32)?,
        }))
    }
    fn encode(&self, d: &SourceDefaults, out: &mut Vec<(&'static str, u64)>) {
        let ds = &self.0;
        out.extend([
            ("kernel", ds.kernel),
            ("scale_div", ds.scale_div),
            ("seed", ds.seed),
        ]);
        if d.copies {
            out.push(("copies", u64::from(ds.copies)));
        }
    }
}

/// The phases that run only when their flag (a parameter of the same name) is on.
#[cfg(test)]
const OPTIONAL: [&str; 4] = ["tarball_out", "cpio", "remove_tree", "tarball_copy10"];

/// Whether `phase` runs with `s` (every phase without a flag always runs).
fn runs(s: &TreeSettings, phase: &str) -> bool {
    match phase {
        "tarball_out" => s.tarball_out,
        "cpio" => s.cpio,
        "remove_tree" => s.remove_tree,
        "tarball_copy10" => s.tarball_copy10,
        _ => true,
    }
}

/// What a tree workload holds: `held` times its dataset (the copies of the tree together, or
/// a tarball of them, whichever it holds most of at once), each file a block at least, each
/// tar member with its header.
pub(super) fn tree_needs(spec: &DatasetSpec, held: u64) -> super::needs::Needs {
    let Some(profile) = crate::dataset::profile::by_id(spec.kernel) else {
        // Refused when the plan validates the dataset.
        return super::needs::Needs::default();
    };
    let div = spec.scale_div.max(1);
    let copies = u64::from(spec.copies);
    let (files, dirs) = (profile.files / div + 1, profile.dirs / div + 1);
    let mean = profile.bytes / div / files + 1024;
    let bytes = super::needs::files_bytes(files.saturating_mul(copies), mean);
    let inodes = (files + dirs).saturating_mul(copies).saturating_mul(2);
    super::needs::Needs::space(bytes.saturating_mul(held), inodes, "kernel and scale_div")
}

impl TypedWorkload for Tree {
    type Settings = TreeSettings;
    /// Cp, tar, cpio and rm drop nothing.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "tar, cpio, cp, rm"
    }
    fn needs(&self, s: &TreeSettings) -> super::needs::Needs {
        // The tarball with the tree and its copy (11 tarballs at the end weigh about as much).
        tree_needs(&s.source.dataset(), 11)
    }
    fn commands(&self) -> &'static [&'static str] {
        cmd::TOOLS
    }
    fn dataset(&self, s: &TreeSettings) -> Option<DatasetSpec> {
        Some(s.source.dataset())
    }
    fn name(&self) -> &'static str {
        "tree"
    }
    fn summary(&self) -> &'static str {
        "kernel tarball in/out, untar, tar, cpio, copy and remove the tree, copy the tarball 10 \
         times (S1 007-012, 020; S4; S2 cpio)"
    }
    fn metrics(&self, s: &TreeSettings) -> Vec<MetricSpec> {
        let all = vec![
            MetricSpec::seconds(
                "tarball_in",
                "copy the kernel tarball from the source disk to the target (cp)",
            ),
            MetricSpec::seconds(
                "tarball_out",
                "copy the tarball from the target back to the source disk (cp)",
            ),
            MetricSpec::seconds(
                "untar",
                "extract the tarball on the target (tar -xf), verified by hash",
            ),
            MetricSpec::seconds(
                "tar",
                "tar the extracted tree into one file on the target (tar -cf)",
            ),
            MetricSpec::seconds(
                "cpio",
                "pack the tree as a newc archive on the target (find | cpio -o)",
            ),
            MetricSpec::seconds(
                "copy_tree",
                "copy the tree keeping modes and mtimes (find | cpio -pdm), verified",
            ),
            MetricSpec::seconds("remove_tree", "remove the extracted tree (rm -rf)"),
            MetricSpec::seconds(
                "tarball_copy10",
                "copy the tarball 10 times on the target (cp)",
            ),
        ];
        all.into_iter().filter(|m| runs(s, &m.name)).collect()
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &TreeSettings) -> Result<(), WorkloadError> {
        let ds = source(ctx, &s.source.dataset())?;
        let ops = Ops::new(ctx.method())?;
        let scratch = Scratch::create(ctx.root(), "tree")?;
        let stores = probe(&scratch)?;
        let tarball = scratch.join("linux.tar");
        tarball_in_out(ctx, ops, &ds, &scratch, &tarball, runs(s, "tarball_out"))?;
        let tree = scratch.join("tree");
        mkdir(&tree)?;
        ctx.timed("untar", &[scratch.path()], || {
            ops.untar(&tarball, &tree).map_err(|e| case_hint(e, stores))
        })?;
        verify(&tree, &ds, stores, "untar")?;
        archives(ctx, ops, &ds, &scratch, &tree, runs(s, "cpio"))?;
        copy_tree(ctx, ops, &ds, stores, &scratch, &tree)?;
        if runs(s, "remove_tree") {
            ctx.timed("remove_tree", &[scratch.path()], || {
                ops.remove(&tree, ds.top())
            })?;
        }
        if runs(s, "tarball_copy10") {
            copy_tarball_n(ctx, ops, &scratch, &tarball)?;
        }
        Ok(())
    }
}

/// S1 007 and 008: the tarball from the source disk to the target and back.
fn tarball_in_out(
    ctx: &mut WorkloadCtx<'_>,
    ops: Ops,
    ds: &SourceDataset,
    scratch: &Scratch,
    tarball: &Path,
    out: bool,
) -> Result<(), WorkloadError> {
    // The seeds read the tarball from a disk, not from the memory the run generated it in
    // (`cache none` and `tool` would otherwise find it all resident); `warm` reads it back in.
    crate::cache::evict_source(ds.tarball());
    ctx.timed("tarball_in", &[ds.tarball(), scratch.path()], || {
        ops.copy_file(ds.tarball(), tarball)
    })?;
    if !out {
        return Ok(());
    }
    let back = SourceFile::new(
        ds.scratch_dir()
            .join(format!("fsbattery-tarball-out-{}.tar", std::process::id())),
    )?;
    ctx.timed("tarball_out", &[scratch.path()], || {
        ops.copy_file(tarball, back.path())
    })?;
    Ok(())
}

/// S1 010 / S4 tar, then S2's cpio: each archive removed untimed after its phase.
fn archives(
    ctx: &mut WorkloadCtx<'_>,
    ops: Ops,
    ds: &SourceDataset,
    scratch: &Scratch,
    tree: &Path,
    cpio: bool,
) -> Result<(), WorkloadError> {
    let tar = scratch.join("tree.tar");
    ctx.timed("tar", &[scratch.path()], || ops.tar(tree, ds.top(), &tar))?;
    remove_file(&tar)?;
    if !cpio {
        return Ok(());
    }
    let archive = scratch.join("tree.cpio");
    ctx.timed("cpio", &[scratch.path()], || {
        ops.cpio(tree, ds.top(), &archive)
    })?;
    remove_file(&archive)
}

/// S1 020 / S4 copy kernel: the copy is verified, then removed untimed.
fn copy_tree(
    ctx: &mut WorkloadCtx<'_>,
    ops: Ops,
    ds: &SourceDataset,
    stores: Stores,
    scratch: &Scratch,
    tree: &Path,
) -> Result<(), WorkloadError> {
    let copy = scratch.join("copy");
    mkdir(&copy)?;
    ctx.timed("copy_tree", &[scratch.path()], || {
        ops.copy_tree(tree, ds.top(), &copy)
    })?;
    verify(&copy, ds, stores, "copy_tree")?;
    super::fsops::remove_tree(&copy)
}

/// S1 012: N copies of the tarball, removed untimed afterwards.
fn copy_tarball_n(
    ctx: &mut WorkloadCtx<'_>,
    ops: Ops,
    scratch: &Scratch,
    tarball: &Path,
) -> Result<(), WorkloadError> {
    let dir = scratch.join("copies");
    mkdir(&dir)?;
    ctx.timed("tarball_copy10", &[scratch.path()], || {
        (1..=TARBALL_COPIES)
            .try_for_each(|i| ops.copy_file(tarball, &dir.join(format!("linux-{i}.tar"))))
    })?;
    super::fsops::remove_tree(&dir)
}

/// The run's dataset for `spec` (prepared by the runner, or now if it was not).
pub(super) fn source(
    ctx: &WorkloadCtx<'_>,
    spec: &DatasetSpec,
) -> Result<Arc<SourceDataset>, WorkloadError> {
    let store = ctx.datasets().ok_or_else(|| {
        WorkloadError::Failed(
            "the tree workloads need the run's source datasets, but none were given to the \
             workload context (the runner must create a DatasetStore)"
                .into(),
        )
    })?;
    Ok(store.prepare(spec)?)
}

/// What the filesystem under `scratch` stores, probed once per run, untimed; what it lacks is
/// said once, as a warning (the trees are then verified without it, which `--quiet` must
/// still say).
pub(super) fn probe(scratch: &Scratch) -> Result<Stores, WorkloadError> {
    let stores = Stores::probe(scratch.path())?;
    let lacking = stores.lacking();
    if !lacking.is_empty() {
        crate::notice::warn(format!(
            "the filesystem under {} stores no {lacking}; trees on it are verified within \
             what it stores",
            scratch.path().display()
        ));
    }
    Ok(stores)
}

/// An extraction that met a name already there, on a filesystem that folds case: the dataset
/// holds names that differ only in case (a real kernel tree does: `xt_DSCP.c`, `xt_dscp.c`).
pub(super) fn case_hint(e: WorkloadError, stores: Stores) -> WorkloadError {
    match e {
        WorkloadError::Io { what, source }
            if !stores.case_sensitive && source.kind() == std::io::ErrorKind::AlreadyExists =>
        {
            WorkloadError::Failed(format!(
                "{what}: {source}: this filesystem does not store case in names and the \
                 dataset holds names that differ only in case, so it cannot hold this tree"
            ))
        }
        e => e,
    }
}

/// How many differing entries a failure names.
const SHOWN: usize = 5;

/// Fail unless `dir` holds the dataset's tree, within what its filesystem `stores`; the
/// failure names the entries that differ and how (or those the filesystem cannot store).
pub(super) fn verify(
    dir: &Path,
    ds: &SourceDataset,
    stores: Stores,
    phase: &str,
) -> Result<(), WorkloadError> {
    let c = ds.compare(dir, stores)?;
    if c.differences.is_empty() && c.unstorable.is_empty() {
        return Ok(());
    }
    Err(WorkloadError::Failed(explain(dir, ds, &c, phase)))
}

/// The failure message of a comparison that found something.
fn explain(dir: &Path, ds: &SourceDataset, c: &Comparison, phase: &str) -> String {
    let list = |items: Vec<String>| {
        let n = items.len();
        let mut s = items.into_iter().take(SHOWN).collect::<Vec<_>>().join("; ");
        if n > SHOWN {
            s.push_str(&format!("; and {} more", n - SHOWN));
        }
        s
    };
    if c.differences.is_empty() {
        return format!(
            "{phase}: the filesystem under {} cannot store {} entries of the dataset {} (it \
             stores no {}): {}; every other entry is intact",
            dir.display(),
            c.unstorable.len(),
            ds.tarball().display(),
            c.stores.lacking(),
            list(c.unstorable.clone())
        );
    }
    let lacking = c.stores.lacking();
    let within = if lacking.is_empty() {
        String::new()
    } else {
        format!(" (compared without what it does not store: {lacking})")
    };
    format!(
        "{phase}: the tree in {} differs from the dataset {} in {} entries{within}: {}: the \
         filesystem lost or changed data",
        dir.display(),
        ds.tarball().display(),
        c.differences.len(),
        list(c.differences.iter().map(ToString::to_string).collect())
    )
}

pub(super) fn mkdir(p: &Path) -> Result<(), WorkloadError> {
    std::fs::create_dir(p).ctx(|| format!("mkdir {}", p.display()))
}

pub(super) fn remove_file(p: &Path) -> Result<(), WorkloadError> {
    std::fs::remove_file(p).ctx(|| format!("remove {}", p.display()))
}

/// A file the workload writes on the source disk; removed on drop, whatever happens.
struct SourceFile(PathBuf);

impl SourceFile {
    /// Claim `path`, removing a leftover of an earlier killed run first.
    fn new(path: PathBuf) -> Result<SourceFile, WorkloadError> {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(WorkloadError::io(format!("remove {}", path.display()), e))
            }
            _ => {}
        }
        Ok(SourceFile(path))
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for SourceFile {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.0) {
            if e.kind() != std::io::ErrorKind::NotFound {
                crate::notice::warn(format!("could not remove {}: {e}", self.0.display()));
            }
        }
    }
}

/// Each tree operation, native or as the seeds' command.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ops(Method);

impl Ops {
    /// Operations for `method`; command mode checks its tools are installed first, so a
    /// missing cpio fails the cell before anything is timed.
    pub(super) fn new(method: Method) -> Result<Ops, WorkloadError> {
        if method == Method::Commands {
            cmd::require()?;
        }
        Ok(Ops(method))
    }
    fn native(self) -> bool {
        self.0 == Method::Native
    }
    pub(super) fn copy_file(self, src: &Path, dst: &Path) -> Result<(), WorkloadError> {
        if self.native() {
            ops::copy_file(src, dst)
        } else {
            cmd::cp(src, dst)
        }
    }
    pub(super) fn untar(self, tarball: &Path, dest: &Path) -> Result<(), WorkloadError> {
        if self.native() {
            ops::extract(tarball, dest)
        } else {
            cmd::untar(tarball, dest)
        }
    }
    pub(super) fn tar(
        self,
        base: &Path,
        names: &[String],
        out: &Path,
    ) -> Result<(), WorkloadError> {
        if self.native() {
            ops::create_tar(base, names, out)
        } else {
            cmd::tar(base, names, out)
        }
    }
    pub(super) fn cpio(
        self,
        base: &Path,
        names: &[String],
        out: &Path,
    ) -> Result<(), WorkloadError> {
        if self.native() {
            cpio::write_newc(base, names, out)
        } else {
            cmd::cpio_out(base, names, out)
        }
    }
    pub(super) fn copy_tree(
        self,
        base: &Path,
        names: &[String],
        dest: &Path,
    ) -> Result<(), WorkloadError> {
        if self.native() {
            ops::copy_tree(base, names, dest)
        } else {
            cmd::cpio_pass(base, names, dest)
        }
    }
    pub(super) fn remove(self, base: &Path, names: &[String]) -> Result<(), WorkloadError> {
        if self.native() {
            ops::remove(base, names)
        } else {
            cmd::rm(base, names)
        }
    }
}

#[cfg(test)]
pub(super) mod tests;

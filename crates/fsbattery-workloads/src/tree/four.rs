//! `tree4`: seed S2's tar test — one uncompressed tar holding four copies of the 2.6.37 tree
//! in `data1/ … data4/` (1.7 GB at standard scale), extracted onto the target
//! (`untar4`, "Tar extrahieren"), packed again with cpio (`cpio4`, "Cpio erzeugen"), and
//! removed (`remove4`, "Verzeichnisbaum löschen").
//!
//! A separate workload from `tree` because it is a separate dataset (four copies, 2.6.37)
//! and a separate table row set; the operations are `tree`'s. The tarball is read straight
//! from the source disk, so `untar4` times the target's writes only (S2 timed no copy-in).
//! The extracted tree is verified against the dataset's hash; the cpio archive is removed
//! untimed after its phase.

use super::{
    case_hint, mkdir, probe, remove_file, source, verify, Ops, SourceDefaults, TreeSource,
};
use crate::dataset::DatasetSpec;
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::TypedWorkload;
use crate::{Scratch, WorkloadCtx};

/// The tree4 workload.
pub struct Tree4;

crate::settings! {
    /// tree4's settings.
    pub struct Tree4Settings {
        /// The kernel trees it works on.
        pub source: TreeSource => SourceDefaults {
            kernel_help: "kernel tree profile: 2637 = 2.6.37 (S2), 2614 = 2.6.14.4, 2622 = \
                          2.6.22.5",
            kernel: 2637,
            scale_div_help: "divide each copy's files, directories and bytes by this (1 = the \
                             real tree)",
            quick_div: 32,
            copies: true,
        },
    }
}

impl TypedWorkload for Tree4 {
    type Settings = Tree4Settings;
    /// Tar, cpio and rm drop nothing (S2's 20 s cpio of 1.7 GB is only possible warm).
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "tar, cpio, rm"
    }
    fn needs(&self, s: &Tree4Settings) -> crate::needs::Needs {
        // The trees and their cpio archive.
        super::tree_needs(&s.source.dataset(), 2)
    }
    fn commands(&self) -> &'static [&'static str] {
        super::cmd::TOOLS
    }
    fn dataset(&self, s: &Tree4Settings) -> Option<DatasetSpec> {
        Some(s.source.dataset())
    }
    fn name(&self) -> &'static str {
        "tree4"
    }
    fn summary(&self) -> &'static str {
        "extract a tar of four kernel trees (data1..data4), cpio them, remove them (S2)"
    }
    fn metrics(&self, _: &Tree4Settings) -> Vec<MetricSpec> {
        vec![
            MetricSpec::seconds(
                "untar4",
                "extract the four-tree tarball from the source disk (tar -xf), verified",
            ),
            MetricSpec::seconds(
                "cpio4",
                "pack the four trees as a newc archive on the target (find | cpio -o)",
            ),
            MetricSpec::seconds("remove4", "remove the four trees (rm -rf)"),
        ]
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &Tree4Settings) -> Result<(), WorkloadError> {
        let ds = source(ctx, &s.source.dataset())?;
        let ops = Ops::new(ctx.method())?;
        let scratch = Scratch::create(ctx.root(), "tree4")?;
        let stores = probe(&scratch)?;
        let tree = scratch.join("tree");
        mkdir(&tree)?;
        ctx.timed("untar4", &[ds.tarball(), scratch.path()], || {
            ops.untar(ds.tarball(), &tree)
                .map_err(|e| case_hint(e, stores))
        })?;
        verify(&tree, &ds, stores, "untar4")?;
        let archive = scratch.join("trees.cpio");
        ctx.timed("cpio4", &[scratch.path()], || {
            ops.cpio(&tree, ds.top(), &archive)
        })?;
        remove_file(&archive)?;
        ctx.timed("remove4", &[scratch.path()], || ops.remove(&tree, ds.top()))
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_run, require_tools};
    use super::*;
    use crate::dataset::DatasetSpecExt;
    use crate::Method;

    fn tiny() -> Tree4Settings {
        crate::settings::with_pairs(&[
            ("kernel", 2637),
            ("scale_div", 256),
            ("seed", 1),
            ("copies", 4),
        ])
    }

    #[test]
    fn native_run_records_every_metric_and_cleans_up() {
        check_run(&Tree4, &tiny(), Method::Native);
    }

    #[test]
    fn command_run_records_every_metric_and_cleans_up() {
        if require_tools() {
            check_run(&Tree4, &tiny(), Method::Commands);
        }
    }

    #[test]
    fn dataset_has_four_copies() {
        let spec = Tree4.dataset(&tiny()).unwrap();
        assert_eq!(spec.copies, 4);
        assert!(spec.validate("tree4").is_ok());
    }
}

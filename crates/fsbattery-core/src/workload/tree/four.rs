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
    case_hint, dataset_of, kernel_param, mkdir, probe, remove_file, scale_div_param, source,
    verify, Ops, SEED_PARAM,
};
use crate::dataset::DatasetSpec;
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::params::{ParamSpec, Params};
use crate::workload::{Scratch, Workload, WorkloadCtx};

/// The tree4 workload.
pub struct Tree4;

const PARAMS: &[ParamSpec] = &[
    kernel_param(
        "kernel tree profile: 2637 = 2.6.37 (S2), 2614 = 2.6.14.4, 2622 = 2.6.22.5",
        2637,
    ),
    scale_div_param(
        "divide each copy's files, directories and bytes by this (1 = the real tree)",
        32,
    ),
    SEED_PARAM,
    crate::workload::blockio::count(
        "copies",
        "copies of the tree in the tarball, in data1/ … dataN/ (S2: 4)",
        4,
        4,
    )
    .range(1, 100),
];

impl Workload for Tree4 {
    /// Tar, cpio and rm drop nothing (S2's 20 s cpio of 1.7 GB is only possible warm).
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "tar, cpio, rm"
    }
    fn needs(&self, p: &Params) -> crate::workload::needs::Needs {
        // The trees and their cpio archive.
        super::tree_needs(&self.dataset(p).expect("tree4 has a dataset"), 2)
    }
    fn commands(&self) -> &'static [&'static str] {
        super::cmd::TOOLS
    }
    fn dataset(&self, p: &Params) -> Option<DatasetSpec> {
        Some(dataset_of(p))
    }
    fn name(&self) -> &'static str {
        "tree4"
    }
    fn summary(&self) -> &'static str {
        "extract a tar of four kernel trees (data1..data4), cpio them, remove them (S2)"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self, _: &Params) -> Vec<MetricSpec> {
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
    fn run(&self, ctx: &mut WorkloadCtx<'_>, p: &Params) -> Result<(), WorkloadError> {
        let ds = source(ctx, &self.dataset(p).expect("tree4 has a dataset"))?;
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
    use crate::workload::Method;

    fn tiny() -> Params {
        Params::from_pairs(&[
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

//! S1's "other disk": the kernel tarball is copied from a disk that is not under test
//! (`--source-dir`, else the work directory). When that directory lies on the same device as
//! a target — a `dir:` target on it, or loop images kept in the work directory on it — the
//! copy reads and writes one disk, which S1's 007/008 did not: the run says so in one line
//! (it still runs: on a one-disk machine there is no other).

use fsbattery_core::runner::Plan;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The warning for `plan`, if a workload reads the source dataset and `source` (the
/// dataset's directory) shares a device with a target.
pub fn same_device_note(plan: &Plan, source: &Path, workdir: &Path) -> Option<String> {
    let reads_source = plan
        .workloads
        .iter()
        .any(|w| w.workload.dataset(&w.params).is_some());
    if !reads_source {
        return None;
    }
    let dev = |p: &Path| std::fs::metadata(p).ok().map(|m| m.dev());
    let src = dev(existing(source))?;
    let shared: Vec<&str> = plan
        .targets
        .iter()
        .filter(|t| {
            let backing = match t.spec().split(':').next() {
                Some("loop") => existing(workdir),
                _ => existing(t.root()),
            };
            dev(backing) == Some(src)
        })
        .map(|t| t.label())
        .collect();
    if shared.is_empty() {
        return None;
    }
    Some(format!(
        "source: the kernel tarball's directory {} is on the same device as target(s) {}: \
         tarball_in and tarball_out read and write one disk (S1 used another); give \
         --source-dir on another disk",
        source.display(),
        shared.join(", ")
    ))
}

/// `p` or its nearest existing ancestor (a work directory not made yet lies on its parent's
/// device).
fn existing(mut p: &Path) -> &Path {
    while !p.exists() {
        match p.parent() {
            Some(up) => p = up,
            None => break,
        }
    }
    p
}

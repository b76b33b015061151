//! Free-space fragmentation of an aged filesystem, read by the tool its kind's entry names
//! (targets/kinds/: `e2freefrag DEV` for ext2/3/4, `xfs_db -r -c freesp DEV` for xfs). The
//! parsers live with their kinds, pure and tested on the tools' real output; the summary is
//! the share of free space in extents under 1 MiB, the pieces a large sequential write
//! cannot use whole.
//!
//! Both tools read the device, not the mounted filesystem: after a sync the free-space maps
//! may still sit in the journal (xfs_db showed 267 of 320 MB free on an image that df said
//! was 57 % full). A freeze and thaw (`fsfreeze -f`, `-u`) first checkpoints the journal, so
//! the device holds the maps as they are.
//!
//! Invariant: a missing tool, another filesystem, or output we cannot read gives `None` (the
//! record then says nothing about fragmentation), never an error that fails the cells.

use fsbattery_record::aging::FreeSpace;
use std::path::Path;

/// Read the free-space fragmentation of the filesystem mounted at `root`, with the tool its
/// kind names (`FsEntry::free_space`); `None` for a kind without one.
pub(super) fn probe(root: &Path) -> Option<FreeSpace> {
    let m = crate::targets::fsinfo::describe(root);
    let tool = crate::targets::free_space_tool(&m.fs_type)?;
    let argv: Vec<String> = tool
        .argv
        .iter()
        .map(|s| s.to_string())
        .chain([m.device])
        .collect();
    let mount = m.mount_point;
    let freeze = |how: &str| crate::process::run(&["fsfreeze".into(), how.into(), mount.clone()]);
    let frozen = freeze("-f");
    // Thaw whatever happened: a frozen filesystem would hang every workload after this.
    if frozen.is_err() || freeze("-u").is_err() {
        return None;
    }
    let ran = crate::process::run(&argv).ok()?;
    let block = nix::sys::statvfs::statvfs(root).ok()?.fragment_size();
    let mut fs = (tool.parse)(&ran.output, block)?;
    fs.command = ran.command;
    Some(fs)
}

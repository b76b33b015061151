//! `fsbattery cleanup`: finish the teardown of runs that died (kill -9, power loss, a panic).
//!
//! Reads every state file in the work directory whose owning process is gone, and releases
//! its unreleased resources in reverse creation order through the same checked release code
//! the guards use: a loop device is detached only while its backing inode is our image, a
//! mount is unmounted only at our mount point with our source, a process is signalled only
//! while its pid, start time and command line still match. Anything that no longer matches is
//! left alone and reported. A state file is removed once everything in it is released.

use super::release::{self, Handle};
use super::state::{self, StateFile, STATE_EXT};
use super::TargetError;
use std::path::{Path, PathBuf};

/// What `cleanup` did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CleanupReport {
    /// Resources removed, described ("loop device /dev/loop3 (/w/fsb-ext4-12-0/disk0.img)").
    pub removed: Vec<String>,
    /// Resources and state files left alone, with the reason (gone already, not ours any
    /// more, or owned by a run that is still alive).
    pub skipped: Vec<String>,
    /// Resources that could not be removed, with the error; their state file is kept.
    pub failed: Vec<String>,
    /// State files fully processed and deleted.
    pub state_files: Vec<PathBuf>,
}

impl CleanupReport {
    /// True when nothing needed doing.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.failed.is_empty() && self.state_files.is_empty()
    }
}

/// Remove exactly what dead fsbattery runs left in `workdir` (see the module docs).
///
/// Err only when the work directory cannot be read; per-resource failures are in the report.
pub fn cleanup(workdir: &Path) -> Result<CleanupReport, TargetError> {
    let mut report = CleanupReport::default();
    let rd = match std::fs::read_dir(workdir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(report),
        Err(e) => {
            return Err(TargetError(format!(
                "cannot read {}: {e}",
                workdir.display()
            )))
        }
    };
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == STATE_EXT) && p.is_file())
        .collect();
    files.sort();
    for f in files {
        clean_one(&f, &mut report);
    }
    Ok(report)
}

fn clean_one(path: &Path, report: &mut CleanupReport) {
    let shown = path.display();
    let snap = match state::read(path) {
        Ok(s) => s,
        Err(e) => {
            report
                .failed
                .push(format!("{shown}: unreadable state file, left alone: {e}"));
            return;
        }
    };
    let (pid, start) = snap.owner;
    if state::alive(pid, start) {
        report
            .skipped
            .push(format!("{shown}: belongs to running process {pid}"));
        return;
    }
    let mut file = match StateFile::reopen(path) {
        Ok(f) => f,
        Err(e) => {
            report.failed.push(format!("{shown}: {e}"));
            return;
        }
    };
    let mut ok = true;
    for (id, res) in snap.held.iter().rev() {
        match release::release(res, Handle::None) {
            Ok(out) => {
                match out.note {
                    Some(n) => report.skipped.push(format!("{}: {n}", res.describe())),
                    None => report.removed.push(res.describe()),
                }
                if let Err(e) = file.released(*id) {
                    report
                        .failed
                        .push(format!("{shown}: cannot record release: {e}"));
                }
            }
            Err(e) => {
                ok = false;
                report.failed.push(format!("{}: {e}", res.describe()));
            }
        }
    }
    if ok {
        match std::fs::remove_file(path) {
            Ok(()) => report.state_files.push(path.to_path_buf()),
            Err(e) => report.failed.push(format!("rm {shown}: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::state::Resource;

    #[test]
    fn dead_runs_files_and_dirs_are_removed_live_ones_kept() {
        let work = tempfile::tempdir().unwrap();
        let session = work.path().join("fsb-x-1-0");
        // A state file of this (live) process is never touched.
        let live = work.path().join("live.state");
        let mut s = StateFile::create(&live, &session).unwrap();
        s.intent(&Resource::Dir {
            path: session.clone(),
        })
        .unwrap();
        std::fs::create_dir(&session).unwrap();
        let image = session.join("disk0.img");
        s.intent(&Resource::File {
            path: image.clone(),
            id: None,
        })
        .unwrap();
        std::fs::write(&image, b"x").unwrap();
        drop(s);
        let r = cleanup(work.path()).unwrap();
        assert!(r.skipped[0].contains("running process"), "{r:?}");
        assert!(image.exists());

        // Rewrite the header as a dead owner (pid 0 never matches a start time).
        let text = std::fs::read_to_string(&live).unwrap();
        let me = format!("\"pid\":{}", std::process::id());
        std::fs::write(&live, text.replacen(&me, "\"pid\":0", 1)).unwrap();
        let r = cleanup(work.path()).unwrap();
        assert_eq!(r.removed.len(), 2, "{r:?}");
        assert!(!image.exists() && !session.exists() && !live.exists());
        assert!(cleanup(work.path()).unwrap().is_empty());
    }
}

//! `fsbattery cleanup`: finish the teardown of runs that died (kill -9, power loss, a panic).
//!
//! Reads every state file in the work directory whose owning process is gone, and releases
//! its unreleased resources in reverse creation order through the same checked release code
//! the guards use: a loop device is detached only while its backing inode and path are our
//! image, a mount is unmounted only at our mount point with our source, a process is
//! signalled only while its pid, start time and command line still match.
//!
//! A state file is untrusted input (see `safety`): it is refused unless the caller owns it and
//! nobody else can write it, its header must name its own session directory inside the work
//! directory (owned by the caller, private), and each entry must lie inside that session —
//! or, for a user's device, still carry the filesystem UUID we recorded. Anything refused or
//! no longer matching is left alone and reported; a state file is removed only once
//! everything in it is released.

use super::release::{self, Handle};
use super::safety;
use super::state::{self, ReadError, Resource, Snapshot, StateFile, STATE_EXT};
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
    /// State files and entries refused as not verifiably fsbattery's (someone else's file,
    /// a path outside the session): left untouched, state file kept.
    pub refused: Vec<String>,
    /// Resources that could not be removed, with the error; their state file is kept.
    pub failed: Vec<String>,
    /// State files fully processed and deleted.
    pub state_files: Vec<PathBuf>,
}

impl CleanupReport {
    /// True when nothing needed doing.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty()
            && self.failed.is_empty()
            && self.refused.is_empty()
            && self.state_files.is_empty()
    }
}

/// Remove exactly what dead fsbattery runs left in `workdir` (see the module docs).
///
/// Err only when the work directory cannot be read; per-resource failures are in the report.
pub fn cleanup(workdir: &Path) -> Result<CleanupReport, TargetError> {
    let mut report = CleanupReport::default();
    let workdir = match workdir.canonicalize() {
        Ok(w) => w,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(report),
        Err(e) => {
            return Err(TargetError(format!(
                "cannot resolve {}: {e}",
                workdir.display()
            )))
        }
    };
    let rd = std::fs::read_dir(&workdir)
        .map_err(|e| TargetError(format!("cannot read {}: {e}", workdir.display())))?;
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == STATE_EXT))
        .collect();
    // A PostgreSQL server keeps its target's filesystem busy: its sessions go first, so the
    // unmount that follows finds nothing working in the mount.
    files.sort_by_key(|f| {
        let name = f.file_name().map(|n| n.to_string_lossy().to_string());
        let server = name
            .as_deref()
            .is_some_and(|n| n.starts_with("fsb-postgres-"));
        (!server, f.clone())
    });
    for f in files {
        clean_one(&workdir, &f, &mut report);
    }
    Ok(report)
}

/// The session directory a state file may name: `WORKDIR/<its own stem>`, and if it exists,
/// a private directory of the caller's. Returns whether it exists.
fn check_session(workdir: &Path, path: &Path, snap: &Snapshot) -> Result<bool, String> {
    let session = &snap.session;
    if session.parent() != Some(workdir) {
        return Err(format!(
            "names session directory {}, outside the work directory {}",
            session.display(),
            workdir.display()
        ));
    }
    if session.file_name() != path.file_stem() {
        return Err(format!(
            "names session directory {}, not its own",
            session.display()
        ));
    }
    match std::fs::symlink_metadata(session) {
        Ok(m) if m.is_dir() => safety::private_to_us(session, &m).map(|()| true),
        Ok(_) => Err(format!("{} is not a directory", session.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("{}: {e}", session.display())),
    }
}

/// How the pgbench workload's scratch directories are named (`fsbattery-pgbench-PID`).
const POSTGRES_DIR: &str = "fsbattery-pgbench-";

/// Whether cleanup may act on `res` of a session at `session` (see the module docs).
fn admit(res: &Resource, session: &Path, exists: bool) -> Result<(), String> {
    let inside = |p: &Path| safety::confine(session, p);
    if !exists && !matches!(res, Resource::Dir { .. }) {
        return Err(format!(
            "its session directory {} is gone, so nothing proves it is ours",
            session.display()
        ));
    }
    match res {
        Resource::Dir { path }
        | Resource::File { path, .. }
        | Resource::ScratchDir { path, .. } => inside(path),
        Resource::Loop { image, device, .. } => {
            inside(image)?;
            match device {
                Some(d) if !is_loop_node(d) => Err(format!("{} is not a loop device", d.display())),
                _ => Ok(()),
            }
        }
        Resource::Mount { mount_point, .. } | Resource::FuseDaemon { mount_point, .. } => {
            inside(mount_point)
        }
        Resource::ZfsDaemon { tag, .. } | Resource::Emulator { tag, .. } => inside(tag),
        Resource::ZfsRuntime { dirs } => match dirs
            .iter()
            .find(|d| !super::zfs::RUNTIME_DIRS.iter().any(|r| Path::new(r) == *d))
        {
            Some(d) => Err(format!(
                "{} is not a zfs-fuse runtime directory",
                d.display()
            )),
            None => Ok(()),
        },
        Resource::Pool { name, vdevs } => {
            if !name.starts_with("fsbattery-") {
                return Err(format!("pool {name} is not named like ours"));
            }
            vdevs.iter().try_for_each(|v| match v.starts_with("/dev/") {
                true => Ok(()),
                false => inside(v),
            })
        }
        Resource::Signature { device, uuid } => signature_is_ours(device, uuid.as_deref()),
        Resource::Cgroup { path } => super::memcg_release::admit(path),
        // Lives on a target, outside the session: named like the pgbench workload's scratch
        // directories, and `postgres_release` proves each process and the directory ours.
        Resource::Postgres { dir, .. } => match dir.file_name().and_then(|n| n.to_str()) {
            Some(n) if n.starts_with(POSTGRES_DIR) => Ok(()),
            _ => Err(format!(
                "{} is not named like a pgbench scratch directory",
                dir.display()
            )),
        },
    }
}

fn is_loop_node(d: &Path) -> bool {
    d.parent() == Some(Path::new("/dev"))
        && d.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("loop"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A user's device is wiped only while it still holds the filesystem our mkfs made there.
fn signature_is_ours(device: &Path, uuid: Option<&str>) -> Result<(), String> {
    let Some(uuid) = uuid else {
        return Err(format!(
            "no filesystem UUID was recorded for {}, so nothing proves the signatures on it are \
             ours; wipe it yourself if it is (wipefs -a {})",
            device.display(),
            device.display()
        ));
    };
    match super::device::fs_uuid(device) {
        Some(now) if now == uuid => Ok(()),
        now => Err(format!(
            "{} now holds UUID {}, not the {uuid} our mkfs wrote",
            device.display(),
            now.as_deref().unwrap_or("(none)")
        )),
    }
}

/// A state file with no complete line yet records nothing, so it can go once the process in
/// its name (`fsb-LABEL-PID-SEQ`) is gone; while that pid runs, it may be a run just starting.
fn forget_headerless(path: &Path, report: &mut CleanupReport) {
    let pid: Option<i32> = path
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.rsplit('-').nth(1))
        .and_then(|p| p.parse().ok());
    match pid {
        Some(pid) if !Path::new(&format!("/proc/{pid}")).exists() => {
            match std::fs::remove_file(path) {
                Ok(()) => report.state_files.push(path.to_path_buf()),
                Err(e) => report.failed.push(format!("rm {}: {e}", path.display())),
            }
        }
        _ => report.skipped.push(format!(
            "{}: not written yet, by a process that may still be running",
            path.display()
        )),
    }
}

fn clean_one(workdir: &Path, path: &Path, report: &mut CleanupReport) {
    let shown = path.display();
    let snap = match state::read(path) {
        Ok(s) => s,
        Err(ReadError::Untrusted(e)) => {
            report.refused.push(format!("state file {e}"));
            return;
        }
        Err(ReadError::Headerless) => {
            forget_headerless(path, report);
            return;
        }
        Err(ReadError::Bad(e)) => {
            report
                .failed
                .push(format!("{shown}: unreadable state file, left alone: {e}"));
            return;
        }
    };
    let exists = match check_session(workdir, path, &snap) {
        Ok(e) => e,
        Err(e) => {
            report.refused.push(format!("state file {shown}: {e}"));
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
        if let Err(why) = admit(res, &snap.session, exists) {
            ok = false;
            report.refused.push(format!("{}: {why}", res.describe()));
            continue;
        }
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
    use crate::state::Resource;

    #[test]
    fn dead_runs_files_and_dirs_are_removed_live_ones_kept() {
        let work = tempfile::tempdir().unwrap();
        let session = work.path().canonicalize().unwrap().join("fsb-x-1-0");
        // A state file of this (live) process is never touched.
        let live = work.path().join("fsb-x-1-0.state");
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

    #[test]
    fn entries_outside_the_session_or_without_proof_are_refused() {
        let s = Path::new("/w/fsb-x-1-0");
        let ok = |r: &Resource| admit(r, s, true);
        assert!(ok(&Resource::File {
            path: s.join("disk0.img"),
            id: None
        })
        .is_ok());
        assert!(ok(&Resource::ScratchDir {
            path: "/home/u".into(),
            id: None
        })
        .is_err());
        let lo = |device: &str| Resource::Loop {
            image: s.join("disk0.img"),
            image_id: (1, 2),
            device: Some(device.into()),
            btrfs: false,
        };
        assert!(ok(&lo("/dev/loop7")).is_ok());
        assert!(ok(&lo("/dev/sda")).is_err());
        assert!(ok(&Resource::ZfsRuntime {
            dirs: vec!["/var/run/zfs".into()]
        })
        .is_ok());
        assert!(ok(&Resource::ZfsRuntime {
            dirs: vec!["/etc".into()]
        })
        .is_err());
        assert!(ok(&Resource::Pool {
            name: "tank".into(),
            vdevs: vec![s.join("disk0.img")]
        })
        .is_err());
        let e = ok(&Resource::Signature {
            device: "/dev/sdz".into(),
            uuid: None,
        })
        .unwrap_err();
        assert!(e.contains("wipefs -a /dev/sdz"), "{e}");
        // With the session directory gone nothing but its own record is honoured.
        assert!(admit(
            &Resource::Mount {
                mount_point: s.join("mnt"),
                source: "x".into()
            },
            s,
            false
        )
        .is_err());
    }
}

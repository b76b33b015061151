//! Trust checks: which work directories, state files and recorded paths fsbattery may act on.
//!
//! fsbattery often runs as root, and `cleanup` deletes, unmounts and detaches what a state file
//! names. A state file is therefore input to distrust (issue 15): it counts only when the
//! caller owns it and nobody else can write it, it may only name resources inside its own
//! session directory (itself inside the work directory, owned by the caller, private), and
//! the work directory and its ancestors must not let another user swap those out.
//!
//! The rule for a directory someone else can write is the one for /tmp: without the sticky
//! bit another user can rename our session directory away and put a forged one in its place,
//! so it is refused; with it, others can add entries but not rename or delete ours, and every
//! entry they add is theirs (refused by the ownership check), so it is allowed — because our
//! session directories are created 0700 and state files 0600, owned by the caller.

use crate::error::UsageError;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path};

const STICKY: u32 = 0o1000;

/// Why a directory with `mode` owned by `uid` is unsafe for a process running as `euid`.
pub fn dir_problem(mode: u32, uid: u32, euid: u32) -> Option<String> {
    if uid != euid && uid != 0 {
        return Some(format!(
            "is owned by uid {uid}, who could replace what fsbattery (uid {euid}) puts there"
        ));
    }
    if mode & 0o022 != 0 && mode & STICKY == 0 {
        return Some(format!(
            "is writable by group or others without the sticky bit (mode {:04o}): another user \
             could swap a session directory or plant a state file there and have fsbattery \
             delete or unmount what it names",
            mode & 0o7777
        ));
    }
    None
}

/// Refuse a work directory (or an ancestor) another user could tamper with. When it does not
/// exist yet, its nearest existing ancestor is checked: fsbattery creates the rest, private.
pub fn check_workdir(workdir: &Path) -> Result<(), UsageError> {
    let abs = match workdir.is_absolute() {
        true => workdir.to_path_buf(),
        false => std::env::current_dir()
            .map(|d| d.join(workdir))
            .unwrap_or_else(|_| workdir.to_path_buf()),
    };
    let Some(canon) = abs.ancestors().find_map(|a| a.canonicalize().ok()) else {
        return Ok(());
    };
    let euid = nix::unistd::geteuid().as_raw();
    for dir in canon.ancestors() {
        let Ok(meta) = std::fs::metadata(dir) else {
            continue;
        };
        if let Some(why) = dir_problem(meta.mode(), meta.uid(), euid) {
            let which = if dir == abs {
                format!("--workdir {}", workdir.display())
            } else {
                format!(
                    "{} (holding --workdir {})",
                    dir.display(),
                    workdir.display()
                )
            };
            return Err(UsageError::Invalid(format!(
                "{which} {why}; use a directory only you can write (chmod go-w {}) or one with \
                 the sticky bit, like /tmp (chmod +t {})",
                dir.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// `meta` (of `path`) must belong to the caller and be writable by nobody else.
pub fn private_to_us(path: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    let euid = nix::unistd::geteuid().as_raw();
    if meta.file_type().is_symlink() {
        return Err(format!("{} is a symbolic link", path.display()));
    }
    if meta.uid() != euid {
        return Err(format!(
            "{} is owned by uid {}, not by the caller (uid {euid})",
            path.display(),
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "{} is writable by group or others (mode {:04o})",
            path.display(),
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

/// `path` must lie inside `session` by its own components (no `..`, no `.`), and no directory
/// between them may be a symbolic link, so a recorded path cannot lead out of the session.
/// The last component is not followed by the release code (lstat, rmdir, UMOUNT_NOFOLLOW).
pub fn confine(session: &Path, path: &Path) -> Result<(), String> {
    let outside = || {
        format!(
            "{} is outside the session directory {}",
            path.display(),
            session.display()
        )
    };
    let rest = path.strip_prefix(session).map_err(|_| outside())?;
    if !rest.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(outside());
    }
    let mut dir = session.to_path_buf();
    let inner: Vec<Component> = rest.components().collect();
    for c in inner.iter().take(inner.len().saturating_sub(1)) {
        dir.push(c);
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!(
                "{} leads through the symbolic link {}",
                path.display(),
                dir.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_directories_need_the_sticky_bit_and_a_trusted_owner() {
        assert!(dir_problem(0o40755, 1000, 1000).is_none());
        assert!(dir_problem(0o40755, 0, 1000).is_none());
        assert!(dir_problem(0o41777, 0, 0).is_none());
        assert!(dir_problem(0o40777, 0, 0).unwrap().contains("sticky"));
        assert!(dir_problem(0o40775, 0, 0).unwrap().contains("group"));
        assert!(dir_problem(0o40700, 1001, 1000)
            .unwrap()
            .contains("uid 1001"));
    }

    #[test]
    fn paths_must_stay_inside_the_session() {
        let s = Path::new("/w/fsb-x-1-0");
        assert!(confine(s, s).is_ok());
        assert!(confine(s, &s.join("mnt")).is_ok());
        assert!(confine(s, Path::new("/elsewhere/victim.txt")).is_err());
        assert!(confine(s, &s.join("../../etc/passwd")).is_err());
        assert!(confine(s, Path::new("/w/fsb-x-1-00/f")).is_err());
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s");
        std::fs::create_dir(&session).unwrap();
        std::os::unix::fs::symlink("/", session.join("link")).unwrap();
        let err = confine(&session, &session.join("link/etc/passwd")).unwrap_err();
        assert!(err.contains("symbolic link"), "{err}");
    }
}

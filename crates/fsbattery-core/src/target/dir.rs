//! `dir:PATH` — an existing directory on whatever filesystem holds it.
//!
//! fsbattery makes no filesystem here, so there is no lifecycle; the directory itself is
//! never removed unless fsbattery created it (the default target: a scratch directory of a
//! guard session, recorded in a state file before it is made, so `cleanup` removes it after a
//! kill -9). The writability probe never touches a file it did not create.

use super::guards::Session;
use super::{probe_direct_io, Target, TargetError, TargetOptions};
use crate::error::UsageError;
use crate::model::{Capabilities, Lifecycle};
use std::path::{Path, PathBuf};

/// A plain directory target.
#[derive(Debug)]
pub struct DirTarget {
    spec: String,
    label: String,
    path: PathBuf,
    /// Set when fsbattery created the directory (the default target): dropping it removes
    /// the directory.
    _session: Option<Session>,
}

pub(super) fn parse(
    spec: &str,
    rest: &str,
    _opts: &TargetOptions,
) -> Result<Box<dyn Target>, UsageError> {
    let bad = |m: &str| UsageError::Target {
        spec: spec.into(),
        message: m.into(),
    };
    if rest.is_empty() {
        return Err(bad("no path given: write dir:PATH"));
    }
    let path = PathBuf::from(rest);
    let meta = std::fs::metadata(&path)
        .map_err(|e| bad(&format!("{} cannot be used: {e}", path.display())))?;
    if !meta.is_dir() {
        return Err(bad(&format!("{} is not a directory", path.display())));
    }
    // Create and remove a probe file rather than ask access(2): root passes access() on a
    // read-only filesystem, and the workloads will need to create files there.
    super::with_probe_file(&path, "probe", |_| ())
        .map_err(|e| bad(&format!("{} is not writable: {e}", path.display())))?;
    let path = path
        .canonicalize()
        .map_err(|e| bad(&format!("{}: {e}", path.display())))?;
    Ok(Box::new(DirTarget {
        spec: spec.into(),
        label: "dir".into(),
        path,
        _session: None,
    }))
}

impl DirTarget {
    /// A fresh directory under `workdir` that fsbattery creates now and removes on teardown.
    pub fn owned_under(workdir: &Path) -> Result<DirTarget, TargetError> {
        let mut session = Session::begin(workdir, "dir")?;
        let path = session.make_scratch_dir("data")?;
        Ok(DirTarget {
            spec: format!("dir:{}", path.display()),
            label: "dir".into(),
            path,
            _session: Some(session),
        })
    }

    /// Override the column label (several dir targets in one run).
    pub fn set_label(&mut self, label: String) {
        self.label = label;
    }
}

impl Target for DirTarget {
    fn label(&self) -> &str {
        &self.label
    }
    fn spec(&self) -> &str {
        &self.spec
    }
    fn capabilities(&self) -> Capabilities {
        let direct = probe_direct_io(&self.path);
        let fs = super::fsinfo::describe(&self.path);
        Capabilities {
            needs_root: false,
            drop_caches: crate::cache::can_drop_caches(),
            direct_io: direct,
            direct_io_bypasses_cache: direct && fs.fs_type != "tmpfs",
        }
    }
    fn setup(&mut self, _repeat: u32) -> Result<Option<Lifecycle>, TargetError> {
        Ok(None)
    }
    fn root(&self) -> &Path {
        &self.path
    }
    fn teardown(&mut self) -> Result<Option<crate::measure::Timing>, TargetError> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writability_probe_leaves_a_users_file_of_the_same_name_alone() {
        let dir = tempfile::tempdir().unwrap();
        let theirs = dir
            .path()
            .join(format!(".fsbattery-probe-{}", std::process::id()));
        std::fs::write(&theirs, b"user data").unwrap();
        let spec = format!("dir:{}", dir.path().display());
        let rest = spec.strip_prefix("dir:").unwrap();
        assert!(parse(&spec, rest, &TargetOptions::default()).is_ok());
        assert_eq!(std::fs::read(&theirs).unwrap(), b"user data");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the user's file remains: {names:?}");
    }

    #[test]
    fn the_default_directory_is_recorded_and_removed() {
        let work = tempfile::tempdir().unwrap();
        let t = DirTarget::owned_under(work.path()).unwrap();
        assert!(t.root().is_dir());
        std::fs::write(t.root().join("f"), b"x").unwrap();
        drop(t);
        let left: Vec<_> = std::fs::read_dir(work.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}

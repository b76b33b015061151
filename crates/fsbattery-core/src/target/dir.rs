//! `dir:PATH` — an existing directory on whatever filesystem holds it.
//!
//! fsbattery makes no filesystem here, so there is no lifecycle; the directory itself is
//! never removed unless fsbattery created it (the default work directory).

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
    /// Created by fsbattery (the default target) and removed at the end.
    owned: bool,
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
    let probe = path.join(format!(".fsbattery-probe-{}", std::process::id()));
    if let Err(e) = std::fs::File::create(&probe) {
        return Err(bad(&format!("{} is not writable: {e}", path.display())));
    }
    let _ = std::fs::remove_file(&probe);
    let path = path
        .canonicalize()
        .map_err(|e| bad(&format!("{}: {e}", path.display())))?;
    Ok(Box::new(DirTarget {
        spec: spec.into(),
        label: "dir".into(),
        path,
        owned: false,
    }))
}

impl DirTarget {
    /// A fresh directory under `workdir` that fsbattery creates now and removes on teardown.
    pub fn owned_under(workdir: &Path) -> std::io::Result<DirTarget> {
        std::fs::create_dir_all(workdir)?;
        let path = workdir.join(format!(
            "dir-{}-{}",
            std::process::id(),
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        ));
        std::fs::create_dir(&path)?;
        let path = path.canonicalize()?;
        Ok(DirTarget {
            spec: format!("dir:{}", path.display()),
            label: "dir".into(),
            path,
            owned: true,
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

impl Drop for DirTarget {
    fn drop(&mut self) {
        if self.owned {
            if let Err(e) = std::fs::remove_dir_all(&self.path) {
                eprintln!(
                    "fsbattery: warning: could not remove {}: {e}",
                    self.path.display()
                );
            }
        }
    }
}

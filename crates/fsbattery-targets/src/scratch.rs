//! A scratch directory fsbattery makes and removes: recorded in a guard session's state file
//! before it exists, removed with everything in it when dropped, and by `fsbattery cleanup`
//! after a kill -9. The run's dataset store and the default `dir:` target each live in one.

use super::guards::Session;
use super::TargetError;
use std::path::{Path, PathBuf};

/// `WORKDIR/fsb-LABEL-PID-SEQ/data`, owned: dropping it removes it.
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
    _session: Session,
}

impl ScratchDir {
    /// Make a fresh scratch directory under `workdir` (created if missing), named for `label`.
    pub fn new(workdir: &Path, label: &str) -> Result<ScratchDir, TargetError> {
        let mut session = Session::begin(workdir, label)?;
        let path = session.make_scratch_dir("data")?;
        Ok(ScratchDir {
            path,
            _session: session,
        })
    }

    /// The directory, to fill as the owner likes.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

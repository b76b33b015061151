//! The pgbench workload's server in a state file of its own (`WORKDIR/fsb-postgres-…`), so
//! that `fsbattery cleanup` stops a server a killed run left running before it unmounts the
//! target under it (see `targets::postgres_release`). The intent is written before the
//! scratch directory exists and the postmaster's pid as soon as it runs; the session is
//! released — the server proven stopped, the directory gone — after the workload's own guards.

use crate::error::WorkloadError;
use crate::targets::guards::Session;
use crate::targets::release::Handle;
use crate::targets::state::Resource;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The run's work directory (`--workdir`), where state files go; set once by the plan.
static WORKDIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Where the servers of this process are recorded (`run --workdir`).
pub fn set_workdir(dir: &Path) {
    *WORKDIR.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir.to_path_buf());
}

/// A server's record: its session (`None` when no work directory was set, as in unit tests
/// that drive the workload directly) and the entry's id.
pub(super) struct Record {
    session: Option<(Session, u64)>,
    dir: PathBuf,
    ino: Option<(u64, u64)>,
}

/// A session failure as the cell's failure.
fn fail(e: crate::targets::TargetError) -> WorkloadError {
    WorkloadError::Failed(e.0)
}

impl Record {
    /// Record the intent to make the scratch directory `dir` and a server in it.
    pub(super) fn intent(dir: &Path) -> Result<Record, WorkloadError> {
        let workdir = WORKDIR.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let session = match workdir {
            None => None,
            Some(w) => {
                let mut s = Session::begin(&w, "postgres").map_err(fail)?;
                let id = s.record(&res(dir, None, None)).map_err(fail)?;
                Some((s, id))
            }
        };
        Ok(Record {
            session,
            dir: dir.to_path_buf(),
            ino: None,
        })
    }

    /// The scratch directory exists now.
    pub(super) fn created(&mut self) {
        use std::os::unix::fs::MetadataExt;
        self.ino = std::fs::symlink_metadata(&self.dir)
            .ok()
            .map(|m| (m.dev(), m.ino()));
        if let Some((s, id)) = &mut self.session {
            s.created(*id, res(&self.dir, self.ino, None), Handle::None);
        }
    }

    /// The postmaster runs as `postmaster` (pid, start time).
    pub(super) fn started(&mut self, postmaster: Option<(i32, u64)>) {
        if let Some((s, id)) = &mut self.session {
            s.replace(*id, res(&self.dir, self.ino, postmaster));
        }
    }

    /// Release the record: the server is stopped and the directory gone, or it says why not.
    pub(super) fn close(mut self) -> Result<(), WorkloadError> {
        match self.session.take() {
            Some((s, _)) => s.close().map(drop).map_err(fail),
            None => Ok(()),
        }
    }
}

fn res(dir: &Path, id: Option<(u64, u64)>, postmaster: Option<(i32, u64)>) -> Resource {
    Resource::Postgres {
        dir: dir.to_path_buf(),
        id,
        postmaster,
    }
}

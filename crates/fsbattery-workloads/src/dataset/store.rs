//! The run's datasets: each spec prepared once, shared by every target and repeat.
//!
//! The runner makes one store per run in a source directory outside every target and, before
//! the first target is set up, calls [`DatasetStore::prepare`] for each tree workload so that
//! generation time never falls inside a cell and a bad `--tree-tarball` is refused up front.
//! Workloads call `prepare` too; it returns the dataset already made. Generated tarballs live
//! in a private scratch directory the caller hands over with its owner (for a run, a
//! `targets::ScratchDir`, `SOURCE_DIR/fsb-source-PID-SEQ/data`, recorded in a state file
//! before it is made; see `runner::dataset_store`), removed when the store is dropped or,
//! after a kill -9, by `fsbattery cleanup --workdir SOURCE_DIR`; a user's tarball is only
//! read. The store knows nothing of targets: it only holds the owner until it is dropped.

use super::{DatasetError, DatasetSpec, SourceDataset};
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Datasets of one run, keyed by spec.
#[derive(Debug)]
pub struct DatasetStore {
    dir: PathBuf,
    user: Option<SourceDataset>,
    prepared: Mutex<Vec<(DatasetSpec, Arc<SourceDataset>)>>,
    /// Generated sources other than trees (git repositories, C projects), by name.
    generated: Mutex<Vec<(String, PathBuf)>>,
    /// Owns `dir`: its drop removes it (declared last, so it drops after the datasets).
    _owner: Box<dyn Debug + Send + Sync>,
}

impl DatasetStore {
    /// A store whose files go to `dir`, an empty private directory that `owner` removes when
    /// dropped (the store drops it last). With `user_tarball`, every spec is served from that
    /// tarball (its profile, scale and seed are ignored; copies > 1 are packed from it); it is
    /// scanned now, so a bad one fails here.
    pub fn in_dir(
        dir: PathBuf,
        owner: impl Debug + Send + Sync + 'static,
        user_tarball: Option<&Path>,
    ) -> Result<DatasetStore, DatasetError> {
        let user = match user_tarball {
            Some(p) => Some(SourceDataset::from_user_tarball(p)?.with_scratch_dir(&dir)),
            None => None,
        };
        Ok(DatasetStore {
            dir,
            user,
            prepared: Mutex::new(Vec::new()),
            generated: Mutex::new(Vec::new()),
            _owner: Box::new(owner),
        })
    }

    /// The directory holding generated tarballs and temporary source-disk files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The dataset for `spec`, made now unless it already was.
    pub fn prepare(&self, spec: &DatasetSpec) -> Result<Arc<SourceDataset>, DatasetError> {
        let mut done = self.prepared.lock().unwrap_or_else(|p| p.into_inner());
        self.prepare_locked(&mut done, spec)
    }

    fn prepare_locked(
        &self,
        done: &mut Vec<(DatasetSpec, Arc<SourceDataset>)>,
        spec: &DatasetSpec,
    ) -> Result<Arc<SourceDataset>, DatasetError> {
        // With a user tarball only the number of copies tells datasets apart.
        let key = match self.user {
            Some(_) => DatasetSpec {
                kernel: 0,
                scale_div: 0,
                seed: 0,
                copies: spec.copies,
            },
            None => *spec,
        };
        if let Some((_, ds)) = done.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(ds));
        }
        let ds = match (&self.user, spec.copies) {
            (Some(user), 1) => user.clone(),
            (Some(user), n) => user.with_copies(n, &self.dir)?,
            (None, 1) => SourceDataset::prepare(&self.dir, spec)?,
            (None, n) => {
                let one = self.prepare_locked(done, &DatasetSpec { copies: 1, ..*spec })?;
                one.with_copies(n, &self.dir)?
            }
        };
        let ds = Arc::new(ds);
        done.push((key, Arc::clone(&ds)));
        Ok(ds)
    }

    /// The directory of the generated source `g`, made now unless it already was (see
    /// [`super::Generated`]); a user's tarball does not replace it.
    pub fn prepare_generated(&self, g: &super::Generated) -> Result<PathBuf, DatasetError> {
        let mut done = self.generated.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, dir)) = done.iter().find(|(n, _)| *n == g.name) {
            return Ok(dir.clone());
        }
        let dir = super::generated::make_in(&self.dir, g)?;
        done.push((g.name.clone(), dir.clone()));
        Ok(dir)
    }

    /// Every dataset prepared so far, in order (for the run record).
    pub fn prepared(&self) -> Vec<Arc<SourceDataset>> {
        let done = self.prepared.lock().unwrap_or_else(|p| p.into_inner());
        done.iter().map(|(_, ds)| Arc::clone(ds)).collect()
    }
}

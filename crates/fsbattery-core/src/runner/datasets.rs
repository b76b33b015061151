//! The run's dataset store in a scratch directory of its own: joins `targets` (which makes
//! and records the directory) and `dataset` (which fills it), so neither knows the other.

use crate::dataset::{DatasetError, DatasetStore};
use crate::targets::{ScratchDir, TargetError};
use std::path::Path;

/// A store whose files go to `<source_dir>/fsb-source-<pid>-<seq>/data/` (created), removed
/// with the store, or by `fsbattery cleanup --workdir SOURCE_DIR` after a kill -9. With
/// `user_tarball`, every spec is served from that tarball (see [`DatasetStore::in_dir`]).
pub fn dataset_store(
    source_dir: &Path,
    user_tarball: Option<&Path>,
) -> Result<DatasetStore, DatasetError> {
    let scratch = ScratchDir::new(source_dir, "source").map_err(|e: TargetError| {
        DatasetError::io(
            format!("create the dataset directory in {}", source_dir.display()),
            std::io::Error::other(e.0),
        )
    })?;
    DatasetStore::in_dir(scratch.path().to_path_buf(), scratch, user_tarball)
}

//! Whole-or-nothing file writes for the run's outputs (results.json, `--json FILE`, the
//! reports): the bytes go to a temporary file in the same directory, are synced, and are
//! renamed over the destination, so a reader — or the next `report` — finds the old file or
//! the new one, never half of one. A results directory that fills up or turns read-only under
//! the write leaves the destination as it was and no temporary file behind.
//!
//! Invariant: only a regular file (or a name that does not exist yet) is replaced by rename.
//! Anything else — `/dev/stdout`, a pipe, a symbolic link — is written through in place, as
//! `std::fs::write` would: renaming over it would replace the device node or the link itself.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` atomically where `path` is a regular file or absent (see above).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => return std::fs::write(path, bytes),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // 0666 before the umask, as std::fs::write creates files (tempfile's default is 0600).
    use std::os::unix::fs::PermissionsExt;
    let mut tmp = tempfile::Builder::new()
        .prefix(".fsbattery-")
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    // The rename itself is durable once the directory is synced (best effort: some
    // filesystems refuse fsync on a directory).
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_file_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        write(&path, b"old").unwrap();
        write(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        write(&path, b"old").unwrap();
        // A directory that cannot take the temporary file (gone, as if unmounted).
        let gone = dir.path().join("gone/results.json");
        assert!(write(&gone, b"new").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
    }

    #[test]
    fn a_symbolic_link_is_written_through_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::write(&real, b"old").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
    }
}

//! Native (in-process) versions of what the seeds ran: cp, tar -x, tar -c, cpio -p, rm -rf.
//!
//! Each makes the system calls its tool makes, in the same order, so the filesystem sees the
//! same work: a walk in readdir order with an lstat per entry (tar, find), files created
//! with their mode and written in 128 KiB chunks (cp, cpio), mtimes restored per file and
//! directory times and modes set after their contents (tar -x, cpio -pdm). Nothing is
//! fsync'ed, as none of the tools did. Every loop polls the interruption flag.

use crate::dataset::normalize_member;
use crate::error::{IoContext, WorkloadError};
use crate::poll;
use nix::sys::stat::{utimensat, UtimensatFlags};
use nix::sys::time::TimeSpec;
use std::ffi::OsStr;
use std::fs::{File, OpenOptions, Permissions};
use std::io::{BufReader, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};
use tar::EntryType;

/// cp's and cpio's copy buffer (coreutils' io_blksize floor).
pub(super) const COPY_BUF: usize = 128 << 10;

pub(super) use crate::fsops::{walk_tree as walk, Kind};

/// The process umask, read without changing it (umask(2) can only be read by setting it,
/// which would race with other threads creating files).
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        .unwrap_or(0o022)
}

fn timespec(secs: i64) -> TimeSpec {
    TimeSpec::new(secs, 0)
}

/// Set a directory's mode (if the umask or our own u+rwx changed it) and its mtime.
fn finish_dir(path: &Path, mode: u32, created: u32, mtime: i64) -> Result<(), WorkloadError> {
    if mode != created {
        std::fs::set_permissions(path, Permissions::from_mode(mode))
            .ctx(|| format!("chmod {}", path.display()))?;
    }
    utimensat(
        nix::fcntl::AT_FDCWD,
        path,
        &TimeSpec::UTIME_NOW,
        &timespec(mtime),
        UtimensatFlags::NoFollowSymlink,
    )
    .map_err(|e| WorkloadError::io(format!("set times of {}", path.display()), e.into()))
}

/// open(O_CREAT|O_EXCL|O_WRONLY, mode), as tar, cp and cpio create files.
fn create_new(path: &Path, mode: u32) -> std::io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
}

/// Give the new file `out` what `read` yields, then restore its mode (if the umask cut it)
/// and its mtime.
fn fill(
    mut out: File,
    path: &Path,
    (mode, mtime, umask): (u32, i64, u32),
    read: &mut dyn Read,
    buf: &mut [u8],
) -> Result<(), WorkloadError> {
    let mut i = 0u64;
    loop {
        poll(i)?;
        i += 1;
        let n = read
            .read(buf)
            .ctx(|| format!("read the source of {}", path.display()))?;
        if n == 0 {
            break;
        }
        out.write_all(&buf[..n])
            .ctx(|| format!("write {}", path.display()))?;
    }
    if mode & umask != 0 {
        out.set_permissions(Permissions::from_mode(mode))
            .ctx(|| format!("chmod {}", path.display()))?;
    }
    let t = UNIX_EPOCH + Duration::from_secs(mtime.max(0) as u64);
    out.set_times(std::fs::FileTimes::new().set_modified(t))
        .ctx(|| format!("set times of {}", path.display()))
}

/// cp SRC DST: read/write in [`COPY_BUF`] chunks into a new file with SRC's mode.
pub(super) fn copy_file(src: &Path, dst: &Path) -> Result<(), WorkloadError> {
    let mut input = File::open(src).ctx(|| format!("open {}", src.display()))?;
    let mode = input
        .metadata()
        .ctx(|| format!("stat {}", src.display()))?
        .permissions()
        .mode()
        & 0o7777;
    let mut out = create_new(dst, mode).ctx(|| format!("create {}", dst.display()))?;
    let mut buf = vec![0u8; COPY_BUF];
    let mut i = 0u64;
    loop {
        poll(i)?;
        i += 1;
        let n = input
            .read(&mut buf)
            .ctx(|| format!("read {}", src.display()))?;
        if n == 0 {
            return Ok(());
        }
        out.write_all(&buf[..n])
            .ctx(|| format!("write {}", dst.display()))?;
    }
}

/// Run `op`; if it failed because a parent directory is missing (an archive that lists no
/// directory entries), create the parents as tar does and run it again.
fn with_parents<T>(path: &Path, mut op: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    match op() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            op()
        }
        other => other,
    }
}

/// tar -xpf TARBALL -C DEST: members created in archive order, directory modes and times set
/// at the end (deepest first), as GNU tar does.
pub(super) fn extract(tarball: &Path, dest: &Path) -> Result<(), WorkloadError> {
    let umask = umask();
    let file = File::open(tarball).ctx(|| format!("open {}", tarball.display()))?;
    let mut ar = tar::Archive::new(BufReader::with_capacity(1 << 20, file));
    let bad = |e: std::io::Error| WorkloadError::io(format!("read {}", tarball.display()), e);
    let mut dirs: Vec<(PathBuf, u32, u32, i64)> = Vec::new();
    let mut buf = vec![0u8; COPY_BUF];
    for (i, entry) in ar.entries().map_err(bad)?.enumerate() {
        poll(i as u64)?;
        let mut entry = entry.map_err(bad)?;
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions() {
            continue;
        }
        let Some(rel) = normalize_member(&entry.path_bytes(), tarball)? else {
            continue;
        };
        let path = dest.join(OsStr::from_bytes(&rel));
        let mode = entry.header().mode().map_err(bad)? & 0o7777;
        let mtime = entry.header().mtime().unwrap_or(0) as i64;
        match kind {
            EntryType::Directory => {
                let created = (mode | 0o700) & !umask;
                let made = with_parents(&path, || {
                    std::fs::DirBuilder::new().mode(mode | 0o700).create(&path)
                });
                match made {
                    Ok(()) => dirs.push((path, mode, created, mtime)),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && path.is_dir() => {}
                    Err(e) => {
                        return Err(WorkloadError::io(format!("mkdir {}", path.display()), e))
                    }
                }
            }
            EntryType::Regular | EntryType::Continuous => {
                let out = with_parents(&path, || create_new(&path, mode))
                    .ctx(|| format!("create {}", path.display()))?;
                fill(out, &path, (mode, mtime, umask), &mut entry, &mut buf)?;
            }
            EntryType::Symlink => {
                let target = entry.link_name_bytes().unwrap_or_default().into_owned();
                with_parents(&path, || {
                    std::os::unix::fs::symlink(OsStr::from_bytes(&target), &path)
                })
                .ctx(|| format!("symlink {}", path.display()))?;
            }
            EntryType::Link => {
                let raw = entry.link_name_bytes().unwrap_or_default().into_owned();
                let target = dest.join(OsStr::from_bytes(
                    &normalize_member(&raw, tarball)?.unwrap_or_default(),
                ));
                with_parents(&path, || std::fs::hard_link(&target, &path))
                    .ctx(|| format!("link {} to {}", path.display(), target.display()))?;
            }
            other => {
                return Err(WorkloadError::Failed(format!(
                    "{}: member {} has type {other:?}, which the tree workloads do not extract",
                    tarball.display(),
                    path.display()
                )))
            }
        }
    }
    for (path, mode, created, mtime) in dirs.iter().rev() {
        finish_dir(path, *mode, *created, *mtime)?;
    }
    Ok(())
}

/// tar -cf OUT NAMES… (run in `base`): a GNU tar of the tree, in walk order.
pub(super) fn create_tar(base: &Path, names: &[String], out: &Path) -> Result<(), WorkloadError> {
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
        .ctx(|| format!("create {}", out.display()))?;
    // GNU tar writes 10 KiB records; a larger buffer only saves system calls.
    let mut b = tar::Builder::new(std::io::BufWriter::with_capacity(64 << 10, file));
    let werr = |e| WorkloadError::io(format!("write {}", out.display()), e);
    walk(base, names, &mut |v| {
        if v.kind == Kind::Leave {
            return Ok(());
        }
        let mut h = tar::Header::new_gnu();
        h.set_metadata_in_mode(v.meta, tar::HeaderMode::Complete);
        match v.kind {
            Kind::File => {
                let f = File::open(v.abs).ctx(|| format!("open {}", v.abs.display()))?;
                b.append_data(&mut h, v.rel, f.take(v.meta.len()))
                    .map_err(werr)
            }
            Kind::Symlink => {
                let target =
                    std::fs::read_link(v.abs).ctx(|| format!("readlink {}", v.abs.display()))?;
                b.append_link(&mut h, v.rel, target).map_err(werr)
            }
            _ => b.append_data(&mut h, v.rel, std::io::empty()).map_err(werr),
        }
    })?;
    let w = b.into_inner().map_err(werr)?;
    w.into_inner().map_err(|e| werr(e.into_error()))?;
    Ok(())
}

/// find NAMES | cpio -pdm DEST (run in `base`): the tree copied with modes and mtimes.
pub(super) fn copy_tree(base: &Path, names: &[String], dest: &Path) -> Result<(), WorkloadError> {
    let umask = umask();
    let mut buf = vec![0u8; COPY_BUF];
    walk(base, names, &mut |v| {
        let to = dest.join(v.rel);
        let mode = v.meta.mode() & 0o7777;
        match v.kind {
            Kind::Enter => std::fs::DirBuilder::new()
                .mode(mode | 0o700)
                .create(&to)
                .ctx(|| format!("mkdir {}", to.display())),
            Kind::Leave => finish_dir(&to, mode, (mode | 0o700) & !umask, v.meta.mtime()),
            Kind::File => {
                let mut src = File::open(v.abs).ctx(|| format!("open {}", v.abs.display()))?;
                let out = create_new(&to, mode).ctx(|| format!("create {}", to.display()))?;
                fill(out, &to, (mode, v.meta.mtime(), umask), &mut src, &mut buf)
            }
            Kind::Symlink => {
                let target =
                    std::fs::read_link(v.abs).ctx(|| format!("readlink {}", v.abs.display()))?;
                std::os::unix::fs::symlink(&target, &to).ctx(|| format!("symlink {}", to.display()))
            }
        }
    })
}

/// rm -rf NAMES… (in `base`).
pub(super) fn remove(base: &Path, names: &[String]) -> Result<(), WorkloadError> {
    for name in names {
        let p = base.join(name);
        let meta = std::fs::symlink_metadata(&p).ctx(|| format!("stat {}", p.display()))?;
        if meta.is_dir() {
            crate::fsops::remove_tree(&p)?;
        } else {
            std::fs::remove_file(&p).ctx(|| format!("remove {}", p.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::tiny_dataset;
    use super::*;
    use crate::dataset::{content_hash, SourceDataset};

    #[test]
    fn untar_tar_untar_and_copy_keep_the_hash() {
        let tmp = tempfile::tempdir().unwrap();
        let ds = tiny_dataset(tmp.path());
        let dir = |n: &str| {
            let p = tmp.path().join(n);
            std::fs::create_dir(&p).unwrap();
            p
        };
        let (x1, x2, copy) = (dir("x1"), dir("x2"), dir("copy"));
        extract(ds.tarball(), &x1).unwrap();
        assert_eq!(content_hash(&x1).unwrap(), ds.hash());
        let again = tmp.path().join("again.tar");
        create_tar(&x1, ds.top(), &again).unwrap();
        assert_eq!(
            SourceDataset::from_user_tarball(&again).unwrap().hash(),
            ds.hash()
        );
        extract(&again, &x2).unwrap();
        assert_eq!(content_hash(&x2).unwrap(), ds.hash());
        copy_tree(&x1, ds.top(), &copy).unwrap();
        assert_eq!(content_hash(&copy).unwrap(), ds.hash());
        let (a, b) = (
            x1.join("linux-2.6.14.4/Makefile"),
            copy.join("linux-2.6.14.4/Makefile"),
        );
        let mtime = |p: &Path| std::fs::metadata(p).unwrap().mtime();
        assert_eq!(mtime(&a), mtime(&b), "copy_tree keeps mtimes (cpio -m)");
        assert_eq!(
            mtime(&a),
            1_134_518_400,
            "untar restores the archive's mtime"
        );
        remove(&x1, ds.top()).unwrap();
        assert_eq!(std::fs::read_dir(&x1).unwrap().count(), 0);
    }

    #[test]
    fn extract_makes_missing_parents_symlinks_and_hard_links() {
        let tmp = tempfile::tempdir().unwrap();
        let tarball = tmp.path().join("t.tar");
        let mut b = tar::Builder::new(File::create(&tarball).unwrap());
        let mut h = tar::Header::new_gnu();
        h.set_size(3);
        h.set_mode(0o640);
        b.append_data(&mut h, "a/b/c", &b"abc"[..]).unwrap();
        let mut l = tar::Header::new_gnu();
        l.set_entry_type(EntryType::Symlink);
        l.set_size(0);
        l.set_mode(0o777);
        b.append_link(&mut l, "a/s", "b/c").unwrap();
        let mut hl = tar::Header::new_gnu();
        hl.set_entry_type(EntryType::Link);
        hl.set_size(0);
        hl.set_mode(0o640);
        b.append_link(&mut hl, "a/h", "a/b/c").unwrap();
        b.into_inner().unwrap();
        let x = tmp.path().join("x");
        std::fs::create_dir(&x).unwrap();
        extract(&tarball, &x).unwrap();
        assert_eq!(std::fs::read(x.join("a/s")).unwrap(), b"abc");
        assert_eq!(std::fs::metadata(x.join("a/h")).unwrap().nlink(), 2);
        assert_eq!(
            std::fs::metadata(x.join("a/b/c")).unwrap().mode() & 0o7777,
            0o640
        );
        assert_eq!(
            content_hash(&x).unwrap(),
            SourceDataset::from_user_tarball(&tarball).unwrap().hash()
        );
    }

    #[test]
    fn members_outside_the_destination_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let tarball = tmp.path().join("evil.tar");
        let mut data = Vec::new();
        {
            let mut h = tar::Header::new_gnu();
            h.set_size(1);
            // set_path refuses "..", so write the name field directly.
            h.as_gnu_mut().unwrap().name[..9].copy_from_slice(b"../escape");
            h.set_cksum();
            data.extend_from_slice(h.as_bytes());
            data.extend_from_slice(&[b'x'; 512]);
            data.extend_from_slice(&[0; 1024]);
        }
        std::fs::write(&tarball, data).unwrap();
        let x = tmp.path().join("x");
        std::fs::create_dir(&x).unwrap();
        let e = extract(&tarball, &x).unwrap_err().to_string();
        assert!(e.contains("leaves the archive root"), "{e}");
        assert!(!tmp.path().join("escape").exists());
    }
}

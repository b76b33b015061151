//! Tarballs on the source disk: writing the generated tree as a GNU tar, scanning any tar into
//! a [`TreeSummary`], and packing N copies of a tree under `data1/ … dataN/` (seed S2).
//!
//! Invariant: the summary of a tarball (from [`scan`] or computed while writing) is exactly
//! the [`super::content_hash`] of a directory it is extracted into with modes preserved.
//! Only uncompressed archives are read: decompression would be CPU work, and the seeds timed
//! file operations (S2 chose an uncompressed tar for exactly that reason).

use super::generator::{Entry, TreePlan};
use super::hash::{TreeHasher, TreeSummary};
use super::DatasetError;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use tar::{Archive, Builder, EntryType, Header};

/// Buffer between the archive and the disk; big enough that tar I/O is not syscall-bound.
const IO_BUF: usize = 1 << 20;
/// Mode tar gives directories an archive implies but does not list (0777 less umask 022).
const IMPLICIT_DIR_MODE: u32 = 0o755;

/// What a scan or a write of a tarball found.
#[derive(Debug, Clone)]
pub(crate) struct TarSummary {
    /// Counts and content hash of the tree the archive extracts to.
    pub(crate) tree: TreeSummary,
    /// Top-level names, in archive order.
    pub(crate) top: Vec<String>,
    /// Size of the archive file.
    pub(crate) tar_bytes: u64,
}

/// Write `plan` to `out` as a GNU tar (root-owned, the release date as mtime).
pub(crate) fn write_plan(plan: &TreePlan, out: &Path) -> Result<TarSummary, DatasetError> {
    let file =
        File::create(out).map_err(|e| DatasetError::io(format!("create {}", out.display()), e))?;
    let mut b = Builder::new(BufWriter::with_capacity(IO_BUF, file));
    let mut hasher = TreeHasher::default();
    let mut top = Vec::new();
    let werr = |e| DatasetError::io(format!("write {}", out.display()), e);
    plan.visit(&mut |entry| {
        let (path, mode, data, kind): (&str, u32, &[u8], EntryType) = match entry {
            Entry::Dir { path, mode } => {
                hasher.dir(path.as_bytes(), mode);
                (path, mode, &[], EntryType::Directory)
            }
            Entry::File { path, mode, data } => {
                let digest = Sha256::digest(data).into();
                hasher.file(path.as_bytes(), mode, data.len() as u64, digest);
                (path, mode, data, EntryType::Regular)
            }
        };
        if !path.contains('/') {
            top.push(path.to_string());
        }
        let mut h = header(kind, mode, data.len() as u64, plan.mtime);
        b.append_data(&mut h, path, data).map_err(werr)
    })?;
    finish(b, out)?;
    Ok(TarSummary {
        tree: hasher.finish(),
        top,
        tar_bytes: file_len(out)?,
    })
}

fn header(kind: EntryType, mode: u32, size: u64, mtime: u64) -> Header {
    let mut h = Header::new_gnu();
    h.set_entry_type(kind);
    h.set_mode(mode);
    h.set_size(size);
    h.set_mtime(mtime);
    h.set_uid(0);
    h.set_gid(0);
    h
}

fn finish(b: Builder<BufWriter<File>>, out: &Path) -> Result<(), DatasetError> {
    let werr = |e| DatasetError::io(format!("write {}", out.display()), e);
    let mut w = b.into_inner().map_err(werr)?;
    w.flush().map_err(werr)?;
    let f = w.into_inner().map_err(|e| werr(e.into_error()))?;
    f.sync_all().map_err(werr)
}

fn file_len(p: &Path) -> Result<u64, DatasetError> {
    Ok(std::fs::metadata(p)
        .map_err(|e| DatasetError::io(format!("stat {}", p.display()), e))?
        .len())
}

/// Refuse compressed archives with the command that decompresses them.
pub(crate) fn check_uncompressed(path: &Path) -> Result<(), DatasetError> {
    let mut magic = [0u8; 6];
    let mut f =
        File::open(path).map_err(|e| DatasetError::io(format!("open {}", path.display()), e))?;
    let n = f
        .read(&mut magic)
        .map_err(|e| DatasetError::io(format!("read {}", path.display()), e))?;
    let m = &magic[..n];
    let found = if m.starts_with(&[0x1f, 0x8b]) {
        Some(("gzip", "gzip"))
    } else if m.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Some(("xz", "xz"))
    } else if m.starts_with(b"BZh") {
        Some(("bzip2", "bzip2"))
    } else if m.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(("zstd", "zstd"))
    } else {
        None
    };
    match found {
        Some((kind, tool)) => Err(DatasetError::Compressed {
            path: path.to_path_buf(),
            kind,
            tool,
        }),
        None => Ok(()),
    }
}

/// A tar member path made relative and clean: leading `./` and `/`-runs and a trailing `/`
/// removed. `Ok(None)` for the archive root itself (`.`); an error for `..` components, which
/// would write outside the destination.
pub(crate) fn normalize(raw: &[u8], archive: &Path) -> Result<Option<Vec<u8>>, DatasetError> {
    let mut parts = Vec::new();
    for c in raw.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                return Err(DatasetError::BadTarball {
                    path: archive.to_path_buf(),
                    message: format!(
                        "member {} leaves the archive root",
                        String::from_utf8_lossy(raw)
                    ),
                })
            }
            part => parts.push(part),
        }
    }
    Ok(if parts.is_empty() {
        None
    } else {
        Some(parts.join(&b'/'))
    })
}

/// Read `path` (an uncompressed tar) and summarise the tree it extracts to.
pub(crate) fn scan(path: &Path) -> Result<TarSummary, DatasetError> {
    let (hasher, top) = scan_entries(path)?;
    Ok(TarSummary {
        tree: hasher.finish(),
        top,
        tar_bytes: file_len(path)?,
    })
}

/// The record of every entry `path` extracts to, and its top-level names in archive order.
pub(crate) fn scan_entries(path: &Path) -> Result<(TreeHasher, Vec<String>), DatasetError> {
    check_uncompressed(path)?;
    let bad = |e: std::io::Error| DatasetError::BadTarball {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let file =
        File::open(path).map_err(|e| DatasetError::io(format!("open {}", path.display()), e))?;
    let mut ar = Archive::new(BufReader::with_capacity(IO_BUF, file));
    let mut hasher = TreeHasher::default();
    let mut top: Vec<String> = Vec::new();
    let mut buf = vec![0u8; 256 << 10];
    for entry in ar.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions() {
            continue;
        }
        let Some(rel) = normalize(&entry.path_bytes(), path)? else {
            continue;
        };
        let first = rel.split(|&b| b == b'/').next().unwrap_or(&rel);
        let first = String::from_utf8_lossy(first).into_owned();
        if !top.contains(&first) {
            top.push(first);
        }
        let mode = entry.header().mode().map_err(bad)?;
        match kind {
            EntryType::Directory => hasher.dir(&rel, mode),
            EntryType::Regular | EntryType::Continuous => {
                let (size, digest) = digest_member(&mut entry, &mut buf).map_err(bad)?;
                hasher.file(&rel, mode, size, digest);
            }
            EntryType::Symlink => {
                let target = entry.link_name_bytes().unwrap_or_default().into_owned();
                hasher.symlink(&rel, &target);
            }
            EntryType::Link => {
                let target = entry.link_name_bytes().unwrap_or_default().into_owned();
                let target = normalize(&target, path)?.unwrap_or_default();
                let (mode, size, digest) =
                    hasher
                        .file_record(&target)
                        .ok_or_else(|| DatasetError::BadTarball {
                            path: path.to_path_buf(),
                            message: format!(
                                "hard link {} to a file not seen before",
                                String::from_utf8_lossy(&rel)
                            ),
                        })?;
                hasher.file(&rel, mode, size, digest);
            }
            other => {
                return Err(DatasetError::Unsupported {
                    path: path.join(String::from_utf8_lossy(&rel).as_ref()),
                    what: format!("tar entry type {other:?}"),
                })
            }
        }
    }
    hasher.add_implicit_parents(IMPLICIT_DIR_MODE);
    Ok((hasher, top))
}

/// Size and SHA-256 of what `r` yields.
fn digest_member(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<(u64, [u8; 32])> {
    let mut h = Sha256::new();
    let mut size = 0u64;
    loop {
        let n = r.read(buf)?;
        if n == 0 {
            return Ok((size, h.finalize().into()));
        }
        h.update(&buf[..n]);
        size += n as u64;
    }
}

/// Pack `copies` copies of the tree in `base` into `out`, under `data1/ … dataN/` (S2's
/// layout), and summarise the result.
pub(crate) fn write_copies(
    base: &Path,
    copies: u32,
    out: &Path,
) -> Result<TarSummary, DatasetError> {
    let file =
        File::create(out).map_err(|e| DatasetError::io(format!("create {}", out.display()), e))?;
    let mut b = Builder::new(BufWriter::with_capacity(IO_BUF, file));
    let werr = |e| DatasetError::io(format!("write {}", out.display()), e);
    let mtime = std::fs::metadata(base).ok().and_then(|m| m.modified().ok());
    let mtime = mtime
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    for i in 1..=copies {
        let prefix = format!("data{i}");
        let mut h = header(EntryType::Directory, IMPLICIT_DIR_MODE, 0, mtime);
        b.append_data(&mut h, &prefix, std::io::empty())
            .map_err(werr)?;
        copy_members(base, &prefix, &mut b, out)?;
    }
    finish(b, out)?;
    scan(out)
}

/// Append every member of `base` to `b` with `prefix/` in front of its path.
fn copy_members(
    base: &Path,
    prefix: &str,
    b: &mut Builder<BufWriter<File>>,
    out: &Path,
) -> Result<(), DatasetError> {
    let bad = |e: std::io::Error| DatasetError::BadTarball {
        path: base.to_path_buf(),
        message: e.to_string(),
    };
    let werr = |e| DatasetError::io(format!("write {}", out.display()), e);
    let file =
        File::open(base).map_err(|e| DatasetError::io(format!("open {}", base.display()), e))?;
    let mut ar = Archive::new(BufReader::with_capacity(IO_BUF, file));
    for entry in ar.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions() {
            continue;
        }
        let Some(rel) = normalize(&entry.path_bytes(), base)? else {
            continue;
        };
        let path = PathBuf::from(format!("{prefix}/{}", String::from_utf8_lossy(&rel)));
        let mut h = entry.header().clone();
        h.set_size(if kind.is_file() || kind.is_contiguous() {
            entry.size()
        } else {
            0
        });
        match kind {
            EntryType::Symlink | EntryType::Link => {
                let raw = entry.link_name_bytes().unwrap_or_default().into_owned();
                let target = if kind == EntryType::Link {
                    let t = normalize(&raw, base)?.unwrap_or_default();
                    format!("{prefix}/{}", String::from_utf8_lossy(&t))
                } else {
                    String::from_utf8_lossy(&raw).into_owned()
                };
                b.append_link(&mut h, &path, target).map_err(werr)?;
            }
            _ => b.append_data(&mut h, &path, &mut entry).map_err(werr)?,
        }
    }
    Ok(())
}

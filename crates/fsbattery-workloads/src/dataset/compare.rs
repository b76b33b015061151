//! Why a tree on a target differs from its dataset: what the filesystem can store, and which
//! entries differ and how.
//!
//! The content hash ([`super::hash`]) says *whether* two trees are equal. When it says no,
//! this module says *why*, entry by entry, and separates two causes:
//! - the filesystem cannot store something the dataset holds: [`Stores`] is probed on the
//!   mounted filesystem itself (a chmod that reads back, a name looked up in another case, a
//!   symlink and a hard link made), so it reflects the mount options in effect and is never
//!   recognised by the filesystem's name. ntfs-3g without `permissions` and exFAT report every
//!   mode as 0777; exFAT also folds case. Those attributes are left out of the comparison, and
//!   entries whose names collide when case is folded are listed as not storable;
//! - the filesystem lost or changed data: every remaining difference, named by path and kind.
//!
//! Invariant: with a filesystem that stores everything, [`compare`] finds no difference
//! exactly when the content hashes are equal.

use super::hash::{Kind, Record, TreeHasher};
use super::DatasetError;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

pub use fsbattery_record::dataset::Stores;

/// Probing what a filesystem stores: the I/O side of the record's plain [`Stores`].
pub trait StoresProbe: Sized {
    /// Probe the filesystem holding `dir` by making (and removing) a few entries in it.
    fn probe(dir: &Path) -> Result<Self, DatasetError>;
}

impl StoresProbe for Stores {
    fn probe(dir: &Path) -> Result<Stores, DatasetError> {
        let base = dir.join(format!("fsbattery-probe-{}", std::process::id()));
        std::fs::create_dir(&base)
            .map_err(|e| DatasetError::io(format!("mkdir {}", base.display()), e))?;
        let stores = probe_in(&base);
        let removed = std::fs::remove_dir_all(&base)
            .map_err(|e| DatasetError::io(format!("remove {}", base.display()), e));
        let stores = stores?;
        removed?;
        Ok(stores)
    }
}

fn probe_in(base: &Path) -> Result<Stores, DatasetError> {
    let file = base.join("probe-a");
    std::fs::write(&file, b"")
        .map_err(|e| DatasetError::io(format!("create {}", file.display()), e))?;
    // Two different modes: a filesystem that reports one fixed mode could match one of them.
    let permissions = [0o640, 0o751].iter().all(|&m| {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(m)).is_ok()
            && std::fs::metadata(&file).is_ok_and(|md| md.permissions().mode() & 0o7777 == m)
    });
    let case_sensitive = std::fs::symlink_metadata(base.join("PROBE-A")).is_err();
    let symlinks = std::os::unix::fs::symlink("probe-a", base.join("probe-s")).is_ok()
        && std::fs::read_link(base.join("probe-s")).is_ok_and(|t| t == Path::new("probe-a"));
    let hard_links = std::fs::hard_link(&file, base.join("probe-h")).is_ok();
    Ok(Stores {
        permissions,
        case_sensitive,
        symlinks,
        hard_links,
    })
}

/// How one entry differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffKind {
    /// In the dataset, not on the filesystem.
    Missing,
    /// On the filesystem, not in the dataset.
    Unexpected,
    /// Another kind of entry (e.g. a file where a symlink was).
    Kind {
        /// In the dataset.
        want: &'static str,
        /// Found.
        got: &'static str,
    },
    /// Other size.
    Size {
        /// In the dataset.
        want: u64,
        /// Found.
        got: u64,
        /// First byte that differs, where it was looked for (`locate`).
        at: Option<u64>,
    },
    /// Same size, other bytes (a symlink: another target).
    Content {
        /// First byte that differs, where it was looked for (`locate`).
        at: Option<u64>,
    },
    /// Other permission bits (compared only where the filesystem stores them).
    Mode {
        /// In the dataset.
        want: u32,
        /// Found.
        got: u32,
    },
}

/// One entry that differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Path relative to the tree's root.
    pub path: String,
    /// How.
    pub kind: DiffKind,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = &self.path;
        match &self.kind {
            DiffKind::Missing => write!(f, "{p} missing"),
            DiffKind::Unexpected => write!(f, "{p} not in the dataset"),
            DiffKind::Kind { want, got } => write!(f, "{p} is a {got} instead of a {want}"),
            DiffKind::Size { want, got, at } => {
                write!(f, "{p} has {got} bytes instead of {want}")?;
                at.map_or(Ok(()), |n| write!(f, ", differing from byte {n}"))
            }
            DiffKind::Content { at: Some(n) } => write!(f, "{p} differs from byte {n} on"),
            DiffKind::Content { at: None } => write!(f, "{p} has other contents, same size"),
            DiffKind::Mode { want, got } => {
                write!(f, "{p} has mode {got:04o} instead of {want:04o}")
            }
        }
    }
}

/// A tree compared with its dataset, within what the filesystem stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// What the filesystem stores.
    pub stores: Stores,
    /// Dataset entries the filesystem cannot hold as they are (names equal once case is
    /// folded, symlinks where there are none), left out of the comparison; sorted.
    pub unstorable: Vec<String>,
    /// Every other difference, in path order.
    pub differences: Vec<Difference>,
}

/// Compare `actual` (a scanned directory) with `expected` (the dataset) within `stores`.
pub(crate) fn compare(expected: &TreeHasher, actual: &TreeHasher, stores: Stores) -> Comparison {
    let (want, got) = (expected.entries(), actual.entries());
    let unstorable = unstorable(want, stores);
    let skip = |p: &[u8]| blocked(p, &unstorable.folded, stores) || unstorable.symlinks.contains(p);
    let mut differences = Vec::new();
    for (path, w) in want.iter().filter(|(p, _)| !skip(p)) {
        let kind = match got.get(path) {
            None => Some(DiffKind::Missing),
            Some(g) => differs(w, g, stores),
        };
        if let Some(kind) = kind {
            differences.push(Difference {
                path: text(path),
                kind,
            });
        }
    }
    for path in got.keys().filter(|p| !want.contains_key(*p) && !skip(p)) {
        differences.push(Difference {
            path: text(path),
            kind: DiffKind::Unexpected,
        });
    }
    differences.sort_by(|a, b| a.path.cmp(&b.path));
    Comparison {
        stores,
        unstorable: unstorable.paths,
        differences,
    }
}

fn differs(w: &Record, g: &Record, stores: Stores) -> Option<DiffKind> {
    if w.kind != g.kind {
        return Some(DiffKind::Kind {
            want: w.kind.name(),
            got: g.kind.name(),
        });
    }
    if w.size != g.size {
        return Some(DiffKind::Size {
            want: w.size,
            got: g.size,
            at: None,
        });
    }
    if w.digest != g.digest {
        return Some(DiffKind::Content { at: None });
    }
    if stores.permissions && w.kind != Kind::Symlink && w.mode != g.mode {
        return Some(DiffKind::Mode {
            want: w.mode,
            got: g.mode,
        });
    }
    None
}

/// Fill in the first differing byte of the first `limit` files whose bytes differ, reading
/// their members from `tarball` beside the files below `dir` (one pass; only on failure).
pub(crate) fn locate(
    tarball: &Path,
    dir: &Path,
    diffs: &mut [Difference],
    limit: usize,
) -> Result<(), DatasetError> {
    let mut wanted: HashMap<Vec<u8>, usize> = diffs
        .iter()
        .enumerate()
        .filter(|(_, d)| matches!(d.kind, DiffKind::Content { .. } | DiffKind::Size { .. }))
        .take(limit)
        .map(|(i, d)| (d.path.as_bytes().to_vec(), i))
        .collect();
    let bad = |e: std::io::Error| DatasetError::io(format!("read {}", tarball.display()), e);
    if wanted.is_empty() {
        return Ok(());
    }
    let file = File::open(tarball).map_err(bad)?;
    let mut ar = tar::Archive::new(BufReader::with_capacity(1 << 20, file));
    for entry in ar.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let Some(rel) = super::tarball::normalize(&entry.path_bytes(), tarball)? else {
            continue;
        };
        let Some(i) = wanted.remove(&rel) else {
            continue;
        };
        let path = dir.join(&diffs[i].path);
        let mut got = File::open(&path)
            .map_err(|e| DatasetError::io(format!("open {}", path.display()), e))?;
        let n = first_difference(&mut entry, &mut got).map_err(bad)?;
        match &mut diffs[i].kind {
            DiffKind::Content { at } | DiffKind::Size { at, .. } => *at = n,
            _ => {}
        }
        if wanted.is_empty() {
            break;
        }
    }
    Ok(())
}

/// Offset of the first byte where `a` and `b` differ (the shorter one's length if one is a
/// prefix of the other), or None if they are equal.
fn first_difference(a: &mut impl Read, b: &mut impl Read) -> std::io::Result<Option<u64>> {
    let (mut x, mut y) = (vec![0u8; 64 << 10], vec![0u8; 64 << 10]);
    let mut offset = 0u64;
    loop {
        let (n, m) = (fill(a, &mut x)?, fill(b, &mut y)?);
        if let Some(i) = x[..n].iter().zip(&y[..m]).position(|(p, q)| p != q) {
            return Ok(Some(offset + i as u64));
        }
        if n != m {
            return Ok(Some(offset + n.min(m) as u64));
        }
        if n == 0 {
            return Ok(None);
        }
        offset += n as u64;
    }
}

/// Read until `buf` is full or the end; returns the bytes read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Dataset entries the filesystem cannot store, and the case-folded names that collide.
#[derive(Default)]
struct Unstorable {
    paths: Vec<String>,
    folded: HashSet<String>,
    symlinks: HashSet<Vec<u8>>,
}

fn unstorable(want: &BTreeMap<Vec<u8>, Record>, stores: Stores) -> Unstorable {
    let mut out = Unstorable::default();
    if !stores.case_sensitive {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for path in want.keys() {
            *seen.entry(fold(path)).or_default() += 1;
        }
        out.folded = seen
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(p, _)| p)
            .collect();
    }
    if !stores.symlinks {
        out.symlinks = want
            .iter()
            .filter(|(_, r)| r.kind == Kind::Symlink)
            .map(|(p, _)| p.clone())
            .collect();
    }
    if out.folded.is_empty() && out.symlinks.is_empty() {
        return out;
    }
    out.paths = want
        .keys()
        .filter(|p| blocked(p, &out.folded, stores) || out.symlinks.contains(*p))
        .map(|p| text(p))
        .collect();
    out
}

/// Whether `path` or one of its ancestors has a case-folded name that collides.
fn blocked(path: &[u8], folded: &HashSet<String>, stores: Stores) -> bool {
    if stores.case_sensitive || folded.is_empty() {
        return false;
    }
    let f = fold(path);
    let hit = f
        .match_indices('/')
        .map(|(i, _)| &f[..i])
        .chain([f.as_str()])
        .any(|prefix| folded.contains(prefix));
    hit
}

fn fold(path: &[u8]) -> String {
    String::from_utf8_lossy(path).to_lowercase()
}

fn text(path: &[u8]) -> String {
    String::from_utf8_lossy(path).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(entries: &[(&str, u32, &str)]) -> TreeHasher {
        let mut h = TreeHasher::default();
        for (path, mode, data) in entries {
            if data.is_empty() {
                h.dir(path.as_bytes(), *mode);
            } else {
                let d = sha2::Sha256::digest(data.as_bytes()).into();
                h.file(path.as_bytes(), *mode, data.len() as u64, d);
            }
        }
        h
    }
    use sha2::Digest;

    #[test]
    fn modes_count_only_where_stored() {
        let want = tree(&[("t", 0o755, ""), ("t/f", 0o644, "x")]);
        let got = tree(&[("t", 0o777, ""), ("t/f", 0o777, "x")]);
        let c = compare(&want, &got, Stores::ALL);
        assert_eq!(c.differences.len(), 2);
        assert_eq!(
            c.differences[1].to_string(),
            "t/f has mode 0777 instead of 0644"
        );
        let no_modes = Stores {
            permissions: false,
            ..Stores::ALL
        };
        assert!(compare(&want, &got, no_modes).differences.is_empty());
    }

    #[test]
    fn case_collisions_are_unstorable_not_lost() {
        let want = tree(&[
            ("n", 0o755, ""),
            ("n/xt_DSCP.c", 0o644, "a"),
            ("n/xt_dscp.c", 0o644, "b"),
            ("n/Sub", 0o755, ""),
            ("n/sub", 0o755, ""),
            ("n/sub/f", 0o644, "c"),
            ("n/other.c", 0o644, "d"),
        ]);
        // What tar leaves on a case-folding filesystem: the later member wins.
        let got = tree(&[
            ("n", 0o755, ""),
            ("n/xt_DSCP.c", 0o644, "b"),
            ("n/Sub", 0o755, ""),
            ("n/Sub/f", 0o644, "c"),
            ("n/other.c", 0o644, "e"),
        ]);
        let folding = Stores {
            case_sensitive: false,
            ..Stores::ALL
        };
        let c = compare(&want, &got, folding);
        assert_eq!(
            c.unstorable,
            ["n/Sub", "n/sub", "n/sub/f", "n/xt_DSCP.c", "n/xt_dscp.c"]
        );
        assert_eq!(c.differences.len(), 1, "{:?}", c.differences);
        assert_eq!(c.differences[0].kind, DiffKind::Content { at: None });
        // On a case-sensitive filesystem the same tree is plain data loss.
        assert!(compare(&want, &got, Stores::ALL).differences.len() > 1);
    }

    #[test]
    fn first_difference_finds_the_byte() {
        let d = |a: &[u8], b: &[u8]| first_difference(&mut &a[..], &mut &b[..]).unwrap();
        assert_eq!(d(b"abc", b"abc"), None);
        assert_eq!(d(b"abc", b"abd"), Some(2));
        assert_eq!(d(b"abc", b"ab"), Some(2));
        let big: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let mut other = big.clone();
        other[150_001] ^= 1;
        assert_eq!(d(&big, &other), Some(150_001));
    }

    #[test]
    fn probe_of_a_local_directory_stores_everything() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Stores::probe(tmp.path()).unwrap();
        assert!(s.permissions && s.symlinks && s.hard_links, "{s:?}");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}

//! bonnie++'s `-n FILES:MAX:MIN:DIRS` tests: create, stat and delete FILES small files,
//! first in name order ("sequential"), then in random order; rates in files/s.
//!
//! As bonnie++ 1.03 names and orders them: a name is a 7-digit number plus 0–12 random
//! alphanumerics, after the number for the sequential tests and before it for the random ones.
//! Sequential: create in numeric order, then stat and delete in readdir order. Random: create
//! in a shuffled order, stat in another, delete in a third. Each file gets a random size in
//! MIN..=MAX written at creation (one write); stat also reads the data of non-empty files, which
//! is what bonnie++ measures in that column when MAX > 0 (S2's "Datei stat" rows).
//!
//! Invariants: every pass checks it saw exactly FILES files, so a filesystem that loses entries
//! fails instead of looking fast; the directories are removed (untimed) after each delete pass;
//! a full target fails with the bytes and files written.

use super::blockio::target_full;
use super::{poll, WorkloadCtx};
use crate::engine::XorShift;
use crate::error::{is_full, IoContext, WorkloadError};
use crate::model::MetricSpec;
use crate::params::Params;
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The metrics of the small-file tests, in bonnie's order.
pub(super) fn metrics() -> Vec<MetricSpec> {
    let f = |n: &str, h: &str| MetricSpec::rate(n, "files/s", h);
    vec![
        f(
            "seq_create",
            "create files in name order (open, write its size, close)",
        ),
        f(
            "seq_stat",
            "stat files in readdir order, reading non-empty ones",
        ),
        f("seq_delete", "unlink files in readdir order"),
        f("random_create", "create files in random order"),
        f(
            "random_stat",
            "stat files in random order, reading non-empty ones",
        ),
        f("random_delete", "unlink files in random order"),
    ]
}

/// Longest random part of a name (bonnie++: 0 to 12 characters).
const MAX_RANDOM_CHARS: u64 = 12;
const ALNUM: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// One set of small files: where each goes and how big it is.
struct FileSet {
    dirs: Vec<PathBuf>,
    files: Vec<(usize, String, u64)>,
}

impl FileSet {
    /// FILES names in numeric order; `random_first` puts the random characters first.
    fn new(base: &Path, p: &Params, random_first: bool, rng: &mut XorShift) -> FileSet {
        let (n, lo, hi) = (p.get("files"), p.get("min_size"), p.get("max_size"));
        let ndirs = p.get("dirs").max(1) as usize;
        let dirs = if ndirs == 1 {
            vec![base.to_path_buf()]
        } else {
            (0..ndirs).map(|d| base.join(format!("{d:05}"))).collect()
        };
        let files = (0..n)
            .map(|i| {
                let len = rng.below(MAX_RANDOM_CHARS + 1) as usize;
                let rand: String = (0..len)
                    .map(|_| char::from(ALNUM[rng.below(ALNUM.len() as u64) as usize]))
                    .collect();
                let name = if random_first {
                    format!("{rand}{i:07}")
                } else {
                    format!("{i:07}{rand}")
                };
                let size = lo + rng.below(hi - lo + 1);
                ((i as usize) % ndirs, name, size)
            })
            .collect();
        FileSet { dirs, files }
    }

    fn path(&self, i: usize) -> PathBuf {
        let (d, name, _) = &self.files[i];
        self.dirs[*d].join(name)
    }

    fn make_dirs(&self, base: &Path) -> Result<(), WorkloadError> {
        std::fs::create_dir(base).ctx(|| format!("mkdir {}", base.display()))?;
        for d in self.dirs.iter().filter(|d| d.as_path() != base) {
            std::fs::create_dir(d).ctx(|| format!("mkdir {}", d.display()))?;
        }
        Ok(())
    }

    /// Create the files in `order`, writing each one's size from `data`.
    fn create(&self, order: &[usize], data: &[u8]) -> Result<(), WorkloadError> {
        let mut written = 0u64;
        for (n, &i) in order.iter().enumerate() {
            poll(n as u64)?;
            let path = self.path(i);
            let size = self.files[i].2 as usize;
            let full = |e: &std::io::Error, w: u64| {
                target_full(&path, w, &format!("creating file number {}: {e}", n + 1))
            };
            let mut f = match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(f) => f,
                Err(e) if is_full(&e) => return Err(full(&e, written)),
                Err(e) => return Err(WorkloadError::io(format!("create {}", path.display()), e)),
            };
            if size > 0 {
                match f.write_all(&data[..size]) {
                    Ok(()) => {}
                    Err(e) if is_full(&e) => return Err(full(&e, written)),
                    Err(e) => {
                        return Err(WorkloadError::io(format!("write {}", path.display()), e))
                    }
                }
            }
            written += size as u64;
        }
        Ok(())
    }

    /// stat (and read non-empty files) in `order`, checking each size.
    fn stat(&self, order: &[usize], buf: &mut [u8]) -> Result<(), WorkloadError> {
        for (n, &i) in order.iter().enumerate() {
            poll(n as u64)?;
            let path = self.path(i);
            let len = stat_and_read(&path, buf)?;
            if len != self.files[i].2 {
                return Err(WorkloadError::Failed(format!(
                    "{} holds {len} bytes, {} were written",
                    path.display(),
                    self.files[i].2
                )));
            }
        }
        Ok(())
    }

    /// unlink in `order`.
    fn delete(&self, order: &[usize]) -> Result<(), WorkloadError> {
        for (n, &i) in order.iter().enumerate() {
            poll(n as u64)?;
            let path = self.path(i);
            std::fs::remove_file(&path).ctx(|| format!("unlink {}", path.display()))?;
        }
        Ok(())
    }

    /// Every file in readdir order, directory by directory (bonnie's sequential stat/delete).
    fn readdir_order(&self) -> Result<Vec<PathBuf>, WorkloadError> {
        let mut out = Vec::with_capacity(self.files.len());
        for d in &self.dirs {
            let rd = std::fs::read_dir(d).ctx(|| format!("read directory {}", d.display()))?;
            for e in rd {
                let e = e.ctx(|| format!("read directory {}", d.display()))?;
                if !e.file_type().is_ok_and(|t| t.is_dir()) {
                    out.push(e.path());
                }
            }
        }
        self.expect(out.len() as u64, "readdir")?;
        Ok(out)
    }

    fn expect(&self, seen: u64, how: &str) -> Result<(), WorkloadError> {
        let want = self.files.len() as u64;
        if seen != want {
            return Err(WorkloadError::Failed(format!(
                "{how} of {} found {seen} files, {want} were created",
                self.dirs[0].display()
            )));
        }
        Ok(())
    }

    fn remove_dirs(&self, base: &Path) -> Result<(), WorkloadError> {
        super::fsops::remove_tree(base)
    }
}

/// stat `path`; read its data if it has any. Returns its size.
fn stat_and_read(path: &Path, buf: &mut [u8]) -> Result<u64, WorkloadError> {
    let len = std::fs::symlink_metadata(path)
        .ctx(|| format!("stat {}", path.display()))?
        .len();
    if len > 0 {
        let mut f = std::fs::File::open(path).ctx(|| format!("open {}", path.display()))?;
        while f.read(buf).ctx(|| format!("read {}", path.display()))? > 0 {}
    }
    Ok(len)
}

/// A random permutation of `0..n` (Fisher–Yates).
fn shuffled(n: usize, rng: &mut XorShift) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    v
}

/// The small-file sizes must make a range: min_size ≤ max_size ≤ 1 GiB.
pub(super) fn check(p: &Params) -> Result<(), WorkloadError> {
    let (lo, hi) = (p.get("min_size"), p.get("max_size"));
    if lo > hi || hi > 1 << 30 {
        return Err(WorkloadError::Failed(format!(
            "bonnie: min_size {lo} B and max_size {hi} B: need min_size <= max_size <= 1 GiB"
        )));
    }
    Ok(())
}

/// Run the six small-file tests under `base` (created here, removed after each delete pass).
pub(super) fn run(
    ctx: &mut WorkloadCtx<'_>,
    p: &Params,
    base: &Path,
    seed: u64,
) -> Result<(), WorkloadError> {
    check(p)?;
    let hi = p.get("max_size");
    let mut rng = XorShift::new(seed ^ 0xf11e5);
    let mut data = vec![0u8; hi as usize];
    crate::engine::Fill::Random.generate(seed, &mut data);
    let mut buf = vec![0u8; 64 << 10];
    let rate = |n: usize, t: &crate::measure::Timing| crate::measure::per_s(n as f64, t.elapsed_s);

    let set = FileSet::new(base, p, false, &mut rng);
    let n = set.files.len();
    set.make_dirs(base)?;
    let in_order: Vec<usize> = (0..n).collect();
    let ((), t) = ctx.phase(&[base], || set.create(&in_order, &data))?;
    ctx.record("seq_create", &t, rate(n, &t));
    let ((), t) = ctx.phase(&[base], || {
        for (k, path) in set.readdir_order()?.iter().enumerate() {
            poll(k as u64)?;
            stat_and_read(path, &mut buf)?;
        }
        Ok(())
    })?;
    ctx.record("seq_stat", &t, rate(n, &t));
    let ((), t) = ctx.phase(&[base], || {
        for (k, path) in set.readdir_order()?.iter().enumerate() {
            poll(k as u64)?;
            std::fs::remove_file(path).ctx(|| format!("unlink {}", path.display()))?;
        }
        Ok(())
    })?;
    ctx.record("seq_delete", &t, rate(n, &t));
    set.remove_dirs(base)?;

    let set = FileSet::new(base, p, true, &mut rng);
    set.make_dirs(base)?;
    let order = shuffled(n, &mut rng);
    let ((), t) = ctx.phase(&[base], || set.create(&order, &data))?;
    ctx.record("random_create", &t, rate(n, &t));
    let order = shuffled(n, &mut rng);
    let ((), t) = ctx.phase(&[base], || set.stat(&order, &mut buf))?;
    ctx.record("random_stat", &t, rate(n, &t));
    let order = shuffled(n, &mut rng);
    let ((), t) = ctx.phase(&[base], || set.delete(&order))?;
    ctx.record("random_delete", &t, rate(n, &t));
    set.remove_dirs(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_bonnies_layout_and_sizes_stay_in_range() {
        let p = crate::workload::blockio::testutil::params(
            &[
                ("files", 500),
                ("min_size", 10),
                ("max_size", 20),
                ("dirs", 4),
            ],
            &[],
        );
        let base = Path::new("/x");
        let mut rng = XorShift::new(1);
        let seq = FileSet::new(base, &p, false, &mut rng);
        let rnd = FileSet::new(base, &p, true, &mut rng);
        assert_eq!(seq.dirs.len(), 4);
        for (i, (d, name, size)) in seq.files.iter().enumerate() {
            assert!(name.starts_with(&format!("{i:07}")), "{name}");
            assert!(name.len() <= 7 + 12 && (10..=20).contains(size));
            assert_eq!(*d, i % 4);
        }
        for (i, (_, name, _)) in rnd.files.iter().enumerate() {
            assert!(name.ends_with(&format!("{i:07}")), "{name}");
        }
        let lens: std::collections::HashSet<_> = seq.files.iter().map(|f| f.1.len()).collect();
        assert!(lens.len() > 5, "random suffix lengths vary: {lens:?}");
    }

    #[test]
    fn shuffles_are_permutations() {
        let mut rng = XorShift::new(3);
        let mut v = shuffled(1000, &mut rng);
        assert_ne!(v, (0..1000).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
    }
}

//! `--age PCT[,seed=N]`: age a freshly made filesystem before its workloads, the way
//! Geriatrix and Impressions do, by a seeded churn that leaves it PCT % full with its free
//! space broken up.
//!
//! The churn runs in rounds: create files until the data reaches the goal, delete a random
//! third of them, append to a random tenth of the survivors (their new blocks land wherever
//! the holes are), and again; the last round only fills, so the filesystem is left at the
//! goal. File sizes follow the log-normal body of Impressions' size model (Agrawal et al.,
//! FAST '09: μ = 9.48, σ = 2.46 in ln bytes; median ≈ 13 KiB), capped so that a small image
//! still holds many files.
//!
//! Invariants: for a given seed and goal the sequence of names, sizes, deletes and appends is
//! the same on every machine (the dataset generator's portable SplitMix64 and `exp`); the
//! files live in one directory (`fsbattery-aged`) that no workload touches; the churn is
//! synced to disk and out of the cache before it returns, so neither its writeback nor the
//! release of its preallocations falls inside a timed cell; no
//! sample is recorded for it.

use crate::dataset::rng::{exp, SplitMix64};
use fsbattery_record::aging::{AgeSpec, Aging};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// Create/delete/append rounds (the last only fills).
pub(crate) const ROUNDS: u32 = 4;
/// Directories the files are spread over.
const DIRS: u64 = 32;
/// Log-normal size body (ln bytes), from Impressions.
const MU: f64 = 9.48;
const SIGMA: f64 = 2.46;
/// The aged files' directory under the target's root.
pub(crate) const DIR: &str = "fsbattery-aged";

/// What a churn did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Churn {
    pub files_created: u64,
    pub files_deleted: u64,
    pub bytes_written: u64,
    pub files_left: u64,
    pub bytes_left: u64,
}

/// Age the filesystem mounted at `root` to `spec.pct` % used (as df counts it: used over used
/// plus available), then read its free-space fragmentation where a tool can.
pub(super) fn age(root: &Path, spec: AgeSpec) -> Result<Aging, String> {
    let sw = crate::measure::Stopwatch::start();
    let (used, avail) = df(root)?;
    let want = (used + avail) as u128 * u128::from(spec.pct) / 100;
    let goal = (want as u64).saturating_sub(used);
    let c = churn(&root.join(DIR), goal, spec.seed)
        .map_err(|e| format!("aging {} to {} %: {e}", root.display(), spec.pct))?;
    // Synced, and the aged inodes evicted with the page cache: xfs keeps speculative
    // preallocation past the end of appended files until their inodes leave the cache (13
    // points of "use %" on a 1 GiB image), which would otherwise be freed during a timed cell.
    crate::cache::quiesce(&[root]);
    let free_space = super::freefrag::probe(root);
    let (used, avail) = df(root)?;
    Ok(Aging {
        pct: spec.pct,
        seed: spec.seed,
        rounds: ROUNDS,
        files_created: c.files_created,
        files_deleted: c.files_deleted,
        files_left: c.files_left,
        bytes_written: c.bytes_written,
        bytes_left: c.bytes_left,
        used_pct: used as f64 * 100.0 / (used + avail).max(1) as f64,
        secs: sw.stop().elapsed_s,
        free_space,
    })
}

/// (used, available) bytes as df reports them.
fn df(root: &Path) -> Result<(u64, u64), String> {
    let s =
        nix::sys::statvfs::statvfs(root).map_err(|e| format!("statvfs {}: {e}", root.display()))?;
    let f = s.fragment_size();
    Ok(((s.blocks() - s.blocks_free()) * f, s.blocks_available() * f))
}

/// One live file: its directory, number and size.
struct Live {
    dir: u64,
    id: u64,
    size: u64,
}

impl Live {
    fn path(&self, top: &Path) -> std::path::PathBuf {
        top.join(format!("d{:02}", self.dir))
            .join(format!("f{:07}", self.id))
    }
}

/// The seeded churn in `top` (created), leaving `goal` bytes of files.
pub(crate) fn churn(top: &Path, goal: u64, seed: u64) -> std::io::Result<Churn> {
    fs::create_dir(top)?;
    for d in 0..DIRS {
        fs::create_dir(top.join(format!("d{d:02}")))?;
    }
    let mut rng = SplitMix64::new(seed);
    // Incompressible content, so compressing filesystems store what was asked.
    let block: Vec<u8> = (0..1 << 20).map(|_| rng.next_u64() as u8).collect();
    let cap = (goal / 32).clamp(4096, 64 << 20);
    let size = move |rng: &mut SplitMix64| (exp(MU + SIGMA * rng.normal()) as u64).clamp(1, cap);
    let (mut live, mut held, mut c) = (Vec::<Live>::new(), 0u64, Churn::default());
    for round in 0..ROUNDS {
        while held < goal {
            interrupted()?;
            let f = Live {
                dir: rng.below(DIRS),
                id: c.files_created,
                size: size(&mut rng).min(goal - held),
            };
            write(&mut File::create(f.path(top))?, &block, f.size)?;
            (held, c.files_created, c.bytes_written) =
                (held + f.size, c.files_created + 1, c.bytes_written + f.size);
            live.push(f);
        }
        if round + 1 == ROUNDS {
            break;
        }
        for _ in 0..live.len() / 3 {
            let f = live.swap_remove(rng.below(live.len() as u64) as usize);
            fs::remove_file(f.path(top))?;
            (held, c.files_deleted) = (held - f.size, c.files_deleted + 1);
        }
        for _ in 0..live.len() / 10 {
            let i = rng.below(live.len() as u64) as usize;
            let f = &mut live[i];
            let add = (size(&mut rng) / 4).min(goal - held);
            let mut file = OpenOptions::new().append(true).open(f.path(top))?;
            write(&mut file, &block, add)?;
            (f.size, held, c.bytes_written) = (f.size + add, held + add, c.bytes_written + add);
        }
    }
    (c.files_left, c.bytes_left) = (live.len() as u64, held);
    Ok(c)
}

/// Append `n` bytes from `block` (repeated).
fn write(file: &mut File, block: &[u8], mut n: u64) -> std::io::Result<()> {
    while n > 0 {
        let k = n.min(block.len() as u64) as usize;
        file.write_all(&block[..k])?;
        n -= k as u64;
    }
    Ok(())
}

fn interrupted() -> std::io::Result<()> {
    match crate::interrupt::requested() {
        true => Err(std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            "interrupted",
        )),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under `top` with its size, sorted.
    fn listing(top: &Path) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for d in fs::read_dir(top).unwrap() {
            for f in fs::read_dir(d.unwrap().path()).unwrap() {
                let f = f.unwrap();
                let name = f.path().strip_prefix(top).unwrap().display().to_string();
                out.push((name, f.metadata().unwrap().len()));
            }
        }
        out.sort();
        out
    }

    fn aged(seed: u64) -> (Churn, Vec<(String, u64)>) {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().join(DIR);
        let c = churn(&top, 4 << 20, seed).unwrap();
        (c, listing(&top))
    }

    #[test]
    fn the_same_seed_makes_the_same_files() {
        let (a, list_a) = aged(7);
        let (b, list_b) = aged(7);
        assert_eq!((a, &list_a), (b, &list_b));
        let (_, other) = aged(8);
        assert_ne!(list_a, other, "another seed, other files");
    }

    #[test]
    fn the_churn_leaves_the_goal_after_deleting_and_appending() {
        let (c, list) = aged(1);
        assert_eq!(c.bytes_left, 4 << 20);
        assert_eq!(list.iter().map(|f| f.1).sum::<u64>(), c.bytes_left);
        assert_eq!(list.len() as u64, c.files_left);
        assert_eq!(c.files_created - c.files_deleted, c.files_left);
        assert!(c.files_deleted > c.files_created / 4, "{c:?}");
        assert!(
            c.bytes_written > c.bytes_left,
            "deleted data was written first: {c:?}"
        );
        assert!(
            list.len() > 20,
            "many files, not a few large ones: {}",
            list.len()
        );
    }
}

//! How much of a phase's files is in the page cache, measured just before its clock starts.
//!
//! `cachestat(2)` (Linux ≥ 6.5) counts a file's cached pages without touching them; where the
//! kernel lacks it (ENOSYS, or a seccomp filter says EPERM) each file is mapped read-only and
//! `mincore(2)` reports which pages are resident: neither faults a page in, so measuring does
//! not warm what it measures. A file that cannot be opened is left out (its bytes too), since
//! the phase cannot read it either. Opening loads a file's dentry and inode, so a large set is
//! measured on a sample of [`SAMPLE_FILES`] files; the caller drops caches again after
//! measuring when the phase must start cold.

use crate::model::ResidencyProbe;
use crate::regular_files::regular_files;
use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Resident and total bytes of a set of files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Residency {
    /// Bytes in the page cache.
    pub resident_bytes: u64,
    /// Bytes in the files.
    pub file_bytes: u64,
}

/// Set once cachestat has failed with ENOSYS/EPERM: every later file goes to mincore.
static NO_CACHESTAT: AtomicBool = AtomicBool::new(false);

/// At most this many files are opened to measure one phase's set; a larger set is measured on
/// an even sample of its files (every k-th in walk order) and scaled up. Opening a file loads
/// its inode: measuring all of bonnie's 131,072 files loaded every inode its delete pass was
/// about to use, outside the clock, where bonnie++ itself finds them as its stat pass left
/// them (on a machine short of memory the walk read evicted inodes back for fsbattery alone).
pub const SAMPLE_FILES: usize = 2048;

/// Residency of the regular files under `paths` (files or directory trees) and the probe
/// that measured it; `None` when they hold no data (nothing made yet, or only empty files).
/// Beyond [`SAMPLE_FILES`] files both byte counts are estimates from the sample.
pub fn measure(paths: &[&Path]) -> Option<(Residency, ResidencyProbe)> {
    let files: Vec<_> = paths.iter().flat_map(|p| regular_files(p)).collect();
    let stride = stride(files.len());
    let mut sample = Residency::default();
    let mut sampled = 0u64;
    for path in files.iter().step_by(stride) {
        sampled += 1;
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        let len = meta.len();
        if len == 0 {
            continue;
        }
        if let Ok(f) = File::open(path) {
            if let Ok(resident) = file_resident(&f, len) {
                sample.resident_bytes += resident;
                sample.file_bytes += len;
            }
        }
    }
    let scale = |b: u64| (b as u128 * files.len() as u128 / u128::from(sampled.max(1))) as u64;
    let total = Residency {
        resident_bytes: scale(sample.resident_bytes),
        file_bytes: scale(sample.file_bytes),
    };
    (total.file_bytes > 0).then(|| (total, probe()))
}

/// Every how many files one is measured, so that at most [`SAMPLE_FILES`] are.
fn stride(files: usize) -> usize {
    files.div_ceil(SAMPLE_FILES).max(1)
}

/// The probe [`measure`] uses on this kernel now.
pub fn probe() -> ResidencyProbe {
    if NO_CACHESTAT.load(Ordering::Relaxed) {
        ResidencyProbe::Mincore
    } else {
        ResidencyProbe::Cachestat
    }
}

/// Resident bytes of one open file of `len` bytes.
fn file_resident(f: &File, len: u64) -> std::io::Result<u64> {
    if !NO_CACHESTAT.load(Ordering::Relaxed) {
        match cachestat(f.as_fd()) {
            Ok(pages) => return Ok((pages * page_size()).min(len)),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)) => {
                NO_CACHESTAT.store(true, Ordering::Relaxed);
            }
            Err(e) => return Err(e),
        }
    }
    mincore_resident(f, len)
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

/// `cachestat`'s syscall number: 451 in the generic table and on x86_64 alike (libc defines
/// the constant only for some targets).
const SYS_CACHESTAT: libc::c_long = 451;

#[repr(C)]
struct CachestatRange {
    off: u64,
    len: u64,
}

#[repr(C)]
#[derive(Default)]
struct Cachestat {
    nr_cache: u64,
    nr_dirty: u64,
    nr_writeback: u64,
    nr_evicted: u64,
    nr_recently_evicted: u64,
}

/// Cached pages of the whole file (`len = 0` means to its end).
fn cachestat(fd: BorrowedFd<'_>) -> std::io::Result<u64> {
    let range = CachestatRange { off: 0, len: 0 };
    let mut out = Cachestat::default();
    // SAFETY: both pointers refer to live, properly laid out #[repr(C)] values for the whole
    // call, the fd is borrowed open, and flags must be 0.
    let r = unsafe {
        libc::syscall(
            SYS_CACHESTAT,
            fd.as_raw_fd(),
            &range as *const CachestatRange,
            &mut out as *mut Cachestat,
            0u32,
        )
    };
    if r == 0 {
        Ok(out.nr_cache)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Resident bytes from mincore on a read-only shared mapping of the file.
fn mincore_resident(f: &File, len: u64) -> std::io::Result<u64> {
    let map_len = usize::try_from(len).map_err(std::io::Error::other)?;
    // SAFETY: a fresh read-only shared mapping of an open file; nothing else sees it.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            map_len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            f.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    let page = page_size();
    let mut vec = vec![0u8; len.div_ceil(page) as usize];
    // SAFETY: `addr` is the page-aligned start of a live mapping of `map_len` bytes and `vec`
    // has one byte per page of it, as mincore requires.
    let r = unsafe { libc::mincore(addr, map_len, vec.as_mut_ptr()) };
    let err = std::io::Error::last_os_error();
    // SAFETY: unmapping exactly the mapping made above, which nothing references any more.
    unsafe { libc::munmap(addr, map_len) };
    if r != 0 {
        return Err(err);
    }
    let pages = vec.iter().filter(|b| *b & 1 == 1).count() as u64;
    Ok((pages * page).min(len))
}

/// The path lies on a filesystem whose medium is memory (tmpfs, ramfs): its files are
/// always resident, so residency says nothing of a cache there.
pub fn in_memory(path: &Path) -> bool {
    use nix::sys::statfs::{statfs, TMPFS_MAGIC};
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    statfs(path).is_ok_and(|s| {
        let t = s.filesystem_type();
        t == TMPFS_MAGIC || t.0 == RAMFS_MAGIC
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file just written is resident, and after fadvise(DONTNEED) it is not (on a disk
    /// filesystem); both probes agree on the same file.
    #[test]
    fn a_written_file_is_resident_and_an_evicted_one_is_not() {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
        let path = dir.path().join("f");
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        let (r, _) = measure(&[dir.path()]).unwrap();
        assert_eq!(r.file_bytes, 1 << 20);
        assert_eq!(r.resident_bytes, 1 << 20, "{r:?}");
        let f = File::open(&path).unwrap();
        assert_eq!(mincore_resident(&f, 1 << 20).unwrap(), 1 << 20);
        if in_memory(dir.path()) {
            return; // tmpfs cannot evict: the second half means nothing there
        }
        crate::cache::quiesce(&[dir.path()]);
        let f = File::open(&path).unwrap();
        assert_eq!(file_resident(&f, 1 << 20).unwrap(), 0);
        assert_eq!(mincore_resident(&f, 1 << 20).unwrap(), 0);
    }

    /// Beyond the sample size the bytes are estimated from every k-th file: exact when the
    /// files are alike, close when they alternate between empty and full.
    #[test]
    fn a_large_set_is_measured_on_a_sample_scaled_to_the_whole() {
        let dir = tempfile::tempdir().unwrap();
        let n = SAMPLE_FILES * 2 + 904;
        for i in 0..n {
            std::fs::write(dir.path().join(format!("a{i}")), [1u8; 4096]).unwrap();
        }
        for files in [0, 1, SAMPLE_FILES, SAMPLE_FILES + 1, n, 131_072, 10_000_019] {
            let opened = files.div_ceil(stride(files));
            assert!(opened <= SAMPLE_FILES, "{files} files: {opened} opened");
            assert!(
                files <= SAMPLE_FILES || opened * 2 > SAMPLE_FILES,
                "{files}: {opened}"
            );
        }
        let (r, _) = measure(&[dir.path()]).unwrap();
        // (Residency is not asserted: other tests may drop the whole cache meanwhile.)
        assert_eq!(r.file_bytes, n as u64 * 4096);
        assert!(r.resident_bytes <= r.file_bytes);
        let mixed = tempfile::tempdir().unwrap();
        for i in 0..n {
            let bytes = if i % 2 == 0 { 0 } else { 8192 };
            std::fs::write(mixed.path().join(format!("m{i}")), vec![1u8; bytes]).unwrap();
        }
        let (r, _) = measure(&[mixed.path()]).unwrap();
        let want = (n / 2) as f64 * 8192.0;
        let off = (r.file_bytes as f64 - want).abs() / want;
        assert!(off < 0.05, "{} bytes estimated, {want} made", r.file_bytes);
    }

    #[test]
    fn nothing_to_measure_is_none() {
        let dir = tempfile::tempdir().unwrap();
        File::create(dir.path().join("empty")).unwrap();
        assert_eq!(measure(&[dir.path()]), None);
        assert_eq!(measure(&[&dir.path().join("missing")]), None);
    }
}

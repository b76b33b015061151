//! The peak a workload really holds on a filesystem, measured for the space-estimate tests:
//! a loop ext4 made for the one run (so nothing else writes there), a thread sampling its
//! used blocks with statvfs every 2 ms while `fsbattery run --target dir:…` runs the
//! workload, and the highest sample less what the empty filesystem already used.
//!
//! statvfs on ext4 counts delayed-allocation reservations as used (free minus dirty
//! clusters), so data still in the page cache is seen the moment it is written. It also counts
//! mballoc's inode preallocation as used: when writeback allocates a file caught mid-write,
//! ext4 reserves the whole normalized chunk ahead of it (exactly 2 MiB beyond a 4 MiB iozone
//! file in a CI run of 2026-11-29), and gives the chunk back when the file is closed or the
//! filesystem runs short (it discards preallocations before reporting ENOSPC). That chunk
//! is not space a run needs, so the tests allow it: [`prealloc_chunk`].

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A loop ext4 of its own, mounted under a temporary directory; dropped, it is unmounted and
/// its loop device detached (only this device, by its name).
pub struct LoopExt4 {
    dir: tempfile::TempDir,
    device: String,
    mounted: bool,
}

impl LoopExt4 {
    /// A sparse image of `size` (as `truncate -s` takes it), attached, made and mounted.
    pub fn new(size: &str) -> LoopExt4 {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("image");
        run("truncate", &["-s", size, &image.to_string_lossy()]);
        let device = run("losetup", &["-f", "--show", &image.to_string_lossy()]);
        let mut fs = LoopExt4 {
            dir,
            device: device.trim().to_string(),
            mounted: false,
        };
        run("mkfs.ext4", &["-q", "-F", &fs.device]);
        std::fs::create_dir(fs.mount()).unwrap();
        run("mount", &[&fs.device, &fs.mount().to_string_lossy()]);
        fs.mounted = true;
        std::fs::create_dir(fs.target()).unwrap();
        fs
    }

    pub fn mount(&self) -> PathBuf {
        self.dir.path().join("mnt")
    }

    /// The directory the workload runs in (not the root, which holds lost+found).
    pub fn target(&self) -> PathBuf {
        self.mount().join("t")
    }
}

impl Drop for LoopExt4 {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(self.mount()).status();
        }
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
    }
}

/// `cmd args`, which must succeed; its stdout.
fn run(cmd: &str, args: &[&str]) -> String {
    let o = Command::new(cmd).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Bytes in use on the filesystem holding `path`.
pub fn used(path: &Path) -> u64 {
    let s = nix::sys::statvfs::statvfs(path).unwrap();
    (s.blocks() - s.blocks_free()) * s.fragment_size()
}

/// The most bytes `work` (a run of the workload) adds to `fs` at any sampled moment.
pub fn peak_during(fs: &LoopExt4, work: impl FnOnce()) -> u64 {
    let mount = fs.mount();
    let base = used(&mount);
    let (stop, peak) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicU64::new(0)),
    );
    let sampler = {
        let (stop, peak) = (stop.clone(), peak.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                peak.fetch_max(used(&mount), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    work();
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    peak.load(Ordering::Relaxed).saturating_sub(base)
}

/// The most ext4's mballoc reserves ahead of a file of `size` bytes (4 KiB blocks), after
/// `ext4_mb_normalize_request` (fs/ext4/mballoc.c): the request rounded up to a power of two
/// from 16 KiB to 1 MiB, then chunks of 2 MiB up to 4 MiB, 4 MiB up to 8 MiB, 8 MiB beyond.
pub fn prealloc_chunk(size: u64) -> u64 {
    const MIB: u64 = 1 << 20;
    match size {
        s if s <= MIB => s.next_power_of_two().max(16 << 10),
        s if s <= 4 * MIB => 2 * MIB,
        s if s <= 8 * MIB => 4 * MIB,
        _ => 8 * MIB,
    }
}

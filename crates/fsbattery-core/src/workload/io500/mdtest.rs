//! io500's mdtest phases item by item as mdtest (hpc/ior 5fcf0ba, `src/mdtest.c` with its
//! POSIX backend `src/aiori-POSIX.c`) makes them, call for call, so the two time the same
//! work:
//! - create: `open(O_RDWR | O_CREAT, 0664)`, for mdtest-hard `lseek(0)` and one 3,901-byte
//!   `write` (`POSIX_Xfer` seeks before every transfer), `close`;
//! - stat: one `stat`; read: `open(O_RDONLY)`, `lseek(0)`, one 3,901-byte `read`, `close`;
//!   delete: one `unlink`;
//! - `-Y` (the write phases): `sync(2)` on every rank. mdtest's `POSIX_Sync` runs
//!   `system("sync")`, a shell that runs the sync command; fsbattery starts no child
//!   processes, and the shell and its exec cost 2 ms more than the call alone here (median of
//!   20 interleaved pairs, 2026-11-26), under 1 % of a phase;
//! - the clock runs until every rank is through (mdtest's `phase_end` ends in a barrier and
//!   each rank reads its end time after it), so the phase's time is the first start to the
//!   last end, as mdtest reports it.

use super::peers::Peers;
use crate::error::{IoContext, WorkloadError};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// IO500's mdtest-hard file size (mdtest `-w 3901 -e 3901`).
pub(super) const HARD_BYTES: usize = 3_901;

/// `f(i)` for i in 0..n, polling for Ctrl-C, then mdtest's end of phase: the barrier every
/// rank's clock waits for. Returns n.
pub(super) fn each(
    peers: Peers<'_>,
    what: &str,
    n: u64,
    f: impl Fn(u64) -> Result<(), WorkloadError>,
) -> Result<u64, WorkloadError> {
    for i in 0..n {
        crate::workload::poll(i)?;
        f(i)?;
    }
    end(peers, what)?;
    Ok(n)
}

/// mdtest's `phase_end` after the writes: `-Y`'s sync, then the barrier (inside the timing).
pub(super) fn end_of_writes(peers: Peers<'_>, what: &str) -> Result<(), WorkloadError> {
    nix::unistd::sync();
    end(peers, what)
}

fn end(peers: Peers<'_>, what: &str) -> Result<(), WorkloadError> {
    peers.barrier(&format!("io500-{what}-end"))
}

fn create_open(path: &Path) -> Result<File, WorkloadError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        // mdtest passes no O_TRUNC: a file left from before keeps its length.
        .truncate(false)
        .mode(0o664)
        .open(path)
        .ctx(|| format!("create {}", path.display()))
}

/// An mdtest-easy file: created empty.
pub(super) fn create(path: &Path) -> Result<(), WorkloadError> {
    create_open(path).map(drop)
}

/// An mdtest-hard file: created with its 3,901 bytes.
pub(super) fn create_written(path: &Path) -> Result<(), WorkloadError> {
    let mut f = create_open(path)?;
    f.seek(SeekFrom::Start(0))
        .and_then(|_| f.write_all(&[0x3cu8; HARD_BYTES]))
        .ctx(|| format!("write {}", path.display()))
}

pub(super) fn stat(path: &Path) -> Result<(), WorkloadError> {
    std::fs::metadata(path)
        .map(drop)
        .ctx(|| format!("stat {}", path.display()))
}

pub(super) fn remove(path: &Path) -> Result<(), WorkloadError> {
    std::fs::remove_file(path).ctx(|| format!("unlink {}", path.display()))
}

/// An mdtest-hard file's 3,901 bytes, in one read as mdtest's; a shorter file fails.
pub(super) fn read(path: &Path) -> Result<(), WorkloadError> {
    let mut buf = [0u8; HARD_BYTES];
    let mut f = File::open(path).ctx(|| format!("open {}", path.display()))?;
    f.seek(SeekFrom::Start(0))
        .and_then(|_| f.read_exact(&mut buf))
        .ctx(|| format!("read {HARD_BYTES} bytes of {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_file_holds_its_bytes_and_reads_back_while_a_short_one_fails() {
        let d = tempfile::tempdir().unwrap();
        let (hard, easy) = (d.path().join("h"), d.path().join("e"));
        create_written(&hard).unwrap();
        create(&easy).unwrap();
        assert_eq!(std::fs::metadata(&hard).unwrap().len(), HARD_BYTES as u64);
        read(&hard).unwrap();
        stat(&easy).unwrap();
        assert!(read(&easy).is_err());
        remove(&hard).unwrap();
        assert!(stat(&hard).is_err());
    }
}

//! io500's mdtest phases item by item as mdtest (hpc/ior 5fcf0ba, `src/mdtest.c` with its
//! POSIX backend `src/aiori-POSIX.c`) makes them, call for call, so the two time the same
//! work:
//! - create: `open(O_RDWR | O_CREAT, 0664)`, for mdtest-hard `lseek(0)` and one 3,901-byte
//!   `write` (`POSIX_Xfer` seeks before every transfer), `close`;
//! - stat: one `stat`; read: `open(O_RDONLY)`, `lseek(0)`, one 3,901-byte `read`, `close`;
//!   delete: one `unlink`;
//! - an open file's descriptor in a zeroed heap block, freed at its close, as the POSIX
//!   backend's `safeMalloc`/`free` of its `posix_fd`;
//! - `-Y` (the write phases): `sync(2)` on every rank. mdtest's `POSIX_Sync` runs
//!   `system("sync")`, a shell that runs the sync command; fsbattery starts no child
//!   processes, and the shell and its exec cost 2 ms more than the call alone here (median of
//!   20 interleaved pairs, 2026-11-26), under 1 % of a phase;
//! - names, and the work mdtest does per item to make them, as mdtest (`mdtest_names`); the
//!   calls are the C library's (`stat` is glibc's `newfstatat`, as mdtest's, not std's
//!   `statx`);
//! - before each phase, outside the clock, mdtest's `sleep(1)` (`mdtest_sleep_s`);
//! - the clock runs until every rank is through (mdtest's `phase_end` ends in a barrier and
//!   each rank reads its end time after it), so the phase's time is the first start to the
//!   last end, as mdtest reports it.

pub(super) use super::mdtest_names::Names;
use super::peers::Peers;
use crate::error::{IoContext, WorkloadError};
use nix::fcntl::{open, OFlag};
use nix::sys::stat::Mode;
use nix::unistd::{lseek, read as read_fd, unlink, write as write_fd, Whence};
use std::ffi::CStr;
use std::os::fd::OwnedFd;

/// IO500's mdtest-hard file size (mdtest `-w 3901 -e 3901`).
pub(super) const HARD_BYTES: usize = 3_901;

fn shown(path: &[u8]) -> String {
    String::from_utf8_lossy(path.strip_suffix(b"\0").unwrap_or(path)).into_owned()
}

/// A failed call on `path`, as the other io500 errors say it.
fn failed<T>(r: nix::Result<T>, what: &str, path: &CStr) -> Result<T, WorkloadError> {
    r.map_err(std::io::Error::from)
        .ctx(|| format!("{what} {}", shown(path.to_bytes())))
}

/// How an item's name is made: [`Names::made`] (create, remove) or [`Names::looked_up`]
/// (stat, read).
pub(super) type Naming = fn(&mut Names, u64) -> &CStr;

/// `f(name of i)` for i in 0..n, polling for Ctrl-C, then mdtest's end of phase: the barrier
/// every rank's clock waits for. Returns n.
pub(super) fn each(
    peers: Peers<'_>,
    what: &str,
    n: u64,
    (mut names, naming): (Names, Naming),
    f: impl Fn(&CStr) -> Result<(), WorkloadError>,
) -> Result<u64, WorkloadError> {
    for i in 0..n {
        crate::poll(i)?;
        f(naming(&mut names, i))?;
    }
    end(peers, what)?;
    Ok(n)
}

/// mdtest's `sleep(1)` at the start of its test (`mdtest_run`, before it builds its
/// communicator and the phase's barrier), so every mdtest phase of the io500 app starts after
/// an idle second. On this VM that matters: with it, fsbattery's stat, read and delete
/// phases ran 0.92-1.02 times the app's; without, 1.01-1.19 (21 interleaved rounds,
/// 2026-11-27; the write phases showed no such difference).
pub(super) fn sleep_before_test(d: std::time::Duration) -> Result<(), WorkloadError> {
    crate::sleep_interruptibly(d)
}

/// mdtest's `phase_end` after the writes: `-Y`'s sync, then the barrier (inside the timing).
pub(super) fn end_of_writes(peers: Peers<'_>, what: &str) -> Result<(), WorkloadError> {
    nix::unistd::sync();
    end(peers, what)
}

fn end(peers: Peers<'_>, what: &str) -> Result<(), WorkloadError> {
    peers.barrier(&format!("io500-{what}-end"))
}

/// An open file as the POSIX backend holds it: the descriptor in a zeroed heap block
/// (`safeMalloc(sizeof(posix_fd))`), freed when the file is closed.
struct BackendFd {
    fd: OwnedFd,
    _holder: Box<libc::c_int>,
}

impl BackendFd {
    fn new(fd: OwnedFd) -> BackendFd {
        // black_box: the block is never read, and the allocation must not be optimised away.
        let _holder = std::hint::black_box(Box::new(0));
        BackendFd { fd, _holder }
    }
}

/// mdtest's create: no O_TRUNC, so a file left from before keeps its length.
fn create_open(path: &CStr) -> Result<BackendFd, WorkloadError> {
    let mode = Mode::from_bits_truncate(0o664);
    failed(
        open(path, OFlag::O_RDWR | OFlag::O_CREAT, mode),
        "create",
        path,
    )
    .map(BackendFd::new)
}

/// An mdtest-easy file: created empty.
pub(super) fn create(path: &CStr) -> Result<(), WorkloadError> {
    create_open(path).map(drop)
}

/// What `rank` writes into each of its mdtest-hard files: IOR's timestamp buffer
/// (`--dataPacketType=timestamp`, made once per phase as mdtest makes its `write_buffer`).
pub(super) fn hard_buffer(rank: usize) -> [u8; HARD_BYTES] {
    let mut buf = [0u8; HARD_BYTES];
    super::data_check::fill(&mut buf, rank);
    buf
}

/// An mdtest-hard file: created with its 3,901 bytes (`buf`), in one write after a seek to 0.
pub(super) fn create_written(path: &CStr, buf: &[u8; HARD_BYTES]) -> Result<(), WorkloadError> {
    let f = create_open(path)?;
    failed(lseek(&f.fd, 0, Whence::SeekSet), "seek", path)?;
    let n = failed(write_fd(&f.fd, buf), "write", path)?;
    short(n, "wrote", path)
}

pub(super) fn stat(path: &CStr) -> Result<(), WorkloadError> {
    failed(nix::sys::stat::stat(path), "stat", path).map(drop)
}

pub(super) fn remove(path: &CStr) -> Result<(), WorkloadError> {
    failed(unlink(path), "unlink", path)
}

/// An mdtest-hard file's 3,901 bytes, in one read after a seek to 0, as mdtest's, checked as
/// `-X` checks them (the buffer invalidated before, compared with what `writer` wrote
/// after: false when it differs); a shorter file fails.
pub(super) fn read(path: &CStr, writer: usize) -> Result<bool, WorkloadError> {
    use super::data_check::{holds, invalidate};
    let mut buf = [0u8; HARD_BYTES];
    let f = failed(open(path, OFlag::O_RDONLY, Mode::empty()), "open", path).map(BackendFd::new)?;
    invalidate(&mut buf);
    failed(lseek(&f.fd, 0, Whence::SeekSet), "seek", path)?;
    let n = failed(read_fd(&f.fd, &mut buf), "read", path)?;
    short(n, "read", path)?;
    // mdtest passes the item's number, which only seeds the check's unused rand_r draw.
    Ok(holds(&buf, writer, 0))
}

/// mdtest counts a transfer of other than its size as an error; so does fsbattery.
fn short(n: usize, what: &str, path: &CStr) -> Result<(), WorkloadError> {
    if n == HARD_BYTES {
        return Ok(());
    }
    Err(WorkloadError::Failed(format!(
        "{what} {n} of {HARD_BYTES} bytes of {}",
        shown(path.to_bytes())
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_file_holds_its_bytes_and_reads_back_while_a_short_one_fails() {
        let d = tempfile::tempdir().unwrap();
        let mut names = Names::new(d.path(), 3).unwrap();
        let hard = names.made(7).to_owned();
        let easy = names.looked_up(12).to_owned();
        assert!(easy.to_bytes().ends_with(b"/file.mdtest.3.12"));
        create_written(&hard, &hard_buffer(3)).unwrap();
        create(&easy).unwrap();
        assert_eq!(
            std::fs::metadata(d.path().join("file.mdtest.3.7"))
                .unwrap()
                .len(),
            HARD_BYTES as u64
        );
        assert!(read(&hard, 3).unwrap(), "rank 3's data");
        assert!(!read(&hard, 2).unwrap(), "not rank 2's");
        stat(&easy).unwrap();
        let e = read(&easy, 3).unwrap_err().to_string();
        assert!(e.contains("read 0 of 3901 bytes"), "{e}");
        remove(&hard).unwrap();
        let e = stat(&hard).unwrap_err().to_string();
        assert!(e.contains("file.mdtest.3.7"), "{e}");
    }
}

//! bonnie++ 2.00a's `-n FILES:MAX:MIN:DIRS` tests (`TestDirOps` and `COpenTest` in its
//! bonnie++.cpp and bon_file.cpp): create, stat and delete FILES small files, first in name
//! order ("sequential"), then in random order; rates in files/s.
//!
//! The same system calls in the same order, with the same path forms:
//! - setup (untimed): mkdir the test directory (and `%05d` subdirectories), then work
//!   relative to it. bonnie++ chdir()s there and names files relative to its cwd; the cwd is
//!   one per process (the runner and the test harness run threads), so this opens the
//!   directory once and uses the `*at` calls on that descriptor: the kernel walks the same one
//!   component (two with subdirectories) from the same starting point.
//! - create, in index order for both tests (the random test's names begin with random
//!   characters; its files are not created in a shuffled order): `open(O_CREAT|O_EXCL|
//!   O_WRONLY, 0600)`, the file's size written in pieces of at most 8 KiB (bonnie's file chunk),
//!   close; the size is MAX, or MIN + a random share of MAX − MIN, drawn per file. The clock
//!   stops after a closing `sync()`.
//! - sequential stat / delete: readdir of each directory, skipping names that begin with a dot;
//!   for each entry `stat(name)` and, when it holds data, open, read its size in 8 KiB pieces,
//!   close; or `unlink(name)`. Delete then removes the subdirectories and the test directory
//!   and stops the clock after `sync()`. Stat never syncs.
//! - random stat / delete: the names reordered by bonnie's `random_sort` (untimed; delete
//!   reorders stat's order again), then stat/read or unlink each `[%05d/]name`; delete ends
//!   as the sequential one.
//!
//! No cache is dropped between the six passes under the default `--cache tool` (the
//! workload's tool cache is "nothing", as bonnie++): stat finds the inodes create just made.
//! Not reproduced: `-b` (fsync after every file) and links (`MAX` of -1/-2).
//! bonnie++ 1.03 (seed S4) differs: `creat()` instead of `O_EXCL`, no `sync()` inside the
//! create and delete clocks, 7 decimal digits and `%03d` directories in the names.
//!
//! Invariants: every pass checks the files it saw (count and bytes), so a filesystem that
//! loses entries or data fails instead of looking fast; on failure the scratch directory's
//! guard removes whatever is left.

use super::names::{random_sort, Names};
use super::Config;
use crate::engine::XorShift;
use crate::error::{is_full, WorkloadError};
use crate::model::MetricSpec;
use crate::{poll, WorkloadCtx};
use nix::dir::Dir;
use nix::fcntl::{openat, AtFlags, OFlag};
use nix::sys::stat::{fstatat, mkdirat, Mode};
use nix::unistd::{unlinkat, UnlinkatFlags};
use std::ffi::{CStr, CString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

/// The metrics of the small-file tests, in bonnie's order.
pub(super) fn metrics() -> Vec<MetricSpec> {
    let f = |n: &str, h: &str| MetricSpec::rate(n, "files/s", h);
    vec![
        f(
            "seq_create",
            "create files in name order (open O_EXCL, write its size, close), then sync",
        ),
        f(
            "seq_stat",
            "stat files in readdir order, reading non-empty ones",
        ),
        f(
            "seq_delete",
            "unlink files in readdir order, rmdir, then sync",
        ),
        f(
            "random_create",
            "create files named random characters first, then sync",
        ),
        f(
            "random_stat",
            "stat files in random order, reading non-empty ones",
        ),
        f(
            "random_delete",
            "unlink files in random order, rmdir, then sync",
        ),
    ]
}

/// bonnie++'s default file chunk (`-n …:CHUNK`, DefaultChunkSize): small files are written and
/// read in pieces of at most this many bytes.
const FILE_CHUNK: usize = 8192;

/// The test directory (bonnie's `Bonnie.PID` and its cwd) and the directory holding it.
struct TestDir {
    parent: OwnedFd,
    name: CString,
    path: PathBuf,
    fd: OwnedFd,
}

/// A system call's failure as a workload error naming the call and the file.
fn sys(what: &str, name: &CStr, e: nix::Error) -> WorkloadError {
    WorkloadError::io(format!("{what} {}", name.to_string_lossy()), e.into())
}

fn open_dir(at: BorrowedFd<'_>, name: &CStr) -> Result<OwnedFd, WorkloadError> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    openat(at, name, flags, Mode::empty()).map_err(|e| sys("open directory", name, e))
}

impl TestDir {
    /// mkdir the test directory in `parent` and its subdirectories (untimed, as bonnie).
    fn make(parent: &Path, name: &str, names: &Names) -> Result<TestDir, WorkloadError> {
        let cparent = CString::new(parent.as_os_str().as_encoded_bytes())
            .map_err(|_| WorkloadError::Failed(format!("{}: NUL in path", parent.display())))?;
        let pfd = open_dir(nix::fcntl::AT_FDCWD, &cparent)?;
        let cname = CString::new(name).expect("no NUL");
        let mode = Mode::S_IRWXU;
        mkdirat(&pfd, cname.as_c_str(), mode).map_err(|e| sys("mkdir", &cname, e))?;
        let fd = open_dir(pfd.as_fd(), &cname)?;
        for d in &names.dirs {
            mkdirat(&fd, d.as_c_str(), mode).map_err(|e| sys("mkdir", d, e))?;
        }
        Ok(TestDir {
            parent: pfd,
            name: cname,
            path: parent.join(name),
            fd,
        })
    }

    /// Create every file in index order, then sync; returns the bytes written.
    fn create(&self, names: &Names, c: &Config, rng: &mut XorShift) -> Result<u64, WorkloadError> {
        let (lo, hi) = (c.min_size, c.max_size);
        let mut data = vec![0u8; FILE_CHUNK];
        crate::engine::Fill::Random.generate(rng.below(u64::MAX), &mut data);
        let mut written = 0u64;
        for (n, name) in names.names.iter().enumerate() {
            poll(n as u64)?;
            let size = if hi > lo {
                lo + rng.below(hi - lo + 1)
            } else {
                hi
            };
            self.create_file(name, size, &data, written, n)?;
            written += size;
        }
        nix::unistd::sync();
        Ok(written)
    }

    /// bonnie's create_a_file: open O_CREAT|O_EXCL|O_WRONLY 0600, write `size` in chunks, close.
    fn create_file(
        &self,
        name: &CStr,
        size: u64,
        data: &[u8],
        written: u64,
        n: usize,
    ) -> Result<(), WorkloadError> {
        let full = |e: &std::io::Error| {
            let path = self.path.join(name.to_string_lossy().as_ref());
            let cause = format!("creating file number {}: {e}", n + 1);
            crate::blockio::target_full(&path, written, &cause)
        };
        let flags = OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_WRONLY | OFlag::O_CLOEXEC;
        let fd = openat(&self.fd, name, flags, Mode::S_IRUSR | Mode::S_IWUSR).map_err(|e| {
            let io = std::io::Error::from(e);
            if is_full(&io) {
                full(&io)
            } else {
                sys("create", name, e)
            }
        })?;
        let mut left = size as usize;
        while left > 0 {
            let piece = left.min(FILE_CHUNK);
            match nix::unistd::write(&fd, &data[..piece]) {
                Ok(w) if w == piece => left -= piece,
                Ok(w) => return Err(short("write", name, w, piece)),
                Err(e) if is_full(&e.into()) => return Err(full(&e.into())),
                Err(e) => return Err(sys("write", name, e)),
            }
        }
        close(fd, name)
    }

    /// Sequential stat: readdir each directory, stat (and read) every entry by its name.
    /// Returns (files, bytes) seen.
    fn stat_sequential(&self, names: &Names, buf: &mut [u8]) -> Result<(u64, u64), WorkloadError> {
        let mut seen = (0u64, 0u64);
        self.each_dir(names, &mut |at, entry| {
            poll(seen.0)?;
            seen.1 += stat_file(at, entry, buf)?;
            seen.0 += 1;
            Ok(())
        })?;
        Ok(seen)
    }

    /// Sequential delete: readdir each directory, unlink every entry; rmdir, sync.
    fn delete_sequential(&self, names: &Names) -> Result<u64, WorkloadError> {
        let mut seen = 0u64;
        self.each_dir(names, &mut |at, entry| {
            poll(seen)?;
            unlinkat(at, entry, UnlinkatFlags::NoRemoveDir).map_err(|e| sys("unlink", entry, e))?;
            seen += 1;
            Ok(())
        })?;
        self.finish(names)?;
        Ok(seen)
    }

    /// `f(directory, name)` for every entry of every directory in readdir order, skipping
    /// names that begin with a dot (bonnie's test: its files never do).
    fn each_dir(
        &self,
        names: &Names,
        f: &mut dyn FnMut(BorrowedFd<'_>, &CStr) -> Result<(), WorkloadError>,
    ) -> Result<(), WorkloadError> {
        let subdirs: Vec<Option<&CString>> = if names.dirs.is_empty() {
            vec![None]
        } else {
            names.dirs.iter().map(Some).collect()
        };
        for sub in subdirs {
            // bonnie chdir()s into the subdirectory and opendir(".")s it.
            let owned = sub.map(|s| open_dir(self.fd.as_fd(), s)).transpose()?;
            let at = owned.as_ref().map_or(self.fd.as_fd(), |o| o.as_fd());
            let dot = c".";
            let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
            let mut dir =
                Dir::openat(at, dot, flags, Mode::empty()).map_err(|e| sys("opendir", dot, e))?;
            for entry in dir.iter() {
                let entry = entry.map_err(|e| sys("readdir", dot, e))?;
                let name = entry.file_name();
                if name.to_bytes().first() != Some(&b'.') {
                    f(at, name)?;
                }
            }
        }
        Ok(())
    }

    /// Random stat: stat (and read) every name in `order`. Returns the bytes seen.
    fn stat_random(
        &self,
        names: &Names,
        order: &[usize],
        buf: &mut [u8],
    ) -> Result<u64, WorkloadError> {
        let mut bytes = 0;
        for (n, &i) in order.iter().enumerate() {
            poll(n as u64)?;
            bytes += stat_file(self.fd.as_fd(), &names.names[i], buf)?;
        }
        Ok(bytes)
    }

    /// Random delete: unlink every name in `order`; rmdir, sync.
    fn delete_random(&self, names: &Names, order: &[usize]) -> Result<(), WorkloadError> {
        for (n, &i) in order.iter().enumerate() {
            poll(n as u64)?;
            let name = &names.names[i];
            unlinkat(&self.fd, name.as_c_str(), UnlinkatFlags::NoRemoveDir)
                .map_err(|e| sys("unlink", name, e))?;
        }
        self.finish(names)
    }

    /// The end of both delete passes, inside their clocks: rmdir the subdirectories and the
    /// test directory, then sync().
    fn finish(&self, names: &Names) -> Result<(), WorkloadError> {
        for d in &names.dirs {
            unlinkat(&self.fd, d.as_c_str(), UnlinkatFlags::RemoveDir)
                .map_err(|e| sys("rmdir", d, e))?;
        }
        unlinkat(&self.parent, self.name.as_c_str(), UnlinkatFlags::RemoveDir)
            .map_err(|e| sys("rmdir", &self.name, e))?;
        nix::unistd::sync();
        Ok(())
    }
}

/// close(2) the descriptor itself: dropping an `OwnedFd` in a debug build also asks
/// fcntl(F_GETFD) first (std's check that it is open), a system call bonnie++ does not make.
fn close(fd: OwnedFd, name: &CStr) -> Result<(), WorkloadError> {
    nix::unistd::close(fd).map_err(|e| sys("close", name, e))
}

fn short(what: &str, name: &CStr, got: usize, want: usize) -> WorkloadError {
    WorkloadError::Failed(format!(
        "{what} {}: {got} of {want} bytes",
        name.to_string_lossy()
    ))
}

/// bonnie's stat_file: stat(name); when it holds data, open it and read its size in pieces
/// (each read must return its whole piece), close. Returns the size.
fn stat_file(at: BorrowedFd<'_>, name: &CStr, buf: &mut [u8]) -> Result<u64, WorkloadError> {
    let st = fstatat(at, name, AtFlags::empty()).map_err(|e| sys("stat", name, e))?;
    let size = st.st_size.max(0) as u64;
    if size > 0 {
        let flags = OFlag::O_RDONLY | OFlag::O_CLOEXEC;
        let fd = openat(at, name, flags, Mode::empty()).map_err(|e| sys("open", name, e))?;
        let mut left = size as usize;
        while left > 0 {
            let piece = left.min(FILE_CHUNK);
            match nix::unistd::read(&fd, &mut buf[..piece]) {
                Ok(r) if r == piece => left -= piece,
                Ok(r) => return Err(short("read", name, r, piece)),
                Err(e) => return Err(sys("read", name, e)),
            }
        }
        close(fd, name)?;
    }
    Ok(size)
}

/// The small-file sizes must make a range: min_size ≤ max_size ≤ 1 GiB.
pub(super) fn check(c: &Config) -> Result<(), WorkloadError> {
    let (lo, hi) = (c.min_size, c.max_size);
    if lo > hi || hi > 1 << 30 {
        return Err(WorkloadError::Failed(format!(
            "bonnie: min_size {lo} B and max_size {hi} B: need min_size <= max_size <= 1 GiB"
        )));
    }
    Ok(())
}

/// A pass that saw other than what create made fails, naming both.
fn expect(pass: &str, seen: (u64, u64), made: (u64, u64)) -> Result<(), WorkloadError> {
    if seen == made {
        return Ok(());
    }
    Err(WorkloadError::Failed(format!(
        "bonnie {pass} found {} files of {} bytes; create made {} files of {} bytes",
        seen.0, seen.1, made.0, made.1
    )))
}

/// Run the six small-file tests in a test directory `files` under `scratch`, back to back.
pub(super) fn run(
    ctx: &mut WorkloadCtx<'_>,
    c: &Config,
    scratch: &Path,
    seed: u64,
) -> Result<(), WorkloadError> {
    check(c)?;
    let mut rng = XorShift::new(seed ^ 0xf11e5);
    let mut buf = vec![0u8; FILE_CHUNK];
    let (files, dirs) = (c.files, c.dirs);
    let rate = |t: &crate::measure::Timing| crate::measure::per_s(files as f64, t.elapsed_s);
    let base = scratch.join("files");
    let evict = [base.as_path()];

    let names = Names::new(files, dirs, false, &mut rng);
    let dir = TestDir::make(scratch, "files", &names)?;
    let (bytes, t) = ctx.phase(&evict, || dir.create(&names, c, &mut rng))?;
    ctx.record("seq_create", &t, rate(&t));
    let (seen, t) = ctx.phase(&evict, || dir.stat_sequential(&names, &mut buf))?;
    expect("sequential stat", seen, (files, bytes))?;
    ctx.record("seq_stat", &t, rate(&t));
    let (seen, t) = ctx.phase(&evict, || dir.delete_sequential(&names))?;
    expect("sequential delete", (seen, bytes), (files, bytes))?;
    ctx.record("seq_delete", &t, rate(&t));

    let names = Names::new(files, dirs, true, &mut rng);
    let dir = TestDir::make(scratch, "files", &names)?;
    let (bytes, t) = ctx.phase(&evict, || dir.create(&names, c, &mut rng))?;
    ctx.record("random_create", &t, rate(&t));
    let mut order: Vec<usize> = (0..names.names.len()).collect();
    random_sort(&mut order, &mut rng);
    let (seen, t) = ctx.phase(&evict, || dir.stat_random(&names, &order, &mut buf))?;
    expect("random stat", (files, seen), (files, bytes))?;
    ctx.record("random_stat", &t, rate(&t));
    random_sort(&mut order, &mut rng);
    let ((), t) = ctx.phase(&evict, || dir.delete_random(&names, &order))?;
    ctx.record("random_delete", &t, rate(&t));
    Ok(())
}

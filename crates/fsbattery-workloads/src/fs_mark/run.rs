//! One fs_mark loop, system call for system call as fs_mark 3.3's `do_run`: each thread (fs_mark
//! forks a process per thread per loop; here a thread per thread per loop) makes its directory,
//! then for each of its `-n` files names it (time stamp in hex, `~` padding, random capitals
//! and digits), makes its subdirectory (mkdir, EEXIST ignored, as fs_mark does per file),
//! times open(O_CREAT|O_RDWR|O_TRUNC), the writes of `-w` bytes (at least one, even of 0
//! bytes), the fsync() of method 1 and the close(); after the loop the sync() and the
//! reopen-fsync-close passes of methods 2..=6; the loop's clock stops there, and the unlinks
//! (unless files are kept) are timed apart.
//!
//! Invariants: every time is whole microseconds of a monotonic clock read as fs_mark reads
//! gettimeofday (the difference of two truncated stamps, so short calls are not biased low);
//! averages divide as fs_mark's integers do; a thread's Files/sec is its files over its loop
//! time, and a loop's is the sum over threads (fs_mark's `aggregate_thread_stats`).

use super::args::{bits, Config, Policy, SECS_PER_DIR};
use crate::error::WorkloadError;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// One thread's figures for one loop (fs_mark's child log line).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Files per second of the loop (summed over threads in a loop's stats).
    pub files_per_sec: f64,
    /// Loop time not spent in creat/write/fsync/sync/close, µs (summed over threads).
    pub app_overhead: u64,
    /// Average µs of open(O_CREAT).
    pub creat: u64,
    /// Average of each file's average µs per write().
    pub write: u64,
    /// Average µs of fsync() per file (the post methods count open + fsync + close).
    pub fsync: u64,
    /// µs of the one sync().
    pub sync: u64,
    /// Average µs of close().
    pub close: u64,
    /// Average µs of unlink().
    pub unlink: u64,
}

/// Microsecond stamps read as gettimeofday would give them.
#[derive(Clone, Copy)]
struct Clock(Instant);

impl Clock {
    fn us(&self) -> u64 {
        self.0.elapsed().as_micros() as u64
    }
}

/// What a thread keeps between files: fs_mark's globals of the child.
struct Namer {
    subdir: u32,
    in_subdir: u32,
    start_sec: u64,
    rng: u64,
}

fn now() -> (u64, u32) {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs(), d.subsec_micros())
}

impl Namer {
    /// fs_mark's `setup`: random seeded by the microseconds, first subdirectory by the second.
    fn new(c: &Config, thread: u32) -> Namer {
        let (sec, usec) = now();
        Namer {
            subdir: if c.subdirs > 0 {
                (sec % u64::from(c.subdirs)) as u32
            } else {
                0
            },
            in_subdir: 0,
            start_sec: 0,
            rng: (u64::from(usec) << 8 | u64::from(thread)) | 1,
        }
    }

    fn random(&mut self) -> u64 {
        // xorshift64*: fs_mark's random() only decides which characters a name gets.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32
    }

    /// fs_mark's `setup_file_name`: (subdirectory, name).
    fn next(&mut self, c: &Config) -> (String, String) {
        let (sec, _) = now();
        if self.start_sec == 0 {
            self.start_sec = sec;
        }
        let subdir = match c.policy {
            Policy::None => String::new(),
            Policy::RoundRobin => {
                if c.per_subdir > 0 {
                    if self.in_subdir >= c.per_subdir {
                        self.subdir += 1;
                        self.in_subdir = 0;
                    }
                    self.subdir %= c.subdirs;
                    self.in_subdir += 1;
                }
                format!("{:02x}", self.subdir)
            }
            Policy::TimeHash => {
                if sec.saturating_sub(self.start_sec) > SECS_PER_DIR {
                    self.subdir = (self.subdir + 1) % c.subdirs;
                    self.start_sec = sec;
                }
                format!("{:02x}", self.subdir)
            }
        };
        let seq = format!("{sec:x}");
        let seq_len = (c.name_len - c.rand_len) as usize;
        let mut name = String::with_capacity(c.name_len as usize);
        name.push_str(&seq[seq.len().saturating_sub(seq_len)..]);
        for _ in seq.len()..seq_len {
            name.push('~');
        }
        for _ in 0..c.rand_len {
            // fs_mark: '0' + (random() & 0x7f) until an upper-case letter or a digit.
            let ch = loop {
                let b = b'0'.wrapping_add((self.random() & 0x7f) as u8);
                if b.is_ascii_uppercase() || b.is_ascii_digit() {
                    break b as char;
                }
            };
            name.push(ch);
        }
        (subdir, name)
    }
}

fn io(what: &str, p: &Path) -> impl FnOnce(std::io::Error) -> WorkloadError {
    let what = format!("{what} {}", p.display());
    move |e| {
        if crate::error::is_full(&e) {
            let fix = "give the target more room or lower -n/-s";
            crate::error::target_full(0, &what, &e.to_string(), fix)
        } else {
            WorkloadError::io(what, e)
        }
    }
}

/// The directory fs_mark's relative `-d` paths start from (fs_mark's working directory): paths
/// are resolved from it as fs_mark resolves `-d test/NAME` from its cwd, not walked from `/`
/// for every call.
pub struct Base {
    fd: std::os::fd::OwnedFd,
    path: PathBuf,
}

fn cstr(p: &Path) -> std::io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(p.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
}

fn check(r: libc::c_int) -> std::io::Result<libc::c_int> {
    if r < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl Base {
    /// Open `path` as the base.
    pub fn open(path: &Path) -> Result<Base, WorkloadError> {
        let d = File::open(path).map_err(io("open", path))?;
        Ok(Base {
            fd: d.into(),
            path: path.to_path_buf(),
        })
    }

    fn raw(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self.fd.as_raw_fd()
    }

    /// mkdir that ignores EEXIST, as fs_mark's.
    fn mkdir(&self, rel: &Path) -> Result<(), WorkloadError> {
        let c = cstr(rel).map_err(io("mkdir", rel))?;
        // SAFETY: a valid directory fd and a NUL-terminated path.
        match check(unsafe { libc::mkdirat(self.raw(), c.as_ptr(), 0o777) }) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                Err(io("mkdir", &self.path.join(rel))(e))
            }
            _ => Ok(()),
        }
    }

    fn open_at(&self, rel: &Path, flags: libc::c_int) -> std::io::Result<File> {
        use std::os::fd::FromRawFd;
        let c = cstr(rel)?;
        // SAFETY: as above; the returned fd is owned by the File from here on.
        let fd = check(unsafe { libc::openat(self.raw(), c.as_ptr(), flags, 0o666) })?;
        // SAFETY: `fd` was just opened and checked, and nothing else owns it.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    fn unlink(&self, rel: &Path) -> std::io::Result<()> {
        let c = cstr(rel)?;
        // SAFETY: as above.
        check(unsafe { libc::unlinkat(self.raw(), c.as_ptr(), 0) }).map(drop)
    }
}

/// Sums of one thread's timings.
#[derive(Default)]
struct Sums {
    creat: u64,
    write_avg: u64,
    write_total: u64,
    fsync: u64,
    sync: u64,
    close: u64,
    unlink: u64,
}

/// One thread's loop in `dir` (its `-d`, relative to `base`).
pub fn thread(c: &Config, base: &Base, dir: &Path, thread: u32) -> Result<Stats, WorkloadError> {
    let clock = Clock(Instant::now());
    let mut namer = Namer::new(c, thread);
    let buf = vec![0u8; c.io_size as usize];
    base.mkdir(dir)?;
    let n = c.files as usize;
    let mut files: Vec<PathBuf> = Vec::with_capacity(n);
    let mut s = Sums::default();
    let method = c.sync_bits();
    let loop_start = clock.us();
    for i in 0..n {
        crate::poll(i as u64)?;
        let (sub, name) = namer.next(c);
        let target = dir.join(&sub);
        base.mkdir(&target)?;
        let path = target.join(name);
        let t = clock.us();
        let mut f = base
            .open_at(&path, libc::O_CREAT | libc::O_RDWR | libc::O_TRUNC)
            .map_err(io("creat", &base.path.join(&path)))?;
        s.creat += clock.us() - t;
        write_file(&mut f, c, &buf, &clock, &mut s).map_err(io("write", &path))?;
        if method & bits::BEFORE_CLOSE != 0 {
            let t = clock.us();
            f.sync_all().map_err(io("fsync", &path))?;
            s.fsync += clock.us() - t;
        }
        let t = clock.us();
        drop(f);
        s.close += clock.us() - t;
        files.push(path);
    }
    post_sync(base, method, &files, &clock, &mut s)?;
    let loop_us = clock.us() - loop_start;
    if !c.keep {
        for (i, p) in files.iter().enumerate() {
            crate::poll(i as u64)?;
            let t = clock.us();
            base.unlink(p).map_err(io("unlink", &base.path.join(p)))?;
            s.unlink += clock.us() - t;
        }
    }
    let ops = s.creat + s.write_total + s.fsync + s.sync + s.close;
    let n = n as u64;
    Ok(Stats {
        files_per_sec: n as f64 / (loop_us.max(1) as f64 / 1e6),
        app_overhead: loop_us.saturating_sub(ops),
        creat: s.creat / n,
        write: s.write_avg / n,
        fsync: s.fsync / n,
        sync: s.sync,
        close: s.close / n,
        unlink: s.unlink / n,
    })
}

/// fs_mark's `write_file`: `-w`-sized writes until `-s` bytes, at least one call.
fn write_file(
    f: &mut File,
    c: &Config,
    buf: &[u8],
    clock: &Clock,
    s: &mut Sums,
) -> std::io::Result<()> {
    let mut left = c.size as usize;
    let (mut calls, mut total) = (0u64, 0u64);
    loop {
        let len = buf.len().min(left);
        let t = clock.us();
        let wrote = f.write(&buf[..len])?;
        total += clock.us() - t;
        if wrote != len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WriteZero,
                format!("short write: {wrote} of {len} bytes"),
            ));
        }
        left -= wrote;
        calls += 1;
        if left == 0 {
            break;
        }
    }
    s.write_avg += total / calls;
    s.write_total += total;
    Ok(())
}

/// After the write loop: sync() (methods 2, 4, 6), then the reopen-fsync-close passes, each
/// counted whole into fsync as fs_mark counts it.
fn post_sync(
    base: &Base,
    method: u8,
    files: &[PathBuf],
    clock: &Clock,
    s: &mut Sums,
) -> Result<(), WorkloadError> {
    if method & bits::SYNC_SYSCALL != 0 {
        let t = clock.us();
        // SAFETY: sync(2) takes no arguments and cannot fail.
        unsafe { libc::sync() };
        s.sync = clock.us() - t;
    }
    let reopen = |p: &PathBuf, s: &mut Sums| -> Result<(), WorkloadError> {
        let t = clock.us();
        let f = base
            .open_at(p, libc::O_RDONLY)
            .map_err(io("open", &base.path.join(p)))?;
        f.sync_all().map_err(io("fsync", p))?;
        drop(f);
        s.fsync += clock.us() - t;
        Ok(())
    };
    if method & bits::POST_IN_ORDER != 0 {
        for p in files {
            reopen(p, s)?;
        }
    }
    if method & bits::POST_REVERSE != 0 {
        for p in files.iter().rev() {
            reopen(p, s)?;
        }
    }
    if method & bits::FIRST_FILE != 0 {
        if let Some(p) = files.first() {
            reopen(p, s)?;
        }
    }
    Ok(())
}

/// Whether each thread's directory has room for its next loop (fs_mark's `check_space`:
/// free bytes against `-s` × `-n`, per thread).
pub fn room_for_loop(c: &Config, root: &Path) -> Result<bool, WorkloadError> {
    let st = nix_statvfs(root)?;
    let need = u64::from(c.size) * u64::from(c.files);
    Ok(st >= need)
}

fn nix_statvfs(p: &Path) -> Result<u64, WorkloadError> {
    use std::os::unix::ffi::OsStrExt;
    let cpath = std::ffi::CString::new(p.as_os_str().as_bytes())
        .map_err(|e| WorkloadError::Failed(format!("{}: {e}", p.display())))?;
    // SAFETY: statvfs writes into the zeroed struct; the path is NUL-terminated.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above: a valid C string and a struct statvfs fills in.
    if unsafe { libc::statvfs(cpath.as_ptr(), &mut st) } != 0 {
        return Err(WorkloadError::io(
            format!("statvfs {}", p.display()),
            std::io::Error::last_os_error(),
        ));
    }
    Ok((st.f_bavail as u64).saturating_mul(st.f_bsize as u64))
}

/// One loop: every thread at once, their figures combined as fs_mark's parent does.
pub fn one_loop(c: &Config, root: &Path) -> Result<Stats, WorkloadError> {
    let base = Base::open(root)?;
    let base = &base;
    let results: Vec<Result<Stats, WorkloadError>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..c.threads)
            .map(|t| {
                let dir = Path::new(c.dir_of(t));
                sc.spawn(move || thread(c, base, dir, t))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(WorkloadError::Failed("fs_mark thread panicked".into()))
                })
            })
            .collect()
    });
    let mut all = Stats::default();
    for r in results {
        let s = r?;
        all.files_per_sec += s.files_per_sec;
        all.app_overhead += s.app_overhead;
        all.creat += s.creat;
        all.write += s.write;
        all.fsync += s.fsync;
        all.sync += s.sync;
        all.close += s.close;
        all.unlink += s.unlink;
    }
    // fs_mark averages the per-thread averages with integer division.
    let t = u64::from(c.threads);
    for v in [
        &mut all.creat,
        &mut all.write,
        &mut all.fsync,
        &mut all.sync,
        &mut all.close,
        &mut all.unlink,
    ] {
        *v /= t;
    }
    Ok(all)
}

//! dbench 4.0's `fileio` backend (fileio.c): what each loadfile operation does to the
//! filesystem, system call for system call, for one client.
//!
//! Invariants (from fileio.c, which the agreement test holds this to):
//! - every name is first "resolved" as Samba's pvfs_resolve_name: stat(2), and when that
//!   fails (and not `--no-resolve`) a readdir of the parent for a case-insensitive match;
//! - NTCreateX opens O_RDWR (| O_SYNC with `-s`), O_CREAT for disposition CREATE, O_CREAT |
//!   O_TRUNC for OVERWRITE(_IF), mkdir(0700) then O_RDONLY|O_DIRECTORY for a directory, retries
//!   a directory opened for writing; an outcome other than the line's status is tolerated
//!   (dbench prints it and goes on), a handle table of 200 per client;
//! - WriteX is a pwrite of a freshly zeroed buffer (calloc) that must write the line's count,
//!   then fsync with `-F`; ReadX a pread of a fresh buffer; both count the line's size as
//!   bytes, which is what throughput measures; with `--fake-io` only the count happens;
//! - Unlink, Rmdir and Rename must match the line's status, else the client fails (dbench
//!   exits); with `-S` each is followed by an fdatasync of the parent directory;
//! - Deltree unlinks every file below the directory and leaves the directories (4.0 does);
//!   cleanup deltrees `clients/clientN` and removes `clients` when empty.

use super::args::Config;
use super::loadfile::{Kind, Op};
use std::ffi::{CStr, CString};
use std::io;

/// dbench's per-client handle table size (`MAX_FILES` in fileio.c).
const MAX_FILES: usize = 200;

/// NTCreateX dispositions and options (dbench.h).
const FILE_CREATE: i64 = 2;
const FILE_OVERWRITE: i64 = 4;
const FILE_OVERWRITE_IF: i64 = 5;
const FILE_DIRECTORY_FILE: i64 = 0x0001;

/// One open handle.
struct Handle {
    handle: i64,
    fd: libc::c_int,
    name: CString,
}

/// One client's files and buffer.
pub struct Client<'c> {
    cfg: &'c Config,
    /// The client's base directory (dbench's `child->directory`), as a C string.
    dir: CString,
    table: Vec<Handle>,
    buf: Vec<u8>,
    /// Bytes read and written so far (dbench's `child->bytes`).
    pub bytes: u64,
}

/// Why a client stops (dbench exits with status 1).
pub type Failure = String;

fn cstr(s: &str) -> CString {
    // Loadfiles with NUL are refused when read; a directory with one cannot exist.
    CString::new(s).unwrap_or_default()
}

fn stat(p: &CStr) -> Option<libc::stat> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: p is NUL-terminated, st is written by the call before being read.
    (unsafe { libc::stat(p.as_ptr(), st.as_mut_ptr()) } == 0).then(|| unsafe { st.assume_init() })
}

fn is_dir(st: &libc::stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFDIR
}

impl<'c> Client<'c> {
    /// A client working below `dir`.
    pub fn new(cfg: &'c Config, dir: &str) -> Self {
        Client {
            cfg,
            dir: cstr(dir),
            table: Vec::new(),
            buf: Vec::new(),
            bytes: 0,
        }
    }

    /// Do `op` with its file names already made (`f1`, `f2`: empty when the line has none).
    pub fn run(&mut self, op: &Op<'_>, f1: &str, f2: &str) -> Result<(), Failure> {
        let n = op.n;
        match op.kind {
            Kind::NTCreateX => self.createx(f1, n[1], n[2], n[3], op.ok),
            Kind::Close => self.close(n[0]),
            Kind::Rename => self.rename(f1, f2, op.ok),
            Kind::Unlink => self.unlink(f1, op.ok),
            Kind::Deltree => {
                deltree(&cstr(f1));
                Ok(())
            }
            Kind::Rmdir => self.rmdir(f1, op.ok),
            Kind::Mkdir => {
                self.mkdir(f1);
                Ok(())
            }
            Kind::Qpathinfo => {
                self.resolve(&cstr(f1));
                Ok(())
            }
            Kind::Qfileinfo => self.qfileinfo(n[0]),
            Kind::Qfsinfo => {
                let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
                // SAFETY: dir is NUL-terminated; the result is not read.
                unsafe { libc::statvfs(self.dir.as_ptr(), st.as_mut_ptr()) };
                Ok(())
            }
            Kind::Sfileinfo => self.sfileinfo(n[0]),
            Kind::Find => {
                self.find(f1, n[2]);
                Ok(())
            }
            Kind::WriteX => self.writex(n[0], n[1], n[2], n[3]),
            Kind::ReadX => self.readx(n[0], n[1], n[2], n[3]),
            Kind::LockX => self.lock(n[0], n[1], n[2], libc::F_WRLCK),
            Kind::UnlockX => self.lock(n[0], n[1], n[2], libc::F_UNLCK),
            Kind::Flush => {
                let fd = self.find_handle(n[0])?.fd;
                // SAFETY: fd is open (it is in the table).
                unsafe { libc::fsync(fd) };
                Ok(())
            }
            Kind::Sleep => {
                let us = n[0].clamp(0, 10_000_000) as u64;
                std::thread::sleep(std::time::Duration::from_micros(us));
                Ok(())
            }
        }
    }

    fn find_handle(&self, handle: i64) -> Result<&Handle, Failure> {
        self.table
            .iter()
            .find(|h| h.handle == handle)
            .ok_or_else(|| format!("handle {handle} was not found"))
    }

    /// pvfs_resolve_name: a stat, and on failure a case-insensitive scan of the parent.
    fn resolve(&self, name: &CStr) {
        if stat(name).is_some() || self.cfg.no_resolve {
            return;
        }
        let bytes = name.to_bytes();
        let Some(slash) = bytes.iter().rposition(|b| *b == b'/') else {
            return;
        };
        let (dname, fname) = (&bytes[..slash], &bytes[slash + 1..]);
        let Ok(d) = CString::new(dname) else { return };
        scan(&d, |entry| entry.eq_ignore_ascii_case(fname));
    }

    fn sync_parent(&self, fname: &str) {
        let parent = match fname.rfind('/') {
            Some(i) => &fname[..i],
            None => ".",
        };
        let p = cstr(parent);
        // SAFETY: p is NUL-terminated; the fd is closed below.
        let fd = unsafe { libc::open(p.as_ptr(), libc::O_RDONLY) };
        if fd >= 0 {
            // SAFETY: fd was just opened.
            unsafe {
                libc::fdatasync(fd);
                libc::close(fd);
            }
        }
    }

    fn unlink(&mut self, f: &str, ok: bool) -> Result<(), Failure> {
        let c = cstr(f);
        self.resolve(&c);
        // SAFETY: c is NUL-terminated.
        let r = unsafe { libc::unlink(c.as_ptr()) };
        expect(r, ok, || format!("unlink {f}"))?;
        if self.cfg.sync_dirs {
            self.sync_parent(f);
        }
        Ok(())
    }

    fn mkdir(&mut self, f: &str) {
        let c = cstr(f);
        self.resolve(&c);
        if self.cfg.stat_check && stat(&c).is_some() {
            return;
        }
        // SAFETY: c is NUL-terminated.
        unsafe { libc::mkdir(c.as_ptr(), 0o777) };
    }

    fn rmdir(&mut self, f: &str, ok: bool) -> Result<(), Failure> {
        let c = cstr(f);
        self.resolve(&c);
        if self.cfg.stat_check && !stat(&c).is_some_and(|s| is_dir(&s)) {
            return Ok(());
        }
        // SAFETY: c is NUL-terminated.
        let r = unsafe { libc::rmdir(c.as_ptr()) };
        expect(r, ok, || format!("rmdir {f}"))?;
        if self.cfg.sync_dirs {
            self.sync_parent(f);
        }
        Ok(())
    }

    fn rename(&mut self, old: &str, new: &str, ok: bool) -> Result<(), Failure> {
        let (o, n) = (cstr(old), cstr(new));
        self.resolve(&o);
        self.resolve(&n);
        if self.cfg.stat_check && stat(&o).is_none() && ok {
            return Err(format!("rename {old} {new} failed - file doesn't exist"));
        }
        // SAFETY: both are NUL-terminated.
        let r = unsafe { libc::rename(o.as_ptr(), n.as_ptr()) };
        expect(r, ok, || format!("rename {old} {new}"))?;
        if self.cfg.sync_dirs {
            self.sync_parent(new);
        }
        Ok(())
    }

    fn createx(
        &mut self,
        f: &str,
        opts: i64,
        disp: i64,
        fnum: i64,
        ok: bool,
    ) -> Result<(), Failure> {
        let c = cstr(f);
        self.resolve(&c);
        let mut flags = libc::O_RDWR;
        if self.cfg.sync_open {
            flags |= libc::O_SYNC;
        }
        if disp == FILE_CREATE && !(self.cfg.stat_check && stat(&c).is_some()) {
            flags |= libc::O_CREAT;
        }
        if disp == FILE_OVERWRITE || disp == FILE_OVERWRITE_IF {
            flags |= libc::O_CREAT | libc::O_TRUNC;
        }
        if opts & FILE_DIRECTORY_FILE != 0 {
            if !self.cfg.stat_check || stat(&c).is_none() {
                // SAFETY: c is NUL-terminated.
                unsafe { libc::mkdir(c.as_ptr(), 0o700) };
            }
            flags = libc::O_RDONLY | libc::O_DIRECTORY;
        }
        // SAFETY: c is NUL-terminated; a returned fd is kept in the table or closed.
        let mut fd = unsafe { libc::open(c.as_ptr(), flags, 0o600) };
        if fd == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::EISDIR) {
            // SAFETY: as above.
            fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY, 0o600) };
        }
        if fd == -1 {
            return Ok(());
        }
        if !ok {
            // SAFETY: fd was just opened.
            unsafe { libc::close(fd) };
            return Ok(());
        }
        if self.table.len() >= MAX_FILES {
            // SAFETY: fd was just opened.
            unsafe { libc::close(fd) };
            return Err(format!("file table full for {f}"));
        }
        self.table.push(Handle {
            handle: fnum,
            fd,
            name: c,
        });
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fd is open; the result is not read (the xattr hook it feeds is not reproduced).
        unsafe { libc::fstat(fd, st.as_mut_ptr()) };
        Ok(())
    }

    fn close(&mut self, handle: i64) -> Result<(), Failure> {
        self.find_handle(handle)?;
        let i = self
            .table
            .iter()
            .position(|h| h.handle == handle)
            .unwrap_or(0);
        let h = self.table.swap_remove(i);
        // SAFETY: the fd was open and leaves the table here.
        unsafe { libc::close(h.fd) };
        Ok(())
    }

    fn writex(&mut self, handle: i64, off: i64, size: i64, ret: i64) -> Result<(), Failure> {
        let fd = self.find_handle(handle)?.fd;
        if self.cfg.fake_io {
            self.bytes += ret.max(0) as u64;
            return Ok(());
        }
        let size = size.max(0) as usize;
        if self.cfg.one_byte_write_fix && size == 1 && self.one_byte(fd, off) {
            self.bytes += 1;
            return Ok(());
        }
        if self.buf.len() < size {
            self.buf.resize(size, 0);
        }
        // dbench writes a calloc'd buffer: zeroing it is part of each write's cost.
        self.buf[..size].fill(0);
        // SAFETY: buf holds at least size bytes; fd is open.
        let r = unsafe { libc::pwrite(fd, self.buf.as_ptr().cast(), size, off as libc::off_t) };
        if r == -1 {
            let e = io::Error::last_os_error();
            return Err(format!("write failed on handle {handle} ({e})"));
        }
        if r as i64 != ret {
            return Err(format!(
                "wrote {r} bytes, expected to write {ret} bytes on handle {handle}"
            ));
        }
        if self.cfg.do_fsync {
            // SAFETY: fd is open.
            unsafe { libc::fsync(fd) };
        }
        self.bytes += size as u64;
        Ok(())
    }

    /// `--one-byte-write-fix`: skip a one-byte write of what is there already (or extend).
    fn one_byte(&mut self, fd: libc::c_int, off: i64) -> bool {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fd is open; st is read only on success.
        if unsafe { libc::fstat(fd, st.as_mut_ptr()) } != 0 {
            return false;
        }
        // SAFETY: fstat succeeded.
        let size = unsafe { st.assume_init() }.st_size;
        if size > off {
            let mut c = 0u8;
            // SAFETY: one byte into c.
            unsafe { libc::pread(fd, (&mut c as *mut u8).cast(), 1, off as libc::off_t) };
            c == 0
        } else {
            // SAFETY: fd is open.
            unsafe { libc::ftruncate(fd, (off + 1) as libc::off_t) };
            true
        }
    }

    fn readx(&mut self, handle: i64, off: i64, size: i64, ret: i64) -> Result<(), Failure> {
        let fd = self.find_handle(handle)?.fd;
        if self.cfg.fake_io {
            self.bytes += ret.max(0) as u64;
            return Ok(());
        }
        let size = size.max(0) as usize;
        if self.buf.len() < size {
            self.buf.resize(size, 0);
        }
        // SAFETY: buf holds at least size bytes; fd is open. A short read is tolerated
        // (dbench prints it and goes on).
        unsafe { libc::pread(fd, self.buf.as_mut_ptr().cast(), size, off as libc::off_t) };
        self.bytes += size as u64;
        Ok(())
    }

    fn qfileinfo(&mut self, handle: i64) -> Result<(), Failure> {
        let fd = self.find_handle(handle)?.fd;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fd is open; the result is not read.
        unsafe { libc::fstat(fd, st.as_mut_ptr()) };
        Ok(())
    }

    fn sfileinfo(&mut self, handle: i64) -> Result<(), Failure> {
        let h = self.find_handle(handle)?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fd is open; st is read only on success.
        if unsafe { libc::fstat(h.fd, st.as_mut_ptr()) } == 0 {
            // SAFETY: fstat succeeded.
            let st = unsafe { st.assume_init() };
            let tm = libc::utimbuf {
                actime: st.st_atime - 10,
                modtime: st.st_mtime - 12,
            };
            // SAFETY: name is NUL-terminated, tm lives across the call.
            unsafe { libc::utime(h.name.as_ptr(), &tm) };
        }
        Ok(())
    }

    fn find(&mut self, f: &str, maxcnt: i64) {
        let c = cstr(f);
        self.resolve(&c);
        if !f.contains(['<', '>', '*', '?', '"']) {
            return;
        }
        let Some(slash) = f.rfind('/') else { return };
        let mut left = maxcnt;
        scan(&cstr(&f[..slash]), |_| {
            left -= 1;
            left == 0
        });
    }

    fn lock(&mut self, handle: i64, off: i64, len: i64, kind: libc::c_int) -> Result<(), Failure> {
        let fd = self.find_handle(handle)?.fd;
        // SAFETY: all-zero is a valid flock.
        let mut l: libc::flock = unsafe { std::mem::zeroed() };
        l.l_type = kind as libc::c_short;
        l.l_whence = libc::SEEK_SET as libc::c_short;
        // dbench passes the offset as uint32_t.
        l.l_start = (off as u32) as libc::off_t;
        l.l_len = len as libc::off_t;
        // SAFETY: fd is open, l is a valid flock.
        unsafe { libc::fcntl(fd, libc::F_SETLKW, &l) };
        Ok(())
    }

    /// dbench's nb_cleanup: deltree `clients/clientN`, rmdir `clients`.
    pub fn cleanup(&mut self, id: usize) {
        self.close_all();
        let d = self.dir.to_string_lossy();
        deltree(&cstr(&format!("{d}/clients/client{id}")));
        let c = cstr(&format!("{d}/clients"));
        // SAFETY: c is NUL-terminated.
        unsafe { libc::rmdir(c.as_ptr()) };
    }

    /// Close every handle left open (dbench's process exit does it).
    pub fn close_all(&mut self) {
        for h in self.table.drain(..) {
            // SAFETY: each fd in the table is open.
            unsafe { libc::close(h.fd) };
        }
    }
}

impl Drop for Client<'_> {
    fn drop(&mut self) {
        self.close_all();
    }
}

/// A return value against the line's status: success expected and got, or failure expected
/// and got; otherwise the client fails, as dbench's does.
fn expect(r: libc::c_int, ok: bool, what: impl FnOnce() -> String) -> Result<(), Failure> {
    if (r == 0) == ok {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    let want = if ok { "success" } else { "an error" };
    Err(format!(
        "{} gave {}, the loadfile expects {want}",
        what(),
        if r == 0 {
            "success".to_string()
        } else {
            e.to_string()
        }
    ))
}

/// readdir `dir` until `stop` says so (or the end).
fn scan(dir: &CStr, mut stop: impl FnMut(&[u8]) -> bool) {
    // SAFETY: dir is NUL-terminated; the stream is closed below.
    let d = unsafe { libc::opendir(dir.as_ptr()) };
    if d.is_null() {
        return;
    }
    loop {
        // SAFETY: d is an open stream; the entry is read before the next readdir.
        let e = unsafe { libc::readdir(d) };
        if e.is_null() {
            break;
        }
        // SAFETY: d_name is NUL-terminated.
        let name = unsafe { CStr::from_ptr((*e).d_name.as_ptr()) };
        if stop(name.to_bytes()) {
            break;
        }
    }
    // SAFETY: d is open.
    unsafe { libc::closedir(d) };
}

/// dbench 4.0's nb_deltree: unlink every file below `dir`, recursing into directories,
/// which stay.
pub fn deltree(dir: &CStr) {
    let mut names = Vec::new();
    scan(dir, |n| {
        if n != b"." && n != b".." {
            names.push(n.to_vec());
        }
        false
    });
    for n in names {
        let mut p = dir.to_bytes().to_vec();
        p.push(b'/');
        p.extend_from_slice(&n);
        let Ok(p) = CString::new(p) else { continue };
        match stat(&p) {
            Some(st) if is_dir(&st) => deltree(&p),
            // SAFETY: p is NUL-terminated.
            Some(_) => unsafe {
                libc::unlink(p.as_ptr());
            },
            None => {}
        }
    }
}

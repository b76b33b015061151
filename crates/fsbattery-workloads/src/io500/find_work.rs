//! One rank's share of find as pfind (VI4IO/pfind aaba722, `src/pfind.c`) does it: a stack
//! of work items (directories to read, matching files to `lstat`) that other ranks may steal
//! half of, the directory being read, and the directories that did not fit the stack. What
//! the ranks say to each other is `find`'s; this is the work between messages:
//! - a step (`find_process_one_item`) goes on reading the open directory, or reads a
//!   directory from the overflow list, or takes the top item off the stack;
//! - reading (`find_do_readdir`) takes at most 1,000 entries per step (pfind's
//!   `max_entries_per_iter`), so the rank answers steal requests between steps; a name that
//!   is not a directory and does not match `-name` (glibc `regexec`) is counted there; a
//!   directory or a matching name becomes a work item, written into its 4,120-byte record
//!   with `snprintf("%s/%s")` (pfind's `work_t`: a `PATH_MAX` name, two offsets, a type);
//!   on a full stack the directory goes to the overflow list, the file is `lstat`ed at once;
//! - a file item is counted and `lstat`ed by whoever takes it (`find_do_lstat`), its full
//!   path made with `snprintf("%s/%s")` from the start directory.
//!
//! Stolen items travel as the records themselves, so a steal moves as many bytes as
//! pfind's `MPI_Send` of `work_t`s (pfind built without LZ4, as `bench/io500.sh` builds it).
//! Errors (a directory that cannot be opened, a file gone before its `lstat`) are counted
//! and the walk goes on, as in pfind; the caller fails the phase once every rank is done.
//! Written by hand: it is pfind's algorithm, which no crate implements.

use super::find_query::{Found, Query};
use std::ffi::{CStr, CString};

const PATH_MAX: usize = libc::PATH_MAX as usize;
/// pfind's `work_t`: `char name[PATH_MAX]; uint64_t dir_start, dir_end; char type;`,
/// padded to its 8-byte alignment.
pub(super) const RECORD: usize = 4_120;
const TYPE_AT: usize = PATH_MAX + 16;
/// pfind's `max_entries_per_iter` (its default; the app does not set it).
const ENTRIES_PER_STEP: usize = 1_000;
/// The app's `pfind-queue-length` (its `-q 10000`).
pub(super) const QUEUE_LENGTH: usize = 10_000;

/// The stack's memory, `QUEUE_LENGTH + 1` zeroed records: made before the phase's clock, as
/// pfind's `smalloc` (malloc and memset) runs before its start time is taken.
pub(super) struct Queue(Vec<u8>);

impl Queue {
    // Written, not `vec![0; n]` (calloc): the pages are touched here, before the clock, as
    // by pfind's memset; calloc's would be faulted in by the walk.
    #[allow(clippy::slow_vector_initialization)]
    pub(super) fn new() -> Queue {
        let n = (QUEUE_LENGTH + 1) * RECORD;
        let mut bytes = Vec::with_capacity(n);
        bytes.resize(n, 0);
        Queue(bytes)
    }
}

/// The directory being read, left open between steps (pfind's `current_dir`).
struct Current {
    dir: *mut libc::DIR,
    /// Its path below the start directory (pfind's `current_dir.name`).
    path: Vec<u8>,
}

/// One rank's state of the walk.
pub(super) struct Walker<'a> {
    q: &'a Query,
    /// The start directory, absolute (pfind's `realpath`), without a trailing slash.
    start: CString,
    stack: &'a mut [u8],
    pending: usize,
    /// Directories that did not fit the stack (pfind's `excess_dirs`).
    overflow: Vec<Vec<u8>>,
    current: Option<Current>,
    pub(super) out: Found,
    pub(super) errors: u64,
    pub(super) first_error: Option<String>,
}

/// `a/b` as pfind's `"%s/%s"` into `buf` (`buf` holds the NUL-terminated result); a result
/// longer than `PATH_MAX` is cut, as no path the kernel walks can be.
fn join(buf: &mut [u8], a: &CStr, b: &CStr) {
    // SAFETY: `buf` is writable for its length, the format and both arguments are C strings.
    unsafe {
        libc::snprintf(
            buf.as_mut_ptr().cast(),
            buf.len(),
            c"%s/%s".as_ptr(),
            a.as_ptr(),
            b.as_ptr(),
        )
    };
}

/// The C string at the start of `buf` (up to its NUL).
fn c_str(buf: &[u8]) -> &CStr {
    CStr::from_bytes_until_nul(buf).unwrap_or(c"")
}

impl<'a> Walker<'a> {
    pub(super) fn new(q: &'a Query, start: CString, queue: &'a mut Queue) -> Walker<'a> {
        Walker {
            q,
            start,
            stack: &mut queue.0,
            pending: 0,
            overflow: Vec::new(),
            current: None,
            out: Found::default(),
            errors: 0,
            first_error: None,
        }
    }

    /// Rank 0's first item: the start directory itself (an empty path).
    pub(super) fn seed(&mut self) {
        self.stack[..RECORD].fill(0);
        self.stack[TYPE_AT] = b'd';
        self.pending = 1;
    }

    pub(super) fn pending(&self) -> usize {
        self.pending
    }

    /// Nothing left to do here (pfind's `have_completed`).
    pub(super) fn completed(&self) -> bool {
        self.pending == 0 && self.overflow.is_empty() && self.current.is_none()
    }

    /// Drop all work left (an interrupted run: the rank then only answers and passes the
    /// token until every rank is done).
    pub(super) fn stop(&mut self) {
        self.close_current();
        self.overflow.clear();
        self.pending = 0;
    }

    /// pfind's `find_process_one_item`.
    pub(super) fn step(&mut self) {
        if let Some(c) = self.current.as_ref() {
            let path = c.path.clone();
            self.read_dir(&path);
            return;
        }
        if let Some(path) = self.overflow.pop() {
            self.read_dir(&path);
            return;
        }
        self.pending -= 1;
        let rec = &self.stack[self.pending * RECORD..(self.pending + 1) * RECORD];
        if rec[TYPE_AT] == b'd' {
            let path = c_str(rec).to_bytes().to_vec();
            self.read_dir(&path);
        } else {
            let r = check_file(&self.start, self.q, c_str(&rec[..PATH_MAX]));
            self.count(r);
        }
    }

    /// A steal request answered: the top half of the stack's records (pfind's `pending_work
    /// / 2`), then overflow directories moved into the freed slots as pfind moves them.
    pub(super) fn give(&mut self) -> Vec<u8> {
        let n = self.pending / 2;
        let from = self.pending - n;
        let out = self.stack[from * RECORD..self.pending * RECORD].to_vec();
        self.pending = from;
        for _ in 0..n.min(self.overflow.len()) {
            let path = self.overflow.pop().expect("counted");
            let rec = &mut self.stack[self.pending * RECORD..(self.pending + 1) * RECORD];
            rec.fill(0);
            rec[..path.len()].copy_from_slice(&path);
            rec[TYPE_AT] = b'd';
            self.pending += 1;
        }
        out
    }

    /// Stolen records received into the (empty) stack; how many.
    pub(super) fn take(&mut self, records: &[u8]) -> usize {
        let n = records.len() / RECORD;
        self.stack[..n * RECORD].copy_from_slice(&records[..n * RECORD]);
        self.pending = n;
        n
    }

    fn close_current(&mut self) {
        if let Some(c) = self.current.take() {
            // SAFETY: opened by opendir and closed only here.
            unsafe { libc::closedir(c.dir) };
        }
    }

    fn error(&mut self, what: String) {
        self.errors += 1;
        self.first_error.get_or_insert(what);
    }

    /// A new item on the stack: `path/name` of `kind`; false when the stack is full.
    fn push(&mut self, kind: u8, path: &CStr, name: &CStr) -> bool {
        if self.pending >= QUEUE_LENGTH {
            return false;
        }
        let rec = &mut self.stack[self.pending * RECORD..(self.pending + 1) * RECORD];
        join(&mut rec[..PATH_MAX], path, name);
        rec[PATH_MAX..TYPE_AT].fill(0);
        rec[TYPE_AT] = kind;
        self.pending += 1;
        true
    }

    /// A file item's outcome counted (pfind counts it in `find_do_lstat`, whoever took it).
    fn count(&mut self, r: Result<bool, String>) {
        self.out.total += 1;
        match r {
            Ok(found) => self.out.found += u64::from(found),
            Err(e) => self.error(e),
        }
    }

    /// pfind's `find_do_readdir` (without its single-directory split, which the app leaves
    /// off): up to [`ENTRIES_PER_STEP`] entries of the directory at `path`.
    fn read_dir(&mut self, path: &[u8]) {
        let d = match self.current.as_ref() {
            Some(c) => c.dir,
            None => {
                let mut full = self.start.as_bytes().to_vec();
                full.extend_from_slice(path);
                let full = CString::new(full).unwrap_or_default();
                // SAFETY: `full` is a C string.
                let d = unsafe { libc::opendir(full.as_ptr()) };
                if d.is_null() {
                    let e = std::io::Error::last_os_error();
                    self.error(format!("opendir {}: {e}", full.to_string_lossy()));
                    return;
                }
                d
            }
        };
        let rel = CString::new(path).unwrap_or_default();
        let mut processed = 0;
        loop {
            if processed > ENTRIES_PER_STEP {
                self.keep_open(d, path);
                return;
            }
            // SAFETY: `d` is an open DIR; the entry stays valid until the next readdir.
            let e = unsafe { libc::readdir(d) };
            if e.is_null() {
                break;
            }
            // SAFETY: readdir returned an entry with a NUL-terminated name.
            let (name, d_type) = unsafe { (CStr::from_ptr((*e).d_name.as_ptr()), (*e).d_type) };
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            processed += 1;
            if !self.entry(d, (&rel, path), name, d_type) {
                return;
            }
        }
        // SAFETY: `d` is open; after this it is forgotten.
        unsafe { libc::closedir(d) };
        self.current = None;
    }

    fn keep_open(&mut self, d: *mut libc::DIR, path: &[u8]) {
        if self.current.is_none() {
            self.current = Some(Current {
                dir: d,
                path: path.to_vec(),
            });
        }
    }

    /// One directory entry; false when the step ends here (the stack was full, so this
    /// entry's work was done at once and the directory stays open).
    fn entry(
        &mut self,
        d: *mut libc::DIR,
        (rel, path): (&CStr, &[u8]),
        name: &CStr,
        t: u8,
    ) -> bool {
        let kind = match t {
            libc::DT_DIR => b'd',
            // readdir did not say: fstatat (pfind checks a file it stats at once).
            libc::DT_UNKNOWN => match stat_at(d, name) {
                Err(e) => {
                    self.error(e);
                    return true;
                }
                Ok(st) if st.st_mode & libc::S_IFMT == libc::S_IFDIR => b'd',
                Ok(st) => {
                    let found = self.q.name.matches(name) && self.q.holds(&st);
                    self.count(Ok(found));
                    return true;
                }
            },
            _ => {
                if !self.q.name.matches(name) {
                    self.out.total += 1;
                    return true;
                }
                b'f'
            }
        };
        if self.push(kind, rel, name) {
            return true;
        }
        self.keep_open(d, path);
        let mut sub = [0u8; PATH_MAX];
        join(&mut sub, rel, name);
        if kind == b'd' {
            self.overflow.push(c_str(&sub).to_bytes().to_vec());
        } else {
            let r = check_file(&self.start, self.q, c_str(&sub));
            self.count(r);
        }
        false
    }
}

/// pfind's `find_do_lstat` and `check_buf`: the file at `rel` below `start`, its full path
/// made with `snprintf("%s/%s")`, `lstat`ed; whether it matches the query.
fn check_file(start: &CStr, q: &Query, rel: &CStr) -> Result<bool, String> {
    let mut full = [0u8; PATH_MAX];
    join(&mut full, start, rel);
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `full` is NUL-terminated, `st` is writable memory of a `stat`.
    if unsafe { libc::lstat(full.as_ptr().cast(), st.as_mut_ptr()) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("stat {}: {e}", c_str(&full).to_string_lossy()));
    }
    // SAFETY: filled by the successful lstat.
    Ok(q.holds(&unsafe { st.assume_init() }))
}

/// `fstatat` of `name` in the open directory `d`.
fn stat_at(d: *mut libc::DIR, name: &CStr) -> Result<libc::stat, String> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `d` is open, `name` a C string, `st` writable memory of a `stat`.
    let rc = unsafe { libc::fstatat(libc::dirfd(d), name.as_ptr(), st.as_mut_ptr(), 0) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("stat {}: {e}", name.to_string_lossy()));
    }
    // SAFETY: filled by the successful fstatat.
    Ok(unsafe { st.assume_init() })
}

impl Drop for Walker<'_> {
    fn drop(&mut self) {
        self.close_current();
    }
}

//! How mdtest (hpc/ior 5fcf0ba, `src/mdtest.c`) names the item it works on, with the
//! client-side work it does per item to do so, so that fsbattery's mdtest phases cost per
//! item what mdtest's do and report the rates IO500 reports:
//! - create and remove (`create_file`, `remove_file`): one `sprintf` of
//!   `"%s/file.%s%llu"` (directory, `mdtest.RANK.`, item) into a `PATH_MAX` buffer;
//! - stat and read (`mdtest_stat`, `mdtest_read`): both `PATH_MAX` buffers cleared with
//!   `memset`, the name formatted (`"file.%s%llu"`), then the path (`"%s/%s"`), copied back
//!   with `strcpy`;
//! - every item: one `GetTimeStamp()` (`gettimeofday`), taken for its per-item timer
//!   whether or not that timer is on.
//!
//! On tmpfs a stat takes about 2 µs, and this work was 10-25 % of mdtest's time per item
//! there (its stat phases ran 1.25-1.31 times as fast in fsbattery without it, 2026-11-27).
//! It is done with the C library's own calls, not Rust formatting, so that it costs what
//! mdtest's does.

use crate::error::WorkloadError;
use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

const PATH_MAX: usize = libc::PATH_MAX as usize;
/// Room `file.mdtest.RANK.ITEM` and the slash need after the directory.
const NAME_ROOM: usize = 64;

/// One rank's item names in one mdtest directory, `DIR/file.mdtest.RANK.I`, made in
/// mdtest's two buffers.
pub(super) struct Names {
    dir: CString,
    /// `mdtest.RANK.` (mdtest's `mk_name`, `stat_name`, …).
    stem: CString,
    item: Box<[u8; PATH_MAX]>,
    temp: Box<[u8; PATH_MAX]>,
}

impl Names {
    /// Names in `dir` of `rank`'s items. A directory too long for mdtest's buffers, or
    /// holding a NUL byte (no path the kernel made can), is refused.
    pub(super) fn new(dir: &Path, rank: usize) -> Result<Names, WorkloadError> {
        let bytes = dir.as_os_str().as_bytes();
        if bytes.len() + NAME_ROOM > PATH_MAX {
            return Err(WorkloadError::Failed(format!(
                "{} is too long for mdtest's {PATH_MAX}-byte paths: use a shorter target path",
                dir.display()
            )));
        }
        let dir = CString::new(bytes)
            .map_err(|_| WorkloadError::Failed(format!("{} holds a NUL byte", dir.display())))?;
        Ok(Names {
            dir,
            stem: CString::new(format!("mdtest.{rank}.")).expect("no NUL in a number"),
            item: Box::new([0; PATH_MAX]),
            temp: Box::new([0; PATH_MAX]),
        })
    }

    /// Item `i`'s path as mdtest's create and remove make it.
    pub(super) fn made(&mut self, i: u64) -> &CStr {
        timestamp();
        // SAFETY: `item` holds PATH_MAX bytes; the directory is shorter than PATH_MAX by
        // NAME_ROOM (checked in `new`), more than "/file." + the stem + 20 digits need; every
        // argument is a C string or an unsigned long long, as the format says.
        unsafe {
            libc::sprintf(
                self.item.as_mut_ptr().cast(),
                c"%s/file.%s%llu".as_ptr(),
                self.dir.as_ptr(),
                self.stem.as_ptr(),
                i as libc::c_ulonglong,
            );
        }
        in_buffer(&self.item)
    }

    /// Item `i`'s path as mdtest's stat and read make it.
    pub(super) fn looked_up(&mut self, i: u64) -> &CStr {
        // std's `fill` is a `memset` of the whole buffer, as mdtest's.
        self.item.fill(0);
        self.temp.fill(0);
        // SAFETY: as in `made`: both buffers hold PATH_MAX bytes, the name and the path fit
        // (checked in `new`), the arguments are what the formats say, and `item` and `temp`
        // do not overlap (two boxes), as `strcpy` requires.
        unsafe {
            let (item, temp) = (self.item.as_mut_ptr().cast(), self.temp.as_mut_ptr().cast());
            libc::sprintf(
                item,
                c"file.%s%llu".as_ptr(),
                self.stem.as_ptr(),
                i as libc::c_ulonglong,
            );
            libc::sprintf(
                temp,
                c"%s/%s".as_ptr(),
                self.dir.as_ptr(),
                item.cast_const(),
            );
            libc::strcpy(item, temp);
        }
        timestamp();
        in_buffer(&self.item)
    }
}

/// The C string at the start of `buf` (sprintf ended it with a NUL).
fn in_buffer(buf: &[u8; PATH_MAX]) -> &CStr {
    CStr::from_bytes_until_nul(&buf[..]).expect("sprintf ends what it writes with a NUL")
}

/// mdtest's `GetTimeStamp()`: `gettimeofday`.
fn timestamp() {
    let mut tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    // SAFETY: `tv` is a valid timeval; a null time zone is allowed.
    unsafe { libc::gettimeofday(&mut tv, std::ptr::null_mut()) };
    std::hint::black_box(tv);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways_name_an_item_as_mdtest_does() {
        let mut names = Names::new(Path::new("/d/mdtest_tree.0"), 3).unwrap();
        assert_eq!(
            names.made(7).to_bytes(),
            b"/d/mdtest_tree.0/file.mdtest.3.7"
        );
        assert_eq!(
            names.looked_up(1234567).to_bytes(),
            b"/d/mdtest_tree.0/file.mdtest.3.1234567"
        );
        // A shorter name after a longer one: nothing of the longer one is left.
        assert_eq!(
            names.made(12).to_bytes(),
            b"/d/mdtest_tree.0/file.mdtest.3.12"
        );
        assert_eq!(
            names.made(u64::MAX).to_bytes(),
            format!("/d/mdtest_tree.0/file.mdtest.3.{}", u64::MAX).as_bytes()
        );
    }

    #[test]
    fn a_directory_too_long_for_mdtests_buffers_is_refused() {
        let long = "d".repeat(PATH_MAX - 10);
        let e = Names::new(Path::new(&long), 0).err().unwrap().to_string();
        assert!(e.contains("too long"), "{e}");
        assert!(Names::new(Path::new(&"d".repeat(PATH_MAX - NAME_ROOM)), 0).is_ok());
    }
}

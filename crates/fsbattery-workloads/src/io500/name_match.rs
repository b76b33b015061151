//! find's `-name` as pfind matches it: the shell pattern turned into a POSIX basic regular
//! expression (`*` → `.*`, `.` → `[.]`, `"` dropped, as pfind's option parser does), compiled
//! once with glibc's `regcomp` and tried on every name that is not a directory with
//! `regexec`.
//!
//! Written against the C library on purpose, not with a Rust pattern crate: the match is
//! most of the client-side work pfind does per directory entry, and the io500 find rate
//! includes it, so fsbattery's find pays the same call per name to report the same rate.

use crate::error::WorkloadError;
use std::ffi::CString;
use std::mem::MaybeUninit;

/// A compiled `-name` pattern.
pub(super) struct NameMatch {
    re: Box<libc::regex_t>,
}

impl NameMatch {
    /// `glob` (e.g. `*01*`) as pfind compiles it.
    pub(super) fn new(glob: &str) -> Result<NameMatch, WorkloadError> {
        let regex = CString::new(pfind_regex(glob))
            .map_err(|_| WorkloadError::Failed(format!("-name {glob:?} holds a NUL byte")))?;
        let mut re = Box::new(MaybeUninit::<libc::regex_t>::uninit());
        // SAFETY: `re` points to writable memory of a `regex_t`, `regex` is a C string; on
        // success `regcomp` has initialised the `regex_t`.
        let rc = unsafe { libc::regcomp(re.as_mut_ptr(), regex.as_ptr(), 0) };
        if rc != 0 {
            return Err(WorkloadError::Failed(format!(
                "-name {glob:?} is not a pattern regcomp accepts (error {rc})"
            )));
        }
        // SAFETY: initialised by the successful `regcomp` above.
        let re = unsafe { Box::from_raw(Box::into_raw(re).cast::<libc::regex_t>()) };
        Ok(NameMatch { re })
    }

    /// Whether `name` (a C string from `readdir`) matches.
    pub(super) fn matches(&self, name: &std::ffi::CStr) -> bool {
        // SAFETY: `self.re` was compiled by `regcomp` and not freed; `name` is a C string;
        // no match positions are asked for (nmatch 0, pmatch null).
        unsafe { libc::regexec(&*self.re, name.as_ptr(), 0, std::ptr::null_mut(), 0) == 0 }
    }
}

impl Drop for NameMatch {
    fn drop(&mut self) {
        // SAFETY: compiled by `regcomp` and freed only here.
        unsafe { libc::regfree(&mut *self.re) };
    }
}

/// pfind's translation of a `-name` pattern (pfind-options.c): `*` becomes `.*`, `.`
/// becomes `[.]`, quotes are dropped, everything else stays. Like pfind, it does not anchor
/// the expression, so `01*` matches any name holding `01`.
fn pfind_regex(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len() * 4);
    for c in glob.chars() {
        match c {
            '*' => out.push_str(".*"),
            '.' => out.push_str("[.]"),
            '"' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(glob: &str, name: &str) -> bool {
        NameMatch::new(glob)
            .unwrap()
            .matches(&CString::new(name).unwrap())
    }

    #[test]
    fn the_pattern_is_translated_as_pfind_translates_it() {
        assert_eq!(pfind_regex("*01*"), ".*01.*");
        assert_eq!(pfind_regex("\"a.b*\""), "a[.]b.*");
    }

    #[test]
    fn names_match_as_pfind_matches_them() {
        assert!(m("*01*", "file.mdtest.0.1012"));
        assert!(m("*01*", "file.mdtest.1.401"));
        // "0.1" is not "01": the dot between rank and item does not join them.
        assert!(!m("*01*", "file.mdtest.0.1"));
        assert!(!m("*01*", "file.mdtest.1.10"));
        // A dot in the pattern is a dot, not any character.
        assert!(m("a.b", "xa.by"));
        assert!(!m("a.b", "axb"));
    }
}

//! The names, directories and orders of bonnie++ 2.00a's small-file tests (`COpenTest::
//! make_names` and `random_sort` in its bon_file.cpp), kept apart from the timed passes.
//!
//! A name is a 10-digit hex number (the file's index) and 0–12 random characters from
//! bonnie's alphabet: number first for the sequential tests, random characters first for the
//! random ones. With several directories a name is `%05d/NAME`, a path relative to the test
//! directory, and the directories fill one after another, `files / dirs + 1` names each
//! (bonnie's own count, so the last directories may stay short or empty).
//! bonnie++ 1.03 (S4) wrote the index as 7 decimal digits and the directory as `%03d/`.
//!
//! Invariants: names are unique (the index is in every name); every name is valid UTF-8
//! without a NUL, so it converts to a `CString` as is; [`random_sort`] is a permutation.

use crate::engine::XorShift;
use std::ffi::CString;

/// Longest random part of a name (bonnie++'s RandExtraLen).
const MAX_RANDOM_CHARS: u64 = 12;
/// bonnie++'s `rand_chars`, in its order.
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The names of one create/stat/delete round, relative to the test directory.
pub(super) struct Names {
    /// Index order: the order bonnie creates them in (for the random test too).
    pub names: Vec<CString>,
    /// The subdirectories (`%05d`), empty when the files share the test directory.
    pub dirs: Vec<CString>,
}

impl Names {
    /// `files` names spread over `dirs` directories; `random_first` puts the random
    /// characters before the number (the random tests), as `make_names(do_random)`.
    pub fn new(files: u64, dirs: u64, random_first: bool, rng: &mut XorShift) -> Names {
        let dirs = dirs.max(1);
        let per_dir = files / dirs;
        let (mut in_dir, mut dir) = (0u64, 0u64);
        let mut names = Vec::with_capacity(files as usize);
        for i in 0..files {
            let len = rng.below(MAX_RANDOM_CHARS + 1);
            let rand: String = (0..len)
                .map(|_| char::from(ALPHABET[rng.below(ALPHABET.len() as u64) as usize]))
                .collect();
            let prefix = if dirs > 1 {
                format!("{dir:05}/")
            } else {
                String::new()
            };
            // bonnie moves to the next directory after per_dir + 1 names (its `>`).
            in_dir += 1;
            if in_dir > per_dir {
                in_dir = 0;
                dir += 1;
            }
            let name = if random_first {
                format!("{prefix}{rand}{i:010x}")
            } else {
                format!("{prefix}{i:010x}{rand}")
            };
            names.push(CString::new(name).expect("names hold no NUL"));
        }
        let dirs = if dirs > 1 {
            (0..dirs)
                .map(|d| CString::new(format!("{d:05}")).expect("no NUL"))
                .collect()
        } else {
            Vec::new()
        };
        Names { names, dirs }
    }
}

/// bonnie++'s `random_sort`: every position swapped with a random one (not Fisher–Yates:
/// its orders are what bonnie's stat and delete passes walk).
pub(super) fn random_sort<T>(v: &mut [T], rng: &mut XorShift) {
    let n = v.len() as u64;
    for i in 0..v.len() {
        v.swap(i, rng.below(n) as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_bonnie_2_00a() {
        let mut rng = XorShift::new(1);
        let seq = Names::new(500, 1, false, &mut rng);
        let rnd = Names::new(500, 1, true, &mut rng);
        assert!(seq.dirs.is_empty());
        for (i, (s, r)) in seq.names.iter().zip(&rnd.names).enumerate() {
            let (s, r) = (s.to_str().unwrap(), r.to_str().unwrap());
            assert!(s.starts_with(&format!("{i:010x}")) && s.len() <= 22, "{s}");
            assert!(r.ends_with(&format!("{i:010x}")) && r.len() <= 22, "{r}");
            assert!(s[10..].bytes().all(|b| ALPHABET.contains(&b)), "{s}");
        }
        let lens: std::collections::HashSet<_> =
            seq.names.iter().map(|n| n.as_bytes().len()).collect();
        assert_eq!(
            lens.len(),
            13,
            "random parts of 0 to 12 characters: {lens:?}"
        );
    }

    #[test]
    fn directories_fill_one_after_another_as_bonnie_counts() {
        let mut rng = XorShift::new(2);
        let n = Names::new(10, 3, false, &mut rng);
        assert_eq!(n.dirs.len(), 3);
        // 10 / 3 = 3 per directory, and bonnie moves on after 3 + 1.
        let dirs: Vec<&str> = n.names.iter().map(|c| &c.to_str().unwrap()[..5]).collect();
        assert_eq!(
            dirs,
            [
                "00000", "00000", "00000", "00000", "00001", "00001", "00001", "00001", "00002",
                "00002"
            ]
        );
        assert!(n.names[4].to_str().unwrap().starts_with("00001/0000000004"));
    }

    #[test]
    fn random_sort_is_a_permutation() {
        let mut rng = XorShift::new(3);
        let mut v: Vec<usize> = (0..1000).collect();
        random_sort(&mut v, &mut rng);
        assert_ne!(v, (0..1000).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
    }
}

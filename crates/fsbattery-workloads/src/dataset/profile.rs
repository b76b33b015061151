//! Shape profiles of the Linux kernel source trees the seeds used.
//!
//! A profile is the measurable shape of one release tarball: how many regular files and
//! directories, how many bytes of file content, how file sizes spread, how deep the tree goes
//! and how the files divide among the top-level directories. The generator reproduces the
//! shape, never the text. Every figure says where it comes from and how sure it is.
//!
//! Sources and confidence (all counts exclude the top directory itself):
//! - **files**: `find . -type f | wc -l` over the release, as published in the Linux
//!   Foundation report "Linux Kernel Development: How Fast it is Going, Who is Doing It…"
//!   (Kroah-Hartman, Corbet, McPherson; 2008 edition for 2.6.14, 2012 edition for 2.6.37) and
//!   in heise/The H "Kernel Log" release tables (2.6.22: 22,411, checked against that table).
//!   2.6.14 and 2.6.22 are sure to ±0.5 %; 2.6.37 is recalled from the 2012 table, ±2 %.
//! - **bytes** (sum of file sizes, what `du --apparent-size` reports): anchored on seed S2,
//!   whose tar of four copies of 2.6.37 was 1.7 GB, i.e. ~425 MB per copy, minus ~29 MB of
//!   tar headers and padding (768 bytes per entry on average) = ~396 MB, which is 28.5 bytes
//!   per line over the ~13.9 M lines of 2.6.37. The same bytes-per-line applied to the
//!   published line counts of 2.6.14 (7,143,233) and 2.6.22 (8,499,363). About ±10 %.
//! - **dirs**: estimated from the files-per-directory ratio of 2.6-era trees (about 16);
//!   ±15 %. Not taken from a listing.
//! - **median file size**: 5,000 bytes, an estimate for C sources and headers of that era
//!   (many small headers, Makefiles and Kconfig files); the long tail is log-normal with the
//!   spread that makes the mean match `bytes / files`.

/// One kernel release's tree shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    /// Parameter id: the version without dots (2.6.14 → 2614), as ParamSpec holds numbers.
    pub id: u64,
    /// The release the seed used, e.g. "2.6.14.4".
    pub version: &'static str,
    /// Which seed used it.
    pub seed_study: &'static str,
    /// Regular files in the tree.
    pub files: u64,
    /// Directories below the top directory.
    pub dirs: u64,
    /// Sum of regular file sizes in bytes.
    pub bytes: u64,
    /// Median regular file size in bytes.
    pub median_file: u64,
    /// Largest file the generator makes (the tail is clamped here).
    pub max_file: u64,
    /// Deepest directory level below the top directory.
    pub max_depth: u32,
    /// Modification time stamped into the tarball (the release date, seconds since 1970).
    pub mtime: u64,
    /// Top-level directories with their approximate share of the files, in per mille.
    pub areas: &'static [(&'static str, u32)],
    /// Files directly in the top directory.
    pub root_files: &'static [&'static str],
}

impl Profile {
    /// Name of the tree's top directory, as in the release tarball.
    pub fn top_dir(&self) -> String {
        format!("linux-{}", self.version)
    }
}

const ROOT_2614: &[&str] = &[
    "COPYING",
    "CREDITS",
    "MAINTAINERS",
    "Makefile",
    "README",
    "REPORTING-BUGS",
];
const ROOT_2622: &[&str] = &[
    ".gitignore",
    "COPYING",
    "CREDITS",
    "Kbuild",
    "MAINTAINERS",
    "Makefile",
    "README",
    "REPORTING-BUGS",
];
const ROOT_2637: &[&str] = &[
    ".gitignore",
    ".mailmap",
    "COPYING",
    "CREDITS",
    "Kbuild",
    "MAINTAINERS",
    "Makefile",
    "README",
    "REPORTING-BUGS",
];

/// Shares of files per top-level directory are approximations (±5 points for the big ones):
/// before 2.6.24 the per-architecture headers lived in include/asm-*, so `include` is large;
/// by 2.6.37 they had moved under arch/ and drivers/ had grown to nearly half the tree.
/// `block/` first appeared in 2.6.15.
const AREAS_2614: &[(&str, u32)] = &[
    ("drivers", 330),
    ("arch", 230),
    ("include", 170),
    ("fs", 75),
    ("net", 65),
    ("sound", 50),
    ("Documentation", 40),
    ("scripts", 8),
    ("kernel", 7),
    ("lib", 5),
    ("crypto", 4),
    ("security", 4),
    ("mm", 3),
    ("init", 1),
    ("ipc", 1),
    ("usr", 1),
];

const AREAS_2622: &[(&str, u32)] = &[
    ("drivers", 350),
    ("arch", 240),
    ("include", 150),
    ("fs", 70),
    ("net", 60),
    ("sound", 50),
    ("Documentation", 45),
    ("scripts", 8),
    ("kernel", 8),
    ("lib", 5),
    ("crypto", 5),
    ("security", 4),
    ("mm", 3),
    ("block", 2),
    ("init", 1),
    ("ipc", 1),
    ("usr", 1),
];

const AREAS_2637: &[(&str, u32)] = &[
    ("drivers", 460),
    ("arch", 250),
    ("include", 60),
    ("fs", 60),
    ("net", 50),
    ("sound", 50),
    ("Documentation", 45),
    ("tools", 8),
    ("scripts", 8),
    ("kernel", 8),
    ("security", 7),
    ("firmware", 6),
    ("lib", 6),
    ("crypto", 5),
    ("mm", 3),
    ("block", 2),
    ("samples", 1),
    ("virt", 1),
    ("init", 1),
    ("ipc", 1),
    ("usr", 1),
];

/// Every known profile, oldest first.
pub const PROFILES: &[Profile] = &[
    Profile {
        id: 2614,
        version: "2.6.14.4",
        seed_study: "S1 (Piszcz 2006)",
        files: 18_434,
        dirs: 1_150,
        bytes: 204_000_000,
        median_file: 5_000,
        max_file: 1_200_000,
        max_depth: 8,
        mtime: 1_134_518_400, // 2005-12-14, release of 2.6.14.4
        areas: AREAS_2614,
        root_files: ROOT_2614,
    },
    Profile {
        id: 2622,
        version: "2.6.22.5",
        seed_study: "S4 (ZFS, XFS and EXT4 compared, 2007)",
        files: 22_411,
        dirs: 1_400,
        bytes: 242_000_000,
        median_file: 5_000,
        max_file: 1_200_000,
        max_depth: 8,
        mtime: 1_187_740_800, // 2007-08-22, release of 2.6.22.5
        areas: AREAS_2622,
        root_files: ROOT_2622,
    },
    Profile {
        id: 2637,
        version: "2.6.37",
        seed_study: "S2 (Pro-Linux 2013)",
        files: 35_186,
        dirs: 2_250,
        bytes: 396_000_000,
        median_file: 5_000,
        max_file: 2_000_000,
        max_depth: 9,
        mtime: 1_294_185_600, // 2011-01-05, release of 2.6.37
        areas: AREAS_2637,
        root_files: ROOT_2637,
    },
];

/// The profile with parameter id `id` (2614, 2622, 2637).
pub fn by_id(id: u64) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.id == id)
}

/// Known ids, for error messages: "2614 (2.6.14.4, S1 ...), ...".
pub fn known() -> String {
    PROFILES
        .iter()
        .map(|p| format!("{} ({}, {})", p.id, p.version, p.seed_study))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_consistent() {
        for p in PROFILES {
            let mean = p.bytes / p.files;
            assert!(
                (10_000..16_000).contains(&mean),
                "{} mean {mean}",
                p.version
            );
            assert!(p.median_file < mean);
            assert!(p.dirs * 10 < p.files && p.dirs * 25 > p.files);
            let share: u32 = p.areas.iter().map(|a| a.1).sum();
            assert!(
                (950..=1050).contains(&share),
                "{} shares sum to {share}",
                p.version
            );
            assert_eq!(by_id(p.id), Some(p));
        }
        assert!(by_id(2615).is_none());
        assert!(known().contains("2637"));
    }
}

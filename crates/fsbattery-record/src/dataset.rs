//! What the run record keeps of source datasets and of the filesystems trees were written to:
//! plain data only. Generating, hashing and comparing trees, and probing a filesystem, live in
//! `fsbattery_core::dataset`, which re-exports these types.

use serde::{Deserialize, Serialize};

/// Which generated tree: the workload parameters that decide a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DatasetSpec {
    /// Profile id: 2614, 2622 or 2637 (see `fsbattery_core::dataset::profile::PROFILES`).
    pub kernel: u64,
    /// Scale divisor of files, directories and bytes: 1 = the real tree, 16 = 1/16.
    pub scale_div: u64,
    /// Seed of the generator.
    pub seed: u64,
    /// Copies of the tree in the tarball: 1 (`linux-x.y.z/`), or N (`data1/ … dataN/`, S2).
    pub copies: u32,
}

/// The dataset as written into the run record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetInfo {
    /// "generated" or "user".
    pub origin: String,
    /// Kernel version of the profile (generated datasets only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// The spec (generated datasets only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<DatasetSpec>,
    /// Copies of the tree in the tarball.
    pub copies: u32,
    /// The tarball.
    pub tarball: String,
    /// Size of the tarball in bytes.
    pub tar_bytes: u64,
    /// Regular files in the tree.
    pub files: u64,
    /// Directories in the tree, top-level ones included.
    pub dirs: u64,
    /// Symbolic links in the tree.
    pub symlinks: u64,
    /// Sum of file sizes.
    pub bytes: u64,
    /// Content hash of the extracted tree (`fsbattery_core::dataset::content_hash`).
    pub content_hash: String,
}

/// What a mounted filesystem stores of a tree, as probed on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stores {
    /// Permission bits set by chmod read back as set.
    pub permissions: bool,
    /// `a` and `A` are two names.
    pub case_sensitive: bool,
    /// symlink(2) works.
    pub symlinks: bool,
    /// link(2) works.
    pub hard_links: bool,
}

impl Stores {
    /// A filesystem that stores everything the content hash covers (ext4, XFS, tmpfs, ...).
    pub const ALL: Stores = Stores {
        permissions: true,
        case_sensitive: true,
        symlinks: true,
        hard_links: true,
    };

    /// What this filesystem leaves out, in words ("permission bits, case in names"), or "".
    pub fn lacking(&self) -> String {
        let mut out = Vec::new();
        for (has, what) in [
            (self.permissions, "permission bits"),
            (self.case_sensitive, "case in names"),
            (self.symlinks, "symlinks"),
            (self.hard_links, "hard links"),
        ] {
            if !has {
                out.push(what);
            }
        }
        out.join(", ")
    }
}

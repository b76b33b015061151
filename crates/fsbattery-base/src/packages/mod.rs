//! What fsbattery needs from the system, and which package provides it on each distribution
//! family: the one table every "install xfsprogs" hint and `fsbattery setup` read.
//!
//! Invariants: the table ([`PROVIDERS`]) is the only place a package name is written; a need
//! with no known package on a family says so instead of guessing. Resolution
//! ([`resolve`]) is pure — which needs are present is a function passed in — so the whole
//! chain plan → needs → missing → packages → command line is tested by exact lists.
//! [`present`] and [`detect_family`] are the thin layer that looks at this machine (PATH, /etc/os-release, python).

mod distro;
mod resolve;

pub use distro::{detect_family, family_from_os_release, Family};
pub use resolve::{resolve, Resolution};

use std::fmt;

/// Something fsbattery or its tests run: a program looked up on PATH (and the sbin
/// directories), or a Python module imported by a `python3` interpreter.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Need {
    /// A program by its file name, e.g. "mkfs.xfs".
    Program(String),
    /// A module importable by python3, e.g. "openpyxl".
    PythonModule(String),
    /// A shared library the dynamic linker knows (`ldconfig -p`), e.g. "libclang.so" that
    /// building with MPI needs (bindgen).
    Library(String),
}

impl Need {
    /// A program need.
    pub fn program(name: &str) -> Need {
        Need::Program(name.to_string())
    }
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Need::Program(p) => write!(f, "{p}"),
            Need::PythonModule(m) => write!(f, "python3 module {m}"),
            Need::Library(l) => write!(f, "library {l}"),
        }
    }
}

/// Which package provides a need, per family (`None`: no package known there).
#[derive(Debug, Clone, Copy)]
pub struct Provider {
    /// Program name (or `python:MODULE` for a Python module).
    pub need: &'static str,
    /// Debian, Ubuntu and derivatives.
    pub apt: Option<&'static str>,
    /// Fedora, RHEL and derivatives.
    pub dnf: Option<&'static str>,
    /// openSUSE and SLES.
    pub zypper: Option<&'static str>,
}

const fn p(
    need: &'static str,
    apt: &'static str,
    dnf: Option<&'static str>,
    zypper: Option<&'static str>,
) -> Provider {
    Provider {
        need,
        apt: Some(apt),
        dnf,
        zypper,
    }
}

const fn same(need: &'static str, pkg: &'static str) -> Provider {
    p(need, pkg, Some(pkg), Some(pkg))
}

/// Every need fsbattery knows a package for. Names on dnf and zypper are given where the
/// package is in the distribution's main repositories; elsewhere `None`.
pub const PROVIDERS: &[Provider] = &[
    same("mke2fs", "e2fsprogs"),
    same("mkfs.ext2", "e2fsprogs"),
    same("mkfs.ext3", "e2fsprogs"),
    same("mkfs.ext4", "e2fsprogs"),
    same("mkfs.xfs", "xfsprogs"),
    p(
        "mkfs.btrfs",
        "btrfs-progs",
        Some("btrfs-progs"),
        Some("btrfsprogs"),
    ),
    same("mkfs.f2fs", "f2fs-tools"),
    same("mkfs.jfs", "jfsutils"),
    p(
        "mkfs.nilfs2",
        "nilfs-tools",
        Some("nilfs-utils"),
        Some("nilfs-utils"),
    ),
    p("mkfs.reiserfs", "reiserfsprogs", None, None),
    // vm: targets: the emulator, md arrays in the guest, depmod for the fetched kernel.
    p(
        "qemu-system-x86_64",
        "qemu-system-x86",
        Some("qemu-system-x86-core"),
        Some("qemu-system-x86"),
    ),
    same("mdadm", "mdadm"),
    same("depmod", "kmod"),
    same("mkfs.vfat", "dosfstools"),
    same("mkfs.msdos", "dosfstools"),
    p("mkfs.ntfs", "ntfs-3g", Some("ntfsprogs"), Some("ntfsprogs")),
    same("ntfs-3g", "ntfs-3g"),
    same("mkfs.exfat", "exfatprogs"),
    p(
        "mount.exfat-fuse",
        "exfat-fuse",
        Some("fuse-exfat"),
        Some("fuse-exfat"),
    ),
    p("fuse2fs", "fuse2fs", None, None),
    p("zpool", "zfs-fuse", None, None),
    p("zfs", "zfs-fuse", None, None),
    p("zfs-fuse", "zfs-fuse", None, None),
    p("mount", "mount", Some("util-linux"), Some("util-linux")),
    p("losetup", "mount", Some("util-linux"), Some("util-linux")),
    same("blkid", "util-linux"),
    same("wipefs", "util-linux"),
    same("setpriv", "util-linux"),
    same("unshare", "util-linux"),
    same("touch", "coreutils"),
    same("mkdir", "coreutils"),
    same("rm", "coreutils"),
    same("dd", "coreutils"),
    same("cp", "coreutils"),
    same("cat", "coreutils"),
    same("split", "coreutils"),
    same("sync", "coreutils"),
    same("find", "findutils"),
    same("tar", "tar"),
    same("cpio", "cpio"),
    p("sh", "dash", Some("bash"), Some("bash")),
    same("fio", "fio"),
    p("bonnie++", "bonnie++", Some("bonnie++"), None),
    p("postmark", "postmark", None, None),
    p("dbench", "dbench", None, Some("dbench")),
    p("fs_mark", "fsmark", None, None),
    p("pg_ctlcluster", "postgresql", None, None),
    same("cc", "gcc"),
    same("gcc", "gcc"),
    same("make", "make"),
    same("git", "git"),
    same("chromium", "chromium"),
    same("zsh", "zsh"),
    same("fish", "fish"),
    p("groff", "groff-base", Some("groff-base"), Some("groff")),
    // Many clients (`--features mpi`): Open MPI's launcher, its compiler wrapper and headers,
    // and libclang for the bindings' generator.
    p("mpirun", "openmpi-bin", Some("openmpi"), Some("openmpi4")),
    p(
        "mpicc",
        "libopenmpi-dev",
        Some("openmpi-devel"),
        Some("openmpi4-devel"),
    ),
    p(
        "lib:libclang.so",
        "libclang-dev",
        Some("clang-devel"),
        Some("clang-devel"),
    ),
    p(
        "python:openpyxl",
        "python3-openpyxl",
        Some("python3-openpyxl"),
        None,
    ),
];

fn key(need: &Need) -> String {
    match need {
        Need::Program(p) => p.clone(),
        Need::PythonModule(m) => format!("python:{m}"),
        Need::Library(l) => format!("lib:{l}"),
    }
}

/// The package that provides `need` on `family`, if one is known.
pub fn package(need: &Need, family: Family) -> Option<&'static str> {
    let k = key(need);
    let entry = PROVIDERS.iter().find(|e| e.need == k)?;
    match family {
        Family::Apt => entry.apt,
        Family::Dnf => entry.dnf,
        Family::Zypper => entry.zypper,
        Family::Unknown => None,
    }
}

/// Whether the table knows `program` at all (on any family).
pub fn known_program(program: &str) -> bool {
    PROVIDERS.iter().any(|e| e.need == program)
}

/// The exact command that installs the package providing `need` on `family`.
pub fn fix_command(need: &Need, family: Family) -> Option<String> {
    let pkg = package(need, family)?;
    Some(resolve::show(&family.install_argv(&[pkg.to_string()])))
}

/// "install xfsprogs (apt-get install ...)"-style advice for a missing need on `family`.
pub fn hint(need: &Need, family: Family) -> String {
    match (package(need, family), fix_command(need, family)) {
        (Some(pkg), Some(cmd)) => format!("install {pkg} ({cmd})"),
        _ => format!("install the package that provides {need}"),
    }
}

/// [`hint`] for this machine's distribution.
pub fn hint_here(need: &Need) -> String {
    hint(need, detect_family())
}

/// Whether this process may install packages (effective uid 0).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The Python interpreters tried for a module, in order: the one on PATH, then the
/// system's (a pyenv or venv `python3` on PATH often lacks the distribution's modules).
pub const PYTHONS: [&str; 2] = ["python3", "/usr/bin/python3"];

/// Whether `need` is present on this machine.
pub fn present(need: &Need) -> bool {
    match need {
        Need::Program(p) => crate::process::which(p).is_some(),
        Need::PythonModule(m) => python_with(m).is_some(),
        Need::Library(l) => library_known(l),
    }
}

/// Whether the dynamic linker's cache lists `name` ("libclang.so"), or a versioned
/// development link of it ("libclang-14.so", as Debian's libclang-dev installs it).
fn library_known(name: &str) -> bool {
    let out = std::process::Command::new("ldconfig").arg("-p").output();
    out.is_ok_and(|o| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .any(|entry| library_matches(name, entry))
    })
}

fn library_matches(name: &str, entry: &str) -> bool {
    let stem = name.strip_suffix(".so").unwrap_or(name);
    entry == name
        || entry
            .strip_prefix(stem)
            .and_then(|r| r.strip_prefix('-'))
            .is_some_and(|v| v.ends_with(".so") && v.starts_with(|c: char| c.is_ascii_digit()))
}

/// The first interpreter of [`PYTHONS`] that imports `module`.
pub fn python_with(module: &str) -> Option<&'static str> {
    PYTHONS.into_iter().find(|py| {
        std::process::Command::new(py)
            .args(["-c", &format!("import {module}")])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_versioned_development_link_provides_the_library() {
        assert!(library_matches("libclang.so", "libclang.so"));
        assert!(library_matches("libclang.so", "libclang-14.so"));
        assert!(!library_matches("libclang.so", "libclang-14.so.13"));
        assert!(!library_matches("libclang.so", "libclang-cpp.so"));
        assert!(!library_matches("libclang.so", "libclangx.so"));
    }

    #[test]
    fn every_need_is_listed_once() {
        let mut seen = std::collections::HashSet::new();
        for e in PROVIDERS {
            assert!(seen.insert(e.need), "{} twice", e.need);
            assert!(
                e.apt.is_some(),
                "{}: every need has a Debian package",
                e.need
            );
        }
    }

    #[test]
    fn packages_per_family() {
        let xfs = Need::program("mkfs.xfs");
        assert_eq!(package(&xfs, Family::Apt), Some("xfsprogs"));
        let btrfs = Need::program("mkfs.btrfs");
        assert_eq!(package(&btrfs, Family::Zypper), Some("btrfsprogs"));
        assert_eq!(package(&btrfs, Family::Dnf), Some("btrfs-progs"));
        assert_eq!(package(&Need::program("zpool"), Family::Dnf), None);
        assert_eq!(package(&xfs, Family::Unknown), None);
        let py = Need::PythonModule("openpyxl".into());
        assert_eq!(package(&py, Family::Apt), Some("python3-openpyxl"));
    }

    #[test]
    fn hints_name_the_exact_command_or_say_none_is_known() {
        let xfs = Need::program("mkfs.xfs");
        assert_eq!(
            hint(&xfs, Family::Apt),
            "install xfsprogs (apt-get install -y --no-install-recommends xfsprogs)"
        );
        assert_eq!(
            hint(&Need::program("zpool"), Family::Zypper),
            "install the package that provides zpool"
        );
    }
}

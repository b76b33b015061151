//! What filesystem a path is on: type, device and mount options, read from statfs and
//! /proc/mounts (the mount whose mount point is the longest prefix of the path).

use std::path::Path;

/// A line of /proc/mounts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MountEntry {
    /// Source device or pseudo-source.
    pub device: String,
    /// Mount point (unescaped).
    pub mount_point: String,
    /// Filesystem type.
    pub fs_type: String,
    /// Options in effect.
    pub options: String,
}

/// Parse /proc/mounts text; octal escapes (`\040` for space) are undone.
pub fn parse_mounts(text: &str) -> Vec<MountEntry> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some(MountEntry {
                device: unescape(f.next()?),
                mount_point: unescape(f.next()?),
                fs_type: f.next()?.to_string(),
                options: f.next()?.to_string(),
            })
        })
        .collect()
}

fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The /proc/self/mounts entry at `mount_point`, if any (the last one: it is on top).
pub fn mounted_at(mount_point: &Path) -> Option<MountEntry> {
    let text = std::fs::read_to_string("/proc/self/mounts").ok()?;
    let want = mount_point.to_string_lossy();
    parse_mounts(&text)
        .into_iter()
        .rev()
        .find(|m| m.mount_point == want)
}

/// The mount entry holding `path` (canonicalised), if /proc/mounts can be read.
pub fn mount_of(path: &Path) -> Option<MountEntry> {
    let canon = path.canonicalize().ok()?;
    let text = std::fs::read_to_string("/proc/mounts").ok()?;
    parse_mounts(&text)
        .into_iter()
        .filter(|m| canon.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.len())
}

/// A path's filesystem as recorded in the run record.
pub fn describe(path: &Path) -> MountEntry {
    let mut m = mount_of(path).unwrap_or_default();
    if m.fs_type.is_empty() {
        m.fs_type = statfs_name(path).unwrap_or("unknown").to_string();
    }
    m
}

/// Whether `target` lives in RAM — a `tmpfs` spec, or a directory on tmpfs or ramfs — and so
/// is a reference for what the kernel does without a device rather than a contender against
/// disks (the record side's `TargetRecord::in_memory`, known here before setup). Asked of the
/// kinds table, for the spec's kind and for the measured filesystem.
pub fn in_memory(target: &dyn super::Target) -> bool {
    let kind = target.spec().split(':').next().unwrap_or("");
    let root = target.root();
    in_ram(kind) || (root.exists() && in_ram(&describe(root).fs_type))
}

/// Whether the filesystem named `fs_type` keeps its files in RAM, by the kinds table; ramfs,
/// which fsbattery never makes and so has no entry, is the one name known here.
pub fn in_ram(fs_type: &str) -> bool {
    super::kinds::lookup(fs_type).is_some_and(|e| e.in_memory()) || fs_type == "ramfs"
}

/// What the run record keeps of `target`'s filesystem (measured as `fs_type`), from the
/// kinds table: in RAM, and journaling (a filesystem the table does not know is taken to
/// journal, as every kernel filesystem made here but ext2 does).
pub fn facts(target: &dyn super::Target, fs_type: &str) -> fsbattery_record::FsFacts {
    let kind = target.spec().split(':').next().unwrap_or("");
    let in_memory = in_ram(kind) || in_ram(fs_type);
    fsbattery_record::FsFacts {
        in_memory,
        journaling: !in_memory && super::kinds::lookup(fs_type).is_none_or(|e| e.journaling),
    }
}

/// The filesystem's magic number from statfs (`f_type`), to tell whether two processes see
/// the same kind of filesystem at a path.
pub fn fs_magic(path: &Path) -> Option<i64> {
    let t = nix::sys::statfs::statfs(path).ok()?.filesystem_type();
    Some(t.0 as i64)
}

/// Name of the filesystem magic from statfs, for when /proc/mounts is unavailable: the name
/// the kinds table gives that magic (ext2/3/4 share one).
fn statfs_name(path: &Path) -> Option<&'static str> {
    let t = nix::sys::statfs::statfs(path).ok()?.filesystem_type();
    let named = super::kinds::TABLE
        .iter()
        .filter_map(|e| e.statfs)
        .find(|(magic, _)| *magic == t);
    Some(named.map_or("unknown", |(_, name)| name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_unescapes_mounts() {
        let t = "/dev/loop3 /mnt/with\\040space ext4 rw,relatime 0 0\ntmpfs /tmp tmpfs rw 0 0\n";
        let m = parse_mounts(t);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].mount_point, "/mnt/with space");
        assert_eq!(m[0].fs_type, "ext4");
        assert_eq!(m[1].options, "rw");
    }

    #[test]
    fn root_is_on_some_mount() {
        let m = describe(Path::new("/"));
        assert!(!m.fs_type.is_empty());
    }

    /// The recorded facts are the kinds table's: a directory target takes them from the
    /// filesystem measured under it, a `tmpfs` spec is in RAM whatever was measured.
    #[test]
    fn facts_come_from_the_kinds_table() {
        let dir = tempfile::tempdir().unwrap();
        let opts = super::super::TargetOptions::default();
        let spec = format!("dir:{}", dir.path().display());
        let t = super::super::parse(&spec, &opts).unwrap();
        let facts = |fs: &str| {
            let f = facts(t.as_ref(), fs);
            (f.in_memory, f.journaling)
        };
        assert_eq!(facts("ext4"), (false, true));
        assert_eq!(facts("xfs"), (false, true));
        assert_eq!(facts("ext2"), (false, false));
        assert_eq!(facts("exfat"), (false, false));
        assert_eq!(facts("tmpfs"), (true, false));
        assert_eq!(facts("ramfs"), (true, false));
        assert_eq!(
            facts("somefs"),
            (false, true),
            "an unknown kernel fs is taken to journal"
        );
        // A tmpfs spec parses only as root (it mounts); without root the kind alone answers.
        match super::super::parse("tmpfs", &opts) {
            Ok(tmpfs) => {
                let f = super::facts(tmpfs.as_ref(), "");
                assert!(f.in_memory && !f.journaling);
                assert!(in_memory(tmpfs.as_ref()));
            }
            Err(e) => assert!(!nix::unistd::geteuid().is_root(), "{e}"),
        }
        assert!(in_ram("tmpfs") && !in_ram("dir") && !in_ram("loop"));
    }
}

//! The `vm:` spec grammar — pure parsing, no I/O.
//!
//! `vm:[md-raidN:]FSTYPE[,kernel=K][,disks=N][,size=SIZE][,journal=external[,journal_size=SIZE]]
//! [,mkfs=OPTS][,mount=OPTS][,timeout=SECS][,label=NAME]`. Each target gets its own virtio
//! disks (sparse images on the host); inside the guest it becomes a `dev:` target on its
//! disk, or on the md array the guest assembles from its disks; `journal=external` gives it
//! one more disk, beside the array, for its external journal (ext3/4) or log (xfs). The mkfs/mount words are passed on to that `dev:`
//! spec, quoted, so the guest's parser reads exactly what the user wrote.

use crate::mkfs::FsKind;
use crate::spec::{label_of, split_options};
use crate::units::{format_bytes, parse_bytes};

/// Default size of each guest disk image (sparse: only what the guest writes takes room).
pub const DEFAULT_DISK: u64 = 4 << 30;
/// Default seconds the guest may go without a line on its console or a byte in its journal
/// before it is taken as hung and killed.
pub const DEFAULT_TIMEOUT: u64 = 900;

/// Default size of the external journal's disk (as `loop:`'s journal image).
pub const DEFAULT_JOURNAL: u64 = crate::spec::DEFAULT_JOURNAL;

const KEYS: [&str; 9] = [
    "kernel",
    "disks",
    "size",
    "journal",
    "journal_size",
    "mkfs",
    "mount",
    "timeout",
    "label",
];

/// A parsed `vm:` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct VmSpec {
    /// The filesystem made inside the guest.
    pub fs: String,
    /// A software RAID level the guest assembles with mdadm first (`md-raid10:` gives 10).
    pub md_level: Option<u32>,
    /// Which fetched kernel (a package name, version or release prefix); `None`: the newest.
    pub kernel: Option<String>,
    /// Virtio disks this target gets.
    pub disks: u32,
    /// Bytes per disk image.
    pub size: u64,
    /// Bytes of the external journal's own disk (`journal=external`); `None`: internal.
    pub journal: Option<u64>,
    /// mkfs words, as written.
    pub mkfs: Option<String>,
    /// Mount options, as written.
    pub mount: Option<String>,
    /// Seconds without progress before the guest is killed.
    pub timeout: u64,
    /// Column label.
    pub label: String,
    /// Whether `label=` gave it: a run of several kernels then keeps it as written instead
    /// of naming the kernel in it.
    pub label_given: bool,
}

impl VmSpec {
    /// Parse the part after `vm:`.
    pub fn parse(rest: &str) -> Result<VmSpec, String> {
        let (head, opts) = rest.split_once(',').unwrap_or((rest, ""));
        let (md_level, fs) = match head.split_once(':') {
            Some((md, fs)) => (Some(md_level(md)?), fs),
            None => (None, head),
        };
        if fs.is_empty() {
            return Err("no filesystem given: write vm:FSTYPE (e.g. vm:jfs)".into());
        }
        let kind = FsKind::from_name(fs).map_err(|e| format!("{e}: write vm:FSTYPE,..."))?;
        let mut s = VmSpec {
            fs: kind.name().to_string(),
            md_level,
            kernel: None,
            disks: if md_level.is_some() { 4 } else { 1 },
            size: DEFAULT_DISK,
            journal: None,
            mkfs: None,
            mount: None,
            timeout: DEFAULT_TIMEOUT,
            label: String::new(),
            label_given: false,
        };
        let mut label = None;
        let mut journal_size = None;
        for (k, v) in split_options(opts, &KEYS)? {
            match k.as_str() {
                "journal" if v == "external" => s.journal = Some(DEFAULT_JOURNAL),
                "journal" if v == "internal" => s.journal = None,
                "journal" => {
                    return Err(format!("journal={v}: write journal=external or internal"))
                }
                "journal_size" => journal_size = Some(size(&v)?),
                "kernel" if !v.is_empty() => s.kernel = Some(v),
                "kernel" => return Err("kernel=: name a kernel (e.g. kernel=6.1)".into()),
                "disks" => s.disks = v.parse().map_err(|_| format!("disks={v}: not a count"))?,
                "size" => s.size = size(&v)?,
                "mkfs" => s.mkfs = Some(v),
                "mount" => s.mount = Some(v),
                "timeout" => {
                    s.timeout = v
                        .parse()
                        .ok()
                        .filter(|t| (10..=86_400).contains(t))
                        .ok_or_else(|| format!("timeout={v}: seconds from 10 to 86400"))?
                }
                "label" => label = Some(label_of(&v)?),
                _ => unreachable!("split_options only returns known keys"),
            }
        }
        s.check_disks()?;
        s.check_journal(&kind, journal_size)?;
        s.label_given = label.is_some();
        s.label = label.unwrap_or_else(|| {
            let base = match s.md_level {
                Some(l) => format!("md-raid{l}-{}", s.fs),
                None => s.fs.clone(),
            };
            // The kinds table's word: "-extjournal" (ext3/4), "-extlog" (xfs).
            match (s.journal, kind.entry().journal) {
                (Some(_), Some(j)) => format!("{base}{}", j.label),
                _ => base,
            }
        });
        Ok(s)
    }

    fn check_disks(&self) -> Result<(), String> {
        let least = match self.md_level {
            Some(10) => 4,
            Some(1) | Some(0) => 2,
            Some(_) => 3,
            None => 1,
        };
        // A filesystem alone takes exactly one disk; an array its level's least to 16.
        let most = if self.md_level.is_some() { 16 } else { 1 };
        if !(least..=most).contains(&self.disks) {
            return Err(match self.md_level {
                Some(l) => format!("disks={}: md raid{l} takes {least} to 16", self.disks),
                None => format!(
                    "disks={}: one filesystem takes one disk (write vm:md-raid10:FSTYPE for an array)",
                    self.disks
                ),
            });
        }
        Ok(())
    }

    fn check_journal(&mut self, kind: &FsKind, journal_size: Option<u64>) -> Result<(), String> {
        if let Some(js) = journal_size {
            if self.journal.is_none() {
                return Err("journal_size needs journal=external".into());
            }
            self.journal = Some(js);
        }
        if self.journal.is_some() && kind.entry().journal.is_none() {
            return Err(format!(
                "journal=external: an external journal/log applies to {}, not {}",
                crate::kinds::names_where(|e| e.journal.is_some()),
                self.fs
            ));
        }
        Ok(())
    }

    /// The `dev:` spec the guest runs for this target on `device` (its disk or md array),
    /// with `journal` its external journal's disk.
    pub fn guest_spec(&self, device: &str, journal: Option<&str>) -> String {
        let mut s = format!("dev:{device},fs={},label={}", self.fs, self.label);
        if let Some(j) = journal {
            s.push_str(&format!(",journal={j}"));
        }
        if let Some(m) = &self.mkfs {
            s.push_str(&format!(",mkfs={}", quote(m)));
        }
        if let Some(m) = &self.mount {
            s.push_str(&format!(",mount={}", quote(m)));
        }
        s
    }
}

/// `md-raid10` → 10.
fn md_level(md: &str) -> Result<u32, String> {
    md.strip_prefix("md-raid")
        .and_then(|l| l.parse().ok())
        .filter(|l| [0, 1, 5, 6, 10].contains(l))
        .ok_or_else(|| {
            format!("{md}: write md-raid0, md-raid1, md-raid5, md-raid6 or md-raid10 before the filesystem")
        })
}

fn size(v: &str) -> Result<u64, String> {
    parse_bytes(v)
        .filter(|n| (64 << 20..=1 << 40).contains(n))
        .ok_or_else(|| {
            format!(
                "size={v}: a disk size from 64M to {}",
                format_bytes(1 << 40)
            )
        })
}

/// A value quoted for the `dev:` grammar: with '...' unless it holds a single quote.
fn quote(v: &str) -> String {
    match v.contains('\'') {
        true => format!("\"{v}\""),
        false => format!("'{v}'"),
    }
}

/// The guest's name for its `i`th virtio disk (0 → /dev/vda).
pub fn disk_name(i: usize) -> String {
    let mut n = String::new();
    let mut i = i;
    loop {
        n.insert(0, (b'a' + (i % 26) as u8) as char);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    format!("/dev/vd{n}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_md() {
        let s = VmSpec::parse("jfs").unwrap();
        assert_eq!((s.fs.as_str(), s.disks, s.md_level), ("jfs", 1, None));
        assert_eq!(
            s.guest_spec("/dev/vda", None),
            "dev:/dev/vda,fs=jfs,label=jfs"
        );
        let m = VmSpec::parse("md-raid10:xfs,disks=4,kernel=6.1").unwrap();
        assert_eq!(
            (m.md_level, m.disks, m.label.as_str()),
            (Some(10), 4, "md-raid10-xfs")
        );
        assert_eq!(m.kernel.as_deref(), Some("6.1"));
    }

    #[test]
    fn refusals_say_what_to_write() {
        assert!(VmSpec::parse("").unwrap_err().contains("vm:FSTYPE"));
        assert!(VmSpec::parse("md-raid10:xfs,disks=2")
            .unwrap_err()
            .contains("4 to 16"));
        assert!(VmSpec::parse("jfs,disks=2")
            .unwrap_err()
            .contains("md-raid10"));
        assert!(VmSpec::parse("md-raid7:xfs")
            .unwrap_err()
            .contains("md-raid10"));
        assert!(VmSpec::parse("jfs,timeout=1")
            .unwrap_err()
            .contains("10 to 86400"));
    }

    #[test]
    fn mkfs_words_are_quoted_for_the_guest() {
        let s = VmSpec::parse("ext4,mkfs=-O ^has_journal,mount=noatime,nobarrier").unwrap();
        assert_eq!(
            s.guest_spec("/dev/vdb", None),
            "dev:/dev/vdb,fs=ext4,label=ext4,mkfs='-O ^has_journal',mount='noatime,nobarrier'"
        );
    }

    #[test]
    fn an_external_journal_takes_a_disk_of_its_own() {
        let s = VmSpec::parse("md-raid10:xfs,disks=6,journal=external").unwrap();
        assert_eq!(
            (s.journal, s.label.as_str()),
            (Some(DEFAULT_JOURNAL), "md-raid10-xfs-extlog")
        );
        assert_eq!(
            s.guest_spec("/dev/md0", Some("/dev/vdg")),
            "dev:/dev/md0,fs=xfs,label=md-raid10-xfs-extlog,journal=/dev/vdg"
        );
        let e = |w: &str| VmSpec::parse(w).unwrap_err();
        assert!(e("jfs,journal=external").contains("ext3, ext4 and xfs"));
        assert!(e("ext4,journal_size=128M").contains("journal=external"));
        assert!(e("ext4,journal=outside").contains("external or internal"));
        let s = VmSpec::parse("ext4,journal=external,journal_size=128M").unwrap();
        assert_eq!(s.journal, Some(128 << 20));
    }

    #[test]
    fn disks_are_named_as_the_guest_names_them() {
        assert_eq!(disk_name(0), "/dev/vda");
        assert_eq!(disk_name(3), "/dev/vdd");
        assert_eq!(disk_name(26), "/dev/vdaa");
    }
}

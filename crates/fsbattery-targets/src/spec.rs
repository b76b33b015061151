//! The option grammar of `tmpfs:`, `loop:` and `dev:` specs — pure parsing, no I/O.
//!
//! `KIND:FIRST,key=value,key=value...`. Values of `mkfs=` and `mount=` may contain commas
//! (`mount=noatime,logbufs=8`): a piece that does not start with a known key continues the
//! previous such value. A value may also be quoted with '...' or "..." to hold anything,
//! e.g. `mkfs='-d agcount=4,size=1g'`.

use super::kinds;
use super::mkfs::FsKind;
use crate::params::MAX_SIZE;
use crate::units::{format_bytes, parse_bytes};

/// Keys whose values may contain commas.
const CONTINUABLE: [&str; 2] = ["mkfs", "mount"];

/// Split `s` into (key, value) pairs; every key must be in `keys` and appear once.
pub fn split_options(s: &str, keys: &[&str]) -> Result<Vec<(String, String)>, String> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let (piece, quoted, tail) = next_piece(rest)?;
        rest = tail;
        let known = piece.split_once('=').filter(|(k, _)| keys.contains(k));
        match (known, pairs.last_mut()) {
            (Some((k, v)), _) => {
                if pairs.iter().any(|(pk, _)| pk == k) {
                    return Err(format!("'{k}' given twice"));
                }
                let v = if quoted { unquote(v) } else { v.to_string() };
                pairs.push((k.to_string(), v));
            }
            (None, Some((k, v))) if CONTINUABLE.contains(&k.as_str()) && !piece.is_empty() => {
                v.push(',');
                v.push_str(&piece);
            }
            _ => {
                let k = piece.split_once('=').map_or(piece.as_str(), |(k, _)| k);
                return Err(format!(
                    "unknown option '{k}': expected one of {}",
                    keys.join(", ")
                ));
            }
        }
    }
    Ok(pairs)
}

/// The next comma-separated piece; a quote right after '=' runs to its closing quote.
fn next_piece(s: &str) -> Result<(String, bool, &str), String> {
    if let Some(eq) = s.find('=') {
        let before = &s[..eq];
        let after = &s[eq + 1..];
        if !before.contains(',') {
            if let Some(q @ ('\'' | '"')) = after.chars().next() {
                let close = after[1..]
                    .find(q)
                    .ok_or_else(|| format!("unbalanced {q} in '{s}'"))?;
                let end = eq + 1 + close + 2;
                let tail = &s[end..];
                if !(tail.is_empty() || tail.starts_with(',')) {
                    return Err(format!("expected ',' after the quoted value in '{s}'"));
                }
                return Ok((
                    s[..end].to_string(),
                    true,
                    tail.strip_prefix(',').unwrap_or(tail),
                ));
            }
        }
    }
    match s.split_once(',') {
        Some((p, tail)) => Ok((p.to_string(), false, tail)),
        None => Ok((s.to_string(), false, "")),
    }
}

fn unquote(v: &str) -> String {
    v[1..v.len() - 1].to_string()
}

/// A size option, 1 B to [`MAX_SIZE`]: bounded so image sizes add up without overflow.
fn size_of(key: &str, v: &str) -> Result<u64, String> {
    parse_bytes(v)
        .filter(|n| (1..=MAX_SIZE).contains(n))
        .ok_or_else(|| {
            format!(
                "{key}={v}: must be a size (e.g. 512M, 1G) from 1B to {}",
                format_bytes(MAX_SIZE)
            )
        })
}

pub(super) fn label_of(v: &str) -> Result<String, String> {
    let ok = !v.is_empty()
        && v.len() <= 40
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-+@".contains(c));
    ok.then(|| v.to_string())
        .ok_or_else(|| format!("label={v}: use 1-40 of A-Z a-z 0-9 . _ - + @"))
}

/// Default image size per device.
pub const DEFAULT_SIZE: u64 = 1 << 30;
/// Default external journal/log image size.
pub const DEFAULT_JOURNAL: u64 = 64 << 20;

/// A parsed `loop:` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopSpec {
    /// Filesystem.
    pub fs: FsKind,
    /// Bytes per image.
    pub size: u64,
    /// Number of data images.
    pub devices: u32,
    /// Multi-device profile (btrfs: data and metadata).
    pub profile: Option<String>,
    /// Multi-device vdev layout (zfs).
    pub layout: Option<String>,
    /// External journal or log image size (kinds with a journal entry: ext3/4, xfs).
    pub journal: Option<u64>,
    /// Extra mkfs words.
    pub mkfs: Vec<String>,
    /// Extra mount options.
    pub mount: Option<String>,
    /// Loop devices with direct I/O on their image (LO_FLAGS_DIRECT_IO).
    pub dio: bool,
    /// Column label.
    pub label: String,
    /// The most the run writes into these sparse images, when known (see
    /// `TargetOptions::image_written`); `None`: the space check counts them whole.
    pub written: Option<u64>,
}

const LOOP_KEYS: [&str; 12] = [
    "size",
    "mkfs",
    "mount",
    "devices",
    "profile",
    "layout",
    "journal",
    "log",
    "journal_size",
    "log_size",
    "label",
    "dio",
];

impl LoopSpec {
    /// Parse the part after `loop:`.
    pub fn parse(rest: &str) -> Result<LoopSpec, String> {
        let (fs, opts) = rest.split_once(',').unwrap_or((rest, ""));
        let fs = FsKind::from_name(fs).map_err(|e| format!("{e}: write loop:FSTYPE,..."))?;
        let mut s = LoopSpec {
            written: None,
            size: DEFAULT_SIZE,
            devices: 1,
            profile: None,
            layout: None,
            journal: None,
            mkfs: Vec::new(),
            mount: None,
            dio: false,
            label: String::new(),
            fs,
        };
        let mut journal_size = None;
        let mut label = None;
        for (k, v) in split_options(opts, &LOOP_KEYS)? {
            match k.as_str() {
                "size" => s.size = size_of(&k, &v)?,
                "mkfs" => s.mkfs = crate::process::split_words(&v)?,
                "mount" => s.mount = Some(v),
                "devices" => {
                    s.devices = v.parse().map_err(|_| format!("devices={v}: not a count"))?
                }
                "profile" => s.profile = Some(v),
                "layout" => s.layout = Some(v),
                "journal" | "log" if v == "external" => s.journal = Some(DEFAULT_JOURNAL),
                "journal" | "log" if v == "internal" => s.journal = None,
                "journal" | "log" => {
                    return Err(format!("{k}={v}: use {k}=external or {k}=internal"))
                }
                "journal_size" | "log_size" => journal_size = Some(size_of(&k, &v)?),
                "label" => label = Some(label_of(&v)?),
                "dio" => s.dio = on_off(&k, &v)?,
                _ => unreachable!("split_options only returns known keys"),
            }
        }
        if let Some(js) = journal_size {
            if s.journal.is_none() {
                return Err("journal_size needs journal=external (log_size: log=external)".into());
            }
            s.journal = Some(js);
        }
        s.validate()?;
        s.label = label.unwrap_or_else(|| s.default_label());
        Ok(s)
    }

    fn validate(&self) -> Result<(), String> {
        let fs = self.fs.name();
        if self.size < self.fs.min_size() {
            return Err(format!(
                "size={} is too small for {fs}: at least {}",
                format_bytes(self.size),
                format_bytes(self.fs.min_size())
            ));
        }
        if !(1..=16).contains(&self.devices) {
            return Err(format!("devices={}: use 1 to 16", self.devices));
        }
        let entry = self.fs.entry();
        if self.devices > 1 && entry.multi.is_none() {
            return Err(format!(
                "{fs} is made on one device: devices= applies to {}",
                kinds::names_where(|e| e.multi.is_some())
            ));
        }
        for (key, value) in [("profile", &self.profile), ("layout", &self.layout)] {
            if let Some(v) = value {
                self.check_layout(key, v)?;
            }
        }
        if self.checked_image_bytes().is_none() {
            return Err(format!(
                "size={} × devices={} plus the journal is more than 16 EiB: use a smaller size",
                format_bytes(self.size),
                self.devices
            ));
        }
        if self.journal.is_some() {
            let Some(j) = entry.journal else {
                return Err(format!(
                    "an external journal/log applies to {}, not {fs}",
                    kinds::names_where(|e| e.journal.is_some())
                ));
            };
            if self.journal < Some(j.min) {
                return Err(format!(
                    "journal_size/log_size must be at least {}",
                    format_bytes(j.min)
                ));
            }
        }
        Ok(())
    }

    /// A multi-device layout (`profile=` or `layout=`): the key must be this filesystem's,
    /// the value one of its choices with enough devices; mirrors pair devices.
    fn check_layout(&self, key: &str, v: &str) -> Result<(), String> {
        let owner = kinds::owner_of_key(key).expect("a key of the kinds table");
        let multi = owner.multi.expect("the owner of a multi-device key");
        let applies = self.fs.entry().multi.is_some_and(|m| m.key == key);
        check_min(v, key, self.devices, multi.choices, applies, owner.name)?;
        if multi.paired.contains(&v) && !self.devices.is_multiple_of(2) {
            return Err(format!(
                "{key}={v} pairs devices: devices={} is odd",
                self.devices
            ));
        }
        Ok(())
    }

    fn default_label(&self) -> String {
        let mut l = self.fs.name().to_string();
        if self.devices > 1 {
            match self.profile.as_ref().or(self.layout.as_ref()) {
                Some(p) => l.push_str(&format!("-{p}")),
                None => l.push_str(&format!("-{}dev", self.devices)),
            }
        }
        if let (Some(_), Some(j)) = (self.journal, self.fs.entry().journal) {
            l.push_str(j.label);
        }
        l
    }

    /// The bytes the space check counts: the images whole, or what the run writes into them
    /// when that is known and less (they are sparse).
    pub fn space_bytes(&self) -> u64 {
        self.written
            .map_or(self.image_bytes(), |w| w.min(self.image_bytes()))
    }

    /// Bytes of every image this spec makes (data images plus journal).
    /// Saturates rather than wraps: a sum beyond u64 is refused by any space check.
    pub fn image_bytes(&self) -> u64 {
        // validate() refuses specs whose total does not fit; saturate rather than wrap anyway.
        self.checked_image_bytes().unwrap_or(u64::MAX)
    }

    /// The total, or None when size × devices + journal overflows a u64 (`size=16000000T`).
    fn checked_image_bytes(&self) -> Option<u64> {
        self.size
            .checked_mul(u64::from(self.devices))?
            .checked_add(self.journal.unwrap_or(0))
    }
}

fn on_off(k: &str, v: &str) -> Result<bool, String> {
    match v {
        "on" | "yes" | "1" | "true" => Ok(true),
        "off" | "no" | "0" | "false" => Ok(false),
        _ => Err(format!("{k}={v}: use on or off")),
    }
}

fn check_min(
    v: &str,
    key: &str,
    devices: u32,
    table: &[(&str, u32)],
    applies: bool,
    fs: &str,
) -> Result<(), String> {
    if !applies {
        return Err(format!("{key}= applies to {fs} only"));
    }
    let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
    let (_, min) = table
        .iter()
        .find(|(n, _)| *n == v)
        .ok_or_else(|| format!("{key}={v}: choose one of {}", names.join(", ")))?;
    if devices < *min {
        return Err(format!(
            "{key}={v} needs at least {min} devices (devices={devices})"
        ));
    }
    Ok(())
}

/// A parsed `tmpfs:` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct TmpfsSpec {
    /// size= mount option; `None` keeps the kernel default (half of RAM).
    pub size: Option<u64>,
    /// Extra mount options.
    pub mount: Option<String>,
    /// Column label.
    pub label: String,
}

impl TmpfsSpec {
    /// Parse the part after `tmpfs:` (may be empty).
    pub fn parse(rest: &str) -> Result<TmpfsSpec, String> {
        let mut s = TmpfsSpec {
            size: None,
            mount: None,
            label: "tmpfs".into(),
        };
        for (k, v) in split_options(rest, &["size", "mount", "label"])? {
            match k.as_str() {
                "size" => s.size = Some(size_of(&k, &v)?),
                "mount" => s.mount = Some(v),
                _ => s.label = label_of(&v)?,
            }
        }
        Ok(s)
    }
}

/// A parsed `dev:` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct DevSpec {
    /// The block device.
    pub device: std::path::PathBuf,
    /// Filesystem (default ext4).
    pub fs: FsKind,
    /// Extra mkfs words.
    pub mkfs: Vec<String>,
    /// Extra mount options.
    pub mount: Option<String>,
    /// A second whole device for the external journal (ext3/4) or log (xfs).
    pub journal: Option<std::path::PathBuf>,
    /// Column label.
    pub label: String,
}

impl DevSpec {
    /// Parse the part after `dev:`.
    pub fn parse(rest: &str) -> Result<DevSpec, String> {
        let (dev, opts) = rest.split_once(',').unwrap_or((rest, ""));
        if !dev.starts_with("/dev/") || dev.contains("/../") {
            return Err("write dev:/dev/NAME (a whole block device)".into());
        }
        let mut s = DevSpec {
            device: dev.into(),
            fs: FsKind::from_name("ext4").expect("a registered kind"),
            mkfs: Vec::new(),
            mount: None,
            journal: None,
            label: String::new(),
        };
        let mut label = None;
        for (k, v) in split_options(opts, &["fs", "mkfs", "mount", "journal", "label"])? {
            match k.as_str() {
                "fs" => s.fs = FsKind::from_name(&v)?,
                "mkfs" => s.mkfs = crate::process::split_words(&v)?,
                "mount" => s.mount = Some(v),
                "journal" => s.journal = Some(journal_device(&v, dev)?),
                _ => label = Some(label_of(&v)?),
            }
        }
        if s.journal.is_some() && s.fs.entry().journal.is_none() {
            return Err(format!(
                "journal=: an external journal/log applies to {}, not {}",
                kinds::names_where(|e| e.journal.is_some()),
                s.fs.name()
            ));
        }
        let name = dev.rsplit('/').next().unwrap_or(dev);
        s.label = label.unwrap_or_else(|| format!("{}-{name}", s.fs.name()));
        Ok(s)
    }
}

/// The option keys a spec gives itself (`loop:xfs,mount=...` gives `mount`), so a suite's
/// default applies only where the user's spec is silent; empty when the options do not parse
/// (the kind's own parser reports that).
pub fn given_keys(spec: &str) -> Vec<String> {
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let (opts, keys): (&str, &[&str]) = match kind {
        "loop" => (rest.split_once(',').map_or("", |(_, o)| o), &LOOP_KEYS),
        "dev" => (
            rest.split_once(',').map_or("", |(_, o)| o),
            &["fs", "mkfs", "mount", "label"],
        ),
        "tmpfs" => (rest, &["size", "mount", "label"]),
        _ => return Vec::new(),
    };
    split_options(opts, keys)
        .map(|p| p.into_iter().map(|(k, _)| k).collect())
        .unwrap_or_default()
}

/// What a spec asked for that shapes the filesystem, resolved (defaults filled in), for the
/// run record's `targets[].options`: `compare` refuses runs whose targets differ here. The
/// label and device path are left out: they name the target, they do not shape it.
pub type ShapingOptions = std::collections::BTreeMap<String, String>;

/// `mkfs` and `mount` as recorded: the words joined by spaces, the options as written.
fn mkfs_mount(o: &mut ShapingOptions, mkfs: &[String], mount: &Option<String>) {
    o.insert("mkfs".into(), mkfs.join(" "));
    o.insert("mount".into(), mount.clone().unwrap_or_default());
}

impl LoopSpec {
    /// The shaping options of this spec (see [`ShapingOptions`]).
    pub fn options(&self) -> ShapingOptions {
        let mut o = ShapingOptions::new();
        o.insert("fs".into(), self.fs.name().into());
        o.insert("size".into(), self.size.to_string());
        o.insert("devices".into(), self.devices.to_string());
        let opt = |v: &Option<String>| v.clone().unwrap_or_default();
        o.insert("profile".into(), opt(&self.profile));
        o.insert("layout".into(), opt(&self.layout));
        let journal = self.journal.map(|j| j.to_string()).unwrap_or_default();
        o.insert("journal".into(), journal);
        o.insert("dio".into(), if self.dio { "on" } else { "off" }.into());
        mkfs_mount(&mut o, &self.mkfs, &self.mount);
        o
    }
}

impl TmpfsSpec {
    /// The shaping options of this spec (see [`ShapingOptions`]).
    pub fn options(&self) -> ShapingOptions {
        let mut o = ShapingOptions::new();
        let size = self.size.map(|s| s.to_string()).unwrap_or_default();
        o.insert("size".into(), size);
        o.insert("mount".into(), self.mount.clone().unwrap_or_default());
        o
    }
}

impl DevSpec {
    /// The shaping options of this spec (see [`ShapingOptions`]).
    pub fn options(&self) -> ShapingOptions {
        let mut o = ShapingOptions::new();
        o.insert("fs".into(), self.fs.name().into());
        if self.journal.is_some() {
            o.insert("journal".into(), "external".into());
        }
        mkfs_mount(&mut o, &self.mkfs, &self.mount);
        o
    }
}

/// `journal=/dev/NAME`: a whole device other than the data device.
fn journal_device(v: &str, data: &str) -> Result<std::path::PathBuf, String> {
    if !v.starts_with("/dev/") || v.contains("/../") {
        return Err(format!(
            "journal={v}: write journal=/dev/NAME (a second whole block device)"
        ));
    }
    if v == data {
        return Err(format!(
            "journal={v}: the journal needs a device of its own"
        ));
    }
    Ok(v.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_values_keep_their_commas() {
        let p = split_options("mount=noatime,logbufs=8,size=2G", &LOOP_KEYS).unwrap();
        assert_eq!(
            p,
            [
                ("mount".into(), "noatime,logbufs=8".into()),
                ("size".into(), "2G".into())
            ]
        );
        let p = split_options("mkfs='-d agcount=4,size=1g',size=1G", &LOOP_KEYS).unwrap();
        assert_eq!(p[0].1, "-d agcount=4,size=1g");
        assert_eq!(p[1].1, "1G");
    }

    #[test]
    fn unknown_and_repeated_keys_are_refused() {
        assert!(split_options("colour=red", &LOOP_KEYS)
            .unwrap_err()
            .contains("unknown option 'colour'"));
        assert!(split_options("size=1G,size=2G", &LOOP_KEYS)
            .unwrap_err()
            .contains("twice"));
        assert!(split_options("mkfs='x", &LOOP_KEYS).is_err());
    }

    /// A multi-device kind chooses its layout with a key the grammar has (and `LoopSpec`
    /// keeps: `profile` or `layout`).
    #[test]
    fn every_multi_device_key_is_in_the_grammar() {
        for e in kinds::TABLE {
            if let Some(m) = e.multi {
                assert!(
                    ["profile", "layout"].contains(&m.key),
                    "{}: {}",
                    e.name,
                    m.key
                );
                assert!(LOOP_KEYS.contains(&m.key));
            }
        }
    }

    #[test]
    fn loop_specs_get_short_labels() {
        let l = |s: &str| LoopSpec::parse(s).unwrap().label;
        assert_eq!(l("ext4"), "ext4");
        assert_eq!(l("btrfs,devices=4,profile=raid10"), "btrfs-raid10");
        assert_eq!(l("zfs,devices=6,layout=mirror"), "zfs-mirror");
        assert_eq!(l("ext4,journal=external"), "ext4-extjournal");
        assert_eq!(l("xfs,log=external"), "xfs-extlog");
        assert_eq!(l("btrfs,devices=3"), "btrfs-3dev");
        assert_eq!(l("xfs,label=xfs-nobar,mount=nobarrier"), "xfs-nobar");
    }

    #[test]
    fn loop_specs_parse_sizes_and_options() {
        let s = LoopSpec::parse("xfs,size=512M,mkfs=-m crc=1,mount=noatime,logbufs=8").unwrap();
        assert_eq!(s.size, 512 << 20);
        assert_eq!(s.mkfs, ["-m", "crc=1"]);
        assert_eq!(s.mount.as_deref(), Some("noatime,logbufs=8"));
        let s = LoopSpec::parse("ext4,journal=external,journal_size=32M").unwrap();
        assert_eq!(s.journal, Some(32 << 20));
        assert_eq!(s.image_bytes(), (1 << 30) + (32 << 20));
    }

    #[test]
    fn impossible_loop_specs_are_refused() {
        let e = |s: &str| LoopSpec::parse(s).unwrap_err();
        assert!(e("xfs,size=100M").contains("too small"));
        assert!(e("ext4,devices=2").contains("btrfs and zfs"));
        assert!(e("btrfs,devices=2,profile=raid1c4").contains("at least 4"));
        assert!(e("zfs,devices=3,layout=mirror").contains("odd"));
        assert!(e("ext2,journal=external").contains("ext3, ext4 and xfs"));
        assert!(e("ext4,journal_size=32M").contains("journal=external"));
        assert!(e("ext4,profile=raid1").contains("btrfs only"));
        assert!(e("tmpfs").contains("tmpfs"));
        assert!(e("").contains("no filesystem"));
        for bad in [
            "ext4,size=0",
            "ext4,size=-1",
            "ext4,size=2E",
            "ext4,size=1e300",
            "ext4,size=",
        ] {
            assert!(e(bad).contains("must be a size"), "{bad}: {}", e(bad));
        }
        assert!(e("btrfs,devices=0").contains("1 to 16"));
        assert!(e("btrfs,devices=-1").contains("not a count"));
        assert!(e("ext4,journal=external,journal_size=0").contains("must be a size"));
        // Found writing the target_spec fuzzer (hand-made seeds; 6M random runs missed them):
        // these overflowed image_bytes(), a panic in debug builds and a wrapped-around
        // free-space check in release.
        assert!(e("btrfs,size=16000000T,devices=2").contains("EiB"));
        assert!(e("ext4,size=16777215T,journal=external,journal_size=1T").contains("EiB"));
    }

    #[test]
    fn image_bytes_saturate_instead_of_wrapping() {
        // Every size is in range, the total is not: refused when parsed, and saturating
        // (never wrapping) for any spec built around validate().
        assert!(LoopSpec::parse("btrfs,size=1E,devices=16")
            .unwrap_err()
            .contains("EiB"));
        let mut s = LoopSpec::parse("btrfs,size=1E,devices=15").unwrap();
        s.devices = 16;
        assert_eq!(s.image_bytes(), u64::MAX);
    }

    #[test]
    fn tmpfs_and_dev_specs() {
        assert!(TmpfsSpec::parse("size=1e300").is_err());
        assert!(TmpfsSpec::parse("size=0").is_err());
        assert_eq!(TmpfsSpec::parse("").unwrap().size, None);
        assert_eq!(TmpfsSpec::parse("size=2G").unwrap().size, Some(2 << 30));
        let d = DevSpec::parse("/dev/sdb,fs=xfs,mount=noatime").unwrap();
        assert_eq!((d.fs.name(), d.label.as_str()), ("xfs", "xfs-sdb"));
        assert_eq!(DevSpec::parse("/dev/sdc").unwrap().fs.name(), "ext4");
        assert!(DevSpec::parse("sdb").is_err());
        let j = DevSpec::parse("/dev/md0,fs=xfs,journal=/dev/vde").unwrap();
        assert_eq!(j.journal.as_deref(), Some("/dev/vde".as_ref()));
        assert_eq!(j.options()["journal"], "external");
        assert!(DevSpec::parse("/dev/vda,fs=jfs,journal=/dev/vdb")
            .unwrap_err()
            .contains("ext3, ext4 and xfs"));
        assert!(DevSpec::parse("/dev/vda,journal=/dev/vda")
            .unwrap_err()
            .contains("of its own"));
    }

    #[test]
    fn shaping_options_resolve_defaults_and_leave_out_the_label() {
        let a = LoopSpec::parse("ext4,label=a").unwrap().options();
        let b = LoopSpec::parse("ext4,size=1G,label=b").unwrap().options();
        assert_eq!(a, b, "the default size is recorded, the label is not");
        let c = LoopSpec::parse("ext4,mkfs=-O ^has_journal,mount=noatime").unwrap();
        let c = c.options();
        assert_eq!(c["mkfs"], "-O ^has_journal");
        assert_eq!(c["mount"], "noatime");
        assert_ne!(a, c);
        let t = TmpfsSpec::parse("size=64M").unwrap().options();
        assert_eq!(t["size"], (64u64 << 20).to_string());
    }
}

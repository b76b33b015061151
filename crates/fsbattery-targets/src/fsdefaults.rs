//! A suite's default `mkfs=`/`mount=` options per filesystem (`[fs.xfs]`, `[fs."*"]` in a
//! suite file), applied to the targets fsbattery makes when their spec does not give that
//! option itself: the seed's settings (S2's xfs `logbufs=8`, S4's atime off) without the user
//! typing them, and the user's own spec always winning.

use std::collections::BTreeMap;

/// The filesystem key that applies to every filesystem without an entry of its own.
pub const ANY_FS: &str = "*";

/// The options one `[fs.NAME]` table gives; `None` leaves the option to `*` (or to mkfs and
/// mount defaults), `Some("")` says "none" (e.g. zfs, whose atime is a pool property).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FsDefault {
    /// Extra mkfs words, as in `mkfs=`.
    pub mkfs: Option<String>,
    /// Mount options, as in `mount=`.
    pub mount: Option<String>,
}

/// The suite's defaults by filesystem name (`tmpfs` and [`ANY_FS`] included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FsDefaults(pub BTreeMap<String, FsDefault>);

impl FsDefaults {
    /// The default of `key` ("mkfs" or "mount") for filesystem `fs`: its own entry's, else
    /// the `*` entry's; `None` when neither gives one.
    pub fn get(&self, fs: &str, key: &str) -> Option<&str> {
        fn pick<'d>(d: &'d FsDefault, key: &str) -> Option<&'d str> {
            match key {
                "mkfs" => d.mkfs.as_deref(),
                "mount" => d.mount.as_deref(),
                _ => None,
            }
        }
        [fs, ANY_FS]
            .iter()
            .find_map(|n| self.0.get(*n).and_then(|d| pick(d, key)))
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The value a target uses for `key`: its spec's own when `given`, else the suite's default
/// (empty meaning none).
pub fn resolve(defaults: &FsDefaults, fs: &str, key: &str, given: &[String]) -> Option<String> {
    if given.iter().any(|k| k == key) {
        return None;
    }
    defaults
        .get(fs, key)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string)
}

/// Fill the `mkfs` words and `mount` options of a spec for filesystem `fs` from the suite's
/// defaults, where the spec (`given` keys) did not set them.
pub fn apply(
    defaults: &FsDefaults,
    fs: &str,
    spec: &str,
    mkfs: &mut Vec<String>,
    mount: &mut Option<String>,
) -> Result<(), String> {
    let given = super::spec::given_keys(spec);
    if let Some(words) = resolve(defaults, fs, "mkfs", &given) {
        *mkfs = crate::process::split_words(&words)
            .map_err(|e| format!("the suite's mkfs options for {fs}: {e}"))?;
    }
    if let Some(m) = resolve(defaults, fs, "mount", &given) {
        *mount = Some(m);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> FsDefaults {
        let mut m = BTreeMap::new();
        m.insert(
            ANY_FS.into(),
            FsDefault {
                mkfs: None,
                mount: Some("noatime".into()),
            },
        );
        m.insert(
            "zfs".into(),
            FsDefault {
                mkfs: Some("-O atime=off".into()),
                mount: Some(String::new()),
            },
        );
        FsDefaults(m)
    }

    /// The keys a spec gives itself, commas inside mount= and quoted mkfs= values included.
    #[test]
    fn given_keys_follow_each_kinds_grammar() {
        let keys = |s: &str| super::super::spec::given_keys(s);
        assert_eq!(keys("loop:xfs"), Vec::<String>::new());
        assert_eq!(
            keys("loop:xfs,mount=noatime,logbufs=8,size=1G"),
            ["mount", "size"]
        );
        assert_eq!(
            keys("loop:ext4,mkfs='-b 4096,-E x',label=a"),
            ["mkfs", "label"]
        );
        assert_eq!(keys("dev:/dev/vdb,fs=xfs,mount=noatime"), ["fs", "mount"]);
        assert_eq!(keys("tmpfs:mount=nodev"), ["mount"]);
        assert_eq!(keys("dir:/x"), Vec::<String>::new());
    }

    #[test]
    fn own_entry_then_any_then_nothing_and_the_spec_wins() {
        let d = defaults();
        assert_eq!(
            resolve(&d, "ext4", "mount", &[]).as_deref(),
            Some("noatime")
        );
        assert_eq!(resolve(&d, "ext4", "mkfs", &[]), None);
        assert_eq!(
            resolve(&d, "zfs", "mkfs", &[]).as_deref(),
            Some("-O atime=off")
        );
        assert_eq!(resolve(&d, "zfs", "mount", &[]), None, "empty means none");
        assert_eq!(resolve(&d, "xfs", "mount", &["mount".into()]), None);
    }
}

//! The option space of one filesystem: which mkfs and mount options a tune may search, their
//! levels, defaults, risks and invalid combinations — read from `suites/options/FS.toml`
//! (compiled in) or a user's copy, with `common.toml` merged in.
//!
//! Invariants of a loaded [`OptionSpace`]: every option has at least one value and its
//! default among them; names are unique; every `arg` table and `risk` names only values the
//! option has; every `[[invalid]]` rule names known options and values. A file that breaks
//! one is refused with its path and what to fix, never half-used.

use crate::error::UsageError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Where an option is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum At {
    /// An argument of mkfs.
    Mkfs,
    /// A mount option.
    Mount,
}

/// How a level becomes text: a template with `{}`, or each level's own text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Arg {
    /// `{}` is replaced by the value.
    Template(String),
    /// Value → text; "" passes nothing.
    PerValue(BTreeMap<String, String>),
}

/// One option a tune may search.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneOption {
    /// Name used by `--option`, `--fix` and the answer.
    pub name: String,
    /// mkfs or mount.
    pub at: At,
    /// Levels searched.
    pub values: Vec<String>,
    /// The level the filesystem gets when nothing is given.
    pub default: String,
    /// How a level is passed.
    pub arg: Arg,
    /// Per level: what it risks on a crash.
    #[serde(default)]
    pub risk: BTreeMap<String, String>,
    /// What the option needs beyond the filesystem.
    #[serde(default)]
    pub needs: Option<String>,
    /// One line.
    #[serde(default)]
    pub help: String,
    /// Held at its one value by `--fix`: passed even when it is the filesystem's default.
    #[serde(skip)]
    pub held: bool,
}

impl TuneOption {
    /// The text level `value` passes: nothing for the filesystem's own default (so the
    /// defaults configuration is the plain target), unless the option is held by `--fix`.
    pub fn given(&self, value: &str) -> String {
        if value == self.default && !self.held {
            return String::new();
        }
        self.text(value)
    }

    /// The text level `value` passes ("" for nothing).
    pub fn text(&self, value: &str) -> String {
        match &self.arg {
            Arg::Template(t) => t.replace("{}", value),
            Arg::PerValue(m) => m.get(value).cloned().unwrap_or_default(),
        }
    }

    /// Index of the default level.
    pub fn default_level(&self) -> usize {
        self.values
            .iter()
            .position(|v| *v == self.default)
            .unwrap_or(0)
    }
}

/// A combination that cannot be made.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invalid {
    /// Option name → value; the rule applies when every pair holds.
    pub when: BTreeMap<String, String>,
    /// Why, in a few words.
    pub why: String,
}

/// Every option of one filesystem.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionSpace {
    /// Filesystem name (as in `loop:FS`).
    #[serde(default)]
    pub fs: String,
    /// mkfs flags whose values are joined with commas when several options give them.
    #[serde(default)]
    pub merge: Vec<String>,
    /// The options.
    #[serde(default, rename = "option")]
    pub options: Vec<TuneOption>,
    /// Combinations that cannot be made.
    #[serde(default)]
    pub invalid: Vec<Invalid>,
}

const COMMON: &str = include_str!("../../../../suites/options/common.toml");

/// Filesystems with a shipped option space.
pub fn shipped() -> Vec<&'static str> {
    crate::targets::option_spaces().map(|(f, _)| f).collect()
}

/// The shipped space of `fs`, with the common options merged in.
pub fn space(fs: &str) -> Result<OptionSpace, UsageError> {
    let (_, text) = crate::targets::option_spaces()
        .find(|(f, _)| *f == fs)
        .ok_or_else(|| UsageError::Unknown {
            kind: "filesystem with an option space",
            name: fs.to_string(),
            choices: shipped().join(", "),
            list: "options",
        })?;
    let mut s = parse(text, Path::new(&format!("suites/options/{fs}.toml")))?;
    s.fs = fs.to_string();
    with_common(s)
}

/// A user's option file (`--options FILE`), with the common options merged in unless it
/// names them itself.
pub fn from_file(path: &Path) -> Result<OptionSpace, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::Invalid(format!("--options {}: {e}", path.display())))?;
    with_common(parse(&text, path)?)
}

fn with_common(mut s: OptionSpace) -> Result<OptionSpace, UsageError> {
    let common = parse(COMMON, Path::new("suites/options/common.toml"))?;
    for o in common.options {
        if !s.options.iter().any(|m| m.name == o.name) {
            s.options.push(o);
        }
    }
    s.invalid.extend(common.invalid);
    check(&s).map_err(|m| file_error(Path::new(&s.fs), &m))?;
    Ok(s)
}

/// Parse and check one option file.
pub fn parse(text: &str, path: &Path) -> Result<OptionSpace, UsageError> {
    let s: OptionSpace = toml::from_str(text).map_err(|e| file_error(path, e.message()))?;
    check(&s).map_err(|m| file_error(path, &m))?;
    Ok(s)
}

fn file_error(path: &Path, message: &str) -> UsageError {
    UsageError::Invalid(format!("option file {}: {message}", path.display()))
}

/// The invariants of the module header.
fn check(s: &OptionSpace) -> Result<(), String> {
    let mut names = std::collections::BTreeSet::new();
    for o in &s.options {
        if !names.insert(&o.name) {
            return Err(format!("option '{}' is given twice", o.name));
        }
        if !o.values.contains(&o.default) {
            return Err(format!(
                "option '{}': default '{}' is not among its values",
                o.name, o.default
            ));
        }
        let keyed = match &o.arg {
            Arg::PerValue(m) => m.keys().collect::<Vec<_>>(),
            Arg::Template(_) => Vec::new(),
        };
        for v in keyed.into_iter().chain(o.risk.keys()) {
            if !o.values.contains(v) {
                return Err(format!(
                    "option '{}': '{v}' is not one of its values",
                    o.name
                ));
            }
        }
    }
    for rule in &s.invalid {
        for (name, value) in &rule.when {
            let o = s.options.iter().find(|o| &o.name == name);
            if !o.is_some_and(|o| o.values.contains(value)) {
                return Err(format!(
                    "[[invalid]] '{}': no option {name} with value {value}",
                    rule.why
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_spaces_load_with_what_the_issue_lists() {
        let names = |fs: &str| -> Vec<String> {
            space(fs)
                .unwrap()
                .options
                .into_iter()
                .map(|o| o.name)
                .collect()
        };
        for n in [
            "blocksize",
            "inode_size",
            "data",
            "commit",
            "journal_size",
            "has_journal",
            "dioread_nolock",
            "lazy_itable_init",
            "flex_bg",
            "atime",
        ] {
            assert!(names("ext4").iter().any(|x| x == n), "ext4 lacks {n}");
        }
        for n in [
            "agcount",
            "log_size",
            "logbufs",
            "logbsize",
            "allocsize",
            "inode64",
            "crc",
            "reflink",
        ] {
            assert!(names("xfs").iter().any(|x| x == n), "xfs lacks {n}");
        }
        for n in [
            "compress",
            "datacow",
            "metadata",
            "space_cache",
            "commit",
            "ssd",
            "atime",
        ] {
            assert!(names("btrfs").iter().any(|x| x == n), "btrfs lacks {n}");
        }
    }

    #[test]
    fn risky_values_are_flagged() {
        let s = space("ext4").unwrap();
        let data = s.options.iter().find(|o| o.name == "data").unwrap();
        assert!(data.risk.contains_key("writeback") && !data.risk.contains_key("journal"));
        let s = space("btrfs").unwrap();
        assert!(
            s.options.iter().any(|o| o.risk.contains_key("off")),
            "nodatacow"
        );
    }

    #[test]
    fn unknown_filesystem_names_the_known_ones() {
        let e = space("zfs").unwrap_err().to_string();
        assert!(e.contains("ext4, xfs, btrfs"), "{e}");
    }

    #[test]
    fn broken_files_are_refused_with_what_to_fix() {
        let bad = |t: &str| parse(t, Path::new("x.toml")).unwrap_err().to_string();
        let opt =
            "[[option]]\nname = \"a\"\nat = \"mount\"\nvalues = [\"1\", \"2\"]\narg = \"a={}\"\n";
        assert!(bad(&format!("{opt}default = \"3\"\n")).contains("default '3' is not among"));
        assert!(bad(&format!(
            "{opt}default = \"1\"\n[[invalid]]\nwhen = {{ a = \"9\" }}\nwhy = \"w\"\n"
        ))
        .contains("no option a with value 9"));
        assert!(bad("[[option]]\nname = \"a\"\n").contains("x.toml"));
        assert!(bad(&format!("{opt}default = \"1\"\ncolour = 1\n")).contains("colour"));
    }
}

//! Workload parameters as documented data: name, help, unit, a default per scale and the range
//! of values that can be run.
//!
//! Parsing has no side effects; sizes are read and shown by the leaf module [`crate::units`]
//! (binary suffixes, `64M` = `64MiB` = 67,108,864 bytes, as dd and fio read them).
//!
//! Invariant: every value a workload decodes from [`Resolved`] lies in its spec's
//! `min..=max`. Overrides are checked in [`Params::resolve`], the one place user text becomes a
//! number; defaults are checked by the registry's tests. Workloads may therefore multiply and
//! cast within those bounds without overflow or truncation.

use crate::error::UsageError;
use crate::units::{format_bytes, parse_bytes};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// How big the run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Small sizes: one target's default suite well under a minute.
    #[default]
    Quick,
    /// The seeds' own sizes (10,000 files, 1 GiB files).
    Standard,
    /// Standard, with files of at least 2 × RAM wherever the page cache would be measured.
    Full,
}

impl FromStr for Scale {
    type Err = UsageError;
    fn from_str(s: &str) -> Result<Self, UsageError> {
        match s {
            "quick" => Ok(Scale::Quick),
            "standard" => Ok(Scale::Standard),
            "full" => Ok(Scale::Full),
            _ => Err(UsageError::Unknown {
                kind: "scale",
                name: s.into(),
                choices: "quick, standard, full".into(),
                list: "workloads",
            }),
        }
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scale::Quick => "quick",
            Scale::Standard => "standard",
            Scale::Full => "full",
        })
    }
}

/// What kind of number a parameter holds (for parsing and display).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A plain count.
    Count,
    /// A size in bytes, accepting suffixes.
    Bytes,
    /// One of a fixed list of names; the value is the index into the list.
    Choice(&'static [&'static str]),
    /// A switch, written `true`/`false` (also `1`/`0`, `on`/`off`, `yes`/`no`); the value is
    /// 1 or 0, and records keep that number (as they always have for switches).
    Bool,
}

/// A switch as text: `true`/`1`/`on`/`yes` or `false`/`0`/`off`/`no`, any case.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "on" | "yes" => Some(true),
        "false" | "0" | "off" | "no" => Some(false),
        _ => None,
    }
}

/// Largest size any size parameter accepts: 1 EiB, beyond every filesystem's file size limit
/// that matters and small enough that a few of them add up without overflowing a u64.
pub const MAX_SIZE: u64 = 1 << 60;
/// Largest bytes per call (block, request, record): 1 GiB, so it fits a u32 and a buffer.
pub const MAX_REQUEST: u64 = 1 << 30;
/// Largest thread count (`threads`, `--jobs`, seekers).
pub const MAX_THREADS: u64 = 4096;
/// Largest io_uring queue depth the engine accepts.
pub const MAX_DEPTH: u64 = 4096;
/// Longest timed phase, seconds (one day).
pub const MAX_RUNTIME: u64 = 86_400;
/// Most files, transactions or operations a count parameter accepts.
pub const MAX_COUNT: u64 = 1_000_000_000;

/// Longest pause before a test, seconds (an hour: beyond it a run is waiting, not settling).
pub const MAX_PAUSE_SECS: f64 = 3600.0;
/// Most repeats of a test (`--repeat`, a suite's `repeat`).
pub const MAX_REPEAT: u32 = 10_000;

/// A pause in seconds, checked: finite, 0 to [`MAX_PAUSE_SECS`]. The error says what is wrong
/// and is meant to follow the option's name ("--pause nan: ...").
pub fn pause(secs: f64) -> Result<std::time::Duration, String> {
    if !(0.0..=MAX_PAUSE_SECS).contains(&secs) {
        return Err(format!(
            "must be a number of seconds from 0 to {MAX_PAUSE_SECS}"
        ));
    }
    // In range and finite, so this cannot fail; no unchecked from_secs_f64 anywhere.
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| e.to_string())
}

/// A repeat count, checked: 1 to [`MAX_REPEAT`].
pub fn repeat(n: i64) -> Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| (1..=MAX_REPEAT).contains(n))
        .ok_or_else(|| format!("must be a whole number from 1 to {MAX_REPEAT}"))
}

/// Names that mean the same parameter: the shared IO group's name first, then the older key
/// a workload still declares it under (iozone's `uring.depth`, randomio's `uring.batch`). A
/// user may write either; the value is kept under the key the workload declares, so suites
/// and records written before the group was named read the same.
pub const ALIASES: &[(&str, &str)] = &[("depth", "uring.depth"), ("batch", "uring.batch")];

/// The spec in `specs` that `key` names, directly or through [`ALIASES`].
fn spec_named<'a>(specs: &'a [ParamSpec], key: &str) -> Option<&'a ParamSpec> {
    specs.iter().find(|s| s.name == key).or_else(|| {
        specs.iter().find(|s| {
            ALIASES
                .iter()
                .any(|&(a, b)| (a, b) == (key, s.name) || (b, a) == (key, s.name))
        })
    })
}

/// One documented workload parameter.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// Key in suite files (`[workload.params]`) and `--set workload.key=value`.
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// Count or bytes.
    pub kind: ParamKind,
    /// Default at quick scale.
    pub quick: u64,
    /// Default at standard scale (the seed's own value).
    pub standard: u64,
    /// At full scale, at least twice the host's RAM (page-cache-defeating sizes).
    pub full_twice_ram: bool,
    /// Smallest value that can be run (bytes for sizes): 0 only where 0 means something
    /// ("skip", "one per CPU", "off").
    pub min: u64,
    /// Largest value that can be run.
    pub max: u64,
}

impl ParamSpec {
    /// The same spec accepting `min..=max`.
    pub const fn range(self, min: u64, max: u64) -> ParamSpec {
        ParamSpec { min, max, ..self }
    }

    /// Parse `text` as a value of this parameter and check it against the range; the error
    /// names `workload.name=text`, the range and its unit.
    pub fn parse(&self, workload: &str, text: &str) -> Result<u64, UsageError> {
        let what = |expected: String| {
            UsageError::Invalid(format!(
                "parameter {workload}.{}={text}: {expected}",
                self.name
            ))
        };
        let between = || {
            format!(
                "between {} and {}",
                self.show(self.min),
                self.show(self.max)
            )
        };
        match self.kind {
            ParamKind::Choice(names) => names
                .iter()
                .position(|n| *n == text)
                .map(|i| i as u64)
                .ok_or_else(|| what(format!("choose one of {}", names.join(", ")))),
            ParamKind::Bool => parse_bool(text)
                .map(u64::from)
                .ok_or_else(|| what("write true or false (or 1/0, on/off)".into())),
            ParamKind::Count | ParamKind::Bytes => {
                let (parsed, noun) = match self.kind {
                    ParamKind::Count => (parse_count(text), "a whole number"),
                    _ => (parse_bytes(text), "a size (e.g. 64MiB)"),
                };
                match parsed {
                    Some(v) if (self.min..=self.max).contains(&v) => Ok(v),
                    Some(_) => Err(what(format!("must be {}", between()))),
                    None => Err(what(format!("must be {noun} {}", between()))),
                }
            }
        }
    }

    /// The accepted values as text, for listings: "1..100000000", "4KiB..1EiB" or the choices.
    pub fn range_text(&self) -> String {
        match self.kind {
            ParamKind::Choice(names) => names.join("|"),
            ParamKind::Bool => "true|false".into(),
            _ if (self.min, self.max) == (0, u64::MAX) => "any".into(),
            _ => format!("{}..{}", self.show(self.min), self.show(self.max)),
        }
    }

    /// Default value at `scale` on a host with `ram_bytes` of memory.
    pub fn default_at(&self, scale: Scale, ram_bytes: u64) -> u64 {
        match scale {
            Scale::Quick => self.quick,
            Scale::Standard => self.standard,
            Scale::Full if self.full_twice_ram => {
                self.standard.max(ram_bytes.saturating_mul(2)).min(self.max)
            }
            Scale::Full => self.standard,
        }
    }

    /// Human form of a value of this parameter.
    pub fn show(&self, v: u64) -> String {
        match self.kind {
            ParamKind::Count => v.to_string(),
            ParamKind::Bytes => format_bytes(v),
            ParamKind::Bool => (v != 0).to_string(),
            ParamKind::Choice(names) => names
                .get(v as usize)
                .map(|n| n.to_string())
                .unwrap_or_else(|| v.to_string()),
        }
    }
}

/// A workload's resolved values as the registry's workload objects receive them: opaque
/// outside this crate. Nothing reads a value from it by name; a workload gets its values only
/// decoded into its own settings struct (`settings::decode`, at the boundary in the workloads'
/// `typed.rs`). Every [`Params`] is one (through `Deref`), so the plan and the runner, which
/// hold `Params`, pass `&params` where a workload takes `&Resolved`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolved(BTreeMap<String, u64>);

impl Resolved {
    /// Value of `name` if the workload declared it: for decoding only (`settings::Raw`).
    pub(crate) fn value(&self, name: &str) -> Option<u64> {
        self.0.get(name).copied()
    }
}

/// Resolved parameter values of one workload, as the plan, the runner, the suites and the
/// record hold them (by name, for labels, the dry run and the record's settings).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(Resolved);

impl std::ops::Deref for Params {
    type Target = Resolved;
    fn deref(&self) -> &Resolved {
        &self.0
    }
}

impl Params {
    /// Quick-scale defaults, for static checks that need a value for every parameter.
    pub fn default_for(specs: &[ParamSpec]) -> Params {
        Params::resolve("-", specs, Scale::Quick, 0, &BTreeMap::new()).expect("no overrides")
    }

    /// Defaults for every spec, overridden by `overrides` (validated against the specs).
    pub fn resolve(
        workload: &str,
        specs: &[ParamSpec],
        scale: Scale,
        ram_bytes: u64,
        overrides: &BTreeMap<String, String>,
    ) -> Result<Params, UsageError> {
        let mut map: BTreeMap<String, u64> = specs
            .iter()
            .map(|s| (s.name.to_string(), s.default_at(scale, ram_bytes)))
            .collect();
        for (k, v) in overrides {
            let spec = spec_named(specs, k).ok_or_else(|| UsageError::Unknown {
                kind: "parameter",
                name: format!("{workload}.{k}"),
                choices: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
                list: "workloads",
            })?;
            let parsed = spec.parse(workload, v)?;
            map.insert(spec.name.to_string(), parsed);
        }
        Ok(Params(Resolved(map)))
    }

    /// Value of a parameter the workload declared. Panics on an undeclared name: that is a
    /// programming error caught by every workload's own tests.
    pub fn get(&self, name: &str) -> u64 {
        *self
            .0
             .0
            .get(name)
            .unwrap_or_else(|| panic!("undeclared parameter {name}"))
    }

    /// Value of `name` if the workload declared it (None for a parameter it does not have).
    pub fn value(&self, name: &str) -> Option<u64> {
        self.0.value(name)
    }

    /// Every value in its spec's range, checked from the specs alone (the data `resolve`
    /// checks text against): for values built without `resolve`, as a workload's own tests
    /// and library callers do. The error is `resolve`'s line for the first value out of range.
    pub fn within(&self, workload: &str, specs: &[ParamSpec]) -> Result<(), UsageError> {
        for s in specs {
            if let Some(&v) = self.0 .0.get(s.name) {
                // Written back as text, a value out of range fails the one parse there is.
                let text = match s.kind {
                    ParamKind::Choice(_) => s.show(v),
                    _ => v.to_string(),
                };
                s.parse(workload, &text)?;
            }
        }
        Ok(())
    }

    /// Build directly (tests).
    pub fn from_pairs(pairs: &[(&str, u64)]) -> Params {
        Params(Resolved(
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ))
    }

    /// Unit of each parameter that has one, for the run record: sizes are
    /// [`crate::model::BYTES`], so a report can print them as a user types them.
    pub fn units(&self, specs: &[ParamSpec]) -> BTreeMap<String, String> {
        self.0
             .0
            .keys()
            .filter(|k| {
                specs
                    .iter()
                    .any(|s| s.name == k.as_str() && s.kind == ParamKind::Bytes)
            })
            .map(|k| (k.clone(), crate::model::BYTES.to_string()))
            .collect()
    }

    /// Values as text, for the run record.
    pub fn to_text(&self, specs: &[ParamSpec]) -> BTreeMap<String, String> {
        self.0
             .0
            .iter()
            .map(|(k, v)| {
                let shown = specs
                    .iter()
                    .find(|s| s.name == k)
                    .map(|s| {
                        if matches!(s.kind, ParamKind::Bytes | ParamKind::Bool) {
                            v.to_string()
                        } else {
                            s.show(*v)
                        }
                    })
                    .unwrap_or_else(|| v.to_string());
                (k.clone(), shown)
            })
            .collect()
    }
}

/// Parse a count: digits with optional `_` or `,` separators ("10,000"); `None` for anything
/// else, a sign or a value beyond u64 included.
pub fn parse_count(s: &str) -> Option<u64> {
    let digits = s.trim().replace(['_', ','], "");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `--set WORKLOAD.PARAM=VALUE` arguments into workload → (param → value text). Only the shape
/// is checked here: the caller, which knows the workloads, refuses an unknown workload name
/// (`workload::find_or_refuse`), and [`Params::resolve`] checks the parameter and value
/// against that workload's specs. Pure, so the fuzzer and tests can feed it anything.
pub fn parse_sets(
    sets: &[String],
) -> Result<BTreeMap<String, BTreeMap<String, String>>, UsageError> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for s in sets {
        let parsed = s
            .split_once('=')
            .and_then(|(k, v)| k.split_once('.').map(|(w, p)| (w, p, v)));
        let Some((w, p, v)) = parsed else {
            return Err(UsageError::Invalid(format!(
                "--set {s}: write WORKLOAD.PARAM=VALUE, e.g. metadata.files=500"
            )));
        };
        out.entry(w.into()).or_default().insert(p.into(), v.into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_by_name_and_show_by_name() {
        const ENGINES: &[&str] = &["sync", "io_uring"];
        let specs = [ParamSpec {
            name: "engine",
            help: "",
            kind: ParamKind::Choice(ENGINES),
            quick: 0,
            standard: 0,
            full_twice_ram: false,
            min: 0,
            max: 1,
        }];
        let mut o = BTreeMap::new();
        o.insert("engine".to_string(), "io_uring".to_string());
        let p = Params::resolve("randomio", &specs, Scale::Quick, 0, &o).unwrap();
        assert_eq!(p.get("engine"), 1);
        assert_eq!(specs[0].show(1), "io_uring");
        o.insert("engine".to_string(), "aio".to_string());
        let e = Params::resolve("randomio", &specs, Scale::Quick, 0, &o).unwrap_err();
        assert!(e.to_string().contains("sync, io_uring"), "{e}");
    }

    #[test]
    fn switches_parse_as_words_or_digits_and_show_as_words() {
        let spec = ParamSpec {
            name: "direct",
            help: "",
            kind: ParamKind::Bool,
            quick: 0,
            standard: 0,
            full_twice_ram: false,
            min: 0,
            max: 1,
        };
        for (text, v) in [("true", 1), ("ON", 1), ("1", 1), ("yes", 1), ("false", 0)] {
            assert_eq!(spec.parse("dd", text).unwrap(), v, "{text}");
        }
        for t in ["off", "0", "no"] {
            assert_eq!(spec.parse("dd", t).unwrap(), 0, "{t}");
        }
        let e = spec.parse("dd", "2").unwrap_err().to_string();
        assert!(
            e.contains("dd.direct=2") && e.contains("true or false"),
            "{e}"
        );
        assert_eq!(
            (spec.show(1), spec.range_text()),
            ("true".into(), "true|false".into())
        );
        // Records keep the number switches always had.
        let p = Params::from_pairs(&[("direct", 1)]);
        assert_eq!(p.to_text(&[spec])["direct"], "1");
    }

    #[test]
    fn pauses_are_finite_and_bounded() {
        for bad in [
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            -1.0,
            1e300,
            MAX_PAUSE_SECS + 1.0,
        ] {
            assert!(pause(bad).is_err(), "{bad}");
        }
        assert_eq!(pause(0.5).unwrap(), std::time::Duration::from_millis(500));
        assert_eq!(pause(MAX_PAUSE_SECS).unwrap().as_secs(), 3600);
    }

    #[test]
    fn repeats_are_one_to_max() {
        for bad in [0, -1, i64::from(MAX_REPEAT) + 1, i64::MAX] {
            assert!(repeat(bad).is_err(), "{bad}");
        }
        assert_eq!(repeat(5), Ok(5));
    }

    #[test]
    fn full_scale_is_at_least_twice_ram() {
        let spec = ParamSpec {
            name: "size",
            help: "",
            kind: ParamKind::Bytes,
            quick: 1,
            standard: 1 << 30,
            full_twice_ram: true,
            min: 1,
            max: MAX_SIZE,
        };
        assert_eq!(spec.default_at(Scale::Full, 4 << 30), 8 << 30);
        assert_eq!(spec.default_at(Scale::Full, 100), 1 << 30);
        assert_eq!(spec.default_at(Scale::Quick, 4 << 30), 1);
    }

    #[test]
    fn sizes_are_recorded_as_bytes_with_their_unit() {
        let spec = |name, kind| ParamSpec {
            name,
            help: "",
            kind,
            quick: 1,
            standard: 1,
            full_twice_ram: false,
            min: 0,
            max: MAX_SIZE,
        };
        let specs = [
            spec("size", ParamKind::Bytes),
            spec("files", ParamKind::Count),
        ];
        let p = Params::from_pairs(&[("size", 64 << 20), ("files", 2000)]);
        // The value stays the exact number (comparisons read it); the unit says how to show it.
        assert_eq!(p.to_text(&specs)["size"], "67108864");
        let units = p.units(&specs);
        assert_eq!(units.len(), 1);
        assert_eq!(units["size"], crate::model::BYTES);
    }

    /// The shared IO group's names and the older keys iozone and randomio declare read the
    /// same: either spelling lands under the declared key, with the same value.
    #[test]
    fn aliases_land_under_the_declared_key() {
        let spec = |name| ParamSpec {
            name,
            help: "",
            kind: ParamKind::Count,
            quick: 1,
            standard: 1,
            full_twice_ram: false,
            min: 1,
            max: MAX_DEPTH,
        };
        for (declared, written) in [
            ("uring.depth", "depth"),
            ("uring.depth", "uring.depth"),
            ("depth", "uring.depth"),
            ("uring.batch", "batch"),
        ] {
            let specs = [spec(declared)];
            let o = BTreeMap::from([(written.to_string(), "4".to_string())]);
            let p = Params::resolve("w", &specs, Scale::Quick, 0, &o).unwrap();
            assert_eq!(p, Params::from_pairs(&[(declared, 4)]), "{written}");
        }
        let o = BTreeMap::from([("batch".to_string(), "4".to_string())]);
        assert!(Params::resolve("w", &[spec("depth")], Scale::Quick, 0, &o).is_err());
    }

    #[test]
    fn unknown_override_is_refused() {
        let specs = [ParamSpec {
            name: "files",
            help: "",
            kind: ParamKind::Count,
            quick: 1,
            standard: 2,
            full_twice_ram: false,
            min: 1,
            max: MAX_COUNT,
        }];
        let mut o = BTreeMap::new();
        o.insert("nope".to_string(), "1".to_string());
        assert!(Params::resolve("metadata", &specs, Scale::Quick, 0, &o).is_err());
        o.clear();
        o.insert("files".to_string(), "10,000".to_string());
        let p = Params::resolve("metadata", &specs, Scale::Quick, 0, &o).unwrap();
        assert_eq!(p.get("files"), 10_000);
    }
}

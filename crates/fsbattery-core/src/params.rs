//! Workload parameters as documented data: name, help, unit and a default per scale.
//!
//! Parsing has no side effects; sizes accept binary suffixes (K, M, G, T, with optional
//! "iB"/"B": `64M` = `64MiB` = 67,108,864 bytes), as dd and fio read them.

use crate::error::UsageError;
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
}

impl ParamSpec {
    /// Default value at `scale` on a host with `ram_bytes` of memory.
    pub fn default_at(&self, scale: Scale, ram_bytes: u64) -> u64 {
        match scale {
            Scale::Quick => self.quick,
            Scale::Standard => self.standard,
            Scale::Full if self.full_twice_ram => self.standard.max(ram_bytes.saturating_mul(2)),
            Scale::Full => self.standard,
        }
    }

    /// Human form of a value of this parameter.
    pub fn show(&self, v: u64) -> String {
        match self.kind {
            ParamKind::Count => v.to_string(),
            ParamKind::Bytes => format_bytes(v),
            ParamKind::Choice(names) => names
                .get(v as usize)
                .map(|n| n.to_string())
                .unwrap_or_else(|| v.to_string()),
        }
    }
}

/// Resolved parameter values of one workload.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(BTreeMap<String, u64>);

impl Params {
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
            let spec = specs
                .iter()
                .find(|s| s.name == k)
                .ok_or_else(|| UsageError::Unknown {
                    kind: "parameter",
                    name: format!("{workload}.{k}"),
                    choices: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
                    list: "workloads",
                })?;
            let parsed = match spec.kind {
                ParamKind::Count => v.replace(['_', ','], "").parse::<u64>().ok(),
                ParamKind::Bytes => parse_bytes(v),
                ParamKind::Choice(names) => names.iter().position(|n| n == v).map(|i| i as u64),
            };
            let parsed = parsed.ok_or_else(|| {
                let expected = match spec.kind {
                    ParamKind::Bytes => "size (e.g. 64MiB)".to_string(),
                    ParamKind::Count => "count".to_string(),
                    ParamKind::Choice(names) => format!("choice ({})", names.join(", ")),
                };
                UsageError::Invalid(format!(
                    "parameter {workload}.{k}: '{v}' is not a valid {expected}"
                ))
            })?;
            map.insert(k.clone(), parsed);
        }
        Ok(Params(map))
    }

    /// Value of a parameter the workload declared. Panics on an undeclared name: that is a
    /// programming error caught by every workload's own tests.
    pub fn get(&self, name: &str) -> u64 {
        *self
            .0
            .get(name)
            .unwrap_or_else(|| panic!("undeclared parameter {name}"))
    }

    /// Build directly (tests).
    pub fn from_pairs(pairs: &[(&str, u64)]) -> Params {
        Params(pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect())
    }

    /// Values as text, for the run record.
    pub fn to_text(&self, specs: &[ParamSpec]) -> BTreeMap<String, String> {
        self.0
            .iter()
            .map(|(k, v)| {
                let shown = specs
                    .iter()
                    .find(|s| s.name == k)
                    .map(|s| {
                        if s.kind == ParamKind::Bytes {
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

/// `--set WORKLOAD.PARAM=VALUE` arguments into workload → (param → value text). The workload
/// must exist; the parameter and value are checked later by [`Params::resolve`] against that
/// workload's specs. Pure, so the fuzzer and tests can feed it anything.
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
        if crate::workload::find(w).is_none() {
            return Err(UsageError::Unknown {
                kind: "workload",
                name: w.into(),
                choices: crate::workload::names(),
                list: "workloads",
            });
        }
        out.entry(w.into()).or_default().insert(p.into(), v.into());
    }
    Ok(out)
}

/// Parse "64MiB", "1G", "4096", "10M" into bytes (binary multiples).
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !c.is_ascii_digit() && c != '_')
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    let n: u64 = num.replace('_', "").parse().ok()?;
    let mult: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// Show bytes in the largest binary unit that divides them, else with one decimal.
pub fn format_bytes(v: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, size) in UNITS {
        if v >= size {
            return if v.is_multiple_of(size) {
                format!("{}{name}", v / size)
            } else {
                format!("{:.1}{name}", v as f64 / size as f64)
            };
        }
    }
    format!("{v}B")
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
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("64MiB"), Some(64 << 20));
        assert_eq!(parse_bytes("64M"), Some(64 << 20));
        assert_eq!(parse_bytes("1g"), Some(1 << 30));
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("12x"), None);
        assert_eq!(parse_bytes(""), None);
    }

    #[test]
    fn bytes_format_round_trips_exact_units() {
        for v in [4096u64, 64 << 20, 1 << 30, 1000] {
            assert_eq!(parse_bytes(&format_bytes(v)), Some(v));
        }
        assert_eq!(format_bytes(1536), "1.5KiB");
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
        };
        assert_eq!(spec.default_at(Scale::Full, 4 << 30), 8 << 30);
        assert_eq!(spec.default_at(Scale::Full, 100), 1 << 30);
        assert_eq!(spec.default_at(Scale::Quick, 4 << 30), 1);
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

//! Where a run's conditions came from: the suite file, the command line, or fsbattery's own
//! default. A preset states how its seed measured (cache policy, pause, per-workload method,
//! mkfs/mount options, the seed's RAM); the user may override each, and the record keeps which
//! value ran and who chose it, so a reader never has to guess whether a number was taken as
//! the seed took it.

use serde::{Deserialize, Serialize};

/// The run's settings with their origins (absent in records written before it existed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSettings {
    /// The cache policy that ran and who chose it.
    pub cache: Chosen,
    /// The pause before each timed phase and who chose it.
    pub pause: Chosen,
    /// Per workload: the method it ran with, who chose it, and the suite's note on it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<WorkloadSetting>,
    /// Per target and option (`mkfs`, `mount`): values a suite gives as defaults, and whether
    /// the target took them or the user's own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fs_options: Vec<FsOptionSetting>,
    /// The seed's memory (`seed_memory`): applied, turned off, or why it could not be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Chosen>,
    /// What the workloads run that is not fsbattery: versions of the databases and tools and
    /// the settings fsbattery wrote for them (absent in older records and in runs of
    /// fsbattery's own workloads alone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub software: Vec<SoftwareSetting>,
    /// The targets were measured in interleaved rounds (each round ran the same repeat on
    /// every target in turn: `--fresh per-repeat` or `per-workload`), so samples of one repeat
    /// index share a round and rows may be compared round by round. False under `--fresh
    /// once` and in records written before it existed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub interleaved: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl crate::RunRecord {
    /// Whether the record's samples of one repeat index share a round (see
    /// [`RunSettings::interleaved`]).
    pub fn interleaved(&self) -> bool {
        self.plan.settings.as_ref().is_some_and(|s| s.interleaved)
    }
}

/// One version or setting of the software a workload runs (SQLite, PostgreSQL).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SoftwareSetting {
    /// Registry name of the workload.
    pub workload: String,
    /// What it is ("SQLite", "PostgreSQL", "postgresql.conf").
    pub name: String,
    /// Its version or value.
    pub value: String,
}

/// One setting: the value used, where it came from, and a note when it differs from what
/// the source asked (e.g. a pause shortened at quick scale).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chosen {
    /// The value that ran, as text ("none", "10 s", "768MiB").
    pub value: String,
    /// "suite NAME", "--cache", "default", ...
    pub source: String,
    /// What was changed from the source's value, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A workload's method and the suite's note on its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkloadSetting {
    /// Registry name of the workload.
    pub workload: String,
    /// "native" or "commands".
    pub method: String,
    /// "suite NAME", "--method", or "default".
    pub source: String,
    /// The suite's note on this workload (why a parameter is fixed), if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The versions of the programs it runs ("git version 2.39.5"), read when the plan was
    /// built; empty for workloads that run none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
}

/// A suite's default for one mkfs/mount option of one target, and what the target used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsOptionSetting {
    /// The target's spec.
    pub target: String,
    /// "mkfs" or "mount".
    pub key: String,
    /// The value the target was made or mounted with ("" for none).
    pub value: String,
    /// "suite NAME" when the suite's default was used, "--target" when the user's spec gave
    /// its own value instead.
    pub source: String,
    /// The suite's default (recorded too when the user's replaced it).
    pub suite_value: String,
}

impl Chosen {
    /// A value from `source`, unchanged.
    pub fn new(value: impl Into<String>, source: impl Into<String>) -> Self {
        Chosen {
            value: value.into(),
            source: source.into(),
            note: None,
        }
    }

    /// "VALUE (SOURCE; NOTE)" for plans and reports.
    pub fn describe(&self) -> String {
        match &self.note {
            Some(n) => format!("{} ({}; {n})", self.value, self.source),
            None => format!("{} ({})", self.value, self.source),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_and_describes_with_the_source() {
        let mut s = RunSettings {
            cache: Chosen::new("none", "suite piszcz2006"),
            pause: Chosen::new("1 s", "suite piszcz2006"),
            ..Default::default()
        };
        s.pause.note = Some("shortened from 10 s at quick scale".into());
        let j = serde_json::to_string(&s).unwrap();
        assert!(!j.contains("fs_options"), "{j}");
        assert_eq!(serde_json::from_str::<RunSettings>(&j).unwrap(), s);
        assert_eq!(
            s.pause.describe(),
            "1 s (suite piszcz2006; shortened from 10 s at quick scale)"
        );
    }
}

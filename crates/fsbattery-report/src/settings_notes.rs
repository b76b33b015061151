//! Who chose the run's measuring conditions, as notes under the tables: the cache policy, the
//! pause, the workloads that ran as commands, the suite's mkfs/mount options a target took
//! (or replaced), and the seed's memory when it could not be applied. Pure: lines of text from
//! the record's `plan.settings` (none for older records).

use fsbattery_record::settings::{Chosen, RunSettings};

/// The notes of a record's `plan.settings`, one line each (none for older records).
pub fn lines(settings: Option<&RunSettings>) -> Vec<String> {
    let Some(s) = settings else {
        return Vec::new();
    };
    let mut parts = vec![
        format!("cache {}", s.cache.describe()),
        format!("pause {}", s.pause.describe()),
    ];
    parts.extend(
        s.workloads
            .iter()
            .filter(|w| w.source != "default")
            .map(|w| format!("{} as {} ({})", w.workload, w.method, w.source)),
    );
    let mut out = vec![format!("conditions: {}", parts.join("; "))];
    let opts: Vec<String> = s
        .fs_options
        .iter()
        .map(|o| {
            let value = if o.value.is_empty() { "none" } else { &o.value };
            format!("{} {}={value} ({})", o.target, o.key, o.source)
        })
        .collect();
    if !opts.is_empty() {
        out.push(format!("suite mkfs/mount options: {}", opts.join("; ")));
    }
    let tools: Vec<String> = s
        .workloads
        .iter()
        .filter(|w| !w.tools.is_empty())
        .map(|w| format!("{}: {}", w.workload, w.tools.join(", ")))
        .collect();
    if !tools.is_empty() {
        out.push(format!("programs: {}", tools.join("; ")));
    }
    if let Some(Chosen {
        note: Some(note), ..
    }) = &s.memory
    {
        out.push(format!("memory: {note}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::settings::{FsOptionSetting, WorkloadSetting};

    #[test]
    fn conditions_name_their_sources() {
        assert!(lines(None).is_empty(), "older records have none");
        let mut pause = Chosen::new("0.1 s", "suite piszcz2006");
        pause.note = Some("shortened from 10 s at quick scale".into());
        let settings = RunSettings {
            cache: Chosen::new("none", "suite piszcz2006"),
            pause,
            workloads: vec![WorkloadSetting {
                workload: "metadata".into(),
                method: "commands".into(),
                source: "suite piszcz2006".into(),
                note: None,
                tools: Vec::new(),
            }],
            fs_options: vec![FsOptionSetting {
                target: "loop:xfs".into(),
                key: "mount".into(),
                value: "noatime".into(),
                source: "--target".into(),
                suite_value: "logbufs=8".into(),
            }],
            memory: None,
            software: Vec::new(),
            interleaved: false,
        };
        let l = lines(Some(&settings));
        assert_eq!(
            l[0],
            "conditions: cache none (suite piszcz2006); pause 0.1 s (suite piszcz2006; \
             shortened from 10 s at quick scale); metadata as commands (suite piszcz2006)"
        );
        assert_eq!(
            l[1],
            "suite mkfs/mount options: loop:xfs mount=noatime (--target)"
        );
        assert_eq!(l.len(), 2, "no programs line without versions: {l:?}");
    }

    /// The versions of the programs a workload ran are one line under the conditions.
    #[test]
    fn programs_are_named_with_their_versions() {
        let w = |name: &str, tools: &[&str]| WorkloadSetting {
            workload: name.into(),
            method: "commands".into(),
            source: "default".into(),
            note: None,
            tools: tools.iter().map(|t| t.to_string()).collect(),
        };
        let settings = RunSettings {
            workloads: vec![
                w("git", &["git version 2.39.5"]),
                w("metadata", &[]),
                w("build", &["gcc 12.2.0", "GNU Make 4.3"]),
            ],
            ..RunSettings::default()
        };
        let l = lines(Some(&settings));
        assert_eq!(
            l.last().unwrap(),
            "programs: git: git version 2.39.5; build: gcc 12.2.0, GNU Make 4.3"
        );
    }
}

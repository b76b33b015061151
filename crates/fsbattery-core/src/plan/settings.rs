//! The suite's measuring conditions against the command line: cache policy, pause,
//! per-workload method, mkfs/mount defaults and the seed's memory. The user's flag wins over
//! the suite, the suite over fsbattery's default, and each choice is kept with its source
//! ([`RunSettings`]) so the plan, the run output and the record say who chose it.

use super::request::Request;
use crate::error::UsageError;
use crate::model::CachePolicy;
use crate::params::{self, Scale};
use crate::suite::Suite;
use crate::targets::{self, Target};
use crate::units::format_bytes;
use crate::workload::Method;
use fsbattery_record::settings::{Chosen, FsOptionSetting, RunSettings, WorkloadSetting};
use std::time::Duration;

/// Who chose a value the suite holds: the suite named with `--suite`, or, without one,
/// fsbattery's defaults (the suite of no suite holds only those, see `suite_native`).
fn from_suite(args: &Request, suite: &Suite) -> String {
    match args.suite {
        Some(_) => format!("suite {}", suite.name),
        None => "default".into(),
    }
}

/// `--cache`, else the suite's `cache`, else tool.
pub fn cache(args: &Request, suite: &Suite) -> (CachePolicy, Chosen) {
    let (policy, source) = match (args.cache, suite.cache) {
        (Some(c), _) => (c, "--cache".to_string()),
        (None, Some(c)) => (c, from_suite(args, suite)),
        (None, None) => (CachePolicy::Tool, "default".to_string()),
    };
    (policy, Chosen::new(policy.to_string(), source))
}

/// `--pause`, else the suite's pause at this scale (quick may shorten it, with a note).
/// Checked again here so no path reaches Duration's panicking conversions unchecked.
pub fn pause(
    args: &Request,
    suite: &Suite,
    scale: Scale,
) -> Result<(Duration, Chosen), UsageError> {
    let (secs, source, note) = match args.pause {
        Some(p) => (p, "--pause".to_string(), None),
        None => {
            let (p, note) = suite.pauses.at(scale);
            (p, from_suite(args, suite), note)
        }
    };
    let d = params::pause(secs)
        .map_err(|m| UsageError::Invalid(format!("pause {secs} ({source}): {m}")))?;
    let mut chosen = Chosen::new(format!("{secs} s"), source);
    chosen.note = note;
    Ok((d, chosen))
}

/// A workload's method: commands for an application (git, make), else `--method` for every
/// workload, else its suite entry's, else native.
pub fn method(args: &Request, suite: &Suite, name: &str) -> (Method, WorkloadSetting) {
    let own = suite.workload_settings.get(name);
    let app = crate::workload::find(name).is_some_and(|w| w.always_commands());
    let (method, source) = match (args.method, own.and_then(|s| s.method)) {
        // An application (git, make) has no native form: it runs its programs whatever asked.
        _ if app => (Method::Commands, "default".to_string()),
        (Some(m), _) => (m, "--method".to_string()),
        (None, Some(m)) => (m, from_suite(args, suite)),
        (None, None) => (Method::Native, "default".to_string()),
    };
    let setting = WorkloadSetting {
        workload: name.into(),
        method: method.to_string(),
        source,
        note: own.and_then(|s| s.note.clone()),
        tools: crate::workload::find(name).map_or_else(Vec::new, |w| w.tool_versions()),
    };
    (method, setting)
}

/// For every target and every option the suite has a default for on its filesystem: the
/// value the target uses, and whether it is the suite's or the user's own spec's.
pub fn fs_options(suite: &Suite, targets: &[Box<dyn Target>]) -> Vec<FsOptionSetting> {
    let mut out = Vec::new();
    for t in targets {
        let opts = t.options();
        let fs = match opts.get("fs") {
            Some(fs) => fs.clone(),
            // A kind that is its own filesystem (tmpfs), by the kinds table.
            None => match targets::kinds::lookup(spec_kind(t.spec())) {
                Some(e) => e.name.to_string(),
                None => continue,
            },
        };
        let given = targets::given_option_keys(t.spec());
        for key in ["mkfs", "mount"] {
            let Some(default) = suite.fs_defaults.get(&fs, key) else {
                continue;
            };
            let mine = given.iter().any(|k| k == key);
            out.push(FsOptionSetting {
                target: t.spec().into(),
                key: key.into(),
                value: opts.get(key).cloned().unwrap_or_default(),
                source: if mine {
                    "--target".into()
                } else {
                    format!("suite {}", suite.name)
                },
                suite_value: default.into(),
            });
        }
    }
    out
}

/// What `--memory` the run uses: the user's (`none` turns it off), else at standard scale
/// the suite's `seed_memory` when this machine can bound memory (root, a memory cgroup) and
/// no named tmpfs target would be refused under it. Returns the text to apply, the setting to
/// record, and one line for the user when the seed's memory was applied or could not be.
pub fn memory(
    args: &Request,
    suite: &Suite,
    scale: Scale,
) -> (Option<String>, Option<Chosen>, Option<String>) {
    let seed = suite.seed_memory.map(format_bytes);
    match args.memory.as_deref().map(str::trim) {
        Some("none" | "off") => {
            let c = seed.map(|_| Chosen::new("none", "--memory"));
            (None, c, None)
        }
        Some(m) => (Some(m.to_string()), None, None),
        None if scale != Scale::Standard => (None, None, None),
        None => {
            let Some(size) = seed else {
                return (None, None, None);
            };
            let source = format!("seed_memory of {} at standard scale", suite.name);
            match seed_memory_possible(args) {
                Ok(()) => {
                    let line = format!(
                        "memory: every workload runs in a {size} memory cgroup, the seed's RAM \
                         ({source}; --memory none turns it off)"
                    );
                    (Some("seed".into()), None, Some(line))
                }
                Err(why) => {
                    let mut c = Chosen::new("none", source);
                    c.note = Some(format!("the seed's {size} not applied: {why}"));
                    let line =
                        format!("memory: the seed's {size} (seed_memory) not applied: {why}");
                    (None, Some(c), Some(line))
                }
            }
        }
    }
}

/// The kind a target spec names (`tmpfs` of `tmpfs:size=1G`, `loop` of `loop:xfs`).
fn spec_kind(spec: &str) -> &str {
    spec.split([':', ',']).next().unwrap_or("")
}

/// Why the seed's memory cannot bound this run, if it cannot.
fn seed_memory_possible(args: &Request) -> Result<(), String> {
    if !crate::packages::is_root() {
        return Err("not running as root (a memory cgroup needs root)".into());
    }
    if args
        .targets
        .iter()
        .any(|t| targets::fsinfo::in_ram(spec_kind(t)))
    {
        return Err("a tmpfs target keeps its files in memory, which the limit would count".into());
    }
    targets::MemoryCgroup::check()
}

/// The settings as recorded, from the parts the plan chose.
pub fn record(
    cache: Chosen,
    pause: Chosen,
    workloads: Vec<WorkloadSetting>,
    memory: Option<Chosen>,
) -> RunSettings {
    RunSettings {
        cache,
        pause,
        workloads,
        fs_options: Vec::new(),
        memory,
        software: Vec::new(),
        // Set by the runner, which knows the rounds it makes.
        interleaved: false,
    }
}

/// What the planned workloads run that is not fsbattery (versions, the settings written for
/// a database server), probed once here, and the workloads left out for want of it.
pub fn software(
    workloads: &[crate::runner::PlannedWorkload],
    left_out: &[(String, String)],
) -> Vec<fsbattery_record::settings::SoftwareSetting> {
    let entry = |workload: &str, (name, value): (String, String)| {
        fsbattery_record::settings::SoftwareSetting {
            workload: workload.to_string(),
            name,
            value,
        }
    };
    let mut out: Vec<_> = workloads
        .iter()
        .flat_map(|w| {
            let name = w.workload.name();
            w.workload
                .software(&w.params)
                .into_iter()
                .map(move |pair| entry(name, pair))
        })
        .collect();
    for (w, why) in left_out {
        out.push(entry(w, ("skipped".into(), why.clone())));
    }
    out
}

/// `--weights`: each group must be a planned workload or the lifecycle rows (`filesystem`);
/// a group named twice takes its last weight.
pub fn weights(
    given: &[(String, f64)],
    workloads: &[crate::runner::PlannedWorkload],
) -> Result<std::collections::BTreeMap<String, f64>, UsageError> {
    let lifecycle = fsbattery_record::lifecycle::WORKLOAD;
    let names: Vec<&str> = workloads
        .iter()
        .map(|w| w.workload.name())
        .chain([lifecycle])
        .collect();
    let mut out = std::collections::BTreeMap::new();
    for (group, w) in given {
        if !names.contains(&group.as_str()) {
            return Err(UsageError::Invalid(format!(
                "--weights {group}={w}: '{group}' is not a workload of this run{}; its groups \
                 are: {}",
                crate::suggest::hint(group, names.iter().copied()),
                names.join(", ")
            )));
        }
        out.insert(group.clone(), *w);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a spec names is asked of the kinds table: the in-memory fact for the seed's
    /// memory limit, the filesystem whose suite defaults a `tmpfs` target takes.
    #[test]
    fn a_spec_kind_is_asked_of_the_kinds_table() {
        let in_ram = |spec: &str| targets::fsinfo::in_ram(spec_kind(spec));
        assert!(in_ram("tmpfs") && in_ram("tmpfs:size=1G") && in_ram("tmpfs,size=1G"));
        assert!(!in_ram("loop:xfs") && !in_ram("dir:/tmp/x") && !in_ram("dev:/dev/sdb"));
        let fs = |spec: &str| targets::kinds::lookup(spec_kind(spec)).map(|e| e.name);
        assert_eq!(fs("tmpfs:size=1G"), Some("tmpfs"));
        assert_eq!(
            fs("loop:ext4"),
            None,
            "a loop target names its filesystem in `fs`"
        );
        assert_eq!(fs("dir:/tmp/x"), None);
    }
}

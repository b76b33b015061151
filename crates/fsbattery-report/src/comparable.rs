//! Whether two run records measured the same thing: a pure function listing every difference
//! in what was run — suite, scale, method, the workloads and each of their parameters, the
//! source datasets, and per target (paired by spec, see [`crate::target_match`]) its
//! filesystem type, the options its spec asked for and the mount options in effect, and its
//! presence unless one run holds a subset of the other's targets.
//!
//! Invariant: an empty list means every row both runs hold was measured the same way, so a
//! ratio between them means something. Each difference carries its scope (the whole run, one
//! workload, one target), so `compare --allow-different` marks exactly the rows it touches.
//! The host, the tool version and the repeat count are not differences: comparing machines,
//! releases or sample sizes is what `compare` is for.
//!
//! A record made by `fsbattery import` (fio, bonnie++, iozone output) has no suite, scale or
//! method of fsbattery's and knows only the parameters its tool reports and nothing of the
//! target's filesystem: when either record is imported, suite, scale and method are not
//! compared, a workload parameter is compared only when both records state it, and a target
//! property only when both know it. What both state must still agree.

use fsbattery_record::{RunRecord, TargetRecord};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Which rows a difference touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "scope", content = "name", rename_all = "snake_case")]
pub enum Scope {
    /// Every row (suite, scale, method, datasets).
    Run,
    /// The rows of one workload.
    Workload(String),
    /// The rows of one target.
    Target(String),
}

/// One thing the two runs did differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The rows it touches.
    #[serde(flatten)]
    pub scope: Scope,
    /// What differs, e.g. "scale", "metadata.files", "target ext4 mkfs".
    pub what: String,
    /// Its value in BASE ("absent" when BASE has none).
    pub base: String,
    /// Its value in NEW ("absent" when NEW has none).
    pub new: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} vs {}",
            self.what,
            show(&self.base),
            show(&self.new)
        )
    }
}

/// A value as printed: quoted when empty or holding spaces, so '' and '-O ^has_journal' read.
fn show(v: &str) -> String {
    if v.is_empty() || v.contains(char::is_whitespace) {
        format!("'{v}'")
    } else {
        v.to_string()
    }
}

impl Difference {
    /// True when the row of `workload` on `target` is touched by this difference.
    pub fn applies_to(&self, target: &str, workload: &str) -> bool {
        match &self.scope {
            Scope::Run => true,
            Scope::Workload(w) => w == workload,
            Scope::Target(t) => t == target,
        }
    }
}

const ABSENT: &str = "absent";

/// A workload or target one run has and the other has not: [base, new].
fn presence(in_base: bool) -> [&'static str; 2] {
    if in_base {
        ["present", ABSENT]
    } else {
        [ABSENT, "present"]
    }
}

/// Every difference between what `base` and `new` ran, in a stable order.
pub fn differences(base: &RunRecord, new: &RunRecord) -> Vec<Difference> {
    let mut out = Vec::new();
    let (b, n) = (&base.plan, &new.plan);
    let imported = base.source.is_some() || new.source.is_some();
    for (what, bv, nv) in [
        ("suite", &b.suite, &n.suite),
        ("scale", &b.scale, &n.scale),
        ("method", &b.method, &n.method),
    ] {
        if !imported {
            push(&mut out, Scope::Run, what, bv, nv);
        }
    }
    let hashes = |r: &RunRecord| -> Vec<String> {
        let h = r.plan.datasets.iter().map(|d| d.content_hash.clone());
        h.collect()
    };
    let (bh, nh) = (hashes(base), hashes(new));
    if !bh.is_empty() && !nh.is_empty() {
        push(
            &mut out,
            Scope::Run,
            "datasets",
            &bh.join(","),
            &nh.join(","),
        );
    }
    cache(&mut out, b, n);
    workloads(&mut out, base, new, imported);
    targets(&mut out, base, new, imported);
    out
}

/// The cache policy and the memory limit shape every number; compared when both records
/// state them (records from before them, and imports, state neither).
fn cache(
    out: &mut Vec<Difference>,
    b: &fsbattery_record::PlanInfo,
    n: &fsbattery_record::PlanInfo,
) {
    let (Some(bc), Some(nc)) = (&b.cache, &n.cache) else {
        return;
    };
    let (bp, np) = (bc.policy.to_string(), nc.policy.to_string());
    push(out, Scope::Run, "cache", &bp, &np);
    let limit = |c: &fsbattery_record::RunCache| {
        c.memory.as_ref().map_or("no limit".to_string(), |m| {
            fsbattery_record::format_bytes(m.limit_bytes)
        })
    };
    push(out, Scope::Run, "memory", &limit(bc), &limit(nc));
}

/// Whether a pair of values is compared: always between native records; with an imported
/// one, only when both sides state the value.
fn stated(imported: bool, bv: &str, nv: &str) -> bool {
    !imported || ![bv, nv].iter().any(|v| v.is_empty() || *v == ABSENT)
}

fn push(out: &mut Vec<Difference>, scope: Scope, what: &str, base: &str, new: &str) {
    if base != new {
        out.push(Difference {
            scope,
            what: what.to_string(),
            base: base.to_string(),
            new: new.to_string(),
        });
    }
}

/// Workloads in one run only, and each parameter that differs (`metadata.files`).
fn workloads(out: &mut Vec<Difference>, base: &RunRecord, new: &RunRecord, imported: bool) {
    let params = |r: &RunRecord| -> BTreeMap<String, BTreeMap<String, String>> {
        let w = r.plan.workloads.iter();
        w.map(|w| (w.name.clone(), w.params.clone())).collect()
    };
    let (bp, np) = (params(base), params(new));
    let names: BTreeSet<&String> = bp.keys().chain(np.keys()).collect();
    for name in names {
        let scope = || Scope::Workload(name.clone());
        match (bp.get(name), np.get(name)) {
            (Some(b), Some(n)) => {
                for (key, bv, nv) in union(b, n) {
                    if stated(imported, &bv, &nv) {
                        push(out, scope(), &format!("{name}.{key}"), &bv, &nv);
                    }
                }
            }
            (b, _) => {
                let [bv, nv] = presence(b.is_some());
                push(out, scope(), &format!("workload {name}"), bv, nv);
            }
        }
    }
}

/// Targets paired by spec ([`crate::target_match`]): filesystem type, spec options, mount
/// options in effect; and a target one run holds only, unless one run's targets are a subset
/// of the other's (its rows are then listed as in one run only, and the rest compare).
fn targets(out: &mut Vec<Difference>, base: &RunRecord, new: &RunRecord, imported: bool) {
    let m = crate::target_match::match_targets(base, new);
    let find = |r: &RunRecord, l: &str| -> Option<TargetRecord> {
        r.targets.iter().find(|t| t.label == l).cloned()
    };
    for (bl, label) in &m.pairs {
        let (Some(b), Some(n)) = (find(base, bl), find(new, label)) else {
            continue;
        };
        let scope = || Scope::Target(label.clone());
        let what = |w: &str| format!("target {label} {w}");
        let mut pairs = vec![(what("fs type"), b.fs_type.clone(), n.fs_type.clone())];
        for (key, bv, nv) in union(&b.options, &n.options) {
            pairs.push((what(&key), bv, nv));
        }
        let (bm, nm) = (b.mount_options.clone(), n.mount_options.clone());
        pairs.push((what("mount options in effect"), bm, nm));
        for (w, bv, nv) in pairs {
            if stated(imported, &bv, &nv) {
                push(out, scope(), &w, &bv, &nv);
            }
        }
    }
    if m.subset() {
        return;
    }
    let mut alone: Vec<(&String, bool)> = m.base_only.iter().map(|l| (l, true)).collect();
    alone.extend(m.new_only.iter().map(|l| (l, false)));
    alone.sort();
    for (label, in_base) in alone {
        let [bv, nv] = presence(in_base);
        let scope = Scope::Target(label.clone());
        push(out, scope, &format!("target {label}"), bv, nv);
    }
}

/// Every key of either map with both values, "absent" where a side lacks it.
fn union(
    b: &BTreeMap<String, String>,
    n: &BTreeMap<String, String>,
) -> Vec<(String, String, String)> {
    let keys: BTreeSet<&String> = b.keys().chain(n.keys()).collect();
    let get = |m: &BTreeMap<String, String>, k: &str| m.get(k).cloned();
    keys.into_iter()
        .map(|k| {
            let bv = get(b, k).unwrap_or_else(|| ABSENT.into());
            (k.clone(), bv, get(n, k).unwrap_or_else(|| ABSENT.into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::tests::record;

    fn with_files(files: &str) -> RunRecord {
        let mut r = record(&[1.0, 1.0, 1.0]);
        r.plan.workloads.push(fsbattery_record::WorkloadPlan {
            name: "metadata".into(),
            params: [("files".to_string(), files.to_string())].into(),
            param_units: Default::default(),
            metrics: vec![],
        });
        r.targets.push(TargetRecord {
            label: "ext4".into(),
            fs_type: "ext4".into(),
            ..TargetRecord::default()
        });
        r
    }

    #[test]
    fn cache_policy_and_memory_limit_are_compared_when_both_state_them() {
        let base = with_files("2000");
        let mut new = with_files("2000");
        new.plan.cache = Some(Box::new(fsbattery_record::RunCache {
            policy: fsbattery_record::CachePolicy::Warm,
            memory: None,
        }));
        assert!(
            differences(&base, &new).is_empty(),
            "an older record states none"
        );
        let mut cold = new.clone();
        cold.plan.cache.as_mut().unwrap().policy = fsbattery_record::CachePolicy::Cold;
        let d = differences(&cold, &new);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!((d[0].what.as_str(), d[0].new.as_str()), ("cache", "warm"));
        new.plan.cache.as_mut().unwrap().memory = Some(fsbattery_record::MemoryLimit {
            limit_bytes: 768 << 20,
            source: "--memory".into(),
            cgroup: String::new(),
            version: "v1".into(),
            peak_bytes: None,
            peak_cache_bytes: None,
        });
        let d = differences(&cold, &new);
        assert!(
            d.iter().any(|x| x.what == "memory" && x.new == "768MiB"),
            "{d:?}"
        );
    }

    #[test]
    fn identical_runs_have_no_difference() {
        assert!(differences(&with_files("2000"), &with_files("2000")).is_empty());
    }

    #[test]
    fn every_kind_of_difference_is_named_with_its_scope() {
        let base = with_files("2000");
        let mut new = with_files("500");
        new.plan.scale = "standard".into();
        new.targets[0]
            .options
            .insert("mkfs".into(), "-O ^has_journal".into());
        new.targets.push(TargetRecord {
            label: "xfs".into(),
            ..TargetRecord::default()
        });
        // NEW holds a superset of BASE's targets: xfs's rows are NEW's alone, no difference.
        let subset: Vec<String> = differences(&base, &new)
            .iter()
            .map(|d| d.what.clone())
            .collect();
        assert!(
            !subset.iter().any(|w| w.starts_with("target xfs")),
            "{subset:?}"
        );
        let mut base = base;
        base.targets.push(TargetRecord {
            label: "btrfs".into(),
            ..TargetRecord::default()
        });
        let d = differences(&base, &new);
        let text: Vec<String> = d.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "scale: quick vs standard",
                "metadata.files: 2000 vs 500",
                "target ext4 mkfs: absent vs '-O ^has_journal'",
                "target btrfs: present vs absent",
                "target xfs: absent vs present",
            ]
        );
        assert_eq!(d[1].scope, Scope::Workload("metadata".into()));
        assert!(d[1].applies_to("ext4", "metadata") && !d[1].applies_to("ext4", "tree"));
        assert!(d[2].applies_to("ext4", "tree") && !d[2].applies_to("xfs", "tree"));
        assert!(d[0].applies_to("any", "thing"));
    }

    fn imported(files: &str, extra: Option<(&str, &str)>) -> RunRecord {
        let mut r = with_files(files);
        r.plan.suite = "fio".into();
        r.plan.scale = String::new();
        r.plan.method = "imported:fio".into();
        r.targets[0].fs_type = String::new();
        r.targets[0].mount_options = String::new();
        r.plan.workloads[0].params.remove("files");
        if let Some((k, v)) = extra {
            r.plan.workloads[0].params.insert(k.into(), v.into());
        }
        r.plan.workloads[0]
            .params
            .insert("files".into(), files.into());
        r.source = Some(fsbattery_core::model::ImportSource {
            tool: "fio".into(),
            version: "fio-3.33".into(),
            files: vec!["run1.json".into()],
            imported_at: "2026-11-23T15:00:00+00:00".into(),
        });
        r
    }

    #[test]
    fn an_imported_record_is_checked_on_what_it_states() {
        let mut native = with_files("2000");
        native.targets[0].mount_options = "rw,relatime".into();
        native.plan.workloads[0]
            .params
            .insert("depth".into(), "8".into());
        // Suite, scale, method, the unknown fs type and an unstated parameter are not differences.
        assert_eq!(differences(&native, &imported("2000", None)), []);
        let d = differences(&imported("500", Some(("depth", "4"))), &native);
        let text: Vec<String> = d.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            ["metadata.depth: 4 vs 8", "metadata.files: 500 vs 2000"]
        );
        // Between native records nothing changes: an absent parameter is a difference.
        let mut other = with_files("2000");
        other.plan.workloads[0]
            .params
            .insert("depth".into(), "8".into());
        assert_eq!(differences(&with_files("2000"), &other).len(), 1);
    }
}

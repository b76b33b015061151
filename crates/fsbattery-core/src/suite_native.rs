//! The plan of a run given no `--suite`: the workloads run native under fsbattery's neutral
//! settings, and the run is named by the workloads it ran.
//!
//! A preset's conditions describe how its seed measured (S1: touch and mkdir one child
//! process per file, sync only, a 10 s pause, 768 MiB of RAM). Taking them silently for a
//! bare `run --workload metadata` measured fork/exec instead of the filesystem and titled a
//! randomio run "piszcz2006". So without `--suite` only the default workload list and the
//! default suite's row labels (which name this run's sizes, not the seed's) are borrowed;
//! cache policy, pause, methods, memory, mkfs/mount defaults, fixed parameters, pending rows
//! and the seed's wording are not. Metrics S1 had no row for get labels in its style. `--suite piszcz2006` asks for all of them.

use crate::error::UsageError;
use crate::suite::{self, Suite, SuiteRow, DEFAULT_SUITE};
use crate::suite_settings::Pauses;
use crate::targets::FsDefaults;
use std::collections::BTreeMap;

/// Labels, in the default suite's words, for the metrics of its workloads that S1 had no row
/// for; without them those rows read as raw ids ("tree cpio") between S1's prose.
const OWN_ROWS: &[(&str, &str, &str)] = &[
    (
        "filesystem",
        "umount",
        "Time it takes to unmount the filesystem",
    ),
    ("tree", "cpio", "CPIO Kernel {tree.kernel} Source Tree"),
    (
        "stream",
        "create_durable",
        "Create a {stream.size} File and fsync It",
    ),
    (
        "stream",
        "copy_durable",
        "Copy a {stream.size} File and fsync It",
    ),
    (
        "stream",
        "create_fsync",
        "The fsync Alone After Creating a {stream.size} File",
    ),
    (
        "stream",
        "copy_fsync",
        "The fsync Alone After Copying a {stream.size} File",
    ),
];

/// The suite of a run without `--suite`: `workloads` (validated names; empty: the default
/// suite's list), each at its own defaults, run natively with cache `tool` and no pause.
pub fn without_suite(workloads: &[String]) -> Result<Suite, UsageError> {
    let base = suite::load(DEFAULT_SUITE)?;
    let names: Vec<String> = if workloads.is_empty() {
        base.workloads.iter().map(|(n, _)| n.clone()).collect()
    } else {
        workloads.to_vec()
    };
    let name = names.join(", ");
    let mut rows: Vec<SuiteRow> = base
        .rows
        .into_iter()
        .filter(|r| r.pending.is_none())
        .map(|mut r| {
            r.seed = None;
            r
        })
        .collect();
    add_own_rows(&mut rows);
    Ok(Suite {
        title: name.clone(),
        description: "workloads at their defaults, native, cache tool (no --suite)".into(),
        name,
        repeat: base.repeat,
        // A run without --suite adapts whenever targets are ranked (the binary's plan decides).
        adapt: false,
        aggregate: fsbattery_stats::Aggregate::Mean,
        cache: None,
        pauses: Pauses::default(),
        fs_defaults: FsDefaults(BTreeMap::new()),
        workload_settings: BTreeMap::new(),
        seed_memory: None,
        volume: None,
        workloads: names.into_iter().map(|n| (n, BTreeMap::new())).collect(),
        rows,
    })
}

/// The default suite given by name (`--suite classic`): its rows, plus its own labels for
/// the metrics it has no row for, so its prose is not mixed with raw ids ("stream
/// create_durable"). Any other suite is returned as it is: those labels are in the default
/// suite's words, not in another seed's.
pub fn with_own_rows(mut suite: Suite) -> Result<Suite, UsageError> {
    if suite.name == suite::load(DEFAULT_SUITE)?.name {
        add_own_rows(&mut suite.rows);
    }
    Ok(suite)
}

/// [`OWN_ROWS`] that `rows` lacks, each after its workload's last row (so a workload's rows
/// stay together).
fn add_own_rows(rows: &mut Vec<SuiteRow>) {
    for (workload, metric, label) in OWN_ROWS {
        let known = rows
            .iter()
            .any(|r| r.workload == *workload && r.metric == *metric);
        if known {
            continue;
        }
        let at = rows
            .iter()
            .rposition(|r| r.workload == *workload)
            .map_or(rows.len(), |i| i + 1);
        let row = SuiteRow {
            label: label.to_string(),
            workload: workload.to_string(),
            metric: metric.to_string(),
            pending: None,
            aggregate: None,
            seed: None,
        };
        rows.insert(at, row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_suite_means_native_neutral_settings_named_by_the_workloads() {
        let s = without_suite(&["metadata".into(), "randomio".into()]).unwrap();
        assert_eq!(s.name, "metadata, randomio");
        assert_eq!(s.cache, None, "the plan's default, tool");
        assert_eq!(s.pauses, Pauses::default());
        assert!(s.workload_settings.is_empty(), "no method = commands");
        assert!(s.seed_memory.is_none() && s.fs_defaults.is_empty());
        assert!(s
            .rows
            .iter()
            .all(|r| r.seed.is_none() && r.pending.is_none()));
        assert!(s.rows.iter().any(|r| r.metric == "touch_files"));
        let all = without_suite(&[]).unwrap();
        let classic = suite::load(DEFAULT_SUITE).unwrap();
        let names = |s: &Suite| {
            s.workloads
                .iter()
                .map(|(n, _)| n.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&all), names(&classic));
        assert!(all.workloads.iter().all(|(_, p)| p.is_empty()));
        assert_eq!(all.name, names(&classic).join(", "));
    }

    /// Every metric of the default workloads has a row, and every own row names a metric its
    /// workload produces.
    #[test]
    fn every_default_metric_has_a_label() {
        let s = without_suite(&[]).unwrap();
        let mut names: Vec<&str> = s.workloads.iter().map(|(n, _)| n.as_str()).collect();
        names.push("filesystem");
        for name in names {
            let w = crate::workload::participant(name).unwrap();
            let metrics = w.metrics(&crate::params::Params::default_for(w.params()));
            for m in &metrics {
                let has = s
                    .rows
                    .iter()
                    .any(|r| r.workload == name && r.metric == m.name);
                assert!(has, "{name} {} has no row", m.name);
            }
            for r in s.rows.iter().filter(|r| r.workload == name) {
                assert!(metrics.iter().any(|m| m.name == r.metric), "{}", r.label);
            }
        }
    }

    #[test]
    fn the_default_suite_by_name_labels_every_metric_and_other_presets_keep_their_rows() {
        let classic = with_own_rows(suite::load("classic").unwrap()).unwrap();
        let label = |w: &str, m: &str| {
            classic
                .rows
                .iter()
                .find(|r| r.workload == w && r.metric == m)
                .map(|r| r.label.clone())
        };
        assert_eq!(
            label("stream", "create_durable").as_deref(),
            Some("Create a {stream.size} File and fsync It")
        );
        assert_eq!(
            label("filesystem", "umount").as_deref(),
            Some("Time it takes to unmount the filesystem")
        );
        // Added once, not again over a row the suite has.
        let again = with_own_rows(classic.clone()).unwrap();
        assert_eq!(again.rows.len(), classic.rows.len());
        let s2 = suite::load("prolinux2013").unwrap();
        let n = s2.rows.len();
        assert_eq!(with_own_rows(s2).unwrap().rows.len(), n);
    }
}

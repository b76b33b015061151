//! Importing other tools' results (fio JSON, bonnie++ CSV, iozone `-R` reports, the io500 app's
//! result summary) as run records,
//! so `report` and `compare` show them beside fsbattery's own runs.
//!
//! One module per tool, one registry ([`IMPORTERS`]). Parsing is pure: bytes → [`Parsed`] (one
//! sample per metric); [`build_record`] turns the files of one import into a [`RunRecord`] with
//! one repeat per file, so three fio runs give n = 3 and `compare`'s Welch test can rank them.
//! Invariants: every file of an import has the same tool, workload and parameters (a mix is
//! refused, naming the difference); a value the tool did not print is a `Missing` cell with the
//! reason, never a zero; metric names follow the native workload the tool mirrors (fio's random
//! jobs → `randomio`, bonnie++ → `bonnie`) so rows line up.

mod bonnie;
mod dbench;
mod fio;
mod fio_job;
mod fs_mark;
mod io500;
mod iozone;

use crate::model::{
    Capabilities, Cell, CellStatus, HostInfo, ImportSource, MetricSpec, PlanInfo, RunRecord,
    Sample, TargetRecord, ToolInfo, WorkloadPlan, SCHEMA_VERSION,
};
use std::collections::BTreeMap;

/// Why a file could not be imported; every message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// No importer recognised the content.
    #[error("{file}: not a fio JSON, bonnie++ CSV, iozone -R report, io500 result summary, dbench or fs_mark output: give --from fio|bonnie|iozone|io500|dbench|fs_mark if it is one")]
    Unrecognised {
        /// The file.
        file: String,
    },
    /// The content is the tool's, but malformed or of an unsupported shape.
    #[error("{file}: {message}")]
    Malformed {
        /// The file.
        file: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// The files of one import did not measure the same thing.
    #[error("{file} differs from {first}: {what}: import them separately (one --label each)")]
    Mismatch {
        /// The first file.
        first: String,
        /// The differing file.
        file: String,
        /// What differs, with both values.
        what: String,
    },
}

/// One value a tool reported, or why it reported none.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// A measured value (`repeat` is set by [`build_record`]).
    Value(Sample),
    /// The tool printed no value, for this reason.
    Missing(String),
}

/// One file's content as a run of one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// Tool name, e.g. "fio".
    pub tool: &'static str,
    /// Tool version as printed.
    pub version: String,
    /// Host name, when the tool records one.
    pub hostname: String,
    /// RFC 3339 start time, when the tool records one.
    pub started: Option<String>,
    /// The workload it corresponds to and its parameters in the native workload's names.
    pub workload: String,
    /// Parameter name → value as text (sizes in bytes), as native records write them.
    pub params: BTreeMap<String, String>,
    /// Metrics in report order, each with its reading.
    pub metrics: Vec<(MetricSpec, Reading)>,
}

/// One tool's importer.
pub trait Importer: Sync {
    /// Name for `--from`.
    fn name(&self) -> &'static str;
    /// Whether `bytes` look like this tool's output.
    fn detect(&self, bytes: &[u8]) -> bool;
    /// Parse one file; errors are one line (the caller adds the file name).
    fn parse(&self, bytes: &[u8]) -> Result<Parsed, String>;
}

/// Every importer, tried in this order when detecting.
pub static IMPORTERS: &[&dyn Importer] = &[
    &fio::Fio,
    &bonnie::Bonnie,
    &iozone::Iozone,
    &io500::Io500,
    &dbench::Dbench,
    &fs_mark::FsMark,
];

/// The importer named `name` (for `--from`).
pub fn by_name(name: &str) -> Option<&'static dyn Importer> {
    IMPORTERS.iter().copied().find(|i| i.name() == name)
}

/// Names of every importer, comma-separated.
pub fn names() -> String {
    let n: Vec<&str> = IMPORTERS.iter().map(|i| i.name()).collect();
    n.join(", ")
}

/// Parse `bytes` of `file` with `from`, or with the first importer that recognises them.
pub fn parse(file: &str, bytes: &[u8], from: Option<&dyn Importer>) -> Result<Parsed, ImportError> {
    let importer = match from {
        Some(i) => i,
        None => IMPORTERS
            .iter()
            .copied()
            .find(|i| i.detect(bytes))
            .ok_or_else(|| ImportError::Unrecognised { file: file.into() })?,
    };
    importer
        .parse(bytes)
        .map_err(|message| ImportError::Malformed {
            file: file.into(),
            message,
        })
}

/// Parse fio's JSON `bytes` of `file` as the job-file workload `workload` (`fio:FILE`, see
/// `fio_job`): each reporting group's metrics under the names a native run gives them.
pub fn parse_fio_job(file: &str, bytes: &[u8], workload: &str) -> Result<Parsed, ImportError> {
    fio_job::parse(bytes, workload).map_err(|message| ImportError::Malformed {
        file: file.into(),
        message,
    })
}

/// A value with no timing of its own (the tool reported only the figure).
pub(crate) fn value(v: f64) -> Reading {
    Reading::Value(Sample {
        repeat: 0,
        value: v,
        elapsed_s: 0.0,
        user_s: 0.0,
        sys_s: 0.0,
        cpu_pct: 0.0,
        device_io: None,
        cache: None,
        ranks: Vec::new(),
    })
}

/// What one import is called and where its column goes.
pub struct Labels<'a> {
    /// The run's name (suite field), e.g. "fio-nvme".
    pub label: &'a str,
    /// Target column label; default: the tool's name.
    pub target: Option<&'a str>,
    /// RFC 3339 time of the import.
    pub imported_at: &'a str,
}

/// Units of the imported parameters, as the native workload of that name declares them, so
/// sizes read as the user would type them beside a native run.
fn param_units(
    workload: &str,
    params: &std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    let Some(w) = crate::workload::find(workload) else {
        return Default::default();
    };
    params
        .keys()
        .filter(|k| {
            w.params()
                .iter()
                .any(|s| s.name == k.as_str() && s.kind == crate::params::ParamKind::Bytes)
        })
        .map(|k| (k.clone(), crate::model::BYTES.to_string()))
        .collect()
}

/// The run record of `files` (name, parsed content), one repeat per file, in order.
pub fn build_record(files: &[(String, Parsed)], labels: &Labels) -> Result<RunRecord, ImportError> {
    let (first_name, first) = files.first().ok_or_else(|| ImportError::Malformed {
        file: "(none)".into(),
        message: "no file given".into(),
    })?;
    for (name, p) in &files[1..] {
        same_run(first_name, first, name, p)?;
    }
    let target = labels.target.unwrap_or(first.tool).to_string();
    let workload = WorkloadPlan {
        name: first.workload.clone(),
        params: first.params.clone(),
        param_units: param_units(&first.workload, &first.params),
        metrics: first.metrics.iter().map(|(m, _)| m.clone()).collect(),
    };
    let cells = first
        .metrics
        .iter()
        .enumerate()
        .map(|(i, (spec, _))| {
            cell(
                &target,
                first,
                spec,
                files.iter().map(|(_, p)| &p.metrics[i].1),
            )
        })
        .collect();
    Ok(RunRecord {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo {
            name: first.tool.into(),
            version: first.version.clone(),
        },
        started: first
            .started
            .clone()
            .unwrap_or_else(|| labels.imported_at.into()),
        finished: Some(labels.imported_at.into()),
        interrupted: false,
        host: HostInfo {
            hostname: first.hostname.clone(),
            ..Default::default()
        },
        plan: PlanInfo {
            suite: labels.label.into(),
            scale: String::new(),
            repeat: files.len() as u32,
            aggregate: fsbattery_stats::Aggregate::Mean,
            pause_secs: 0.0,
            method: format!("imported:{}", first.tool),
            workloads: vec![workload],
            rows: Vec::new(),
            datasets: Vec::new(),
            skipped_targets: Vec::new(),
            // The import's name is recorded as its suite; `report` names the run by its
            // directory, as for a native run without `--label`.
            label: None,
            repeat_auto: None,
            age: None,
            cache: None,
            settings: None,
            weights: Default::default(),
        },
        targets: vec![TargetRecord {
            label: target.clone(),
            spec: format!("imported:{}", first.tool),
            capabilities: Capabilities::default(),
            ..Default::default()
        }],
        cells,
        source: Some(ImportSource {
            tool: first.tool.into(),
            version: first.version.clone(),
            files: files.iter().map(|(n, _)| n.clone()).collect(),
            imported_at: labels.imported_at.into(),
        }),
        summary: Vec::new(),
        published: None,
        then_and_now: None,
        composite: None,
        parts: Vec::new(),
    })
}

/// Refuse a file that does not repeat the first one's tool, workload, parameters and metrics.
fn same_run(first_name: &str, first: &Parsed, name: &str, p: &Parsed) -> Result<(), ImportError> {
    let mismatch = |what: String| ImportError::Mismatch {
        first: first_name.into(),
        file: name.into(),
        what,
    };
    if (p.tool, &p.workload) != (first.tool, &first.workload) {
        let (a, b) = (
            format!("{} {}", first.tool, first.workload),
            format!("{} {}", p.tool, p.workload),
        );
        return Err(mismatch(format!("tool and workload {a} vs {b}")));
    }
    let keys: std::collections::BTreeSet<&String> =
        first.params.keys().chain(p.params.keys()).collect();
    for k in keys {
        let (a, b) = (first.params.get(k), p.params.get(k));
        if a != b {
            let show = |v: Option<&String>| v.cloned().unwrap_or_else(|| "absent".into());
            return Err(mismatch(format!("{k} {} vs {}", show(a), show(b))));
        }
    }
    let names =
        |q: &Parsed| -> Vec<String> { q.metrics.iter().map(|(m, _)| m.name.clone()).collect() };
    if names(first) != names(p) {
        return Err(mismatch("the metrics reported".into()));
    }
    Ok(())
}

/// One cell from the readings of every file: measured where all have a value, else missing
/// with the first reason (a mean over the files that happened to print one would mislead).
fn cell<'a>(
    target: &str,
    first: &Parsed,
    spec: &MetricSpec,
    readings: impl Iterator<Item = &'a Reading>,
) -> Cell {
    let mut samples = Vec::new();
    let mut status = CellStatus::Ok;
    for (i, r) in readings.enumerate() {
        match r {
            Reading::Value(s) => samples.push(Sample {
                repeat: i as u32,
                ..s.clone()
            }),
            Reading::Missing(reason) => {
                if status == CellStatus::Ok {
                    status = CellStatus::Missing {
                        reason: format!("file {}: {reason}", i + 1),
                    };
                }
            }
        }
    }
    if status != CellStatus::Ok {
        samples.clear();
    }
    Cell {
        target: target.into(),
        workload: first.workload.clone(),
        metric: spec.name.clone(),
        unit: spec.unit.clone(),
        better: spec.better,
        comparable: spec.comparable,
        method: format!("imported:{}", first.tool),
        status,
        samples,
        stats: None,
    }
}

#[cfg(test)]
mod tests;

//! `run --resume DIR`: continue an interrupted run in its own directory. A run keeps its
//! command line (and working directory) in `command.json` beside its journal; resuming parses
//! it again, rebuilds the plan, and refuses in one line (exit 2) when that plan, this binary or
//! this machine is not the one the journal began with, naming what differs. The journal is
//! then reopened (cut back to its last whole line) and the runner measures only what is
//! missing or failed.
//!
//! Invariants: nothing in the run directory is written before every check has passed; the
//! journal's lock keeps two resumes, or a resume and the run itself, from writing at once.

use crate::cli::{Cli, Command, RunArgs};
use clap::Parser;
use fsbattery_core::error::UsageError;
use fsbattery_core::journal::{self, Event, Journal};
use fsbattery_core::model::{HostInfo, PlanInfo, RunRecord, SCHEMA_VERSION};
use fsbattery_core::runner::{CheckedPlan, Prior};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The file, in a run directory, that keeps the command line the run was started with.
pub const COMMAND_FILE: &str = "command.json";

/// What `run --resume` needs to start the same run again.
#[derive(Serialize, Deserialize)]
struct Invocation {
    /// The working directory, which relative paths on the command line are relative to.
    cwd: PathBuf,
    /// The arguments after the program's name (`run ...`).
    args: Vec<String>,
}

/// Keep this process's command line in the run directory `dir` (just claimed). A failure is a
/// warning: the run goes on, it only cannot be resumed.
pub fn keep_command(dir: &Path) -> Result<(), String> {
    let inv = Invocation {
        cwd: std::env::current_dir().map_err(|e| e.to_string())?,
        args: std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
    };
    let json = serde_json::to_vec_pretty(&inv).map_err(|e| e.to_string())?;
    let path = dir.join(COMMAND_FILE);
    fsbattery_core::atomic::write(&path, &json).map_err(|e| format!("{}: {e}", path.display()))
}

fn refuse(dir: &Path, why: impl std::fmt::Display) -> anyhow::Error {
    UsageError::Invalid(format!("--resume {}: {why}", dir.display())).into()
}

/// The arguments of the run in `given` (its directory), with `--out` set to it, after moving
/// to the working directory it was started in; refused when there is nothing to continue.
pub fn prepare(given: &Path) -> anyhow::Result<RunArgs> {
    let dir = given
        .canonicalize()
        .map_err(|e| refuse(given, format!("no run directory there ({e})")))?;
    let journal_path = dir.join(journal::JOURNAL_FILE);
    if !journal_path.exists() {
        return Err(refuse(
            given,
            "holds no journal.jsonl, so no run to continue",
        ));
    }
    let text = std::fs::read(dir.join(COMMAND_FILE)).map_err(|_| {
        refuse(
            given,
            "no command.json: the run was started by an fsbattery without --resume; start it again with --out",
        )
    })?;
    let inv: Invocation = serde_json::from_slice(&text)
        .map_err(|e| refuse(given, format!("{COMMAND_FILE} is damaged ({e})")))?;
    let events = journal::read(&journal_path).map_err(|e| refuse(given, e))?;
    let record = journal::assemble(&events).map_err(|e| refuse(given, e))?;
    if finished(&record) {
        return Err(refuse(
            given,
            "the run finished with every cell measured: nothing to continue",
        ));
    }
    std::env::set_current_dir(&inv.cwd).map_err(|e| {
        refuse(
            given,
            format!("the run's working directory {} ({e})", inv.cwd.display()),
        )
    })?;
    let argv = std::iter::once("fsbattery".to_string()).chain(inv.args);
    let cli = Cli::try_parse_from(argv).map_err(|e| {
        refuse(
            given,
            format!(
                "its command line no longer parses: {}",
                first_line(&e.to_string())
            ),
        )
    })?;
    let Command::Run(mut args) = cli.command else {
        return Err(refuse(
            given,
            format!("{COMMAND_FILE} is not a `run` command"),
        ));
    };
    args.out = Some(dir);
    args.resume = None;
    Ok(args)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Every cell ok and complete, and the run ended by itself.
fn finished(rec: &RunRecord) -> bool {
    !rec.unfinished()
        && rec
            .cells
            .iter()
            .all(|c| c.status == fsbattery_core::model::CellStatus::Ok)
}

/// Whether the run in `dir` (which holds a journal) was cut short or left cells failed, and no
/// process is writing it now: `run` then says `--resume` would continue it.
pub fn resumable(dir: &Path) -> bool {
    let path = dir.join(journal::JOURNAL_FILE);
    // A run still going holds its journal's lock: that run is not interrupted.
    let free = std::fs::File::open(&path).is_ok_and(|f| f.try_lock_shared().is_ok());
    if !free {
        return false;
    }
    let Ok(events) = journal::read(&path) else {
        return false;
    };
    let Ok(rec) = journal::assemble(&events) else {
        return false;
    };
    dir.join(COMMAND_FILE).exists() && !finished(&rec)
}

/// Reopen the run's journal in `dir` once this plan, binary and machine are the run's: the
/// journal to continue and what it holds finished.
pub fn claim(dir: &Path, plan: &CheckedPlan, host: &HostInfo) -> anyhow::Result<(Journal, Prior)> {
    let (journal, events) = Journal::reopen(dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock => {
            refuse(dir, "the run (or another resume of it) is still going")
        }
        _ => anyhow::Error::new(e).context(format!("reopening the journal in {}", dir.display())),
    })?;
    let Some(Event::Start {
        schema_version,
        tool,
        host: then,
        plan: planned,
        ..
    }) = events.first()
    else {
        return Err(refuse(
            dir,
            "its journal does not begin with the run's start",
        ));
    };
    let version = env!("CARGO_PKG_VERSION");
    if *schema_version != SCHEMA_VERSION || tool.version != version {
        return Err(refuse(
            dir,
            format!(
                "the binary differs: the run was made by fsbattery {} (record version {schema_version}), this is {version} (record version {SCHEMA_VERSION}); continue it with that release",
                tool.version
            ),
        ));
    }
    if let Some(what) = machine_differs(then, host) {
        return Err(refuse(dir, format!("the machine differs: {what}")));
    }
    if let Some(what) = plan_differs(planned, &plan.info()) {
        return Err(refuse(
            dir,
            format!("the parameters differ: {what}; start a new run with --out"),
        ));
    }
    let labels = fsbattery_core::runner::unique_labels(&plan.targets);
    for ev in &events {
        if let Event::Target { target } = ev {
            if !labels.contains(&target.label) {
                return Err(refuse(
                    dir,
                    format!(
                        "the targets differ: the run measured {}, this plan has {}",
                        target.label,
                        labels.join(", ")
                    ),
                ));
            }
        }
    }
    let prior = Prior::from_events(&events);
    Ok((journal, prior))
}

/// The first of the facts that make a machine the same one that differs, said as then/now.
fn machine_differs(then: &HostInfo, now: &HostInfo) -> Option<String> {
    let facts = [
        ("host name", then.hostname.clone(), now.hostname.clone()),
        ("CPU", then.cpu_model.clone(), now.cpu_model.clone()),
        ("CPUs", then.cores.to_string(), now.cores.to_string()),
        (
            "memory",
            then.ram_bytes.to_string(),
            now.ram_bytes.to_string(),
        ),
        ("root", then.root.to_string(), now.root.to_string()),
    ];
    facts
        .into_iter()
        .find(|(_, a, b)| a != b)
        .map(|(what, a, b)| format!("{what} was {a}, now {b}"))
}

/// Where the plan recorded at the start and this one differ, as `path: then → now`; what the
/// run itself adds to the plan (datasets made, the memory cgroup entered) is left out.
fn plan_differs(then: &PlanInfo, now: &PlanInfo) -> Option<String> {
    let norm = |p: &PlanInfo| {
        let mut p = p.clone();
        p.datasets.clear();
        if let Some(c) = p.cache.as_mut() {
            c.memory = None;
        }
        serde_json::to_value(&p).unwrap_or(Value::Null)
    };
    let (then, now) = (norm(then), norm(now));
    // The workloads' parameters first: what the user changed, not the labels made of them.
    first_difference("plan.workloads", &then["workloads"], &now["workloads"])
        .or_else(|| first_difference("plan", &then, &now))
}

/// The first path at which `a` and `b` differ, with both values.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (va, vb) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                first_difference(&format!("{path}.{k}"), va, vb)
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(&format!("{path}[{i}]"), va, vb)),
        _ if a == b => None,
        _ => Some(format!("{path} was {}, now {}", short(a), short(b))),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.chars().count() > 60 {
        true => format!("{}…", s.chars().take(60).collect::<String>()),
        false => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_names_its_path_and_both_values() {
        let a =
            json!({"workloads": [{"name": "stream", "params": {"size": "64MiB"}}], "repeat": 3});
        let b =
            json!({"workloads": [{"name": "stream", "params": {"size": "128MiB"}}], "repeat": 3});
        assert_eq!(
            first_difference("plan", &a, &b).unwrap(),
            r#"plan.workloads[0].params.size was "64MiB", now "128MiB""#
        );
        assert_eq!(first_difference("plan", &a, &a), None);
        let c = json!({"workloads": [], "repeat": 3});
        assert!(first_difference("plan", &a, &c)
            .unwrap()
            .starts_with("plan.workloads was"));
    }

    #[test]
    fn a_different_machine_is_named() {
        let then = HostInfo {
            hostname: "a".into(),
            cores: 2,
            ..Default::default()
        };
        let now = HostInfo {
            cores: 4,
            ..then.clone()
        };
        assert_eq!(machine_differs(&then, &then), None);
        assert_eq!(machine_differs(&then, &now).unwrap(), "CPUs was 2, now 4");
    }
}

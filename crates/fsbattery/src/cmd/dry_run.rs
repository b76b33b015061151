//! `fsbattery run --dry-run`: the validated plan — targets (and the skipped defaults, why),
//! workloads with resolved parameters, cells, repeats — with the disk space each target needs
//! and an estimate of the wall time, then exit 0.
//!
//! Invariant: nothing is created, mounted, attached or written. Only what the core's
//! `plan::build` already does (parsing, reading /proc, statvfs) and reading earlier run records happens.

use crate::cli::RunArgs;
use fsbattery_core::model::RunRecord;
use fsbattery_core::params::Scale;
use fsbattery_core::plan::DryRun;
use fsbattery_core::runner::{unique_labels, Plan};
use fsbattery_core::units::format_bytes;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Rough wall seconds of one workload run (one repeat, one target) at each scale, used when
/// no earlier run of the same workloads is at hand. Measured (2026-11-23, 2-core VM, release
/// build): the default six-filesystem classic run at quick scale took 63 s for 72 workload
/// runs, mkfs and mount included, so 2 s is generous; standard and full are dominated by
/// 1 GiB files and ≥ 2 × RAM files and are rough guesses, said as such in the output.
pub(super) fn nominal_secs(scale: Scale) -> f64 {
    match scale {
        Scale::Quick => 2.0,
        Scale::Standard => 120.0,
        Scale::Full => 600.0,
    }
}

/// Print the plan `args` asked for (`dry`, the core's answer to them) to stdout.
pub fn dry_run(args: &RunArgs, dry: &DryRun) -> anyhow::Result<ExitCode> {
    fsbattery_core::targets::check_workdir(&args.workdir)?;
    let (data, no_default_why) = (dry.data_bytes(), dry.no_default_why());
    let mut out = String::new();
    let p = dry.plan();
    let set = &p.settings;
    writeln!(
        out,
        "plan: {}, scale {}, method {}, {}{}, aggregate {}",
        match args.suite {
            Some(_) => format!("suite {}", p.suite.name),
            None => format!("no suite ({} at their defaults)", p.suite.name),
        },
        p.scale,
        p.method_text(),
        fsbattery_record::repeats::describe(p.repeat, p.auto.as_ref()),
        p.age
            .map_or(String::new(), |a| format!(", {}", a.describe())),
        p.aggregate,
    )?;
    writeln!(
        out,
        "pause: {} before each timed phase",
        set.pause.describe()
    )?;
    let memory = p.memory.as_ref().map_or("no memory limit".into(), |m| {
        format!(
            "memory cgroup of {} ({}), loop targets with dio=on",
            fsbattery_core::units::format_bytes(m.limit_bytes),
            m.source
        )
    });
    writeln!(out, "cache: {}, {memory}", set.cache.describe())?;
    let shown = |n: &&String| n.starts_with("memory:") || n.starts_with("cache:");
    for n in p.notes.iter().filter(shown) {
        writeln!(out, "{n}")?;
    }
    targets(&mut out, p, args, data, no_default_why)?;
    workloads(&mut out, p)?;
    let targets = p.targets.len().max(1);
    let runs = targets * p.workloads.len() * p.repeat as usize;
    let metrics: usize = p
        .workloads
        .iter()
        .map(|w| w.workload.metrics(&w.params).len())
        .sum();
    writeln!(
        out,
        "cells: {targets} target(s) × {} workload(s) × {} repeat(s) = {runs} workload runs{}; \
         {} result cells ({metrics} metrics per target)",
        p.workloads.len(),
        p.repeat,
        if p.auto.is_some() { " at most" } else { "" },
        targets * metrics
    )?;
    writeln!(out, "time: {}", time_estimate(args, p, targets, runs))?;
    out.push_str("nothing was made, mounted or written (--dry-run)\n");
    crate::stdout::write(out)?;
    Ok(ExitCode::SUCCESS)
}

/// The targets with the space they need and the suite's mkfs/mount options each takes (or
/// the user's own instead), then the defaults left out and why.
fn targets(
    out: &mut String,
    p: &Plan,
    args: &RunArgs,
    data: u64,
    no_default_why: Option<&str>,
) -> std::fmt::Result {
    out.push_str("targets:\n");
    let labels = unique_labels(&p.targets);
    for (t, label) in p.targets.iter().zip(&labels) {
        let space = space(t.as_ref(), data);
        writeln!(out, "  {label:<12} {:<28} {space}", t.spec())?;
        for o in p
            .settings
            .fs_options
            .iter()
            .filter(|o| o.target == t.spec())
        {
            let value = if o.value.is_empty() {
                "(none)"
            } else {
                &o.value
            };
            writeln!(
                out,
                "  {:<12} {}={value} ({}; the suite's: {:?})",
                "", o.key, o.source, o.suite_value
            )?;
        }
    }
    if p.targets.is_empty() {
        writeln!(
            out,
            "  dir          a fresh directory under {} ({}); up to {} written",
            args.workdir.display(),
            no_default_why.unwrap_or("no default filesystem"),
            format_bytes(data)
        )?;
    }
    for s in &p.skipped {
        writeln!(out, "  {}", s.line())?;
    }
    Ok(())
}

/// The workloads with the parameters they will run with.
fn workloads(out: &mut String, p: &fsbattery_core::runner::Plan) -> std::fmt::Result {
    out.push_str("workloads:\n");
    for w in &p.workloads {
        let params = w.params.to_text(w.workload.params());
        let shown: Vec<String> = w
            .workload
            .params()
            .iter()
            .filter_map(|s| params.get(s.name).map(|_| (s, w.params.get(s.name))))
            .map(|(s, v)| format!("{}={}", s.name, s.show(v)))
            .collect();
        writeln!(out, "  {:<12} {}", w.workload.name(), shown.join(" "))?;
        let own = p.settings.workloads.iter();
        if let Some(s) = own.clone().find(|s| s.workload == w.workload.name()) {
            // The method is worth a line when someone chose it (suite or flag).
            if s.source != "default" {
                writeln!(out, "  {:<12} method {} ({})", "", s.method, s.source)?;
            }
            if let Some(n) = &s.note {
                writeln!(out, "  {:<12} note: {n}", "")?;
            }
        }
    }
    Ok(())
}

/// What a target needs on disk: loop images (sparse: the data written, at most the image
/// size), RAM for tmpfs, the data written for directories and devices.
fn space(t: &dyn fsbattery_core::targets::Target, data: u64) -> String {
    let opts = t.options();
    let kind = t.spec().split(':').next().unwrap_or("");
    let written = format!("up to {} written", format_bytes(data));
    let size = opts.get("size").and_then(|s| s.parse::<u64>().ok());
    // A target smaller than the data is worth saying before the run fails with ENOSPC.
    let small = match size {
        Some(s) if s < data => format!(
            " (its {} are smaller than the data: a workload may fail)",
            format_bytes(s)
        ),
        _ => String::new(),
    };
    match kind {
        "loop" => {
            let images = opts
                .get("devices")
                .and_then(|d| d.parse::<u64>().ok())
                .unwrap_or(1);
            let size = size.map(format_bytes).unwrap_or_else(|| "?".into());
            format!("{written}; {images} sparse image(s) of {size} in the work directory{small}")
        }
        _ if fsbattery_core::targets::fsinfo::in_memory(t) => {
            format!("{written}, in RAM{small}")
        }
        _ => written,
    }
}

/// Wall time: from the newest earlier run with the same scale and workloads when the results
/// directory holds one (its measured seconds scaled to this plan's targets and repeats),
/// else from the scale; pauses added either way.
fn time_estimate(args: &RunArgs, p: &Plan, targets: usize, runs: usize) -> String {
    let pauses = p.pause.as_secs_f64() * runs as f64;
    let names: Vec<&str> = p.workloads.iter().map(|w| w.workload.name()).collect();
    if let Some((dir, secs)) = earlier(args, &p.scale.to_string(), &names) {
        let total = secs * f64::from(p.repeat) * targets as f64 + pauses;
        return format!(
            "about {} (from the run in {}, scaled to {targets} target(s) × {} repeat(s){})",
            human(total),
            dir.display(),
            p.repeat,
            pause_note(pauses)
        );
    }
    let total = nominal_secs(p.scale) * runs as f64 + pauses;
    format!(
        "roughly {} (from the scale: ~{} s per workload run{}; no earlier run of these \
         workloads at this scale in {})",
        human(total),
        nominal_secs(p.scale),
        pause_note(pauses),
        results_root(args).display()
    )
}

fn pause_note(pauses: f64) -> String {
    if pauses > 0.0 {
        format!(", {} of pauses", human(pauses))
    } else {
        String::new()
    }
}

/// Where earlier runs are: beside `--out`, else in ./fsbattery-results.
fn results_root(args: &RunArgs) -> PathBuf {
    match args.out.as_deref().and_then(Path::parent) {
        Some(p) if p.as_os_str().is_empty() => PathBuf::from("."),
        Some(p) => p.to_path_buf(),
        None => PathBuf::from("fsbattery-results"),
    }
}

/// The newest run under the results directory with `scale` and every one of `names`, and the
/// seconds one target's single repeat of those workloads took there (mean over its targets).
fn earlier(args: &RunArgs, scale: &str, names: &[&str]) -> Option<(PathBuf, f64)> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(results_root(args))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|d| d.join("results.json").is_file())
        .collect();
    // Run directories are named by their start time; the newest sorts last.
    dirs.sort_by_key(|d| {
        std::fs::metadata(d.join("results.json"))
            .and_then(|m| m.modified())
            .ok()
    });
    dirs.into_iter().rev().find_map(|d| {
        let text = std::fs::read_to_string(d.join("results.json")).ok()?;
        let rec: RunRecord = serde_json::from_str(&text).ok()?;
        let secs = per_target_repeat(&rec, scale, names)?;
        Some((d, secs))
    })
}

/// Seconds of one repeat of `names` on one target of `rec`, if it ran them all at `scale`:
/// its wall time (setup and mkfs included) when it ran exactly these workloads, else the sum
/// of the measured phases of these workloads' cells.
fn per_target_repeat(rec: &RunRecord, scale: &str, names: &[&str]) -> Option<f64> {
    let has_all = names
        .iter()
        .all(|n| rec.plan.workloads.iter().any(|w| w.name == *n));
    if rec.plan.scale != scale || !has_all || rec.targets.is_empty() || rec.plan.repeat == 0 {
        return None;
    }
    let runs = f64::from(rec.plan.repeat) * rec.targets.len() as f64;
    if rec.plan.workloads.len() == names.len() && !rec.interrupted {
        if let Some(wall) = wall_secs(rec) {
            return Some(wall / runs);
        }
    }
    let total: f64 = rec
        .cells
        .iter()
        .filter(|c| names.contains(&c.workload.as_str()))
        .flat_map(|c| c.samples.iter().map(|s| s.elapsed_s))
        .sum();
    Some(total / runs)
}

/// From `started` to `finished` of a record, in seconds.
fn wall_secs(rec: &RunRecord) -> Option<f64> {
    let t = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    let (a, b) = (t(&rec.started)?, t(rec.finished.as_deref()?)?);
    let ms = (b - a).num_milliseconds();
    (ms >= 0).then(|| ms as f64 / 1000.0)
}

/// Seconds as "42 s", "3.5 min" or "1.2 h".
pub(super) fn human(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else if secs < 5400.0 {
        format!("{:.1} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}

//! `fsbattery list`: what exists — workloads with metrics and parameter defaults per scale,
//! shipped suites, target kinds.

use crate::cli::ListWhat;
use fsbattery_core::error::UsageError;
use fsbattery_core::model::MetricSpec;
use fsbattery_core::params::Scale;
use fsbattery_core::{suite, targets, workload};
use std::process::ExitCode;

/// Print the requested listing (everything when `what` is None); `name` picks one workload.
pub fn list(what: Option<ListWhat>, name: Option<&str>) -> anyhow::Result<ExitCode> {
    if let Some(ListWhat::Options) = what {
        crate::stdout::write(super::tune::list_options(name)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(ListWhat::FioOptions) = what {
        crate::stdout::write(fio_options())?;
        return Ok(ExitCode::SUCCESS);
    }
    if let (Some(n), Some(ListWhat::Suites)) = (name, &what) {
        crate::stdout::write(super::published_list::one_suite(n)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(n) = name {
        if !matches!(what, Some(ListWhat::Workloads)) {
            return Err(UsageError::Invalid(format!(
                "list {n}: a name is taken only by `fsbattery list workloads NAME` and \
                 `fsbattery list suites NAME` (and `fsbattery list options FS`)"
            ))
            .into());
        }
        let w = workload::find_or_refuse(n)?;
        crate::stdout::write(one_workload(w))?;
        return Ok(ExitCode::SUCCESS);
    }
    let all = what.is_none();
    if all || matches!(what, Some(ListWhat::Workloads)) {
        crate::stdout::write(workloads())?;
    }
    if all || matches!(what, Some(ListWhat::Suites)) {
        crate::stdout::write(suites()?)?;
    }
    if all || matches!(what, Some(ListWhat::Targets)) {
        crate::stdout::write(targets())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The fio options a job file may use (`--workload fio:FILE`), with what fsbattery does.
fn fio_options() -> String {
    use fsbattery_core::workload::fio::options::{ENGINES, OPTIONS};
    let mut out = String::from(
        "fio job-file options run by `--workload fio:FILE` (any other is refused, naming its \
         line):\n",
    );
    for o in OPTIONS {
        let name = match o.aliases {
            [] => o.name.to_string(),
            a => format!("{} ({})", o.name, a.join(", ")),
        };
        out.push_str(&format!("  {name:<36} {}\n", o.help));
    }
    let engines: Vec<String> = ENGINES.iter().map(|(f, e)| format!("{f}→{e}")).collect();
    out.push_str(&format!("\nioengine mapping: {}\n", engines.join(", ")));
    out.push_str(
        "also in values: ${ENV}, $ncpus, $mb_memory, $pagesize (with + - * /), and `include \
         FILE`\n",
    );
    out
}

fn workloads() -> String {
    let mut out = String::from("Workloads:\n");
    for w in workload::registry() {
        out.push_str(&one_workload(*w));
    }
    out.push('\n');
    out
}

/// One workload: summary, parameters with defaults per scale, metrics.
fn one_workload(w: &dyn workload::Workload) -> String {
    let ram = fsbattery_core::host::ram_bytes();
    let mut out = format!("\n  {}\n    {}\n", w.name(), w.summary());
    out.push_str("    parameters (quick / standard / full) [accepted values]:\n");
    for p in w.params() {
        let show = |s: Scale| p.show(p.default_at(s, ram));
        out.push_str(&format!(
            "      {:<10} {} / {} / {} [{}]  — {}{}\n",
            p.name,
            show(Scale::Quick),
            show(Scale::Standard),
            show(Scale::Full),
            p.range_text(),
            p.help,
            if p.full_twice_ram {
                " (full: at least 2 × RAM)"
            } else {
                ""
            }
        ));
    }
    out.push_str("    metrics (at the default parameters):\n");
    let params = fsbattery_core::params::Params::default_for(w.params());
    for (m, values) in families(w.metrics(&params)) {
        let dir = match m.better {
            fsbattery_stats::Better::Lower => "lower is better",
            fsbattery_stats::Better::Higher => "higher is better",
        };
        if values.is_empty() {
            out.push_str(&format!(
                "      {:<16} [{}, {dir}] {}\n",
                m.name, m.unit, m.help
            ));
        } else {
            let family = sweep_point(&m).map_or("", |(f, _)| f);
            out.push_str(&format!(
                "      {:<16} [{}, {dir}] for each of {} values: {}\n        e.g. {}\n",
                format!("{family}@…"),
                m.unit,
                values.len(),
                values.join(" "),
                m.help
            ));
        }
    }
    out
}

/// The swept quantity of a point (its metadata's `of`) and its swept value; `None` for a
/// metric without dimensions.
fn sweep_point(m: &MetricSpec) -> Option<(&str, u64)> {
    let meta = m.meta.as_ref()?;
    let dim = meta.dims.first()?;
    Some((meta.quantity(&m.name), dim.value))
}

/// Metrics with their families folded: the points of one sweep (iozone's 13 tests × record
/// sizes; the suite grammar's metric families) become one entry, the first member, with the
/// swept values in order; other metrics have no values.
fn families(metrics: Vec<MetricSpec>) -> Vec<(MetricSpec, Vec<String>)> {
    let mut out: Vec<(MetricSpec, Vec<String>)> = Vec::new();
    for m in metrics {
        let Some((family, value)) = sweep_point(&m) else {
            out.push((m, Vec::new()));
            continue;
        };
        let (family, value) = (family.to_string(), value.to_string());
        let same = |e: &&mut (MetricSpec, Vec<String>)| {
            sweep_point(&e.0).is_some_and(|(f, _)| f == family)
        };
        match out.iter_mut().find(|e| same(e)) {
            Some(e) => e.1.push(value),
            None => out.push((m, vec![value])),
        }
    }
    out
}

fn suites() -> anyhow::Result<String> {
    let mut out = String::from("Suites:\n");
    for p in suite::presets() {
        let s = suite::load(p.name)?;
        let aliases = if p.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", p.aliases.join(", "))
        };
        let pending = s.rows.iter().filter(|r| r.pending.is_some()).count();
        out.push_str(&format!(
            "\n  {}{aliases}\n    {}\n    {}\n    {} rows ({} pending), {} of {} repeats\n",
            p.name,
            s.title,
            s.description,
            s.rows.len(),
            pending,
            s.aggregate,
            s.repeat
        ));
        out.push_str(&format!("    {}\n", conditions(&s)));
    }
    out.push_str(&format!(
        "\n  without --suite: the workloads of {} (or --workload's) at their own defaults, \
         native,\n  cache tool, no pause; --suite NAME applies a preset's workloads and its \
         seed's conditions\n\n",
        suite::DEFAULT_SUITE
    ));
    Ok(out)
}

/// How the suite measures: "cache none, pause 10 s, seed memory 768MiB, mount options for *".
fn conditions(s: &suite::Suite) -> String {
    let cache = s
        .cache
        .map_or("tool (default)".to_string(), |c| c.to_string());
    let mut out = format!("cache {cache}, pause {} s", s.pauses.pause);
    if let Some(m) = s.seed_memory {
        out.push_str(&format!(
            ", seed memory {}",
            fsbattery_core::units::format_bytes(m)
        ));
    }
    if !s.fs_defaults.is_empty() {
        let names: Vec<&str> = s.fs_defaults.0.keys().map(String::as_str).collect();
        out.push_str(&format!(", mkfs/mount options for {}", names.join(" ")));
    }
    out
}

fn targets() -> String {
    let mut out = String::from("Target kinds:\n");
    for k in targets::kinds() {
        out.push_str(&format!("\n  {}\n    {}\n", k.grammar, k.help));
    }
    out.push_str("\nFilesystems on this machine:\n");
    for (fs, status) in targets::availability() {
        match status {
            Ok(()) => out.push_str(&format!("  {fs:<10} available\n")),
            Err(why) => out.push_str(&format!("  {fs:<10} {why}\n")),
        }
    }
    // The default filesystems come from the kinds table (`targets::default_specs`).
    let defaults: Vec<String> = targets::default_specs()
        .into_iter()
        .map(|s| s.strip_prefix("loop:").map_or(s.clone(), str::to_string))
        .collect();
    let (last, rest) = defaults.split_last().expect("the default targets");
    out.push_str(&format!(
        "\nWith no --target: as root with loop devices, each available filesystem among\n\
         {} and {last} on its own loop image; otherwise a fresh\n\
         directory under ./fsbattery-work, removed afterwards. A default that cannot be made\n\
         is skipped, said before the first mkfs and kept in the record; `fsbattery setup`\n\
         installs the tools the defaults need.\n",
        rest.join(", ")
    ));
    out
}

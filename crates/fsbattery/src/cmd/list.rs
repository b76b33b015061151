//! `fsbattery list`: what exists. Without a section, an index (one line per section with its
//! count); a section lists one line per item (workloads with what they measure and the tool
//! they follow, suites, target kinds); a NAME gives one item whole (a workload's parameters
//! with defaults per scale and its metrics, a suite's rows, a filesystem's tune options).

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
    if let Some(ListWhat::Kernels) = what {
        crate::stdout::write(super::vm_run::kernels())?;
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
    match what {
        None => crate::stdout::write(index()?)?,
        Some(ListWhat::Workloads) => crate::stdout::write(workloads())?,
        Some(ListWhat::Suites) => crate::stdout::write(suites()?)?,
        Some(ListWhat::Targets) => crate::stdout::write(targets())?,
        Some(ListWhat::Options | ListWhat::FioOptions | ListWhat::Kernels) => {
            unreachable!("answered above")
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `fsbattery list`: one line per section with its count and the command that opens it.
fn index() -> anyhow::Result<String> {
    let available = targets::availability()
        .into_iter()
        .filter(|(_, s)| s.is_ok())
        .count();
    let fio = fsbattery_core::workload::fio::options::OPTIONS.len();
    let lines = [
        (
            "workloads",
            format!(
                "{} workloads: what each measures and the tool it follows",
                workload::registry().len()
            ),
            "list workloads [NAME]",
        ),
        (
            "suites",
            format!(
                "{} presets: the studies, fio jobs, io500",
                suite::presets().len()
            ),
            "list suites [NAME]",
        ),
        (
            "targets",
            format!(
                "{} target kinds; {available} filesystems available here",
                targets::kinds().len()
            ),
            "list targets",
        ),
        (
            "options",
            format!(
                "mkfs and mount options `tune` searches, for {} filesystems",
                fsbattery_core::tune::shipped().len()
            ),
            "list options [FS]",
        ),
        (
            "fio-options",
            format!("{fio} fio job-file options `--workload fio:FILE` covers"),
            "list fio-options",
        ),
    ];
    let mut out = String::from("fsbattery list SECTION [NAME]:\n");
    for (name, what, cmd) in lines {
        out.push_str(&format!("  {name:<12} {what:<62} {cmd}\n"));
    }
    Ok(out)
}

/// The first clause of a one-line summary, at most `max` characters: what a workload
/// measures, without its seed references and details.
fn clause(text: &str, max: usize) -> String {
    let end = [";", " (", ": ", ". "]
        .iter()
        .filter_map(|p| text.find(p))
        .min()
        .unwrap_or(text.len());
    let short = text[..end].split_whitespace().collect::<Vec<_>>().join(" ");
    if short.chars().count() <= max {
        return short;
    }
    let cut: String = short.chars().take(max - 1).collect();
    format!("{}…", cut.trim_end())
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

/// One line per workload: its name, what it measures, the tool it follows.
fn workloads() -> String {
    let mut out =
        String::from("Workloads (`fsbattery list workloads NAME`: its parameters and metrics):\n");
    for w in workload::registry() {
        let reference = match w.reference() {
            "" => String::new(),
            r => format!(" — {r}"),
        };
        out.push_str(&format!(
            "  {:<12} {}{reference}\n",
            w.name(),
            clause(w.summary(), 84 - w.reference().len().min(40))
        ));
    }
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

/// Most repeats of an adapting preset (auto's default maximum).
const AUTO_MAX: u32 = fsbattery_record::repeats::AutoRepeat::DEFAULT_MAX;

/// One line per shipped suite: name, title, repeats.
fn suites() -> anyhow::Result<String> {
    let mut out = String::from(
        "Suites (`--suite NAME`; `fsbattery list suites NAME`: its rows and what it published):\n",
    );
    for p in suite::presets() {
        let s = suite::load(p.name)?;
        let aliases = match p.aliases {
            [] => String::new(),
            a => format!(" (also {})", a.join(", ")),
        };
        // A question's preset adapts its repeats; a study's repeats as the study did.
        let repeats = match s.adapt {
            true => format!(
                "{} of {}..{} until decided",
                s.aggregate, s.repeat, AUTO_MAX
            ),
            false => format!("{} of {}", s.aggregate, s.repeat),
        };
        out.push_str(&format!(
            "  {:<14} {} — {repeats}{aliases}\n",
            p.name,
            clause(&s.title, 48),
        ));
    }
    out.push_str(&format!(
        "without --suite: the workloads of {} (or --workload's) at their own defaults\n",
        suite::DEFAULT_SUITE
    ));
    Ok(out)
}

fn targets() -> String {
    let mut out = String::from("Target kinds (`--target SPEC`):\n");
    for k in targets::kinds() {
        out.push_str(&format!("  {}\n      {}\n", k.grammar, k.help));
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

//! `fsbattery list`: what exists — workloads with metrics and parameter defaults per scale,
//! shipped suites, target kinds.

use crate::cli::ListWhat;
use fsbattery_core::params::Scale;
use fsbattery_core::{suite, target, workload};
use std::process::ExitCode;

/// Print the requested listing (everything when `what` is None).
pub fn list(what: Option<ListWhat>) -> anyhow::Result<ExitCode> {
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

fn workloads() -> String {
    let ram = fsbattery_core::host::ram_bytes();
    let mut out = String::from("Workloads:\n");
    for w in workload::registry() {
        out.push_str(&format!("\n  {}\n    {}\n", w.name(), w.summary()));
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
        out.push_str("    metrics:\n");
        let params = fsbattery_core::params::Params::default_for(w.params());
        for m in w.metrics(&params) {
            let dir = match m.better {
                fsbattery_stats::Better::Lower => "lower is better",
                fsbattery_stats::Better::Higher => "higher is better",
            };
            out.push_str(&format!(
                "      {:<16} [{}, {dir}] {}\n",
                m.name, m.unit, m.help
            ));
        }
    }
    out.push('\n');
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
    }
    out.push_str(&format!("\n  default: {}\n\n", suite::DEFAULT_SUITE));
    Ok(out)
}

fn targets() -> String {
    let mut out = String::from("Target kinds:\n");
    for k in target::kinds() {
        out.push_str(&format!("\n  {}\n    {}\n", k.grammar, k.help));
    }
    out.push_str("\nFilesystems on this machine:\n");
    for (fs, status) in target::availability() {
        match status {
            Ok(()) => out.push_str(&format!("  {fs:<10} available\n")),
            Err(why) => out.push_str(&format!("  {fs:<10} {why}\n")),
        }
    }
    out.push_str(
        "\nWith no --target: as root with loop devices, each available filesystem among\n\
         ext2, ext3, ext4, xfs, btrfs and tmpfs on its own loop image; otherwise a fresh\n\
         directory under ./fsbattery-work, removed afterwards. A default that cannot be made\n\
         is skipped, said before the first mkfs and kept in the record; `fsbattery setup`\n\
         installs the tools the defaults need.\n",
    );
    out
}

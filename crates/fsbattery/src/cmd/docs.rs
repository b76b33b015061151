//! `fsbattery completions SHELL` and `fsbattery man [SUBCOMMAND]`: generated from the clap
//! definitions in `cli`, so they never drift from the parser. Written to stdout; nothing else.

use crate::cli::Cli;
use clap::CommandFactory;
use fsbattery_core::error::UsageError;
use std::process::ExitCode;

/// The completion script for `shell`, offering workload, suite and target names.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut cmd = super::candidates::with_candidates(Cli::command());
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "fsbattery", &mut buf);
    crate::stdout::write(buf)?;
    Ok(ExitCode::SUCCESS)
}

/// The man page of the tool, or `fsbattery-SUB(1)` for one subcommand.
pub fn man(subcommand: Option<&str>) -> anyhow::Result<ExitCode> {
    let mut cmd = Cli::command();
    cmd.build();
    let page = match subcommand {
        // The NAME line is "fsbattery - ABOUT": the about without the name it would repeat.
        None => cmd.about(
            "a filesystem benchmark suite: make, mount, measure and compare Linux filesystems",
        ),
        Some(name) => {
            let names: Vec<String> = cmd
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let sub = cmd.find_subcommand(name).cloned().ok_or_else(|| {
                UsageError::Invalid(format!(
                    "man {name}: no such subcommand; choose one of {}",
                    names.join(", ")
                ))
            })?;
            // Named fsbattery-SUB(1), as git's pages are.
            let full = format!("fsbattery-{}", sub.get_name());
            sub.display_name(full)
        }
    };
    let mut buf = Vec::new();
    clap_mangen::Man::new(page).render(&mut buf)?;
    crate::stdout::write(buf)?;
    Ok(ExitCode::SUCCESS)
}

//! Subcommands: each turns parsed arguments into work and an exit status.

mod candidates;
mod cleanup;
mod compare;
mod docs;
mod dry_run;
mod import;
mod list;
mod outputs;
mod plan;
mod plan_settings;
mod preset_line;
mod ranks;
pub use ranks::Quiet;
mod record;
mod report;
mod run;
mod setup;
mod source_disk;
mod trial_mount;
pub use trial_mount::TargetRefused;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Run the chosen subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::List { what, name } => list::list(what, name.as_deref()),
        Command::Report(args) => report::report(args),
        Command::Compare(args) => compare::compare(args),
        Command::Import(args) => import::import(args),
        Command::Cleanup { workdir } => cleanup::cleanup(&workdir),
        Command::Setup(args) => setup::setup(args),
        Command::Completions { shell } => docs::completions(shell),
        Command::Man { subcommand } => docs::man(subcommand.as_deref()),
    }
}

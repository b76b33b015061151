//! Subcommands: each turns parsed arguments into work and an exit status.

mod candidates;
mod cleanup;
mod compare;
mod docs;
mod dry_run;
mod history;
mod import;
mod launch;
mod list;
mod made_workdir;
mod outputs;
mod preset_line;
mod published_list;
mod ranks;
pub use ranks::Quiet;
mod record;
mod report;
mod resume;
mod run;
mod setup;
mod site;
mod store;
pub use store::EXIT_STORE;
mod source_disk;
mod trial_mount;
mod tune;
mod vm_guest;
mod vm_kernels;
mod vm_run;
pub use trial_mount::TargetRefused;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Run the chosen subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => launch::run(args),
        Command::Tune(args) => tune::tune(args),
        Command::List { what, name } => list::list(what, name.as_deref()),
        Command::Report(args) => report::report(args),
        Command::Compare(args) => compare::compare(args),
        Command::Import(args) => import::import(args),
        Command::Cleanup { workdir } => cleanup::cleanup(&workdir),
        Command::Setup(args) => setup::setup(args),
        Command::Store(args) => store::store(args),
        Command::History(args) => history::history(args),
        Command::Site(args) => site::site(args),
        Command::Completions { shell } => docs::completions(shell),
        Command::Man { subcommand } => docs::man(subcommand.as_deref()),
    }
}

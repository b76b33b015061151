//! fsbattery: make, mount, measure and compare Linux filesystems, as the classic studies did.
//!
//! `main` stays thin: parse, dispatch, turn errors into one clear line and a distinct exit
//! status (2 bad input, 3 a cell failed, 4 a regression, 5 setup needs
//! the user to install something, 6 cleanup refused something, 130 interrupted, 1 anything else; 0
//! when stdout's reader went away, see `stdout`).

mod cli;
mod cmd;
mod progress;
mod stdout;

use clap::Parser;
use fsbattery_core::error::{UsageError, EXIT_RUNTIME, EXIT_USAGE};
use std::process::ExitCode;

fn main() -> ExitCode {
    // First thing: from here on SIGINT/SIGTERM only raise a flag, so no resource can be made
    // between start-up and the handlers.
    if let Err(e) = fsbattery_core::interrupt::install() {
        eprintln!("fsbattery: error: installing signal handlers: {e}");
        return ExitCode::from(EXIT_RUNTIME);
    }
    let cli = cli::Cli::parse();
    match cmd::dispatch(cli) {
        Ok(code) => code,
        // The reader of stdout went away (`| head`): nothing to say, nothing went wrong.
        Err(e) if e.is::<stdout::Closed>() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fsbattery: error: {e:#}");
            if e.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_RUNTIME)
            }
        }
    }
}

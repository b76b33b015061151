//! fsbattery: make, mount, measure and compare Linux filesystems, as the classic studies did.
//!
//! `main` stays thin: parse, dispatch, turn errors into one clear line and a distinct exit
//! status (2 bad input, 3 a cell failed, 4 a regression, 5 setup needs
//! the user to install something, 6 cleanup refused something, 8 the results store is damaged or locked, 130 interrupted, 1 anything else; 0
//! when stdout's reader went away, see `stdout`).
#![forbid(unsafe_code)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod cli;
mod cmd;
mod progress;
mod stderr;
mod stdout;
mod width;

use clap::error::ErrorKind;
use clap::Parser;
use fsbattery_core::error::{UsageError, EXIT_RUNTIME, EXIT_USAGE};
use std::process::ExitCode;
use stderr::errln;

fn main() -> ExitCode {
    // In a `vm:` target's guest, fsbattery is PID 1: it runs the guest's job and powers off.
    if fsbattery_core::targets::vm::guest::is_guest() {
        fsbattery_core::targets::vm::guest::init();
    }
    // First thing: from here on SIGINT/SIGTERM only raise a flag, so no resource can be made
    // between start-up and the handlers.
    if let Err(e) = fsbattery_core::interrupt::install() {
        eprintln!("fsbattery: error: installing signal handlers: {e}");
        return ExitCode::from(EXIT_RUNTIME);
    }
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(e),
    };
    match cmd::dispatch(cli) {
        Ok(code) => code,
        // The reader of stdout went away (`| head`): nothing to say, nothing went wrong.
        Err(e) if e.is::<stdout::Closed>() => ExitCode::SUCCESS,
        // Under mpirun, rank 0 has said it for every rank.
        Err(e) if e.is::<cmd::Quiet>() => match e.downcast_ref::<cmd::Quiet>() {
            Some(cmd::Quiet(true)) => ExitCode::from(EXIT_USAGE),
            _ => ExitCode::from(EXIT_RUNTIME),
        },
        Err(e) if e.is::<cmd::TargetRefused>() => {
            errln!("fsbattery: error: {e:#}");
            ExitCode::from(fsbattery_core::error::EXIT_TARGET_REFUSED)
        }
        Err(e) if e.is::<fsbattery_store::StoreError>() => {
            errln!("fsbattery: error: {e:#}");
            ExitCode::from(cmd::EXIT_STORE)
        }
        Err(e) => {
            errln!("fsbattery: error: {e:#}");
            if e.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_RUNTIME)
            }
        }
    }
}

/// clap's help and version as clap prints them; its errors as one line and exit 2, like every
/// other usage error (clap's own rendering spans several lines: error, hints, usage).
fn clap_exit(e: clap::Error) -> ExitCode {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE));
    }
    errln!("fsbattery: error: {}", one_line(&e.render().to_string()));
    ExitCode::from(EXIT_USAGE)
}

/// clap's rendered error without its usage and "For more information" lines, on one line.
fn one_line(rendered: &str) -> String {
    let kept: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .collect();
    let text = kept.join(" ");
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    format!("{text} (see --help)")
}

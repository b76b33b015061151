//! Every `fsbattery ...` command line in README.md's code blocks is one the current binary
//! takes, so the front door never shows a command that has drifted from the code.
//!
//! How a command is checked depends on what it can do without measuring:
//! - `run` and `tune` have `--dry-run`, which builds and validates the whole plan (targets,
//!   workloads, parameters, suites, tools) and touches nothing: each must exit 0 with it.
//! - `run --resume DIR` takes no other flag (clap's `exclusive`), so it has no dry run; the
//!   others (`list`, `report`, `history`, `site`, `setup`, ...) do no measuring. These run as
//!   written in a scratch directory with a scratch results store, and must not fail to parse:
//!   no clap usage error (main renders every clap error as one line ending "(see --help)").
//!   A missing run directory may fail them; a renamed flag or value may not.
//!
//! - `/dev/sdX` stands for the reader's own device: its dry run gets as far as probing the
//!   device and must fail there and nowhere else (the message names /dev/sdX, no usage error).
//!
//! The scratch directory holds a link to the repository's `suites/`, so a README command may
//! name a shipped file (`fio:suites/fio/oltp.fio`) and work as written from a checkout.

mod common;
use common::*;
use std::path::{Path, PathBuf};

/// The repository root (README.md, suites/).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `fsbattery` command lines inside README.md's fenced code blocks, continuation lines
/// joined and trailing `# comments` dropped.
fn readme_commands(readme: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        let code = match line.find(" #") {
            Some(i) => &line[..i],
            None => line,
        };
        pending.push_str(code.trim_end().trim_end_matches('\\'));
        pending.push(' ');
        if code.trim_end().ends_with('\\') {
            continue;
        }
        let whole = std::mem::take(&mut pending);
        let whole = whole.trim();
        if whole.starts_with("fsbattery ") {
            commands.push(whole.to_string());
        }
    }
    commands
}

/// Split a command line into words: whitespace-separated, single or double quotes kept
/// together (the README uses no other shell syntax in these lines).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        out.push(word);
    }
    out
}

#[test]
fn the_commands_are_found() {
    let found = readme_commands(
        "```sh\nfsbattery run --a 'b c' \\\n  --d  # note\nls\n```\nfsbattery no\n",
    );
    assert_eq!(found, ["fsbattery run --a 'b c'    --d"]);
    assert_eq!(words(&found[0]), ["fsbattery", "run", "--a", "b c", "--d"]);
}

#[test]
fn every_readme_command_parses() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.lines().count() <= 250,
        "README.md has {} lines; the front door keeps to 250",
        readme.lines().count()
    );
    let commands = readme_commands(&readme);
    assert!(
        commands.len() >= 10,
        "only {} commands found",
        commands.len()
    );
    let scratch = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo().join("suites"), scratch.path().join("suites")).unwrap();
    let data = data_home("readme-commands");
    let mut failures = Vec::new();
    for line in &commands {
        let mut args = words(line);
        args.remove(0);
        let dry =
            matches!(args[0].as_str(), "run" | "tune") && !args.iter().any(|a| a == "--resume");
        if dry {
            args.push("--dry-run".into());
        }
        let o = bin()
            .args(&args)
            .current_dir(scratch.path())
            .env("XDG_DATA_HOME", &data)
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        let err = stderr(&o);
        let bad = if dry && line.contains("/dev/sdX") {
            code(&o) == 0 || !err.contains("/dev/sdX: No such file") || err.contains("(see --help)")
        } else if dry {
            code(&o) != 0
        } else {
            err.contains("(see --help)")
        };
        if bad {
            failures.push(format!("{line}\n  exit {}: {}", code(&o), err.trim()));
        }
    }
    assert!(
        failures.is_empty(),
        "README commands the binary refuses:\n{}",
        failures.join("\n")
    );
}

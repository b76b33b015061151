//! `fsbattery completions SHELL` and `fsbattery man`: generated from the clap definitions,
//! and each parses in the program that reads it (bash -n, zsh -n, fish --no-execute, groff
//! with every warning on). A missing shell or groff skips, or fails with
//! FSBATTERY_REQUIRE_PRIVILEGED=1 (`fsbattery setup --tests` installs them).

mod common;
use common::*;
use std::io::Write;
use std::process::{Command, Stdio};

/// Whether `program` is on PATH; panics instead of skipping when CI requires every tool.
fn have(program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
            panic!("{program} is needed (FSBATTERY_REQUIRE_PRIVILEGED=1): fsbattery setup --tests");
        }
        eprintln!("skipped: {program} is not installed");
    }
    found
}

/// stdout of `fsbattery ARGS`, which must succeed.
fn generated(args: &[&str]) -> Vec<u8> {
    let o = bin().args(args).output().unwrap();
    assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
    assert!(!o.stdout.is_empty(), "{args:?} printed nothing");
    o.stdout
}

/// Feed `input` to `program ARGS` on stdin; its status and stderr.
fn check_with(program: &str, args: &[&str], input: &[u8]) -> (bool, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let o = child.wait_with_output().unwrap();
    (o.status.success(), stderr(&o))
}

#[test]
fn completions_parse_in_their_shells() {
    for (shell, program, args) in [
        ("bash", "bash", &["-n"][..]),
        ("zsh", "zsh", &["-n"]),
        ("fish", "fish", &["--no-execute"]),
    ] {
        let script = generated(&["completions", shell]);
        let text = String::from_utf8_lossy(&script);
        assert!(
            text.contains("dry-run") && text.contains("setup"),
            "{shell}"
        );
        if have(program) {
            let (ok, err) = check_with(program, args, &script);
            assert!(ok && err.is_empty(), "{shell}: {err}");
        }
    }
}

#[test]
fn man_pages_render_without_warnings() {
    let mut pages = vec![generated(&["man"])];
    for sub in ["run", "report", "compare", "setup"] {
        pages.push(generated(&["man", sub]));
    }
    assert!(String::from_utf8_lossy(&pages[1]).contains(".TH fsbattery-run 1"));
    if have("groff") {
        for page in &pages {
            // -k: the page is UTF-8 (×, —); -ww: every warning; -z: no output.
            let (ok, err) = check_with("groff", &["-k", "-man", "-Tutf8", "-ww", "-z"], page);
            assert!(ok && err.is_empty(), "{err}");
        }
    }
}

#[test]
fn man_of_an_unknown_subcommand_is_one_line_and_exit_2() {
    let o = bin().args(["man", "nope"]).output().unwrap();
    assert_eq!(code(&o), 2);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

/// Completion offers workload, suite, target, metric and format names: bash, with the
/// generated script sourced, completes `--workload met`, `--suite pis`, `--target loop:x` and
/// `list workloads ran`, the same for `tune`, `report --then prol`, `history --metric` and
/// `run --format`; zsh and fish scripts hold the same names.
#[test]
fn completion_offers_workload_suite_and_target_names() {
    for shell in ["zsh", "fish"] {
        let text = String::from_utf8(generated(&["completions", shell])).unwrap();
        for name in ["randomio", "piszcz2006", "loop:btrfs"] {
            // zsh escapes the colon of "loop:btrfs".
            let zsh = name.replace(':', "\\:");
            assert!(
                text.contains(name) || text.contains(&zsh),
                "{shell}: {name}"
            );
        }
    }
    if !have("bash") {
        return;
    }
    let script = format!(
        "source <({} completions bash)\n\
         comp() {{ COMP_WORDS=(\"$@\"); COMP_CWORD=$(($#-1)); COMP_LINE=\"$*\"; \
         COMP_POINT=${{#COMP_LINE}}; COMPREPLY=(); \
         _fsbattery fsbattery \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; \
         echo \"${{COMPREPLY[*]}}\"; }}\n\
         comp fsbattery run --workload met\n\
         comp fsbattery run --suite pis\n\
         comp fsbattery run --target loop:x\n\
         comp fsbattery list workloads ran\n\
         comp fsbattery tune --workload met\n\
         comp fsbattery tune --target loop:x\n\
         comp fsbattery report --then prol\n\
         comp fsbattery history --metric touch_f\n\
         comp fsbattery run --format mark\n",
        env!("CARGO_BIN_EXE_fsbattery")
    );
    let o = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert_eq!(
        stdout(&o).lines().collect::<Vec<_>>(),
        [
            "metadata",
            "piszcz2006",
            "loop:xfs",
            "randomio",
            "metadata",
            "loop:xfs",
            "prolinux2013",
            "touch_files",
            "markdown"
        ],
        "{}",
        stderr(&o)
    );
}

//! Issue 10: a fresh machine. `fsbattery setup` says what it installs (or that nothing is
//! missing), prints the exact command when it cannot install; a default filesystem that cannot
//! be made is reported before the first mkfs and kept in the record; a typo in a filesystem
//! name is called unknown.
//!
//! A missing tool is simulated without touching the machine: the binary runs in a private
//! mount namespace (`unshare --mount`) where /dev/null is bound over the tool, so neither PATH
//! nor the sbin directories find it. Those tests need root, loop devices and unshare; they
//! skip with the reason, or fail under FSBATTERY_REQUIRE_PRIVILEGED=1.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

/// Whether the namespace tests can run; panics instead of skipping when CI requires them.
fn privileged() -> bool {
    let mut missing = Vec::new();
    if !nix::unistd::geteuid().is_root() {
        missing.push("root");
    }
    if !Path::new("/dev/loop-control").exists() {
        missing.push("/dev/loop-control");
    }
    if Command::new("unshare").arg("--version").output().is_err() {
        missing.push("unshare");
    }
    if missing.is_empty() {
        return true;
    }
    let msg = format!("setup test needs {}", missing.join(", "));
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("{msg} (FSBATTERY_REQUIRE_PRIVILEGED=1)");
    }
    eprintln!("skipped: {msg}");
    false
}

/// Run `argv` (a program and its arguments) in `cwd` inside a private mount namespace where
/// each of `hide` (program names) is covered by /dev/null, so it is not found.
fn without(hide: &[&str], cwd: &Path, argv: &[&str]) -> Output {
    let script = r#"n=$1; shift
        while [ "$n" -gt 0 ]; do
          p=$(command -v "$1" || echo "/usr/sbin/$1"); p=$(readlink -f "$p")
          [ -e "$p" ] && mount --bind /dev/null "$p"
          shift; n=$((n-1))
        done
        exec "$@""#;
    Command::new("unshare")
        .args(["--mount", "sh", "-c", script, "sh"])
        .arg(hide.len().to_string())
        .args(hide)
        .args(argv)
        .current_dir(cwd)
        // Runs add to a results store: the tests' own, never the developer's.
        .env("XDG_DATA_HOME", common::data_home("xdg-data"))
        .env(
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        )
        .output()
        .expect("spawn unshare")
}

fn is_debian_family() -> bool {
    std::fs::read_to_string("/etc/os-release").is_ok_and(|t| {
        fsbattery_core::packages::family_from_os_release(&t)
            == fsbattery_core::packages::Family::Apt
    })
}

const BIN: &str = env!("CARGO_BIN_EXE_fsbattery");
const NOBODY: [&str; 4] = [
    "setpriv",
    "--reuid=65534",
    "--regid=65534",
    "--clear-groups",
];

#[test]
fn nothing_needed_is_nothing_to_do_even_without_root() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", dir.path().display());
    for mut cmd in [bin(), unprivileged()] {
        let o = cmd.args(["setup", "--target", &spec]).output().unwrap();
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(stdout(&o).contains("nothing to do"), "{}", stdout(&o));
    }
}

#[test]
fn a_typo_in_a_filesystem_name_is_unknown_not_a_missing_tool() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["setup", "--target", "loop:nosuchfs"],
        vec!["run", "--target", "loop:nosuchfs", "--workload", "split"],
    ] {
        // Unprivileged too: the name is checked before root is asked for.
        for mut cmd in [bin(), unprivileged()] {
            let o = cmd.current_dir(dir.path()).args(&args).output().unwrap();
            assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
            let e = stderr(&o);
            assert!(
                e.contains("unknown filesystem 'nosuchfs': known are ext2, ext3, ext4, xfs, btrfs"),
                "{e}"
            );
            assert!(!e.contains("mkfs.nosuchfs"), "{e}");
        }
    }
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn a_filesystem_the_kernel_lacks_says_so() {
    let proc = std::fs::read_to_string("/proc/filesystems").unwrap();
    let Some(fs) = ["jfs", "nilfs2", "reiserfs", "f2fs"]
        .into_iter()
        .find(|f| !proc.contains(&format!("\t{f}\n")))
    else {
        eprintln!("skipped: this kernel has jfs, nilfs2, reiserfs and f2fs");
        return;
    };
    let spec = format!("loop:{fs}");
    let modules = std::fs::read_dir("/lib/modules").is_ok();
    if modules {
        eprintln!("skipped: /lib/modules exists, {fs} may be a loadable module");
        return;
    }
    for sub in ["setup", "run"] {
        let o = bin().args([sub, "--target", &spec]).output().unwrap();
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "this kernel cannot mount {fs} (not in /proc/filesystems, no module"
            )),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn setup_names_what_it_would_install_and_the_exact_command_when_not_root() {
    if !privileged() || !is_debian_family() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = without(
        &["mkfs.xfs", "cpio"],
        dir.path(),
        &[BIN, "setup", "--dry-run"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "fsbattery setup: missing: mkfs.xfs\n\
         fsbattery setup: would install xfsprogs: apt-get update && apt-get install -y \
         --no-install-recommends xfsprogs\n"
    );
    let o = without(
        &["mkfs.xfs", "cpio"],
        dir.path(),
        &[BIN, "setup", "--dry-run", "--method", "commands"],
    );
    assert!(
        stdout(&o).contains("would install xfsprogs cpio: "),
        "{}",
        stdout(&o)
    );
    let mut argv = NOBODY.to_vec();
    argv.extend([BIN, "setup"]);
    let o = without(&["mkfs.xfs"], dir.path(), &argv);
    assert_eq!(
        code(&o),
        5,
        "not root: exit 5 with the command; {}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains(
            "not root: run: sudo apt-get update && sudo apt-get install -y \
             --no-install-recommends xfsprogs"
        ),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_default_filesystem_that_cannot_be_made_is_reported_first_and_recorded() {
    if !privileged() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = without(
        &["mkfs.xfs"],
        dir.path(),
        &[
            BIN,
            "run",
            "--workload",
            "metadata",
            "--set",
            "metadata.files=20",
            "--repeat",
            "1",
            "--out",
            "r",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    let skip = err
        .find("loop:xfs skipped: mkfs.xfs not found; fix: fsbattery setup (")
        .unwrap_or_else(|| panic!("no skip line: {err}"));
    let first_progress = err.find("ext2").expect("progress names ext2");
    assert!(
        skip < first_progress,
        "skip line after the run began: {err}"
    );
    let rec = results(&dir.path().join("r"));
    let skipped = rec["plan"]["skipped_targets"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0]["spec"], "loop:xfs");
    assert_eq!(skipped[0]["reason"], "mkfs.xfs not found");
    assert!(skipped[0]["fix"]
        .as_str()
        .unwrap()
        .starts_with("fsbattery setup ("));
    let labels: Vec<&str> = rec["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["ext2", "ext3", "ext4", "btrfs", "tmpfs"]);
    assert!(stdout(&o).contains("skipped: loop:xfs: mkfs.xfs not found; fix: fsbattery setup"));
    let html = std::fs::read_to_string(dir.path().join("r/report.html")).unwrap();
    assert!(html.contains("<code>loop:xfs</code> <span class=\"warn\">skipped</span>"));
    // Explicitly asked for, the same filesystem is an error naming the fix.
    let o = without(
        &["mkfs.xfs"],
        dir.path(),
        &[BIN, "run", "--target", "loop:xfs", "--workload", "split"],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("mkfs.xfs not found: install xfsprogs (apt-get install"),
        "{}",
        stderr(&o)
    );
}

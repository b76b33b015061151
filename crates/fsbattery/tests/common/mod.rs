//! Helpers shared by the CLI tests: run the real binary as a process, read its run record.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The fsbattery binary built for these tests.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fsbattery"));
    c.env("XDG_DATA_HOME", data_home("xdg-data"));
    c
}

/// A results-store home for the tests' runs under cargo's scratch directory, so `run`'s
/// default store add never writes to the developer's own ~/.local/share. World-writable with
/// the sticky bit (like /tmp), so the unprivileged runs can make theirs too.
pub fn data_home(name: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777));
    dir
}

/// The binary run as an unprivileged user: as root, dropped to nobody with setpriv, so tests
/// of the non-root paths run the same on a developer's machine and in CI.
pub fn unprivileged() -> Command {
    if nix::unistd::geteuid().is_root() {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            env!("CARGO_BIN_EXE_fsbattery"),
        ]);
        c.env("XDG_DATA_HOME", data_home("xdg-data-nobody"));
        c
    } else {
        bin()
    }
}

/// Run fsbattery with `args` in `cwd`, capturing output.
pub fn run_in(cwd: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("spawn fsbattery")
}

/// [`run_in`] with output as wide as it needs (COLUMNS=1000): piped output wraps prose and
/// table labels at COLUMNS (100 by default), and a test that looks for a whole label or
/// sentence reads it on one line.
pub fn run_in_wide(cwd: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(cwd)
        .env("COLUMNS", "1000")
        .args(args)
        .output()
        .expect("spawn fsbattery")
}

/// Exit code or panic with the output when killed by a signal.
pub fn code(o: &Output) -> i32 {
    o.status
        .code()
        .unwrap_or_else(|| panic!("killed by signal: {}", stderr(o)))
}

/// stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Parse `dir/results.json`.
pub fn results(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
    serde_json::from_str(&text).expect("valid JSON")
}

/// Every entry under `dir`, recursively (for "nothing left behind" checks).
pub fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            out.push(e.path());
            if e.path().is_dir() {
                out.extend(entries(&e.path()));
            }
        }
    }
    out
}

/// A quick metadata run of `files` files, `repeat` times, on a fresh directory target, written
/// to `work/name`; fails the test unless it exits 0.
pub fn metadata_run(work: &Path, name: &str, files: u32, repeat: u32) {
    let o = metadata_run_with(work, name, files, repeat, &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// The same run with `extra` arguments (`--store PATH`, `--no-ceiling`, ...), its output
/// returned whatever its exit status.
pub fn metadata_run_with(
    work: &Path,
    name: &str,
    files: u32,
    repeat: u32,
    extra: &[&str],
) -> Output {
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let set = format!("metadata.files={files}");
    let repeat = repeat.to_string();
    let mut args = vec![
        "run",
        "--target",
        &spec,
        "--workload",
        "metadata",
        "--repeat",
        &repeat,
        "--set",
        &set,
        "--out",
        name,
        "--quiet",
    ];
    args.extend_from_slice(extra);
    run_in(work, &args)
}

/// `true` when nothing is `missing`; otherwise skip (print why, return `false`), or fail when
/// CI requires privileged tests (FSBATTERY_REQUIRE_PRIVILEGED=1).
pub fn gate(what: &str, missing: &[&str]) -> bool {
    if missing.is_empty() {
        return true;
    }
    let msg = format!("{what} needs {}", missing.join(", "));
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("{msg} (FSBATTERY_REQUIRE_PRIVILEGED=1)");
    }
    eprintln!("skipped: {msg}");
    false
}

/// Whether a loop ext4 can be made here (root, loop devices, mkfs.ext4), through [`gate`].
pub fn loop_ext4_available() -> bool {
    let mut missing = Vec::new();
    if !nix::unistd::geteuid().is_root() {
        missing.push("root");
    }
    if !Path::new("/dev/loop-control").exists() {
        missing.push("/dev/loop-control");
    }
    let mkfs = ["/sbin", "/usr/sbin", "/usr/bin", "/bin"]
        .iter()
        .any(|d| Path::new(d).join("mkfs.ext4").exists());
    if !mkfs {
        missing.push("mkfs.ext4");
    }
    gate("privileged test", &missing)
}

/// Whether the privileged tests can run; panics instead of skipping when CI requires them.
pub fn privileged() -> bool {
    let mut missing = Vec::new();
    if !nix::unistd::geteuid().is_root() {
        missing.push("root".to_string());
    }
    if !Path::new("/dev/loop-control").exists() {
        missing.push("/dev/loop-control".to_string());
    }
    for tool in ["mkfs.ext4", "mkfs.xfs", "mkfs.btrfs"] {
        let found = ["/sbin", "/usr/sbin", "/usr/bin", "/bin"]
            .iter()
            .any(|d| Path::new(d).join(tool).exists());
        if !found {
            missing.push(tool.to_string());
        }
    }
    if missing.is_empty() {
        return true;
    }
    let msg = format!("privileged test needs {}", missing.join(", "));
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("{msg} (FSBATTERY_REQUIRE_PRIVILEGED=1)");
    }
    eprintln!("skipped: {msg}");
    false
}

/// Everything of `workdir` still on the machine: loop devices backed by files in it, mounts
/// under it, processes whose command line names it.
pub fn leftovers(workdir: &Path) -> Vec<String> {
    let w = workdir.to_string_lossy().to_string();
    let mut out = Vec::new();
    let loops = std::process::Command::new("losetup")
        .arg("-a")
        .output()
        .unwrap();
    for l in String::from_utf8_lossy(&loops.stdout).lines() {
        if l.contains(&w) {
            out.push(format!("loop: {l}"));
        }
    }
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    for l in mounts.lines().filter(|l| l.contains(&w)) {
        out.push(format!("mount: {l}"));
    }
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(&w) && !cmd.contains("cargo") {
                out.push(format!(
                    "process {}: {cmd}",
                    e.file_name().to_string_lossy()
                ));
            }
        }
    }
    out
}

/// Wait until no leftovers remain (FUSE daemons exit asynchronously), up to a few seconds.
pub fn assert_clean(workdir: &Path) {
    let start = Instant::now();
    loop {
        let left = leftovers(workdir);
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "left behind: {left:#?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Whether `tools` are installed (looked up where Debian puts them) and, with `fuse`,
/// /dev/fuse exists, through [`gate`] (`what` names the test that needs them).
pub fn tools_available(what: &str, tools: &[&str], fuse: bool) -> bool {
    let mut missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| {
            !["/sbin", "/usr/sbin", "/usr/bin", "/bin"]
                .iter()
                .any(|d| Path::new(d).join(t).exists())
        })
        .collect();
    if fuse && !Path::new("/dev/fuse").exists() {
        missing.push("/dev/fuse");
    }
    gate(what, &missing)
}

//! `vm:` targets (issue 46): a guest booted under QEMU's software emulation (TCG) from the
//! distribution kernel that `fsbattery setup --tests` fetches makes jfs — which the host's
//! kernel cannot mount — and runs a small metadata workload on it; the record names the
//! guest, and nothing (emulator, image, mount) is left, after a finished run and after a
//! SIGINT mid-run. Two fetched kernels run in one run, one guest each, every target naming
//! its kernel. The guest tests need root, qemu-system-x86_64, mkfs.jfs and a fetched
//! kernel; they skip without them unless FSBATTERY_REQUIRE_PRIVILEGED=1.

mod common;
use common::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Whether a guest can be booted here, through [`gate`].
fn guest_available() -> bool {
    let mut missing = Vec::new();
    if !nix::unistd::geteuid().is_root() {
        missing.push("root");
    }
    let on = |t: &str| {
        ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
            .iter()
            .any(|d| Path::new(d).join(t).exists())
    };
    if !on("qemu-system-x86_64") {
        missing.push("qemu-system-x86_64");
    }
    if !on("mkfs.jfs") {
        missing.push("mkfs.jfs");
    }
    let kernel = std::fs::read_dir("/var/cache/fsbattery/vm")
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().join("kernel.json").is_file());
    if !kernel {
        missing.push("a guest kernel (fsbattery setup --tests)");
    }
    gate("vm test", &missing)
}

/// A small metadata run on jfs in the guest, `repeat` times, into `r`.
fn run_args(repeat: &str) -> Vec<&str> {
    vec![
        "run",
        "--target",
        "vm:jfs,size=256M",
        "--workload",
        "metadata",
        "--set",
        "metadata.files=300",
        "--repeat",
        repeat,
        "--no-store",
        "--workdir",
        "w",
        "--quiet",
        "--out",
        "r",
    ]
}

#[test]
fn a_guest_makes_jfs_and_leaves_nothing() {
    if !guest_available() {
        return;
    }
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let o = run_in(dir.path(), &run_args("1"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = results(&dir.path().join("r"));
    let guest = &rec["host"]["guest"];
    assert_eq!(guest["accelerator"], "TCG", "{guest}");
    assert!(
        guest["kernel_package"]
            .as_str()
            .unwrap()
            .starts_with("linux-image-"),
        "{guest}"
    );
    // The guest's own kernel ran the cells, and measured the tool's ceiling there.
    assert_ne!(
        rec["host"]["kernel"].as_str().unwrap().split(' ').next(),
        Some(
            nix::sys::utsname::uname()
                .unwrap()
                .release()
                .to_str()
                .unwrap()
        )
    );
    assert!(
        rec["host"]["tool_ceiling"]["null_ops_per_s"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let cells = rec["cells"].as_array().unwrap();
    let touch = cells
        .iter()
        .find(|c| c["target"] == "jfs" && c["workload"] == "metadata")
        .expect("a jfs metadata cell");
    assert_eq!(touch["status"]["state"], "ok", "{touch}");
    assert!(touch["samples"][0]["value"].as_f64().unwrap() > 0.0);
    let out = stdout(&o) + &stderr(&o);
    assert!(out.contains("TCG (software emulation)"), "{out}");
    let work = dir.path().join("w");
    assert_clean(&work);
    assert!(!work.exists(), "the work directory it made is removed");
}

#[test]
fn sigint_mid_run_kills_the_guest_and_keeps_finished_cells() {
    if !guest_available() {
        return;
    }
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let child = bin()
        .current_dir(dir.path())
        .args(run_args("5"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the guest journals, the run is under way inside it. TCG boots take 30 s on a
    // quiet machine and several minutes on a loaded one: the wait is generous.
    let journal = dir.path().join("r/guest/run/journal.jsonl");
    let start = Instant::now();
    while !journal.exists() && start.elapsed() < Duration::from_secs(480) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let started = journal.exists();
    if started {
        std::thread::sleep(Duration::from_secs(3));
    }
    // Interrupted either way, so a failing test leaves no guest behind.
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(started, "the guest never started its run: {}", stderr(&o));
    assert_eq!(code(&o), 130, "{}", stderr(&o));
    let rec = results(&dir.path().join("r"));
    assert_eq!(rec["interrupted"], true);
    assert_eq!(rec["host"]["guest"]["accelerator"], "TCG");
    assert_clean(&dir.path().join("w"));
    assert!(!dir.path().join("w").exists());
}

#[test]
fn host_and_guest_targets_are_not_ranked_together_and_mistakes_refused_before_boot() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_in(
        dir.path(),
        &[
            "run",
            "--target",
            "vm:jfs",
            "--target",
            "tmpfs",
            "--workload",
            "metadata",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot rank them across host targets"),
        "{}",
        stderr(&o)
    );
    // A kernel that was never fetched is refused before anything boots.
    let o = run_in(
        dir.path(),
        &[
            "run",
            "--target",
            "vm:ext4,kernel=6.1",
            "--target",
            "vm:xfs,kernel=5.99",
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("no guest kernel matching kernel="),
        "{}",
        stderr(&o)
    );
    // The request's own mistakes are refused on the host, before a guest boots: no run
    // directory, no console log, the guest's own words.
    for (args, says) in [
        (
            &["--set", "metadata.method=commands"][..],
            "unknown parameter 'metadata.method'",
        ),
        (
            &["--repeat", "1", "--budget", "5m"][..],
            "--budget applies to --repeat auto",
        ),
    ] {
        let mut a = vec!["run", "--target", "vm:jfs", "--workload", "metadata"];
        a.extend(args);
        a.extend(["--out", "refused"]);
        let o = run_in(dir.path(), &a);
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        assert!(!stderr(&o).contains("booting"), "{}", stderr(&o));
        assert!(!dir.path().join("refused").exists());
    }
}

/// The fetched kernels' releases (e.g. "6.1.0-56-amd64"), newest version first.
fn fetched_kernels() -> Vec<String> {
    let mut k: Vec<(Vec<u64>, String)> = std::fs::read_dir("/var/cache/fsbattery/vm")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path().join("kernel.json")).ok()?;
            let v: serde_json::Value = serde_json::from_str(&text).ok()?;
            let version = v["version"].as_str()?;
            let key = version
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|p| p.parse().ok())
                .collect();
            Some((key, v["release"].as_str()?.to_string()))
        })
        .collect();
    k.sort();
    k.reverse();
    k.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn two_kernels_run_in_one_run_and_each_target_names_its_kernel() {
    if !guest_available() {
        return;
    }
    let kernels = fetched_kernels();
    let missing: &[&str] = match kernels.len() {
        0 | 1 => &["a second guest kernel (fsbattery setup --tests)"],
        _ => &[],
    };
    if !gate("vm kernels test", missing) {
        return;
    }
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let (a, b) = (&kernels[0], &kernels[1]);
    let spec = |k: &str| format!("vm:ext4,size=256M,kernel={k}");
    let (sa, sb) = (spec(a), spec(b));
    let o = run_in(
        dir.path(),
        &[
            "run",
            "--target",
            &sa,
            "--target",
            &sb,
            "--workload",
            "metadata",
            "--set",
            "metadata.files=200",
            "--repeat",
            "1",
            "--no-store",
            "--workdir",
            "w",
            "--out",
            "r",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = results(&dir.path().join("r"));
    let short = |k: &str| k.trim_end_matches("-amd64").to_string();
    for k in [a, b] {
        let label = format!("ext4@{}", short(k));
        let t = rec["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["label"] == label.as_str())
            .unwrap_or_else(|| panic!("a target {label}: {}", rec["targets"]));
        // The target carries the machine it ran on: its own guest, its own kernel.
        assert!(t["host"]["kernel"]
            .as_str()
            .unwrap()
            .starts_with(k.as_str()));
        let g = &t["host"]["guest"];
        assert_eq!(g["kernel_package"], format!("linux-image-{k}"), "{g}");
        assert_eq!(g["accelerator"], "TCG");
        let cell = rec["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["target"] == label.as_str() && c["workload"] == "metadata")
            .unwrap();
        assert_eq!(cell["status"]["state"], "ok", "{cell}");
        assert!(dir
            .path()
            .join(format!("r/guest-{}/run", short(k)))
            .is_dir());
    }
    let out = stdout(&o);
    assert!(out.contains(&format!("linux-image-{a}")), "{out}");
    assert!(out.contains(&format!("linux-image-{b}")), "{out}");
    assert!(out.contains("not across kernels"), "{out}");
    assert_clean(&dir.path().join("w"));
    assert!(!dir.path().join("w").exists());
}

#[test]
fn dry_run_shows_where_each_target_goes() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_in(
        dir.path(),
        &[
            "run",
            "--target",
            "vm:md-raid10:xfs,disks=4",
            "--target",
            "vm:jfs",
            "--dry-run",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("dev:/dev/md0,fs=xfs"), "{out}");
    assert!(out.contains("dev:/dev/vde,fs=jfs"), "{out}");
}

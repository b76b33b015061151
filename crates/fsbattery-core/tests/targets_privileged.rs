//! Privileged target tests: make, mount, use and tear down real filesystems on loop images,
//! recover from kill -9 with `cleanup`, and refuse devices that hold data.
//!
//! Each test probes its prerequisites (root, /dev/loop-control, the filesystem's tools) and
//! SKIPs with the reason; with FSBATTERY_REQUIRE_PRIVILEGED=1 a missing prerequisite FAILS.
//! Every test checks that nothing of its work directory survives: no file, no mount, no loop
//! device backed by it, no process naming it.

use fsbattery_core::targets::{self, availability, cleanup, TargetOptions};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// zfs-fuse allows one daemon per machine: zfs tests take turns.
static ZFS: Mutex<()> = Mutex::new(());

fn require(what: &str, ok: bool) -> bool {
    if ok {
        return true;
    }
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("missing prerequisite (FSBATTERY_REQUIRE_PRIVILEGED=1): {what}");
    }
    eprintln!("SKIP: {what}");
    false
}

fn privileged() -> bool {
    require("running as root", nix::unistd::geteuid().is_root())
        && require(
            "/dev/loop-control exists",
            Path::new("/dev/loop-control").exists(),
        )
}

/// Root, loop devices, and `fs` usable according to `availability()`.
fn can_make(fs: &str) -> bool {
    if !privileged() {
        return false;
    }
    let why = availability()
        .into_iter()
        .find(|(n, _)| n == fs)
        .map(|(_, r)| r);
    match why {
        Some(Ok(())) => true,
        Some(Err(why)) => require(&format!("{fs}: {why}"), false),
        None => require(&format!("{fs} is unknown to availability()"), false),
    }
}

fn workdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fsb-targets-")
        .tempdir()
        .expect("tempdir")
}

fn opts(dir: &Path) -> TargetOptions {
    TargetOptions {
        workdir: dir.to_path_buf(),
        destroy_data: false,
        image_size: None,
        loop_dio: false,
        ..TargetOptions::default()
    }
}

/// Nothing fsbattery made under `dir` is left: files, mounts, loop devices, processes.
fn assert_nothing_left(dir: &Path) {
    let d = dir.canonicalize().unwrap_or(dir.to_path_buf());
    let ds = d.to_string_lossy().into_owned();
    let entries: Vec<_> = std::fs::read_dir(&d)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(entries.is_empty(), "left in {ds}: {entries:?}");
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    assert!(!mounts.contains(&ds), "mount left under {ds}:\n{mounts}");
    for e in std::fs::read_dir("/sys/block").unwrap().flatten() {
        let backing =
            std::fs::read_to_string(e.path().join("loop/backing_file")).unwrap_or_default();
        assert!(
            !backing.contains(&ds),
            "{:?} still bound to {backing}",
            e.file_name()
        );
    }
    for p in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmd = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        assert!(
            !cmd.contains(&ds),
            "process {:?} still runs: {cmd}",
            p.file_name()
        );
    }
}

/// Write, sync and read back a few files and a directory in `root`.
fn use_fs(root: &Path) {
    std::fs::create_dir(root.join("d")).unwrap();
    for i in 0..8u8 {
        let p = root.join("d").join(format!("f{i}"));
        let data = vec![i; 4096 * (usize::from(i) + 1)];
        std::fs::write(&p, &data).unwrap();
        std::fs::File::open(&p).unwrap().sync_all().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), data);
    }
    assert_eq!(std::fs::read_dir(root.join("d")).unwrap().count(), 8);
}

/// Make, mount, use and tear down `spec`; prints the measured times.
fn cycle(spec: &str) {
    let dir = workdir();
    let mut t = targets::parse(spec, &opts(dir.path())).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let lc = t
        .setup(0)
        .unwrap_or_else(|e| panic!("{spec}: setup: {e}"))
        .expect("a lifecycle");
    use_fs(t.root());
    assert!(
        !lc.mount_command.is_empty() && !lc.mount_options.is_empty(),
        "{lc:?}"
    );
    assert!(lc.total_bytes > 0 && lc.avail_bytes > 0 && lc.avail_bytes <= lc.total_bytes);
    assert!(lc.tool_versions.contains_key("kernel"));
    let caps = t.capabilities();
    assert!(caps.needs_root);
    let umount = t
        .teardown()
        .unwrap_or_else(|e| panic!("{spec}: teardown: {e}"));
    eprintln!(
        "TIMING {:<16} mkfs {:>7.3}s  mount {:>6.3}s  umount {:>6.3}s  avail {}/{} MiB  direct_io {}  [{}] [{}]",
        t.label(),
        lc.mkfs_secs,
        lc.mount_secs,
        umount.map_or(f64::NAN, |t| t.elapsed_s),
        lc.avail_bytes >> 20,
        lc.total_bytes >> 20,
        caps.direct_io,
        lc.mkfs_command,
        lc.mount_options
    );
    eprintln!("VERSIONS {}: {:?}", t.label(), lc.tool_versions);
    assert!(umount.is_some(), "{spec}: nothing was unmounted");
    drop(t);
    assert_nothing_left(dir.path());
}

#[test]
fn ext2_ext3_ext4() {
    for fs in ["ext2", "ext3", "ext4"] {
        if can_make(fs) {
            cycle(&format!("loop:{fs},size=128M"));
        }
    }
}

#[test]
fn loop_direct_io_is_set_on_the_device() {
    if !can_make("ext4") {
        return;
    }
    let dir = workdir();
    let mut t = targets::parse("loop:ext4,size=64M,dio=on", &opts(dir.path())).unwrap();
    t.setup(0).unwrap();
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    let root = t.root().to_string_lossy().into_owned();
    let line = mounts
        .lines()
        .find(|l| l.split(' ').nth(1) == Some(root.as_str()))
        .unwrap();
    let dev = line
        .split(' ')
        .next()
        .unwrap()
        .trim_start_matches("/dev/")
        .to_string();
    let dio = std::fs::read_to_string(format!("/sys/block/{dev}/loop/dio")).unwrap();
    assert_eq!(dio.trim(), "1", "{dev}");
    use_fs(t.root());
    t.teardown().unwrap();
    drop(t);
    assert_nothing_left(dir.path());
}

#[test]
fn xfs() {
    if can_make("xfs") {
        cycle("loop:xfs,size=300M,mount=noatime,logbufs=8");
    }
}

#[test]
fn btrfs() {
    if can_make("btrfs") {
        cycle("loop:btrfs,size=256M");
    }
}

#[test]
fn btrfs_raid10_over_four_images() {
    if can_make("btrfs") {
        cycle("loop:btrfs,devices=4,profile=raid10,size=256M");
    }
}

#[test]
fn tmpfs() {
    if can_make("tmpfs") {
        cycle("tmpfs:size=64M");
    }
}

#[test]
fn ext4_external_journal() {
    if can_make("ext4") {
        cycle("loop:ext4,size=256M,journal=external,journal_size=16M");
    }
}

#[test]
fn xfs_external_log() {
    if can_make("xfs") {
        cycle("loop:xfs,size=300M,log=external,log_size=64M");
    }
}

#[test]
fn fuse_ntfs_exfat_fuse2fs() {
    for fs in ["ntfs", "exfat", "fuse2fs"] {
        if can_make(fs) {
            cycle(&format!("loop:{fs},size=128M"));
        }
    }
}

#[test]
fn zfs_single_and_mirror_over_six() {
    let _turn = ZFS.lock().unwrap_or_else(|p| p.into_inner());
    if can_make("zfs") {
        cycle("loop:zfs,size=128M");
        cycle("loop:zfs,devices=6,layout=mirror,size=64M");
    }
}

#[test]
fn zfs_refuses_to_share_a_daemon_it_did_not_start() {
    let _turn = ZFS.lock().unwrap_or_else(|p| p.into_inner());
    if !can_make("zfs") {
        return;
    }
    let dir = workdir();
    let existed = Path::new("/var/run/zfs").exists() || Path::new("/var/lock/zfs").exists();
    // Stands in for the system's daemon; started and stopped by this test only.
    let mut foreign = Command::new("zfs-fuse")
        .args(["--no-daemon", "--no-kstat-mount"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut t = targets::parse("loop:zfs,size=64M", &opts(dir.path())).unwrap();
    let e = t.setup(0).map(|_| ()).unwrap_err().to_string();
    drop(t);
    let pid = nix::unistd::Pid::from_raw(foreign.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    foreign.wait().unwrap();
    if !existed {
        let _ = std::fs::remove_file("/var/lock/zfs/zfs_lock");
        let _ = std::fs::remove_dir("/var/lock/zfs");
        let _ = std::fs::remove_dir("/var/run/zfs");
    }
    assert!(e.contains("did not start"), "{e}");
    assert_nothing_left(dir.path());
}

#[test]
fn failed_mkfs_and_mount_report_the_tool_and_leave_nothing() {
    if !can_make("xfs") || !can_make("ext4") {
        return;
    }
    let dir = workdir();
    let mut t = targets::parse("loop:xfs,size=300M,mkfs=-b size=999", &opts(dir.path())).unwrap();
    let e = t.setup(0).unwrap_err().to_string();
    assert!(e.contains("mkfs.xfs") && e.contains("failed"), "{e}");
    assert_nothing_left(dir.path());
    let mut t =
        targets::parse("loop:ext4,size=64M,mount=no_such_option", &opts(dir.path())).unwrap();
    let e = t.setup(0).unwrap_err().to_string();
    assert!(e.contains("mount") && e.contains("failed"), "{e}");
    eprintln!("MOUNT-FAILURE: {e}");
    drop(t);
    assert_nothing_left(dir.path());
}

/// Run by `kill9_then_cleanup_leaves_nothing` in a child process: set a target up, then die
/// by SIGKILL with everything in place. Does nothing when run as an ordinary test.
#[test]
fn kill9_helper() {
    let Ok(job) = std::env::var("FSB_KILL9_HELPER") else {
        return;
    };
    let (spec, dir) = job.split_once('|').unwrap();
    let mut t = targets::parse(spec, &opts(Path::new(dir))).unwrap();
    t.setup(0).unwrap();
    std::fs::write(t.root().join("marker"), b"x").unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::this(), nix::sys::signal::Signal::SIGKILL).unwrap();
}

fn kill9(spec: &str) {
    let dir = workdir();
    let ds = dir
        .path()
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["kill9_helper", "--exact", "--nocapture", "--test-threads=1"])
        .env("FSB_KILL9_HELPER", format!("{spec}|{ds}"))
        .status()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.signal(),
        Some(libc::SIGKILL),
        "{spec}: helper did not die by SIGKILL"
    );
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    assert!(
        mounts.contains(&ds),
        "{spec}: the killed run should have left its mount"
    );
    let report = cleanup(dir.path()).unwrap();
    eprintln!(
        "CLEANUP {spec}: removed {:?}\n  skipped {:?}",
        report.removed, report.skipped
    );
    assert!(report.failed.is_empty(), "{spec}: {report:?}");
    assert_eq!(report.state_files.len(), 1, "{report:?}");
    assert_nothing_left(dir.path());
}

#[test]
fn kill9_then_cleanup_leaves_nothing() {
    if can_make("btrfs") {
        kill9("loop:btrfs,devices=2,profile=raid1,size=256M");
    }
    if can_make("tmpfs") {
        kill9("tmpfs:size=16M");
    }
    if can_make("ntfs") {
        kill9("loop:ntfs,size=64M");
    }
    if can_make("ext4") {
        kill9("loop:ext4,size=64M,journal=external,journal_size=16M");
    }
    let _turn = ZFS.lock().unwrap_or_else(|p| p.into_inner());
    if can_make("zfs") {
        kill9("loop:zfs,devices=2,layout=mirror,size=64M");
    }
}

/// Run by `sigint_during_setup_spares_the_tools` in its own process group, which the parent
/// floods with SIGINT as a terminal's Ctrl-C would: mkfs and mount must survive it, setup
/// must succeed, and the normal teardown must follow.
#[test]
fn sigint_helper() {
    let Ok(job) = std::env::var("FSB_SIGINT_HELPER") else {
        return;
    };
    let (specs, dir) = job.split_once('|').unwrap();
    fsbattery_core::interrupt::install().unwrap();
    for spec in specs.split(';') {
        let mut t = targets::parse(spec, &opts(Path::new(dir))).unwrap();
        let lc = t
            .setup(0)
            .unwrap_or_else(|e| panic!("setup under SIGINT: {e}"));
        assert!(lc.is_some());
        use_fs(t.root());
        t.teardown().unwrap();
    }
    println!(
        "HELPER-DONE interrupted={}",
        fsbattery_core::interrupt::requested()
    );
}

#[test]
fn sigint_during_setup_spares_the_tools() {
    if !can_make("btrfs") || !can_make("ext4") || !can_make("ntfs") {
        return;
    }
    use std::os::unix::process::CommandExt;
    let dir = workdir();
    let ds = dir
        .path()
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let spec = "loop:btrfs,devices=4,profile=raid10,size=256M;\
                loop:ext4,size=128M,journal=external,journal_size=16M;loop:ntfs,size=128M;\
                loop:xfs,size=300M;tmpfs:size=16M";
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "sigint_helper",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("FSB_SIGINT_HELPER", format!("{spec}|{ds}"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let pgid = nix::unistd::Pid::from_raw(-(child.id() as i32));
    let start = std::time::Instant::now();
    std::thread::sleep(std::time::Duration::from_millis(30));
    // Ctrl-C reaches the whole foreground process group, again and again.
    while start.elapsed() < std::time::Duration::from_secs(20)
        && child.try_wait().unwrap().is_none()
    {
        let _ = nix::sys::signal::kill(pgid, nix::sys::signal::Signal::SIGINT);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("killed by a signal"),
        "a tool died of SIGINT:\n{stderr}"
    );
    assert!(
        stdout.contains("HELPER-DONE interrupted=true"),
        "{stdout}\n{stderr}"
    );
    assert!(out.status.success(), "{:?}", out.status);
    eprintln!(
        "SIGINT helper after {:?}:\n{stdout}\n{stderr}",
        start.elapsed()
    );
    assert_nothing_left(dir.path());
}

/// A loop device made by the test itself (losetup), detached on drop: stands in for a disk.
struct TestDisk {
    dev: PathBuf,
    _dir: tempfile::TempDir,
}

impl TestDisk {
    fn new(mkfs: Option<&str>) -> TestDisk {
        let dir = workdir();
        let img = dir.path().join("disk.img");
        std::fs::File::create(&img)
            .unwrap()
            .set_len(320 << 20)
            .unwrap();
        if let Some(tool) = mkfs {
            assert!(Command::new(tool)
                .args(["-q", "-F"])
                .arg(&img)
                .status()
                .unwrap()
                .success());
        }
        let out = Command::new("losetup")
            .args(["--find", "--show"])
            .arg(&img)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        TestDisk { dev, _dir: dir }
    }

    fn spec(&self) -> String {
        format!("dev:{}", self.dev.display())
    }
}

impl Drop for TestDisk {
    fn drop(&mut self) {
        let ok = Command::new("losetup")
            .arg("-d")
            .arg(&self.dev)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("test: could not detach {}", self.dev.display());
        }
    }
}

#[test]
fn dev_with_a_signature_is_refused_unless_data_may_be_destroyed() {
    if !can_make("ext4")
        || !require(
            "losetup installed",
            Path::new("/usr/sbin/losetup").exists() || Path::new("/sbin/losetup").exists(),
        )
    {
        return;
    }
    let disk = TestDisk::new(Some("mkfs.ext4"));
    let dir = workdir();
    let e = targets::parse(&disk.spec(), &opts(dir.path()))
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("ext4") && e.contains("destroy"), "{e}");
    // Allowed with destroy_data, made and mounted, and handed back without signatures.
    let o = TargetOptions {
        workdir: dir.path().into(),
        destroy_data: true,
        image_size: None,
        loop_dio: false,
        ..TargetOptions::default()
    };
    let mut t = targets::parse(&format!("{},fs=xfs", disk.spec()), &o).unwrap();
    let lc = t.setup(0).unwrap().unwrap();
    use_fs(t.root());
    assert!(lc.mkfs_command.contains("mkfs.xfs"), "{lc:?}");
    // In use (mounted by our target) is refused even when data may be destroyed.
    let e = targets::parse(&disk.spec(), &o)
        .err()
        .expect("in use")
        .to_string();
    assert!(e.contains("in use"), "{e}");
    t.teardown().unwrap();
    drop(t);
    let probe = Command::new("blkid")
        .arg("-p")
        .arg(&disk.dev)
        .status()
        .unwrap();
    assert_eq!(
        probe.code(),
        Some(2),
        "signatures left on {}",
        disk.dev.display()
    );
    // Now blank: accepted without destroy_data.
    assert!(targets::parse(&disk.spec(), &opts(dir.path())).is_ok());
    assert_nothing_left(dir.path());
}

/// Lifecycle times at the default 1 GiB image size, for the record:
/// `cargo test --test targets_privileged -- --ignored --nocapture default_size_timings`.
#[test]
#[ignore = "slow: makes every filesystem at its default size"]
fn default_size_timings() {
    let specs = [
        "loop:ext2",
        "loop:ext3",
        "loop:ext4",
        "loop:xfs",
        "loop:btrfs",
        "tmpfs",
        "loop:ntfs",
        "loop:exfat",
        "loop:fuse2fs",
        "loop:ext4,journal=external",
        "loop:xfs,log=external",
        "loop:btrfs,devices=4,profile=raid10",
    ];
    for spec in specs {
        let fs = spec.trim_start_matches("loop:").split(',').next().unwrap();
        if can_make(fs) {
            cycle(spec);
        }
    }
    let _turn = ZFS.lock().unwrap_or_else(|p| p.into_inner());
    for spec in ["loop:zfs", "loop:zfs,devices=6,layout=mirror"] {
        if can_make("zfs") {
            cycle(spec);
        }
    }
}

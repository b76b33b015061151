//! `fsbattery cleanup` treats a state file as untrusted input (issue 15): it acts only inside
//! the session directory the file names, on resources that still match their recorded
//! identity, and refuses state files and work directories that someone else could have
//! written. Also: kill -9 at any moment, then `cleanup`, leaves the work directory empty —
//! datasets included. Tests that mount skip without root unless FSBATTERY_REQUIRE_PRIVILEGED=1.

mod common;
use common::*;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn root_or_skip(what: &str) -> bool {
    if nix::unistd::geteuid().is_root() {
        return true;
    }
    let msg = format!("{what} needs root");
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("{msg} (FSBATTERY_REQUIRE_PRIVILEGED=1)");
    }
    eprintln!("skipped: {msg}");
    false
}

fn mounted(mount_point: &Path) -> bool {
    let want = mount_point.to_string_lossy().to_string();
    std::fs::read_to_string("/proc/self/mounts")
        .unwrap()
        .lines()
        .any(|l| l.split_whitespace().nth(1) == Some(want.as_str()))
}

/// A tmpfs this test mounts (outside any session) and always unmounts, even on panic.
struct OurTmpfs(PathBuf, String);

impl OurTmpfs {
    fn mount(at: &Path) -> OurTmpfs {
        std::fs::create_dir_all(at).unwrap();
        let source = format!("fsbtest-victim-{}", std::process::id());
        let st = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m", &source])
            .arg(at)
            .status()
            .unwrap();
        assert!(st.success(), "mount tmpfs on {}", at.display());
        OurTmpfs(at.to_path_buf(), source)
    }
}

impl Drop for OurTmpfs {
    fn drop(&mut self) {
        if mounted(&self.0) {
            let _ = nix::mount::umount2(&self.0, nix::mount::MntFlags::UMOUNT_NOFOLLOW);
        }
    }
}

/// A state file as `run` writes it, owned by a dead process (pid 0), naming `session`.
fn forge(workdir: &Path, name: &str, session: &Path, entries: &[serde_json::Value]) -> PathBuf {
    let mut text = serde_json::json!({"op": "header", "pid": 0, "start_time": 1,
        "created": "2026-01-01T00:00:00+00:00", "session": session})
    .to_string();
    text.push('\n');
    for (i, res) in entries.iter().enumerate() {
        text.push_str(&serde_json::json!({"op": "intent", "id": i, "res": res}).to_string());
        text.push('\n');
    }
    let path = workdir.join(format!("{name}.state"));
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

#[test]
fn forged_state_file_pointing_outside_its_session_touches_nothing() {
    if !root_or_skip("mounting a victim tmpfs") {
        return;
    }
    let top = tempfile::tempdir().unwrap();
    let work = top.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let victim = top.path().join("elsewhere/victim.txt");
    std::fs::create_dir_all(victim.parent().unwrap()).unwrap();
    std::fs::write(&victim, b"precious").unwrap();
    let m = std::fs::metadata(&victim).unwrap();
    let tmpfs = OurTmpfs::mount(&top.path().join("victim-mnt"));
    let session = work.join("fsb-x-1-0");
    std::fs::create_dir(&session).unwrap();
    std::fs::set_permissions(&session, std::fs::Permissions::from_mode(0o700)).unwrap();
    let entries = [
        serde_json::json!({"kind": "dir", "path": session}),
        serde_json::json!({"kind": "file", "path": victim, "id": [m.dev(), m.ino()]}),
        // A `..` path that resolves outside the session.
        serde_json::json!({"kind": "file", "path": session.join("../../elsewhere/victim.txt"),
            "id": [m.dev(), m.ino()]}),
        serde_json::json!({"kind": "mount", "mount_point": tmpfs.0, "source": tmpfs.1}),
    ];
    let state = forge(&work, "fsb-x-1-0", &session, &entries);

    let o = run_in(
        top.path(),
        &["cleanup", "--workdir", work.to_str().unwrap()],
    );
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(victim.exists(), "victim deleted:\n{all}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(mounted(&tmpfs.0), "victim tmpfs unmounted:\n{all}");
    assert_eq!(code(&o), 6, "{all}");
    assert!(
        all.lines()
            .any(|l| l.contains("refused") && l.contains(&*victim.to_string_lossy())),
        "{all}"
    );
    assert!(
        all.lines()
            .any(|l| l.contains("refused") && l.contains(&*tmpfs.0.to_string_lossy())),
        "{all}"
    );
    // The state file stays, so nothing it names is forgotten.
    assert!(state.exists());

    // A header naming a session outside the work directory is refused as a whole.
    std::fs::remove_file(&state).unwrap();
    let outside = top.path().join("elsewhere");
    forge(
        &work,
        "fsb-y-1-0",
        &outside,
        &[serde_json::json!({"kind": "file", "path": victim, "id": [m.dev(), m.ino()]})],
    );
    let o = run_in(
        top.path(),
        &["cleanup", "--workdir", work.to_str().unwrap()],
    );
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(victim.exists(), "{all}");
    assert_eq!(code(&o), 6, "{all}");
    assert!(all.contains("outside the work directory"), "{all}");
}

#[test]
fn state_files_someone_else_could_write_are_refused() {
    let work = tempfile::tempdir().unwrap();
    let session = work.path().join("fsb-x-1-0");
    std::fs::create_dir(&session).unwrap();
    std::fs::set_permissions(&session, std::fs::Permissions::from_mode(0o700)).unwrap();
    let inside = session.join("disk0.img");
    std::fs::write(&inside, b"x").unwrap();
    let entries = [serde_json::json!({"kind": "file", "path": inside, "id": null})];
    let state = forge(work.path(), "fsb-x-1-0", &session, &entries);
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o666)).unwrap();
    let o = run_in(work.path(), &["cleanup", "--workdir", "."]);
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(code(&o), 6, "{all}");
    assert!(all.contains("writable by group or others"), "{all}");
    assert!(inside.exists());

    if nix::unistd::geteuid().is_root() {
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::chown(&state, Some(65534), Some(65534)).unwrap();
        let o = run_in(work.path(), &["cleanup", "--workdir", "."]);
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert_eq!(code(&o), 6, "{all}");
        assert!(all.contains("owned by uid 65534"), "{all}");
        assert!(inside.exists());
    }

    // Once it is ours and private again, the same file is honoured.
    std::os::unix::fs::chown(&state, Some(nix::unistd::geteuid().as_raw()), None).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o600)).unwrap();
    let o = run_in(work.path(), &["cleanup", "--workdir", "."]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(!inside.exists() && !state.exists());
}

#[test]
fn a_workdir_others_can_write_without_the_sticky_bit_is_refused() {
    let top = tempfile::tempdir().unwrap();
    let work = top.path().join("shared");
    std::fs::create_dir(&work).unwrap();
    std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o777)).unwrap();
    let w = work.to_str().unwrap();
    let not_yet = work.join("new");
    let n = not_yet.to_str().unwrap();
    for args in [
        vec!["cleanup", "--workdir", w],
        vec!["run", "--workdir", w, "--workload", "metadata", "--quiet"],
        // Not there yet: fsbattery would create it inside the shared directory.
        vec!["run", "--workdir", n, "--workload", "metadata", "--quiet"],
    ] {
        let o = run_in(top.path(), &args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!not_yet.exists());
        assert!(
            stderr(&o).contains("writable by group or others") && stderr(&o).contains("sticky"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // /tmp-style (1777): other users cannot rename or delete what we create there, and our
    // session directories and state files are private, so it is accepted.
    std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let o = run_in(top.path(), &["cleanup", "--workdir", w]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// Every loop device and mount that refers to `dir`.
fn kernel_leftovers(dir: &Path) -> Vec<String> {
    let w = dir.to_string_lossy().to_string();
    let loops = std::process::Command::new("losetup")
        .arg("-a")
        .output()
        .unwrap();
    let mut out: Vec<String> = String::from_utf8_lossy(&loops.stdout)
        .lines()
        .filter(|l| l.contains(&w))
        .map(|l| format!("loop: {l}"))
        .collect();
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    out.extend(
        mounts
            .lines()
            .filter(|l| l.contains(&w))
            .map(|l| format!("mount: {l}")),
    );
    out
}

/// A name and "has the run got this far" over the work directory.
type Moment = (&'static str, fn(&Path) -> bool);

#[test]
fn kill9_at_several_moments_then_cleanup_leaves_the_workdir_empty() {
    if !root_or_skip("tmpfs targets") {
        return;
    }
    // Each moment is "the first time this appears under the work directory".
    let moments: [Moment; 4] = [
        ("dataset dir", |w| {
            entries(w)
                .iter()
                .any(|p| p.to_string_lossy().contains("fsb-source"))
        }),
        ("dataset tarball", |w| {
            entries(w)
                .iter()
                .any(|p| p.extension().is_some_and(|x| x == "tar"))
        }),
        ("a mount", |w| {
            kernel_leftovers(w).iter().any(|l| l.starts_with("mount"))
        }),
        ("a loop device", |w| {
            kernel_leftovers(w).iter().any(|l| l.starts_with("loop"))
        }),
    ];
    for (what, reached) in moments {
        let top = tempfile::tempdir_in("/var/tmp").unwrap();
        let work = top.path().join("w");
        let mut child = bin()
            .current_dir(top.path())
            .args(["run", "--workdir", "w", "--target", "tmpfs:size=256m"])
            .args(["--target", "loop:ext4,size=256m"])
            .args([
                "--workload",
                "tree",
                "--repeat",
                "3",
                "--out",
                "r",
                "--quiet",
            ])
            .args(["--set", "tree.scale_div=64", "--pause", "0.2"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !reached(&work) {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "{what}: never reached"
            );
            assert!(child.try_wait().unwrap().is_none(), "{what}: run ended");
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let o = run_in(top.path(), &["cleanup", "--workdir", "w"]);
        assert_eq!(code(&o), 0, "{what}: {}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("removed"), "{what}: {}", stdout(&o));
        let left = entries(&work);
        assert!(
            left.is_empty(),
            "{what}: left in the work directory: {left:#?}"
        );
        let k = kernel_leftovers(top.path());
        assert!(k.is_empty(), "{what}: {k:#?}");
    }
}

/// Loop devices this test attaches itself with losetup; each detached on drop.
struct OurLoops(Vec<String>);

impl OurLoops {
    fn attach(&mut self, image: &Path) -> String {
        let out = std::process::Command::new("losetup")
            .args(["--find", "--show"])
            .arg(image)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        self.0.push(dev.clone());
        dev
    }
}

impl Drop for OurLoops {
    fn drop(&mut self) {
        for d in self.0.iter().rev() {
            let _ = std::process::Command::new("losetup")
                .args(["-d", d])
                .status();
        }
    }
}

#[test]
fn a_dev_target_aliasing_a_mounted_loop_device_is_refused_even_with_destroy_data() {
    if !root_or_skip("loop devices") || !Path::new("/dev/loop-control").exists() {
        return;
    }
    let top = tempfile::tempdir_in("/var/tmp").unwrap();
    let image = top.path().join("disk.img");
    std::fs::File::create(&image)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let mkfs = std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&image)
        .status()
        .unwrap();
    assert!(mkfs.success());
    let mut loops = OurLoops(Vec::new());
    let a = loops.attach(&image);
    let b = loops.attach(&image);
    let mnt = top.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let st = std::process::Command::new("mount")
        .arg(&a)
        .arg(&mnt)
        .status()
        .unwrap();
    assert!(st.success());
    let _mounted = OurTmpfs(mnt.clone(), String::new()); // unmounts on drop, before `loops`
    std::fs::write(mnt.join("keep.txt"), b"mine").unwrap();
    nix::unistd::sync();

    let o = run_in(
        top.path(),
        &[
            "run",
            "--workdir",
            "w",
            "--target",
            &format!("dev:{b}"),
            "--destroy-data",
            "--workload",
            "metadata",
            "--quiet",
        ],
    );
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&*mnt.to_string_lossy()), "{err}");
    assert!(err.contains("shares its storage"), "{err}");
    assert_eq!(std::fs::read(mnt.join("keep.txt")).unwrap(), b"mine");
    let blkid = std::process::Command::new("blkid")
        .args(["-p", "-o", "value", "-s", "TYPE"])
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&blkid.stdout).trim(), "ext4");
}

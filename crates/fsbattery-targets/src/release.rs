//! Removing one resource, after checking it is still the one fsbattery created.
//!
//! Shared by the guards (normal teardown and error paths, where we still hold descriptors and
//! child handles) and by `cleanup` (after a kill -9, from the state file alone). Every
//! function is idempotent: a resource that is already gone is success, and one that no longer
//! matches what was recorded is left alone and reported, never touched.
//!
//! One direction only: this file names what removes each kind of resource (`zfs_pool`,
//! `memcg_release`, the FUSE watchdog), never the code that makes them, which opens guard
//! sessions and so depends on this file. The match in `release` stays exhaustive over
//! `Resource`, so the compiler checks that every resource a state file can hold has its
//! removal — which `cleanup` needs after a kill -9, with nothing registered at run time.

use super::fsinfo::mounted_at;
use super::loopdev;
use super::outcome::Outcome;
use super::state::{self, Resource};
use crate::process as exec;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What we still hold for a resource in this process.
#[derive(Debug)]
pub enum Handle {
    /// Nothing beyond the record.
    None,
    /// Our descriptor on a bound loop device.
    Loop(std::fs::File),
    /// A daemon we spawned and must reap.
    Child(std::process::Child),
    /// The watchdog of a FUSE mount: kept alive through the unmount, which it may have to
    /// unblock (see `fusewatch`).
    Watch(super::fusewatch::FuseWatch),
}

/// Remove `res`; `Err` means it may still exist and stays in the state file.
pub fn release(res: &Resource, handle: Handle) -> Result<Outcome, String> {
    match res {
        Resource::Dir { path } => release_dir(path),
        Resource::File { path, id } => release_file(path, *id),
        Resource::ScratchDir { path, id } => release_scratch(path, *id),
        Resource::Loop {
            image,
            image_id,
            device,
            btrfs,
        } => release_loop(image, *image_id, device.as_deref(), *btrfs, handle),
        Resource::Mount {
            mount_point,
            source,
        } => {
            if let Handle::Watch(watch) = &handle {
                watch.before_unmount();
            }
            let out = unmount(mount_point, source);
            // The FUSE watchdog stops only now that the mount is gone.
            if let Handle::Watch(watch) = handle {
                drop(watch);
            }
            out
        }
        // A recorded pid alone proves nothing once the daemon is gone: the daemons are found
        // by their command line, which names our mount point.
        Resource::FuseDaemon {
            mount_point,
            program,
            ..
        } => stop_fuse_daemon(mount_point, program),
        Resource::ZfsDaemon { tag, pid } => {
            let term = nix::sys::signal::Signal::SIGTERM;
            stop_tagged("zfs-fuse", term, Duration::from_secs(30), tag, *pid, handle)
        }
        Resource::Emulator { tag, pid } => {
            let kill = nix::sys::signal::Signal::SIGKILL;
            let wait = Duration::from_secs(10);
            stop_tagged(EMULATOR_PROGRAM, kill, wait, tag, *pid, handle)
        }
        Resource::ZfsRuntime { dirs } => release_zfs_runtime(dirs),
        Resource::Pool { name, vdevs } => super::zfs_pool::destroy_pool(name, vdevs),
        Resource::Signature { device, .. } => wipe(device),
        Resource::Cgroup { path } => super::memcg_release::release(path),
        Resource::Postgres {
            dir,
            id,
            postmaster,
        } => {
            super::postgres_release::stop(dir, *postmaster).and_then(|_| release_scratch(dir, *id))
        }
    }
}

fn release_dir(path: &Path) -> Result<Outcome, String> {
    match std::fs::remove_dir(path) {
        Ok(()) => Ok(Outcome::default()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Outcome::note("already gone")),
        Err(e) => Err(format!("rmdir {}: {e}", path.display())),
    }
}

fn release_file(path: &Path, id: Option<(u64, u64)>) -> Result<Outcome, String> {
    use std::os::unix::fs::MetadataExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Outcome::note("already gone"))
        }
        Err(e) => return Err(format!("stat {}: {e}", path.display())),
    };
    let ours = match id {
        Some(id) => (meta.dev(), meta.ino()) == id,
        // Created with O_EXCL under our session directory but crashed before the inode was
        // recorded: the name is unique to us, so a regular file of ours there is it.
        None => meta.file_type().is_file() && meta.uid() == nix::unistd::geteuid().as_raw(),
    };
    if !ours {
        return Ok(Outcome::note(format!(
            "{} is not the file we created: left alone",
            path.display()
        )));
    }
    std::fs::remove_file(path).map_err(|e| format!("rm {}: {e}", path.display()))?;
    Ok(Outcome::default())
}

/// Remove a scratch directory and all it holds, if it is still the directory we made. Entries
/// inside are removed without following symbolic links (std's remove_dir_all uses openat and
/// unlinkat relative to each directory it opened).
fn release_scratch(path: &Path, id: Option<(u64, u64)>) -> Result<Outcome, String> {
    use std::os::unix::fs::MetadataExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Outcome::note("already gone"))
        }
        Err(e) => return Err(format!("stat {}: {e}", path.display())),
    };
    let ours = meta.file_type().is_dir()
        && match id {
            Some(id) => (meta.dev(), meta.ino()) == id,
            // Crashed between mkdir and recording the inode: the name is unique to us and the
            // parent is our private session directory, so a directory of ours there is it.
            None => meta.uid() == nix::unistd::geteuid().as_raw(),
        };
    if !ours {
        return Ok(Outcome::note(format!(
            "{} is not the directory we created: left alone",
            path.display()
        )));
    }
    std::fs::remove_dir_all(path).map_err(|e| format!("rm -r {}: {e}", path.display()))?;
    Ok(Outcome::default())
}

fn release_loop(
    image: &Path,
    image_id: (u64, u64),
    device: Option<&Path>,
    btrfs: bool,
    handle: Handle,
) -> Result<Outcome, String> {
    let held: Vec<(PathBuf, std::fs::File)> = match (handle, device) {
        (Handle::Loop(fd), Some(d)) => vec![(d.to_path_buf(), fd)],
        (_, Some(d)) => match loopdev::open(d) {
            Ok(fd) => vec![(d.to_path_buf(), fd)],
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => vec![],
            Err(e) => return Err(format!("open {}: {e}", d.display())),
        },
        // Crashed between binding and recording the device: find it by its backing inode.
        (_, None) => loopdev::devices_bound_to(image_id)
            .into_iter()
            .filter_map(|d| loopdev::open(&d).ok().map(|fd| (d, fd)))
            .collect(),
    };
    let mut detached = 0;
    for (dev, fd) in held {
        // Both the inode and the name: an inode number alone may have been reused by a file
        // elsewhere on the same filesystem.
        if loopdev::backing_id(&fd) != Some(image_id) || !loopdev::backed_by(&dev, image) {
            continue;
        }
        if btrfs {
            forget_btrfs(&dev);
        }
        if loopdev::detach(fd, &dev, image_id)? {
            detached += 1;
        }
    }
    if detached == 0 {
        return Ok(Outcome::note(format!(
            "no loop device bound to {} any more",
            image.display()
        )));
    }
    Ok(Outcome::default())
}

/// The btrfs module remembers every device it has seen; forget ours so no stale entry
/// outlives the loop device. A failure only costs a stale entry, so it is logged, not fatal.
fn forget_btrfs(dev: &Path) {
    if exec::which("btrfs").is_none() {
        return;
    }
    let argv = vec![
        "btrfs".into(),
        "device".into(),
        "scan".into(),
        "--forget".into(),
        dev.display().to_string(),
    ];
    if let Err(e) = exec::run(&argv) {
        crate::notice::warn(e.to_string());
    }
}

/// Unmount our mount, retrying while busy; a lazy unmount only as the logged last resort.
fn unmount(mount_point: &Path, source: &str) -> Result<Outcome, String> {
    use nix::mount::{umount2, MntFlags};
    let Some(entry) = mounted_at(mount_point) else {
        return Ok(Outcome::note("not mounted"));
    };
    if entry.device != source {
        return Err(format!(
            "{} has {} mounted, not our {source}: left alone",
            mount_point.display(),
            entry.device
        ));
    }
    let mut delay = Duration::from_millis(50);
    for _ in 0..8 {
        let sw = crate::measure::Stopwatch::start();
        match umount2(mount_point, MntFlags::UMOUNT_NOFOLLOW) {
            Ok(()) => {
                return Ok(Outcome {
                    umount: Some(sw.stop()),
                    note: None,
                });
            }
            Err(nix::errno::Errno::EBUSY) => {
                nix::unistd::sync();
                std::thread::sleep(delay);
                delay *= 2;
            }
            Err(nix::errno::Errno::EINVAL) if mounted_at(mount_point).is_none() => {
                return Ok(Outcome::note("not mounted"))
            }
            Err(e) => return Err(format!("umount {}: {e}", mount_point.display())),
        }
    }
    let msg = format!(
        "{} stayed busy for ~13 s (a process still uses it?): detached lazily with umount -l",
        mount_point.display()
    );
    crate::notice::warn(msg.clone());
    umount2(
        mount_point,
        MntFlags::UMOUNT_NOFOLLOW | MntFlags::MNT_DETACH,
    )
    .map_err(|e| format!("umount -l {}: {e}", mount_point.display()))?;
    Ok(Outcome::note(msg))
}

/// FUSE daemons whose `argv[0]` is `program` and whose arguments name `mount_point`.
pub fn find_fuse_daemons(mount_point: &Path, program: &str) -> Vec<(i32, u64)> {
    let want = mount_point.to_string_lossy();
    state::pids()
        .into_iter()
        .filter(|&pid| {
            state::cmdline(pid).is_some_and(|argv| {
                state::program(&argv) == program && argv.iter().skip(1).any(|a| *a == want)
            })
        })
        .filter_map(|pid| Some((pid, state::start_time(pid)?)))
        .collect()
}

/// After the unmount a FUSE daemon flushes and exits by itself; wait for that (it may hold
/// the loop device), and only stop it with signals when it hangs.
fn stop_fuse_daemon(mount_point: &Path, program: &str) -> Result<Outcome, String> {
    if mounted_at(mount_point).is_some() {
        return Err(format!(
            "{} is still mounted: its daemon is left running",
            mount_point.display()
        ));
    }
    let want = mount_point.to_string_lossy().into_owned();
    for (pid, start) in find_fuse_daemons(mount_point, program) {
        let is_ours = || {
            state::alive(pid, start)
                && state::cmdline(pid)
                    .is_some_and(|a| state::program(&a) == program && a.contains(&want))
        };
        let mut grace = Duration::from_secs(60);
        // A stopped daemon can neither exit nor act on SIGTERM until continued; its
        // connection is gone (aborted, unmounted), so once continued it finds /dev/fuse
        // closed and exits by itself — else SIGTERM and SIGKILL follow, sooner.
        if super::fusewatch::stopped(pid) && is_ours() {
            crate::notice::warn(format!(
                "{program} (pid {pid}) of {} was stopped: sending SIGCONT",
                mount_point.display()
            ));
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGCONT,
            );
            grace = Duration::from_secs(5);
        }
        stop_process(pid, is_ours, grace)?;
    }
    Ok(Outcome::default())
}

/// Wait up to `grace` for a process to exit on its own, then SIGTERM, then SIGKILL; signals
/// are only sent while `is_ours` still holds (the pid may be reused meanwhile).
pub fn stop_process(pid: i32, is_ours: impl Fn() -> bool, grace: Duration) -> Result<(), String> {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let wait = |d: Duration| {
        let deadline = Instant::now() + d;
        while is_ours() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        !is_ours()
    };
    if wait(grace) {
        return Ok(());
    }
    crate::notice::warn(format!(
        "pid {pid} did not exit within {grace:?}: sending SIGTERM"
    ));
    for sig in [Signal::SIGTERM, Signal::SIGKILL] {
        if is_ours() {
            let _ = kill(Pid::from_raw(pid), sig);
        }
        if wait(Duration::from_secs(10)) {
            return Ok(());
        }
    }
    Err(format!("pid {pid} survived SIGKILL"))
}

/// The emulator's program name (vm: targets).
pub const EMULATOR_PROGRAM: &str = "qemu-system-x86_64";

/// Stop the `program` daemon whose command line names `tag` (zfs-fuse's socket, the
/// emulator's `-pidfile` inside our session directory): never by its pid alone. `signal`
/// first, then wait up to `wait` for it to go; our child is reaped so no zombie is left.
/// zfs-fuse gets SIGTERM to flush its pools; the emulator is killed outright, since its guest
/// holds nothing the host needs (its journal is on the host already, through the share).
fn stop_tagged(
    program: &str,
    signal: nix::sys::signal::Signal,
    wait: Duration,
    tag: &Path,
    pid: Option<(i32, u64)>,
    handle: Handle,
) -> Result<Outcome, String> {
    let tag = tag.to_string_lossy().into_owned();
    let matches = |p: i32| {
        state::cmdline(p).is_some_and(|a| state::program(&a) == program && a.contains(&tag))
    };
    let targets: Vec<(i32, u64)> = match pid {
        Some(p) => vec![p],
        // Crashed between spawning and recording the pid: our tag in its argv identifies it.
        None => state::pids()
            .into_iter()
            .filter(|&p| matches(p))
            .filter_map(|p| Some((p, state::start_time(p)?)))
            .collect(),
    };
    for (p, start) in targets {
        if state::alive(p, start) && matches(p) {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), signal);
        }
        stop_process(p, || state::alive(p, start) && matches(p), wait)?;
    }
    if let Handle::Child(mut child) = handle {
        // Reap our child so no zombie is left behind.
        let _ = child.kill();
        let _ = child.wait();
    }
    Ok(Outcome::default())
}

fn release_zfs_runtime(dirs: &[PathBuf]) -> Result<Outcome, String> {
    if state::pids()
        .into_iter()
        .any(|p| state::cmdline(p).is_some_and(|a| state::program(&a) == "zfs-fuse"))
    {
        return Ok(Outcome::note(
            "a zfs-fuse daemon is running: its runtime directories stay",
        ));
    }
    for dir in dirs.iter().rev() {
        // zfs-fuse leaves an empty lock file behind; only that is removed, never a non-empty file.
        let lock = dir.join("zfs_lock");
        if std::fs::metadata(&lock).is_ok_and(|m| m.is_file() && m.len() == 0) {
            std::fs::remove_file(&lock).map_err(|e| format!("rm {}: {e}", lock.display()))?;
        }
        match std::fs::remove_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("rmdir {}: {e}", dir.display())),
        }
    }
    Ok(Outcome::default())
}

/// Erase the signatures our mkfs wrote on a user's device, once nothing holds it.
fn wipe(device: &Path) -> Result<Outcome, String> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_EXCL on a block device fails while it is mounted or claimed: never wipe a device in use.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(device)
        .map_err(|e| {
            format!(
                "{} is in use ({e}): its signatures were not wiped",
                device.display()
            )
        })?;
    let argv = vec!["wipefs".into(), "-a".into(), device.display().to_string()];
    exec::run(&argv).map_err(|e| e.0)?;
    Ok(Outcome::default())
}

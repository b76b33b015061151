//! ZFS through zfs-fuse: our own daemon, a pool on our image files, destroyed on teardown.
//!
//! zfs-fuse talks to `zpool`/`zfs` over a fixed socket (/var/run/zfs/zfs_socket) and allows
//! one daemon per machine, so fsbattery never shares one: if a zfs-fuse it did not start is
//! running, setup is refused. Ours runs in the foreground as our child (exact pid, reaped),
//! without the kstat mount (which would land outside the work directory), is tagged by a
//! `--pidfile` path inside the session directory (how cleanup recognises it), and the pool is
//! created with `cachefile=none` so /etc/zfs/zpool.cache is never written. Destroying the
//! pool is `zfs_pool`'s; stopping the daemon and removing its runtime directories,
//! `release`'s.

use super::fsinfo;
use super::guards::Session;
use super::made::Made;
use super::release::Handle;
use super::state::{self, Resource};
use super::zfs_pool::args;
use super::TargetError;
use crate::process as exec;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

static POOL_SEQ: AtomicU64 = AtomicU64::new(0);

/// Directories zfs-fuse creates for its socket and lock.
pub const RUNTIME_DIRS: [&str; 2] = ["/var/run/zfs", "/var/lock/zfs"];

/// Start a daemon, create the pool on `vdevs`, remount it timed; returns what was made.
pub(super) fn make(
    s: &mut Session,
    vdevs: &[PathBuf],
    layout: Option<&str>,
    extra: &[String],
    mount_opts: Option<&str>,
    mount_point: PathBuf,
) -> Result<Made, TargetError> {
    if let Some(pid) = running_daemons().first() {
        return Err(TargetError(format!(
            "a zfs-fuse daemon fsbattery did not start is running (pid {pid}); fsbattery neither \
             shares nor stops it: stop it (systemctl stop zfs-fuse) or drop zfs from the targets"
        )));
    }
    start_daemon(s)?;
    let name = format!(
        "fsbattery-{}-{}",
        std::process::id(),
        POOL_SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let mount_res = Resource::Mount {
        mount_point: mount_point.clone(),
        source: name.clone(),
    };
    let id = s.record(&mount_res)?;
    s.created(id, mount_res, Handle::None);
    let pool = Resource::Pool {
        name: name.clone(),
        vdevs: vdevs.to_vec(),
    };
    let id = s.record(&pool)?;
    // Held before zpool runs: destroying a pool that was never made is a checked no-op.
    s.created(id, pool, Handle::None);
    let mut argv = args(&["zpool", "create", "-o", "cachefile=none", "-m"]);
    argv.push(mount_point.display().to_string());
    argv.extend(extra.iter().cloned());
    argv.push(name.clone());
    argv.extend(vdev_args(vdevs, layout));
    let mkfs = exec::run(&argv)?;
    // zpool create mounts at once; unmount and mount again so the mount has its own timing.
    exec::run(&args(&["zfs", "unmount", &name]))?;
    let mount = remount(&name, mount_opts, &mount_point)?;
    match fsinfo::mounted_at(&mount_point) {
        Some(m) if m.device == name => Ok(Made {
            mount_point,
            mkfs: Some(mkfs),
            mount,
            // zfs-fuse reaches its vdevs through files, not block devices we could count.
            devices: Vec::new(),
        }),
        _ => Err(TargetError(format!(
            "{} succeeded but {name} is not mounted on {}",
            mount.command,
            mount_point.display()
        ))),
    }
}

/// Timed `zfs mount`, once the previous unmount has fully finished (zfs-fuse completes
/// unmounts asynchronously and reports "busy" until then).
fn remount(
    name: &str,
    mount_opts: Option<&str>,
    mount_point: &Path,
) -> Result<exec::Ran, TargetError> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while fsinfo::mounted_at(mount_point).is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut argv = args(&["zfs", "mount"]);
    if let Some(o) = mount_opts.filter(|o| !o.is_empty()) {
        argv.extend(["-o".into(), o.into()]);
    }
    argv.push(name.into());
    loop {
        match exec::run_status(&argv)? {
            (ran, Some(0)) => return Ok(ran),
            (ran, _) if ran.output.contains("busy") && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100))
            }
            (ran, code) => return Err(exec::failure(&ran, code).into()),
        }
    }
}

/// vdev words: `mirror a b mirror c d ...` pairs devices; raidz takes them all.
fn vdev_args(vdevs: &[PathBuf], layout: Option<&str>) -> Vec<String> {
    let paths: Vec<String> = vdevs.iter().map(|p| p.display().to_string()).collect();
    match layout {
        Some("mirror") => paths
            .chunks(2)
            .flat_map(|c| std::iter::once("mirror".to_string()).chain(c.iter().cloned()))
            .collect(),
        Some(l @ ("raidz" | "raidz2" | "raidz3")) => {
            std::iter::once(l.to_string()).chain(paths).collect()
        }
        _ => paths,
    }
}

/// Pids of every zfs-fuse process on the machine.
fn running_daemons() -> Vec<i32> {
    state::pids()
        .into_iter()
        .filter(|&p| state::cmdline(p).is_some_and(|a| state::program(&a) == "zfs-fuse"))
        .collect()
}

fn start_daemon(s: &mut Session) -> Result<(), TargetError> {
    let missing: Vec<PathBuf> = RUNTIME_DIRS
        .iter()
        .map(PathBuf::from)
        .filter(|d| !d.exists())
        .collect();
    if !missing.is_empty() {
        let res = Resource::ZfsRuntime { dirs: missing };
        let id = s.record(&res)?;
        s.created(id, res, Handle::None);
    }
    let (log, _) = s.make_file("zfs-fuse.log", 0)?;
    let tag = s.dir().join("zfs-fuse.pid");
    let id = s.record(&Resource::ZfsDaemon {
        tag: tag.clone(),
        pid: None,
    })?;
    let mut argv = args(&["zfs-fuse", "--no-daemon", "--no-kstat-mount", "--pidfile"]);
    argv.push(tag.display().to_string());
    let child = match exec::spawn(&argv, &log) {
        Ok(c) => c,
        Err(e) => {
            s.abandon(id);
            return Err(e.into());
        }
    };
    let pid = child.id() as i32;
    let ident = state::start_time(pid).map(|t| (pid, t));
    s.created(
        id,
        Resource::ZfsDaemon { tag, pid: ident },
        Handle::Child(child),
    );
    wait_ready(pid, &log)
}

/// Wait until `zpool list` reaches the daemon (it needs a moment to open its socket).
fn wait_ready(pid: i32, log: &Path) -> Result<(), TargetError> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let start = state::start_time(pid);
    loop {
        if let Ok((_, Some(0))) = exec::run_status(&args(&["zpool", "list", "-H"])) {
            return Ok(());
        }
        let dead = start.is_none_or(|t| !state::alive(pid, t));
        if dead || Instant::now() > deadline {
            let out = std::fs::read_to_string(log).unwrap_or_default();
            let why = if dead {
                "exited"
            } else {
                "did not answer within 20 s"
            };
            return Err(TargetError(format!(
                "zfs-fuse (pid {pid}) {why}:\n{}",
                out.trim()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_pair_devices() {
        let v: Vec<PathBuf> = (0..4).map(|i| PathBuf::from(format!("/i{i}"))).collect();
        assert_eq!(
            vdev_args(&v, Some("mirror")),
            ["mirror", "/i0", "/i1", "mirror", "/i2", "/i3"]
        );
        assert_eq!(
            vdev_args(&v, Some("raidz")),
            ["raidz", "/i0", "/i1", "/i2", "/i3"]
        );
        assert_eq!(vdev_args(&v[..1], None), ["/i0"]);
    }
}

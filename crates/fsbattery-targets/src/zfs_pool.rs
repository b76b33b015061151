//! Destroying a pool fsbattery made on zfs-fuse (see `zfs`), checked against the image files
//! recorded as its vdevs, its unmount timed; after a run or, from the state file alone, after
//! a kill -9. Apart from `zfs`'s session, so the releases reach it without the making.

use super::fsinfo;
use super::outcome::Outcome;
use crate::process as exec;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `words` as an argv.
pub(super) fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// Destroy pool `name` if it exists and is built on `vdevs`; unmounting it is timed.
pub fn destroy_pool(name: &str, vdevs: &[PathBuf]) -> Result<Outcome, String> {
    if exec::which("zpool").is_none() {
        return Ok(Outcome::note("zpool missing: no pool can exist"));
    }
    let (ran, code) =
        exec::run_status(&args(&["zpool", "list", "-H", "-o", "name"])).map_err(|e| e.0)?;
    if code != Some(0) {
        // No daemon answers: the pool lived in a zfs-fuse process that is gone.
        return Ok(Outcome::note("zfs-fuse not running: the pool went with it"));
    }
    if !ran.output.lines().any(|l| l.trim() == name) {
        return Ok(Outcome::note("already gone"));
    }
    let status = exec::run(&args(&["zpool", "status", name])).map_err(|e| e.0)?;
    if let Some(v) = vdevs
        .iter()
        .find(|v| !status.output.contains(&*v.to_string_lossy()))
    {
        return Err(format!(
            "pool {name} does not use our image {}: left alone",
            v.display()
        ));
    }
    let umount = unmount_timed(name)?;
    // zfs-fuse finishes unmounts asynchronously and calls the pool busy until then.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match exec::run_status(&args(&["zpool", "destroy", name])).map_err(|e| e.0)? {
            (_, Some(0)) => break,
            (ran, _) if ran.output.contains("busy") && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100))
            }
            (ran, code) => {
                crate::notice::warn(format!("{}; retrying with -f", exec::failure(&ran, code)));
                exec::run(&args(&["zpool", "destroy", "-f", name])).map_err(|e| e.0)?;
                break;
            }
        }
    }
    Ok(Outcome { umount, note: None })
}

/// Unmount the pool's dataset if mounted; the time runs until the kernel mount is gone.
fn unmount_timed(name: &str) -> Result<Option<crate::measure::Timing>, String> {
    let get = |prop: &str| {
        exec::run(&args(&["zfs", "get", "-H", "-o", "value", prop, name]))
            .map(|r| r.output.trim().to_string())
            .unwrap_or_default()
    };
    if get("mounted") != "yes" {
        return Ok(None);
    }
    let mount_point = PathBuf::from(get("mountpoint"));
    let sw = crate::measure::Stopwatch::start();
    let start = Instant::now();
    exec::run(&args(&["zfs", "unmount", name])).map_err(|e| e.0)?;
    let deadline = start + Duration::from_secs(10);
    while fsinfo::mounted_at(&mount_point).is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(Some(sw.stop()))
}

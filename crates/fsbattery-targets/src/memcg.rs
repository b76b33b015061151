//! `run --memory SIZE`: the whole run inside a memory cgroup whose limit bounds the page
//! cache, so a file larger than the limit is read from the device as it was on the seed's
//! smaller machine.
//!
//! Design: a child cgroup `fsbattery-<pid>` of the cgroup this process is in (v2 where the
//! memory controller is available there, else v1's memory hierarchy), the limit set, and this
//! process moved into it; every thread and child (mkfs, commands) follows. The cgroup is a
//! resource of a setup session like a loop device: recorded in a state file before it
//! exists, released (this process moved back to the parent it came from, then rmdir) on
//! drop, on error and after Ctrl-C, and removed by `fsbattery cleanup` after a kill -9 (the
//! removal is `memcg_release`'s, which the releases reach without this file's session).
//! Only directories named `fsbattery-…` inside a cgroup filesystem are ever removed.

use super::guards::Session;
use super::memcg_release::PREFIX;
use super::release::Handle;
use super::state::Resource;
use super::TargetError;
use std::path::{Path, PathBuf};

/// Which cgroup interface the limit is set through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

/// The run's memory cgroup; this process is in it until drop.
#[derive(Debug)]
pub struct MemoryCgroup {
    dir: PathBuf,
    version: Version,
    limit: u64,
    peak_cache: std::cell::Cell<u64>,
    // Declared last: dropped after the fields above, releasing the cgroup.
    _session: Session,
}

impl MemoryCgroup {
    /// Make the cgroup with `limit` bytes, recorded in a state file under `workdir`, and
    /// move this process into it.
    pub fn enter(workdir: &Path, limit: u64) -> Result<MemoryCgroup, TargetError> {
        let (parent, version) = own_memory_cgroup().map_err(TargetError)?;
        let dir = parent.join(format!("{PREFIX}{}", std::process::id()));
        let mut session = Session::begin(workdir, "memory")?;
        let res = Resource::Cgroup { path: dir.clone() };
        let id = session.record(&res)?;
        if let Err(e) = std::fs::create_dir(&dir) {
            session.abandon(id);
            return Err(TargetError(format!(
                "--memory: cannot create cgroup {}: {e}",
                dir.display()
            )));
        }
        session.created(id, res, Handle::None);
        let cg = MemoryCgroup {
            dir,
            version,
            limit,
            peak_cache: std::cell::Cell::new(0),
            _session: session,
        };
        let limit_file = match version {
            Version::V1 => "memory.limit_in_bytes",
            Version::V2 => "memory.max",
        };
        cg.write(limit_file, &limit.to_string())?;
        cg.write("cgroup.procs", &std::process::id().to_string())?;
        Ok(cg)
    }

    /// Whether this process can make a memory cgroup (root, and a memory controller
    /// available to it), probed without changing anything; the message says what to do.
    pub fn check() -> Result<(), String> {
        if !nix::unistd::geteuid().is_root() {
            return Err(
                "--memory makes a memory cgroup, which needs root: run as root or drop --memory"
                    .into(),
            );
        }
        own_memory_cgroup().map(drop)
    }

    fn write(&self, file: &str, value: &str) -> Result<(), TargetError> {
        let path = self.dir.join(file);
        std::fs::write(&path, value).map_err(|e| {
            TargetError(format!(
                "--memory: cannot write {value} to {}: {e}",
                path.display()
            ))
        })
    }

    fn read_u64(&self, file: &str) -> Option<u64> {
        let text = std::fs::read_to_string(self.dir.join(file)).ok()?;
        text.trim().parse().ok()
    }

    /// The cgroup directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// "v1" or "v2".
    pub fn version(&self) -> &'static str {
        match self.version {
            Version::V1 => "v1",
            Version::V2 => "v2",
        }
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Peak memory charged so far (memory.peak, memory.max_usage_in_bytes).
    pub fn peak(&self) -> Option<u64> {
        match self.version {
            Version::V1 => self.read_u64("memory.max_usage_in_bytes"),
            Version::V2 => self.read_u64("memory.peak"),
        }
    }

    /// Read the page cache the cgroup holds now and keep the largest seen; returns it.
    pub fn sample_cache(&self) -> Option<u64> {
        let key = match self.version {
            Version::V1 => "cache",
            Version::V2 => "file",
        };
        let stat = std::fs::read_to_string(self.dir.join("memory.stat")).ok()?;
        let now = stat
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())?;
        self.peak_cache.set(self.peak_cache.get().max(now));
        Some(now)
    }

    /// The most page cache [`MemoryCgroup::sample_cache`] saw.
    pub fn peak_cache(&self) -> Option<u64> {
        Some(self.peak_cache.get()).filter(|b| *b > 0)
    }
}

/// The memory cgroup directory this process is in, and its interface version.
fn own_memory_cgroup() -> Result<(PathBuf, Version), String> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| format!("--memory: cannot read /proc/self/cgroup: {e}"))?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("--memory: cannot read /proc/self/mountinfo: {e}"))?;
    let mounts = cgroup_mounts(&mountinfo);
    // v2 first, where its memory controller is available to our cgroup.
    if let Some(path) = cgroups.lines().find_map(|l| l.strip_prefix("0::")) {
        for (root, point, _) in mounts.iter().filter(|(_, _, v1)| v1.is_none()) {
            if let Some(dir) = under(point, root, path) {
                let controllers = std::fs::read_to_string(dir.join("cgroup.controllers"));
                if controllers.is_ok_and(|c| c.split_whitespace().any(|w| w == "memory")) {
                    return Ok((dir, Version::V2));
                }
            }
        }
    }
    let v1 = cgroups.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctrl, path) = (f.next()?, f.next()?, f.next()?);
        ctrl.split(',').any(|c| c == "memory").then_some(path)
    });
    if let Some(path) = v1 {
        for (root, point, _) in mounts.iter().filter(|(_, _, v1)| *v1 == Some(true)) {
            if let Some(dir) = under(point, root, path) {
                return Ok((dir, Version::V1));
            }
        }
    }
    Err(
        "--memory: no memory cgroup controller is available to this process (neither cgroup \
         v2 with the memory controller nor a v1 memory hierarchy is mounted): drop --memory"
            .into(),
    )
}

/// Cgroup mounts as (root, mount point, Some(has memory) for v1 / None for v2).
fn cgroup_mounts(mountinfo: &str) -> Vec<(String, PathBuf, Option<bool>)> {
    let mut out = Vec::new();
    for l in mountinfo.lines() {
        let Some((left, right)) = l.split_once(" - ") else {
            continue;
        };
        let f: Vec<&str> = left.split(' ').collect();
        let r: Vec<&str> = right.split(' ').collect();
        if f.len() < 5 || r.len() < 3 {
            continue;
        }
        let kind = match r[0] {
            "cgroup2" => None,
            "cgroup" => Some(r[2].split(',').any(|o| o == "memory")),
            _ => continue,
        };
        out.push((f[3].to_string(), PathBuf::from(f[4]), kind));
    }
    out
}

/// `mount_point` + (`path` relative to the mount's `root`), if it exists.
fn under(mount_point: &Path, root: &str, path: &str) -> Option<PathBuf> {
    let rel = path.strip_prefix(root.trim_end_matches('/'))?;
    let dir = mount_point.join(rel.trim_start_matches('/'));
    dir.is_dir().then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_v1_and_v2_mounts_with_their_roots() {
        let info =
            "30 25 0:26 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n\
                    31 25 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n\
                    32 25 0:28 /sub /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n\
                    33 25 0:29 / /tmp rw - tmpfs tmpfs rw";
        let m = cgroup_mounts(info);
        assert_eq!(m.len(), 3);
        assert_eq!(
            m[0],
            ("/".into(), "/sys/fs/cgroup/memory".into(), Some(true))
        );
        assert_eq!(m[1].2, Some(false));
        assert_eq!(m[2], ("/sub".into(), "/sys/fs/cgroup/unified".into(), None));
    }
}

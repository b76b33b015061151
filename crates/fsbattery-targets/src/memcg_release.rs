//! Removing a memory cgroup `run --memory` made (see `memcg`), after a run or after a kill -9:
//! this process moved back to the parent it came from, then the directory removed. Only
//! directories named `fsbattery-…` inside a cgroup filesystem are ever removed.

use super::outcome::Outcome;
use std::path::Path;
use std::time::{Duration, Instant};

/// Prefix of every cgroup fsbattery makes (cleanup removes nothing else).
pub const PREFIX: &str = "fsbattery-";

/// Whether cleanup may remove `path`: a directory named `fsbattery-…` in a cgroup
/// filesystem, nothing else.
pub fn admit(path: &Path) -> Result<(), String> {
    use nix::sys::statfs::{statfs, CGROUP2_SUPER_MAGIC, CGROUP_SUPER_MAGIC};
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(PREFIX));
    if !named || path.components().any(|c| c.as_os_str() == "..") {
        return Err(format!(
            "{} is not a cgroup fsbattery makes",
            path.display()
        ));
    }
    match statfs(path) {
        Ok(s) if [CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC].contains(&s.filesystem_type()) => Ok(()),
        Ok(_) => Err(format!("{} is not in a cgroup filesystem", path.display())),
        Err(nix::errno::Errno::ENOENT) => Ok(()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Move this process back to the parent cgroup if it is inside `path`, then remove `path`
/// (retrying briefly: the kernel frees a cgroup's last charges asynchronously).
pub fn release(path: &Path) -> Result<Outcome, String> {
    if !path.exists() {
        return Ok(Outcome::note("already gone"));
    }
    admit(path)?;
    let me = std::process::id().to_string();
    let procs = std::fs::read_to_string(path.join("cgroup.procs")).unwrap_or_default();
    if procs.lines().any(|p| p.trim() == me) {
        let parent = path.parent().ok_or("a cgroup has a parent")?;
        std::fs::write(parent.join("cgroup.procs"), &me)
            .map_err(|e| format!("move pid {me} back to {}: {e}", parent.display()))?;
    }
    let start = Instant::now();
    loop {
        match std::fs::remove_dir(path) {
            Ok(()) => return Ok(Outcome::default()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Outcome::default()),
            Err(e) if start.elapsed() > Duration::from_secs(5) => {
                return Err(format!("rmdir {}: {e}", path.display()))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleanup_admits_only_our_names_in_a_cgroup_filesystem() {
        assert!(admit(Path::new("/sys/fs/cgroup/memory/system")).is_err());
        let not_cgroup = tempfile::Builder::new().prefix(PREFIX).tempdir().unwrap();
        assert!(admit(not_cgroup.path()).is_err());
        assert!(admit(Path::new("/sys/fs/cgroup/memory/../fsbattery-1")).is_err());
    }
}

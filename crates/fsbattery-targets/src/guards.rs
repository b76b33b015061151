//! A setup session: every resource one setup creates, held as a guard stack.
//!
//! Invariants: a resource is written to the state file (see `state`) before it is created and
//! pushed on the stack right after; the stack is released in reverse order — by `close` on
//! teardown, or by `Drop` on any error path (a failed mkfs or mount leaves nothing behind).
//! Drop never swallows a failure: it is raised as a teardown notice (`crate::notice`), and the resource stays in the state
//! file so `fsbattery cleanup` can finish the job. The state file is deleted once every entry
//! is released.

use super::release::{self, Handle};
use super::state::{Resource, StateFile, STATE_EXT};
use super::{fsinfo, loopdev, TargetError};
use crate::process::{self as exec, Ran};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static SEQ: AtomicU64 = AtomicU64::new(0);

struct Held {
    id: u64,
    res: Resource,
    handle: Handle,
}

/// The resources of one setup, released in reverse order.
pub struct Session {
    state: StateFile,
    held: Vec<Held>,
    dir: PathBuf,
    /// Some release failed: the state file must stay for `fsbattery cleanup`.
    failed: bool,
    /// How long a FUSE daemon of this session may answer nothing (see `fusewatch`).
    fuse_timeout: std::time::Duration,
    /// What went wrong underneath, for a failed cell's reason.
    faults: super::faultlog::FaultLog,
}

fn io_err(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> TargetError {
    move |e| TargetError(format!("{what}: {e}"))
}

/// `label` made safe for a file name.
fn file_safe(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl Session {
    /// Start a session: state file `WORKDIR/fsb-LABEL-PID-SEQ.state` and its directory.
    pub fn begin(workdir: &Path, label: &str) -> Result<Session, TargetError> {
        let given = workdir;
        for _ in 0..1000 {
            // Made on every try: another run that made the work directory removes it again,
            // when empty, as it ends or refuses (`MadeWorkdir`); that can fall between this
            // mkdir and the state file below, which then finds no directory (a refused run
            // beside a starting one failed its cells so once in CI, 2026-11-27).
            match std::fs::create_dir_all(given) {
                Ok(()) => {}
                // It was there when mkdir looked, gone when it checked again: try again.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_err(format!("mkdir {}", given.display()))(e)),
            }
            let workdir = match given.canonicalize() {
                Ok(w) => w,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(format!("resolve {}", given.display()))(e)),
            };
            let seq = SEQ.fetch_add(1, Ordering::Relaxed);
            let name = format!("fsb-{}-{}-{seq}", file_safe(label), std::process::id());
            let dir = workdir.join(&name);
            let state_path = workdir.join(format!("{name}.{STATE_EXT}"));
            if dir.exists() {
                continue;
            }
            let state = match StateFile::create(&state_path, &dir) {
                Ok(s) => s,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                // The work directory went away since the mkdir above (see there).
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(format!("create {}", state_path.display()))(e)),
            };
            let mut s = Session {
                state,
                held: Vec::new(),
                dir: dir.clone(),
                failed: false,
                fuse_timeout: super::fusewatch::DEFAULT_LIMIT,
                faults: super::faultlog::FaultLog::from_now(),
            };
            match s.make_dir_at(&dir) {
                Ok(()) => return Ok(s),
                Err(_) if dir.exists() => continue, // raced with a stale name: drop and retry
                Err(e) => return Err(e),
            }
        }
        Err(TargetError(format!(
            "no free session name under {}",
            given.display()
        )))
    }

    /// Watch the FUSE daemons this session mounts with this limit (`--fuse-timeout`).
    pub fn set_fuse_timeout(&mut self, limit: std::time::Duration) {
        self.fuse_timeout = limit;
    }

    /// What went wrong underneath since the last call (see `faultlog`).
    pub fn faults(&mut self) -> Option<String> {
        self.faults.take()
    }

    /// The session directory (images, mount point, logs).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Durably record `res` before creating it.
    pub fn record(&mut self, res: &Resource) -> Result<u64, TargetError> {
        self.state.intent(res).map_err(io_err(format!(
            "write state file {}",
            self.state.path().display()
        )))
    }

    /// `res` (recorded as `id`) exists now; `res` may carry details learnt on creation.
    pub fn created(&mut self, id: u64, res: Resource, handle: Handle) {
        if let Err(e) = self.state.update(id, &res) {
            crate::notice::warn(format!(
                "cannot update {}: {e}",
                self.state.path().display()
            ));
        }
        self.held.push(Held { id, res, handle });
    }

    /// Creation of `id` failed before anything existed: close its record.
    pub fn abandon(&mut self, id: u64) {
        if let Err(e) = self.state.released(id) {
            crate::notice::warn(format!(
                "cannot update {}: {e}",
                self.state.path().display()
            ));
        }
    }

    fn make_dir_at(&mut self, path: &Path) -> Result<(), TargetError> {
        let res = Resource::Dir {
            path: path.to_path_buf(),
        };
        let id = self.record(&res)?;
        // 0700: nobody else may add, swap or rename anything in a session (see `safety`).
        match mkdir_private(path) {
            Ok(()) => {
                self.created(id, res, Handle::None);
                Ok(())
            }
            Err(e) => {
                self.abandon(id);
                Err(io_err(format!("mkdir {}", path.display()))(e))
            }
        }
    }

    /// A scratch directory inside the session directory that the caller fills as it likes;
    /// removed with its contents on release, and by `cleanup` after a crash.
    pub fn make_scratch_dir(&mut self, name: &str) -> Result<PathBuf, TargetError> {
        use std::os::unix::fs::MetadataExt;
        let path = self.dir.join(name);
        let id = self.record(&Resource::ScratchDir {
            path: path.clone(),
            id: None,
        })?;
        if let Err(e) = mkdir_private(&path) {
            self.abandon(id);
            return Err(io_err(format!("mkdir {}", path.display()))(e));
        }
        let ino = std::fs::symlink_metadata(&path)
            .ok()
            .map(|m| (m.dev(), m.ino()));
        let res = Resource::ScratchDir {
            path: path.clone(),
            id: ino,
        };
        self.created(id, res, Handle::None);
        Ok(path)
    }

    /// A directory inside the session directory (mount points).
    pub fn make_dir(&mut self, name: &str) -> Result<PathBuf, TargetError> {
        let path = self.dir.join(name);
        self.make_dir_at(&path)?;
        Ok(path)
    }

    /// An empty file inside the session directory, created with O_EXCL; returns its path and
    /// (st_dev, st_ino). `size` > 0 makes it a sparse image of that size.
    pub fn make_file(
        &mut self,
        name: &str,
        size: u64,
    ) -> Result<(PathBuf, (u64, u64)), TargetError> {
        use std::os::unix::fs::MetadataExt;
        let path = self.dir.join(name);
        let id = self.record(&Resource::File {
            path: path.clone(),
            id: None,
        })?;
        let file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => f,
            Err(e) => {
                self.abandon(id);
                return Err(io_err(format!("create {}", path.display()))(e));
            }
        };
        let meta = file.metadata();
        let ino = meta.as_ref().ok().map(|m| (m.dev(), m.ino()));
        self.created(
            id,
            Resource::File {
                path: path.clone(),
                id: ino,
            },
            Handle::None,
        );
        let ino = match (ino, meta) {
            (Some(ino), _) => ino,
            (None, Err(e)) => return Err(io_err(format!("stat {}", path.display()))(e)),
            (None, Ok(_)) => unreachable!("metadata is Ok whenever ino is Some"),
        };
        file.set_len(size).map_err(io_err(format!(
            "truncate {} to {size} bytes",
            path.display()
        )))?;
        Ok((path, ino))
    }

    /// Bind `image` to a free loop device; returns /dev/loopN.
    pub fn attach_loop(
        &mut self,
        image: &Path,
        image_id: (u64, u64),
        btrfs: bool,
        direct_io: bool,
    ) -> Result<PathBuf, TargetError> {
        let mut res = Resource::Loop {
            image: image.into(),
            image_id,
            device: None,
            btrfs,
        };
        let id = self.record(&res)?;
        match loopdev::attach(image, direct_io) {
            Ok(bound) => {
                if let Resource::Loop { device, .. } = &mut res {
                    *device = Some(bound.device.clone());
                }
                let dev = bound.device.clone();
                self.faults.watch_device(&dev);
                self.created(id, res, Handle::Loop(bound.fd));
                Ok(dev)
            }
            Err(e) => {
                self.abandon(id);
                Err(TargetError(format!(
                    "cannot bind {} to a loop device: {e}",
                    image.display()
                )))
            }
        }
    }

    /// Run a mount command for `mount_point`; for FUSE, also track the daemon it leaves.
    pub fn mount(
        &mut self,
        argv: &[String],
        source: &str,
        mount_point: &Path,
        fuse_program: Option<&str>,
    ) -> Result<Ran, TargetError> {
        let daemon = match fuse_program {
            Some(program) => {
                let res = Resource::FuseDaemon {
                    mount_point: mount_point.into(),
                    program: program.into(),
                    pid: None,
                };
                let id = self.record(&res)?;
                // Pushed at once: release is a no-op until a daemon exists.
                self.held.push(Held {
                    id,
                    res,
                    handle: Handle::None,
                });
                Some((id, program))
            }
            None => None,
        };
        let res = Resource::Mount {
            mount_point: mount_point.into(),
            source: source.into(),
        };
        let id = self.record(&res)?;
        // Pushed before running: a failed mount command may still have mounted something.
        self.held.push(Held {
            id,
            res,
            handle: Handle::None,
        });
        let kmsg = super::faultlog::kernel_log_from_now();
        let ran = exec::run(argv).map_err(|e| with_kernel_log(e.into(), kmsg))?;
        let entry = fsinfo::mounted_at(mount_point).ok_or_else(|| {
            TargetError(format!(
                "{} succeeded but nothing is mounted on {}",
                ran.command,
                mount_point.display()
            ))
        })?;
        // Whatever is mounted on our private mount point now is ours: record its exact source.
        let actual = Resource::Mount {
            mount_point: mount_point.into(),
            source: entry.device.clone(),
        };
        self.replace(id, actual);
        if let Some((daemon_id, program)) = daemon {
            if let Some(pid) = release::find_fuse_daemons(mount_point, program).first() {
                let res = Resource::FuseDaemon {
                    mount_point: mount_point.into(),
                    program: program.into(),
                    pid: Some(*pid),
                };
                self.replace(daemon_id, res);
                // Held by the mount, so it outlives the unmount it may have to unblock.
                let watch = super::fusewatch::FuseWatch::start(super::fusewatch::Watched {
                    mount_point: mount_point.into(),
                    source: entry.device,
                    program: program.into(),
                    daemon: *pid,
                    limit: self.fuse_timeout,
                    notes: self.faults.notes(),
                });
                if let Some(h) = self.held.iter_mut().find(|h| h.id == id) {
                    h.handle = Handle::Watch(watch);
                }
            }
        }
        Ok(ran)
    }

    /// Update the record of a held resource.
    pub fn replace(&mut self, id: u64, res: Resource) {
        if let Err(e) = self.state.update(id, &res) {
            crate::notice::warn(format!(
                "cannot update {}: {e}",
                self.state.path().display()
            ));
        }
        if let Some(h) = self.held.iter_mut().find(|h| h.id == id) {
            h.res = res;
        }
    }

    /// Release everything in reverse order; returns the unmount time and every failure.
    fn release_all(&mut self) -> (Option<crate::measure::Timing>, Vec<String>) {
        let mut umount: Option<crate::measure::Timing> = None;
        let mut errors = Vec::new();
        let mut unrecorded = Vec::new();
        while let Some(h) = self.held.pop() {
            match release::release(&h.res, h.handle) {
                Ok(out) => {
                    if let Some(t) = out.umount {
                        umount = Some(umount.map_or(t, |u| u.plus(&t)));
                    }
                    if let Err(e) = self.state.released(h.id) {
                        unrecorded.push(format!(
                            "cannot update {}: {e}",
                            self.state.path().display()
                        ));
                    }
                }
                Err(e) => errors.push(format!("{}: {e}", h.res.describe())),
            }
        }
        self.failed |= !errors.is_empty();
        // A release the state file could not note (the work directory filled up under the
        // run) matters only while something else remains: when everything is gone, removing
        // the file below is the record that nothing does.
        if self.failed {
            errors.extend(unrecorded);
        }
        if !self.failed {
            match std::fs::remove_file(self.state.path()) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    errors.push(format!("rm {}: {e}", self.state.path().display()))
                }
                _ => {}
            }
        }
        (umount, errors)
    }

    /// Tear down in reverse order; returns the unmount time (if anything was unmounted).
    pub fn close(mut self) -> Result<Option<crate::measure::Timing>, TargetError> {
        let (secs, errors) = self.release_all();
        if errors.is_empty() {
            return Ok(secs);
        }
        Err(TargetError(format!(
            "teardown left resources behind ({}); run `fsbattery cleanup` after fixing the cause:\n{}",
            self.state.path().display(),
            errors.join("\n")
        )))
    }
}

fn mkdir_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(path)
}

/// Append what the kernel logged since `kmsg` was opened (at most the last 5 records):
/// mount(8) only says "wrong fs type, bad option, ...", while the kernel names the cause
/// ("ext4: Unknown parameter 'x'").
fn with_kernel_log(mut e: TargetError, kmsg: Option<std::fs::File>) -> TargetError {
    let Some(mut kmsg) = kmsg else { return e };
    let lines = super::faultlog::records(&mut kmsg);
    for (_, l) in &lines[lines.len().saturating_sub(5)..] {
        e.0.push_str(&format!("\nkernel: {l}"));
    }
    e
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("dir", &self.dir).finish()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Also runs with nothing held, to remove the state file of a session that never
        // got its directory.
        let (_, errors) = self.release_all();
        for e in &errors {
            crate::notice::teardown(format!("cleanup failed: {e}"));
        }
        if !errors.is_empty() {
            crate::notice::teardown(format!(
                "resources remain, recorded in {}: run `fsbattery cleanup`",
                self.state.path().display()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another run that made the work directory removes it when empty as it ends or refuses;
    /// a session beginning meanwhile makes it again instead of failing. Here a thread removes
    /// the directory whenever it is empty while 2,000 sessions begin and end one after another.
    #[test]
    fn a_session_begins_though_the_empty_work_directory_is_removed_meanwhile() {
        let tmp = tempfile::tempdir().unwrap();
        let workdir = tmp.path().join("work");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let remover = {
            let (dir, stop) = (workdir.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut removed = 0u64;
                // A short breath between removals: another run removes it once, not in a
                // tight loop that would leave a beginning session no moment to make it.
                while !stop.load(Ordering::Relaxed) {
                    removed += u64::from(std::fs::remove_dir(&dir).is_ok());
                    std::thread::sleep(std::time::Duration::from_micros(10));
                }
                removed
            })
        };
        for i in 0..2000 {
            let s = Session::begin(&workdir, "race").unwrap_or_else(|e| panic!("try {i}: {e}"));
            drop(s);
        }
        stop.store(true, Ordering::Relaxed);
        assert!(
            remover.join().unwrap() > 0,
            "the directory was never removed"
        );
    }
}

//! The state file: a write-ahead record of every resource a target setup creates.
//!
//! One file per setup (a "session"), `WORKDIR/fsb-LABEL-PID-SEQ.state`, append-only JSON
//! lines, fsync'd after every line. Invariant: a resource's `intent` line is durable *before*
//! the resource exists, an `update` line adds what is learnt once it exists (an inode, a loop
//! device, a pid), and a `released` line follows its removal. So after a kill -9 the
//! unreleased entries name a superset of what is left, each with enough detail to check it is
//! still ours before `cleanup` touches it. The first line names the owning process (pid and
//! start time), so cleanup never takes resources from a run that is still alive.
//!
//! The file is created 0600 and every path in it lies inside the session directory its header
//! names (`WORKDIR/fsb-LABEL-PID-SEQ`, created 0700), except the few resources that by nature
//! live elsewhere and carry their own proof of identity (a user's device: the filesystem UUID
//! our mkfs wrote; zfs-fuse's runtime directories: a fixed list). `cleanup` checks all of this
//! (see `safety`) and refuses anything else.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Extension of state files in the work directory.
pub const STATE_EXT: &str = "state";

/// Something fsbattery creates and must remove.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Resource {
    /// A directory created with mkdir (fails if it exists); removed only when empty.
    Dir {
        /// The directory.
        path: PathBuf,
    },
    /// A regular file created with O_EXCL (image, log); its inode is added once it exists.
    File {
        /// The file.
        path: PathBuf,
        /// st_dev and st_ino after creation.
        id: Option<(u64, u64)>,
    },
    /// A scratch directory fsbattery made (mkdir, fails if it exists) and fills itself: the
    /// dataset store, the default `dir:` target. Removed with everything in it, but only
    /// while it is still the directory we made.
    ScratchDir {
        /// The directory.
        path: PathBuf,
        /// st_dev and st_ino after creation.
        id: Option<(u64, u64)>,
    },
    /// A loop device bound to one of our image files.
    Loop {
        /// The image.
        image: PathBuf,
        /// st_dev and st_ino of the image: what the kernel reports as the backing file.
        image_id: (u64, u64),
        /// /dev/loopN once bound.
        device: Option<PathBuf>,
        /// Unregister from the btrfs module before detaching (btrfs registers devices).
        btrfs: bool,
    },
    /// A filesystem mounted on our mount point.
    Mount {
        /// The mount point.
        mount_point: PathBuf,
        /// Source as /proc/mounts shows it (device, pool name, tmpfs source tag).
        source: String,
    },
    /// The FUSE daemon serving a mount point (found after the mount).
    FuseDaemon {
        /// Its mount point, which its command line names.
        mount_point: PathBuf,
        /// Helper program name (`argv[0]` basename).
        program: String,
        /// Pid and start time (clock ticks since boot) once found.
        pid: Option<(i32, u64)>,
    },
    /// A zfs-fuse daemon fsbattery started.
    ZfsDaemon {
        /// The `--pidfile` argument we gave it: a path inside our session directory, so it
        /// identifies our daemon by its command line even before the pid is recorded.
        tag: PathBuf,
        /// Pid and start time once spawned.
        pid: Option<(i32, u64)>,
    },
    /// The emulator (QEMU) of a `vm:` guest.
    Emulator {
        /// The `-pidfile` argument we gave it: a path inside our session directory, so it
        /// identifies our emulator by its command line even before the pid is recorded.
        tag: PathBuf,
        /// Pid and start time once spawned.
        pid: Option<(i32, u64)>,
    },
    /// zfs-fuse runtime directories that did not exist before our daemon made them.
    ZfsRuntime {
        /// Directories to remove when empty.
        dirs: Vec<PathBuf>,
    },
    /// A zpool created on our image files.
    Pool {
        /// Pool name (unique: contains our pid and a sequence number).
        name: String,
        /// Its vdev files.
        vdevs: Vec<PathBuf>,
    },
    /// A memory cgroup `fsbattery-PID` made for `run --memory` (see `memcg`).
    Cgroup {
        /// Its directory in the cgroup filesystem.
        path: PathBuf,
    },
    /// A PostgreSQL server the pgbench workload made in its scratch directory `dir` (data in
    /// `dir/pg/data`): stopped, then the directory removed while it is still the one we made.
    Postgres {
        /// The workload's scratch directory on the target.
        dir: PathBuf,
        /// st_dev and st_ino of `dir` after creation.
        id: Option<(u64, u64)>,
        /// The postmaster's pid and start time once it runs.
        postmaster: Option<(i32, u64)>,
    },
    /// Filesystem signatures we wrote on a user's device (dev: targets): wiped on release.
    Signature {
        /// The device.
        device: PathBuf,
        /// The UUID blkid reads from it after our mkfs: the proof, for `cleanup`, that the
        /// signatures on the device are still the ones we wrote.
        #[serde(default)]
        uuid: Option<String>,
    },
}

impl Resource {
    /// One-line description for logs and reports.
    pub fn describe(&self) -> String {
        match self {
            Resource::Dir { path } => format!("directory {}", path.display()),
            Resource::File { path, .. } => format!("file {}", path.display()),
            Resource::ScratchDir { path, .. } => format!("scratch directory {}", path.display()),
            Resource::Loop { image, device, .. } => match device {
                Some(d) => format!("loop device {} ({})", d.display(), image.display()),
                None => format!("loop device for {}", image.display()),
            },
            Resource::Mount {
                mount_point,
                source,
            } => {
                format!("mount of {source} on {}", mount_point.display())
            }
            Resource::FuseDaemon { program, pid, .. } => match pid {
                Some((p, _)) => format!("{program} daemon (pid {p})"),
                None => format!("{program} daemon"),
            },
            Resource::ZfsDaemon { pid, .. } => match pid {
                Some((p, _)) => format!("zfs-fuse daemon (pid {p})"),
                None => "zfs-fuse daemon".into(),
            },
            Resource::Emulator { pid, .. } => match pid {
                Some((p, _)) => format!("guest emulator (pid {p})"),
                None => "guest emulator".into(),
            },
            Resource::ZfsRuntime { .. } => "zfs-fuse runtime directories".into(),
            Resource::Pool { name, .. } => format!("zpool {name}"),
            Resource::Signature { device, .. } => format!("signatures on {}", device.display()),
            Resource::Cgroup { path } => format!("memory cgroup {}", path.display()),
            Resource::Postgres {
                dir, postmaster, ..
            } => match postmaster {
                Some((p, _)) => format!("PostgreSQL server (pid {p}) in {}", dir.display()),
                None => format!("PostgreSQL server in {}", dir.display()),
            },
        }
    }
}

/// One line of a state file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Line {
    Header {
        pid: i32,
        start_time: u64,
        created: String,
        session: PathBuf,
    },
    Intent {
        id: u64,
        res: Resource,
    },
    Update {
        id: u64,
        res: Resource,
    },
    Released {
        id: u64,
    },
}

/// An open state file being appended to.
#[derive(Debug)]
pub struct StateFile {
    path: PathBuf,
    file: File,
    next_id: u64,
}

impl StateFile {
    /// Create `path` (must not exist) and write the header naming this process.
    pub fn create(path: &Path, session: &Path) -> std::io::Result<StateFile> {
        use std::os::unix::fs::OpenOptionsExt;
        // 0600 whatever the umask: cleanup refuses a state file others could have written.
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        let mut s = StateFile {
            path: path.to_path_buf(),
            file,
            next_id: 0,
        };
        let me = std::process::id() as i32;
        let start_time = start_time(me).unwrap_or(0);
        let created = chrono::Local::now().to_rfc3339();
        s.write(&Line::Header {
            pid: me,
            start_time,
            created,
            session: session.into(),
        })?;
        Ok(s)
    }

    /// Reopen an existing state file to append `released` lines (cleanup).
    pub fn reopen(path: &Path) -> std::io::Result<StateFile> {
        let file = std::fs::OpenOptions::new().append(true).open(path)?;
        Ok(StateFile {
            path: path.to_path_buf(),
            file,
            next_id: u64::MAX,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, line: &Line) -> std::io::Result<()> {
        let mut text = serde_json::to_string(line).map_err(std::io::Error::other)?;
        text.push('\n');
        self.file.write_all(text.as_bytes())?;
        self.file.sync_data()
    }

    /// Durably note that `res` is about to be created; returns its id.
    pub fn intent(&mut self, res: &Resource) -> std::io::Result<u64> {
        let id = self.next_id;
        self.write(&Line::Intent {
            id,
            res: res.clone(),
        })?;
        self.next_id += 1;
        Ok(id)
    }

    /// Record what was learnt about resource `id` once it exists.
    pub fn update(&mut self, id: u64, res: &Resource) -> std::io::Result<()> {
        self.write(&Line::Update {
            id,
            res: res.clone(),
        })
    }

    /// Record that resource `id` is gone (or was never created).
    pub fn released(&mut self, id: u64) -> std::io::Result<()> {
        self.write(&Line::Released { id })
    }
}

/// What a state file says is still held, read back (by cleanup).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Owning process id and start time.
    pub owner: (i32, u64),
    /// The session directory the header names.
    pub session: PathBuf,
    /// Unreleased resources in creation order, with their ids.
    pub held: Vec<(u64, Resource)>,
}

/// Why a state file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Someone other than the caller could have written it: not trusted at all.
    Untrusted(String),
    /// It cannot be read or parsed.
    Bad(String),
    /// Ours, but without a complete header: its process died between creating it and writing
    /// the first line, before anything was recorded (so before anything was created).
    Headerless,
}

/// Parse a state file; a torn last line (crash mid-write) is ignored. Refused unless it is a
/// regular file (not a symbolic link) owned by the caller and writable by nobody else; the
/// check is made on the descriptor that is read, so the file cannot be swapped in between.
pub fn read(path: &Path) -> Result<Snapshot, ReadError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let bad = |e: std::io::Error| ReadError::Bad(format!("{}: {e}", path.display()));
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => {
                ReadError::Untrusted(format!("{} is a symbolic link", path.display()))
            }
            _ => bad(e),
        })?;
    let meta = file.metadata().map_err(bad)?;
    if !meta.is_file() {
        return Err(ReadError::Untrusted(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    super::safety::private_to_us(path, &meta).map_err(ReadError::Untrusted)?;
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(bad)?;
    if !text.contains('\n') {
        return Err(ReadError::Headerless);
    }
    parse(path, &text).map_err(ReadError::Bad)
}

fn parse(path: &Path, text: &str) -> Result<Snapshot, String> {
    let mut owner = None;
    let mut session = None;
    let mut held: BTreeMap<u64, Resource> = BTreeMap::new();
    let count = text.lines().count();
    for (i, l) in text.lines().enumerate() {
        let line: Line = match serde_json::from_str(l) {
            Ok(line) => line,
            Err(_) if i + 1 == count => break,
            Err(e) => return Err(format!("{} line {}: {e}", path.display(), i + 1)),
        };
        match line {
            Line::Header {
                pid,
                start_time,
                session: s,
                ..
            } => {
                owner = Some((pid, start_time));
                session = Some(s);
            }
            Line::Intent { id, res } | Line::Update { id, res } => {
                held.insert(id, res);
            }
            Line::Released { id } => {
                held.remove(&id);
            }
        }
    }
    let owner = owner.ok_or_else(|| format!("{}: no header line", path.display()))?;
    Ok(Snapshot {
        owner,
        session: session.unwrap_or_default(),
        held: held.into_iter().collect(),
    })
}

/// Start time of `pid` in clock ticks since boot (field 22 of /proc/PID/stat).
pub fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces and parentheses: skip past the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the process `(pid, start_time)` is still the one that was recorded.
pub fn alive(pid: i32, start: u64) -> bool {
    pid > 0 && start_time(pid) == Some(start)
}

/// A process's argv, or `None` once it is gone.
pub fn cmdline(pid: i32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(
        raw.split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

/// Every live pid.
pub fn pids() -> Vec<i32> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// Basename of `argv[0]`.
pub fn program(argv: &[String]) -> &str {
    argv.first()
        .map(|a| a.rsplit('/').next().unwrap_or(a))
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_entries_drop_out_and_updates_win() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.state");
        let mut s = StateFile::create(&path, dir.path()).unwrap();
        let a = s.intent(&Resource::Dir { path: "/a".into() }).unwrap();
        let f = Resource::File {
            path: "/a/f".into(),
            id: None,
        };
        let b = s.intent(&f).unwrap();
        s.update(
            b,
            &Resource::File {
                path: "/a/f".into(),
                id: Some((1, 2)),
            },
        )
        .unwrap();
        let c = s
            .intent(&Resource::Pool {
                name: "p".into(),
                vdevs: vec![],
            })
            .unwrap();
        s.released(c).unwrap();
        drop(s);
        // A torn last line, as a crash mid-write leaves it, is ignored.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"op\":\"rel")
            .unwrap();
        let snap = read(&path).unwrap();
        assert_eq!(snap.owner.0, std::process::id() as i32);
        assert_eq!(snap.held.len(), 2);
        assert_eq!(snap.held[0].0, a);
        assert_eq!(
            snap.held[1].1,
            Resource::File {
                path: "/a/f".into(),
                id: Some((1, 2))
            }
        );
    }

    #[test]
    fn this_process_is_alive() {
        let me = std::process::id() as i32;
        let st = start_time(me).unwrap();
        assert!(alive(me, st));
        assert!(!alive(me, st + 1));
        assert!(!program(&cmdline(me).unwrap()).is_empty());
    }
}

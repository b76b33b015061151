//! The FUSE watchdog: one thread per FUSE mount fsbattery made, watching the daemon it started.
//!
//! A FUSE daemon that stops answering (stopped by SIGSTOP, or stuck) leaves every system call
//! on its mount waiting in the kernel, where no signal fsbattery handles reaches it: the phase
//! would wait forever, and so would the unmount after it (a `fuseblk` unmount waits for the
//! daemon's reply to DESTROY), Ctrl-C included. When the daemon has made no progress for the
//! limit (`--fuse-timeout`) while it is stopped, or while a task of this run waits on FUSE,
//! the watchdog aborts the connection with a forced unmount: MNT_FORCE makes FUSE's
//! `umount_begin` abort the connection, as writing `/sys/fs/fuse/connections/N/abort` does,
//! without needing fusectl mounted. Every waiting call then fails (ENOTCONN, ECONNABORTED),
//! the cell fails with it, and the teardown unmounts and stops the daemon (continued first,
//! see `release`).
//!
//! The forced unmount must abort, not unmount: were the mount to go, the workloads after it
//! would write into the bare mount point on the work directory's filesystem and measure
//! that. So the watchdog pins the mount with an `O_PATH` descriptor on its root, taken while
//! the daemon answered; the forced unmount then aborts the connection and fails with EBUSY,
//! and every later call on the mount fails. The pin is dropped just before the teardown's
//! unmount, which is itself forced when the daemon is stopped or was aborted: once a mount is
//! detached, a forced unmount can no longer reach its connection.
//!
//! Progress is the daemon's system calls and CPU time (`/proc/PID/io`, `/proc/PID/stat`): a
//! daemon that answers reads and writes `/dev/fuse`. A daemon inside one long system call on
//! its storage (an fsync of gigabytes to a slow disk) shows neither, but sleeps
//! uninterruptibly (state D) meanwhile: that counts as progress too. An idle daemon (nothing
//! asked of it, e.g. during a pause) is no fault: it is neither stopped nor waited on.
//!
//! Invariants: the watchdog reads only `/proc`; it never touches the mount's files (a stat
//! there would wait too). It acts only on our private mount point while the source we mounted
//! is still there, and it signals no process (the teardown continues and stops the daemon,
//! the one recorded by pid and start time). A daemon that is gone needs no watchdog: calls on
//! a dead connection fail at once.

use super::fsinfo;
use super::state;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a daemon may answer nothing while stopped or waited on, unless `--fuse-timeout`.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(30);

/// What one watchdog watches.
pub struct Watched {
    /// Our mount point (in the private session directory).
    pub mount_point: PathBuf,
    /// The source mounted there, as /proc/self/mounts shows it.
    pub source: String,
    /// The daemon's program name and (pid, start time).
    pub program: String,
    pub daemon: (i32, u64),
    /// No progress for this long while stopped or waited on: abort.
    pub limit: Duration,
    /// Where the abort is noted for the failed cell's reason (see `faultlog`).
    pub notes: Arc<Mutex<Vec<String>>>,
}

/// What the thread and the teardown share.
struct Shared {
    w: Watched,
    /// The `O_PATH` descriptor on the mount's root that keeps a forced unmount from
    /// detaching it; `None` once the teardown unmounts.
    pin: Mutex<Option<OwnedFd>>,
    /// The connection was aborted.
    aborted: AtomicBool,
}

/// A running watchdog; dropping it stops the thread (after the unmount it guards).
pub struct FuseWatch {
    shared: Arc<Shared>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FuseWatch {
    /// Watch `w` until dropped; call right after the mount, while the daemon answers.
    pub fn start(w: Watched) -> FuseWatch {
        use nix::fcntl::{open, OFlag};
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let pin = open(&w.mount_point, flags, nix::sys::stat::Mode::empty())
            .map_err(|e| {
                crate::notice::warn(format!(
                    "cannot pin {} for the FUSE watchdog: {e}",
                    w.mount_point.display()
                ))
            })
            .ok();
        let shared = Arc::new(Shared {
            w,
            pin: Mutex::new(pin),
            aborted: AtomicBool::new(false),
        });
        let (tx, rx) = mpsc::channel();
        let theirs = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("fuse-watch".into())
            .spawn(move || watch(&theirs, &rx))
            .map_err(|e| crate::notice::warn(format!("no FUSE watchdog: {e}")))
            .ok();
        FuseWatch {
            shared,
            stop: Some(tx),
            thread,
        }
    }

    /// Ready the mount for the teardown's unmount: drop the pin, and abort the connection
    /// now when the daemon is stopped or was aborted (the unmount would wait for it forever).
    pub fn before_unmount(&self) {
        let s = &self.shared;
        let mut pin = s.pin.lock().unwrap_or_else(|e| e.into_inner());
        pin.take();
        if s.aborted.load(Ordering::SeqCst) || stopped(s.w.daemon.0) {
            force(&s.w);
        }
    }
}

impl Drop for FuseWatch {
    fn drop(&mut self) {
        // Closing the channel wakes the thread at once.
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for FuseWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FuseWatch")
    }
}

fn watch(s: &Shared, stop: &mpsc::Receiver<()>) {
    let w = &s.w;
    // A few looks per limit, at most one a second: two small /proc reads while the daemon
    // works, so the watchdog costs the measurement nothing it could see.
    let poll = (w.limit / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
    let (pid, start) = w.daemon;
    let mut last = progress(pid);
    let mut since = Instant::now();
    loop {
        match stop.recv_timeout(poll) {
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            _ => return,
        }
        if !state::alive(pid, start) {
            return;
        }
        let now = progress(pid);
        if now != last || in_io(pid) {
            (last, since) = (now, Instant::now());
            continue;
        }
        if since.elapsed() < w.limit {
            continue;
        }
        let why = if stopped(pid) {
            "it is stopped"
        } else if waiting_on_fuse() {
            "this run waits on it"
        } else {
            continue;
        };
        abort(s, why, since.elapsed());
        return;
    }
}

/// Abort the connection (the pin held, so the mount stays) and say so.
fn abort(s: &Shared, why: &str, quiet: Duration) {
    let w = &s.w;
    let what = format!(
        "{} (pid {}) answered nothing for {} s and {why}: its FUSE connection was aborted",
        w.program,
        w.daemon.0,
        quiet.as_secs()
    );
    {
        // Held across the forced unmount: the teardown cannot drop the pin meanwhile.
        let _pin = s.pin.lock().unwrap_or_else(|e| e.into_inner());
        // The note goes in before the abort: the abort fails the waiting call at once, and
        // the cell asks for the notes as soon as it fails, before this thread could add it.
        if !ours(w) {
            return;
        }
        w.notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(what.clone());
        force(w);
        s.aborted.store(true, Ordering::SeqCst);
    }
    crate::notice::warn(format!(
        "{what} (umount -f {}), so the cell fails and the teardown stops the daemon",
        w.mount_point.display()
    ));
}

/// Forced unmount of our mount, if it is still there: FUSE aborts the connection first, then
/// the unmount fails with EBUSY while pinned (or succeeds in the teardown, unpinned).
fn force(w: &Watched) -> bool {
    use nix::mount::{umount2, MntFlags};
    if !ours(w) {
        return false;
    }
    let _ = umount2(
        &w.mount_point,
        MntFlags::MNT_FORCE | MntFlags::UMOUNT_NOFOLLOW,
    );
    true
}

/// Whether our mount point still holds the source we mounted.
fn ours(w: &Watched) -> bool {
    fsinfo::mounted_at(&w.mount_point).is_some_and(|e| e.device == w.source)
}

/// The daemon's system calls (read + write) and CPU ticks: any change is progress.
fn progress(pid: i32) -> Option<(u64, u64, u64)> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field = |name: &str| {
        io.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // utime and stime are fields 14 and 15; the command name may hold spaces.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut f = rest.split_whitespace().skip(11);
    let cpu = f.next()?.parse::<u64>().ok()? + f.next()?.parse::<u64>().ok()?;
    Some((field("syscr:")?, field("syscw:")?, cpu))
}

/// Whether a thread of `pid` is inside a system call on its storage (state D).
fn in_io(pid: i32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        std::fs::read_to_string(t.path().join("stat")).is_ok_and(|stat| {
            stat.rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next())
                .is_some_and(|s| s == "D")
        })
    })
}

/// Whether `pid` is stopped (SIGSTOP, or by a tracer): it answers nothing until continued.
pub fn stopped(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_some_and(|s| s == "T" || s == "t")
    })
}

/// Whether a thread of this process, or a child of one (command mode's tools), sleeps waiting
/// for a FUSE reply.
fn waiting_on_fuse() -> bool {
    let in_fuse = |task: &str| {
        std::fs::read_to_string(format!("{task}/wchan"))
            .is_ok_and(|w| w == "request_wait_answer" || w.starts_with("fuse_"))
    };
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return false;
    };
    tasks.flatten().any(|t| {
        let task = t.path().display().to_string();
        in_fuse(&task)
            || std::fs::read_to_string(format!("{task}/children")).is_ok_and(|c| {
                c.split_whitespace()
                    .any(|child| in_fuse(&format!("/proc/{child}")))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_progress_and_state_of_a_live_process() {
        let me = std::process::id() as i32;
        assert!(progress(me).is_some());
        assert!(!stopped(me));
        assert!(!waiting_on_fuse());
    }

    #[test]
    fn a_stopped_process_is_seen_stopped() {
        use nix::sys::signal::{kill, Signal};
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .unwrap();
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        kill(pid, Signal::SIGSTOP).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while !stopped(pid.as_raw()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let seen = stopped(pid.as_raw());
        let _ = child.kill();
        let _ = child.wait();
        assert!(seen);
    }
}

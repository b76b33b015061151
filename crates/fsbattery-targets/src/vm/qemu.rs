//! The emulator: its command line (pure, tested by exact words) and its supervision — the
//! guest's console copied to the host's stderr and a log, a watchdog that kills a guest that
//! goes quiet, and Ctrl-C (or SIGTERM/SIGHUP) ending it at once.
//!
//! Invariants: the emulator is a guard (`Resource::Emulator`) recorded before it is spawned,
//! in its own process group (a terminal's Ctrl-C reaches fsbattery, which then kills it),
//! with no standard input; it is given nothing of the host's but the kernel, the initramfs,
//! the disk images fsbattery made and the one share directory the guest writes its run into.

use crate::guards::Session;
use crate::release::Handle;
use crate::state::{self, Resource};
use crate::TargetError;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The guest's console line that says it is up (modules loaded, share mounted).
pub const READY_LINE: &str = "fsbattery guest: ready";

/// How the guest is made.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// "tcg" or "kvm".
    pub accel: String,
    /// Virtual CPUs.
    pub cpus: u32,
    /// Memory in MiB.
    pub mem_mib: u64,
    /// The kernel image.
    pub kernel: PathBuf,
    /// The initramfs.
    pub initrd: PathBuf,
    /// Disk images, in the guest's order (/dev/vda first).
    pub disks: Vec<PathBuf>,
    /// The directory shared with the guest.
    pub share: PathBuf,
    /// The pid file: also the tag that identifies this emulator by its command line.
    pub pidfile: PathBuf,
}

/// The emulator's command line.
pub fn argv(m: &Machine) -> Vec<String> {
    let mut a: Vec<String> = [
        crate::release::EMULATOR_PROGRAM,
        "-nodefaults",
        "-no-user-config",
        "-display",
        "none",
        "-no-reboot",
        "-accel",
        &m.accel,
        "-cpu",
        "max",
        "-smp",
        &m.cpus.to_string(),
        "-m",
        &format!("{}M", m.mem_mib),
        "-kernel",
        &m.kernel.to_string_lossy(),
        "-initrd",
        &m.initrd.to_string_lossy(),
        // panic=-1: a guest whose init dies reboots at once, which -no-reboot turns into an exit.
        "-append",
        "console=ttyS0 panic=-1 quiet loglevel=3 rdinit=/init",
        "-serial",
        "stdio",
        "-pidfile",
        &m.pidfile.to_string_lossy(),
    ]
    .map(String::from)
    .to_vec();
    for d in &m.disks {
        a.push("-drive".into());
        a.push(format!(
            "file={},format=raw,if=virtio,cache=writeback",
            d.display()
        ));
    }
    a.push("-virtfs".into());
    a.push(format!(
        "local,path={},mount_tag={},security_model=none,id=share",
        m.share.display(),
        super::job::SHARE_TAG
    ));
    a
}

/// How a guest ended.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The emulator exited by itself (the guest powered off).
    Exited,
    /// SIGINT/SIGTERM/SIGHUP reached fsbattery: the guest was killed.
    Interrupted,
    /// Nothing on its console and nothing added to `watch` for this long: killed.
    Hung(u64),
}

/// What the supervision saw.
#[derive(Debug, Clone)]
pub struct Ran {
    /// How it ended.
    pub end: End,
    /// Seconds from spawn to [`READY_LINE`], when it came.
    pub boot_secs: Option<f64>,
}

/// Spawn the emulator as a guard of `s`, copy its console to stderr and `console`, and wait
/// until it exits, fsbattery is interrupted, or neither its console nor `watch` (the guest's
/// journal) changed for `timeout`.
pub fn run(
    s: &mut Session,
    m: &Machine,
    console: &Path,
    watch: &Path,
    timeout: Duration,
) -> Result<Ran, TargetError> {
    let argv = argv(m);
    let id = s.record(&Resource::Emulator {
        tag: m.pidfile.clone(),
        pid: None,
    })?;
    let mut cmd = std::process::Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0);
    // Killed with us even by a kill -9 that leaves no time for teardown (`cleanup` still
    // removes the images); SAFETY: prctl(2) is async-signal-safe, as required before exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            s.abandon(id);
            return Err(TargetError(format!(
                "cannot start {}: {e} (install qemu-system-x86)",
                argv[0]
            )));
        }
    };
    let started = Instant::now();
    let pid = child.id() as i32;
    let log = std::fs::File::create(console)
        .map_err(|e| TargetError(format!("create {}: {e}", console.display())))?;
    let log = Arc::new(Mutex::new(log));
    let activity = Arc::new(AtomicU64::new(0));
    let ready = Arc::new(Mutex::new(None));
    let out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    let copiers = [
        copier(Box::new(out), &log, &activity, &ready, started),
        copier(Box::new(err), &log, &activity, &ready, started),
    ];
    let ident = state::start_time(pid).map(|t| (pid, t));
    s.created(
        id,
        Resource::Emulator {
            tag: m.pidfile.clone(),
            pid: ident,
        },
        Handle::Child(child),
    );
    let end = supervise(pid, started, &activity, watch, timeout);
    if end != End::Exited {
        // Killed here rather than at teardown, so the console copiers see the pipe close.
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    for c in copiers {
        let _ = c.join();
    }
    let boot_secs = *ready.lock().unwrap_or_else(|e| e.into_inner());
    Ok(Ran { end, boot_secs })
}

use std::os::unix::process::CommandExt;

/// A thread copying one of the emulator's streams, line by line.
fn copier(
    from: Box<dyn std::io::Read + Send>,
    log: &Arc<Mutex<std::fs::File>>,
    activity: &Arc<AtomicU64>,
    ready: &Arc<Mutex<Option<f64>>>,
    started: Instant,
) -> std::thread::JoinHandle<()> {
    let (log, activity, ready) = (log.clone(), activity.clone(), ready.clone());
    std::thread::spawn(move || {
        let mut r = std::io::BufReader::new(from);
        let mut line = Vec::new();
        while r.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            activity.fetch_add(1, Ordering::Relaxed);
            if text.contains(READY_LINE) {
                let mut r = ready.lock().unwrap_or_else(|e| e.into_inner());
                r.get_or_insert(started.elapsed().as_secs_f64());
            } else if forwarded(text) {
                eprintln!("guest: {text}");
            }
            if let Ok(mut f) = log.lock() {
                let _ = writeln!(f, "{text}");
            }
            line.clear();
        }
    })
}

/// Whether a console line is shown on the host's stderr as it comes: the guest run's own
/// messages (notes, warnings, failures), the kernel's oopses and the emulator's errors. The
/// guest's result table is not: the host prints the run's table itself, with the guest's
/// configuration in its conditions. Every line is in the console log.
fn forwarded(text: &str) -> bool {
    text.starts_with("fsbattery")
        || text.starts_with("qemu-system")
        || ["BUG:", "Oops", "Kernel panic", "INFO: task"]
            .iter()
            .any(|k| text.contains(k))
}

/// Wait for the emulator `pid` (our child) to exit; kill decisions are the caller's.
fn supervise(
    pid: i32,
    started: Instant,
    activity: &AtomicU64,
    watch: &Path,
    timeout: Duration,
) -> End {
    use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
    let size = || std::fs::metadata(watch).map(|m| m.len()).unwrap_or(0);
    let (mut last, mut last_size, mut quiet_since) = (0, 0, started);
    loop {
        match waitpid(nix::unistd::Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => {}
            _ => return End::Exited,
        }
        if fsbattery_engine::interrupt::requested() {
            return End::Interrupted;
        }
        let (now, now_size) = (activity.load(Ordering::Relaxed), size());
        if now != last || now_size != last_size {
            (last, last_size, quiet_since) = (now, now_size, Instant::now());
        } else if quiet_since.elapsed() > timeout {
            return End::Hung(timeout.as_secs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guest_gets_our_images_and_one_share() {
        let m = Machine {
            accel: "tcg".into(),
            cpus: 2,
            mem_mib: 1536,
            kernel: "/c/vmlinuz".into(),
            initrd: "/s/initrd".into(),
            disks: vec!["/s/disk0.img".into(), "/s/disk1.img".into()],
            share: "/out/guest".into(),
            pidfile: "/s/qemu.pid".into(),
        };
        let a = argv(&m);
        assert_eq!(a[0], "qemu-system-x86_64");
        let after = |k: &str| a[a.iter().position(|w| w == k).unwrap() + 1].clone();
        assert_eq!(after("-accel"), "tcg");
        assert_eq!(after("-m"), "1536M");
        assert_eq!(after("-pidfile"), "/s/qemu.pid");
        let drives: Vec<&String> = a.iter().filter(|w| w.starts_with("file=")).collect();
        assert_eq!(drives.len(), 2);
        assert!(drives[0].starts_with("file=/s/disk0.img,"));
        assert_eq!(
            after("-virtfs"),
            "local,path=/out/guest,mount_tag=fsbattery,security_model=none,id=share"
        );
        assert!(
            a.contains(&"-nodefaults".to_string()),
            "no default network or devices"
        );
    }

    #[test]
    fn the_guests_table_stays_in_the_log() {
        assert!(forwarded("fsbattery: warning: x"));
        assert!(forwarded("[   3.1] Kernel panic - not syncing"));
        assert!(!forwarded("│ Touch 2,000 Files ┆ s ┆ 1.67 │"));
    }
}

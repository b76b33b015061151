//! The guest side: fsbattery as the guest's PID 1. It mounts the kernel filesystems and the
//! 9p share, loads the job's modules, assembles its md arrays, runs `fsbattery run` on the
//! guest's disks with the run directory on the share (so every journaled cell is on the host
//! as soon as it is written), writes that run's exit status beside it, and powers off.
//!
//! Invariant: whatever happens, PID 1 ends by powering the machine off (a panic or an early
//! error too); the host's emulator then exits on its own. The host never depends on a clean
//! end: a guest that goes quiet is killed by the host's watchdog.

use super::initramfs::JOB_PATH;
use super::job::{Job, EXIT_FILE, GUEST_OUT, SHARE_DIR, SHARE_TAG};
use nix::mount::{mount, MsFlags};
use std::path::Path;

/// The guest's programs (see `initramfs`: merged /usr).
const PATH: &str = "/usr/sbin:/usr/bin";

/// Whether this process is a guest's init: PID 1 with a job beside it.
pub fn is_guest() -> bool {
    std::process::id() == 1 && Path::new(JOB_PATH).is_file()
}

/// Run the job and power off; never returns.
pub fn init() -> ! {
    let status = match prepare() {
        Ok(job) => {
            eprintln!("{}", super::qemu::READY_LINE);
            run(&job)
        }
        Err(e) => {
            eprintln!("fsbattery guest: {e}");
            let _ = std::fs::create_dir_all(SHARE_DIR);
            100
        }
    };
    let _ = std::fs::write(Path::new(SHARE_DIR).join(EXIT_FILE), format!("{status}\n"));
    nix::unistd::sync();
    let _ = nix::mount::umount(SHARE_DIR);
    let _ = nix::sys::reboot::reboot(nix::sys::reboot::RebootMode::RB_POWER_OFF);
    // Reboot refused (not PID 1 after all): exiting makes the kernel panic, and its
    // panic=-1 command line with the emulator's -no-reboot ends the machine too.
    std::process::exit(status)
}

fn prepare() -> Result<Job, String> {
    let m = |src: &str, dir: &str, fs: &str, data: Option<&str>| {
        let _ = std::fs::create_dir_all(dir);
        mount(Some(src), dir, Some(fs), MsFlags::empty(), data)
            .map_err(|e| format!("mount {fs} on {dir}: {e}"))
    };
    m("proc", "/proc", "proc", None)?;
    m("sysfs", "/sys", "sysfs", None)?;
    m("devtmpfs", "/dev", "devtmpfs", None)?;
    m("tmpfs", "/run", "tmpfs", None)?;
    let text = std::fs::read_to_string(JOB_PATH).map_err(|e| format!("{JOB_PATH}: {e}"))?;
    let job: Job = serde_json::from_str(&text).map_err(|e| format!("{JOB_PATH}: {e}"))?;
    for module in &job.modules {
        load(module)?;
    }
    m(
        SHARE_TAG,
        SHARE_DIR,
        "9p",
        Some("trans=virtio,version=9p2000.L,msize=262144"),
    )?;
    for a in &job.arrays {
        let argv = a.create_argv();
        // The kernel starts PID 1 with no PATH; the child's is where mdadm is looked up.
        let st = std::process::Command::new(&argv[0])
            .args(&argv[1..])
            .env("PATH", PATH)
            .status()
            .map_err(|e| format!("cannot run mdadm: {e}"))?;
        if !st.success() {
            return Err(format!("{} failed ({st})", argv.join(" ")));
        }
    }
    Ok(job)
}

/// finit_module(2) on one module file; one already loaded is fine.
fn load(path: &str) -> Result<(), String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let none = std::ffi::CString::default();
    match nix::kmod::finit_module(&f, &none, nix::kmod::ModuleInitFlags::empty()) {
        Ok(()) | Err(nix::errno::Errno::EEXIST) => Ok(()),
        Err(e) => Err(format!("loading module {path}: {e}")),
    }
}

/// The guest's run, as a child (PID 1 must outlive it to power off); its exit status.
fn run(job: &Job) -> i32 {
    let _ = std::fs::create_dir_all(GUEST_OUT);
    let st = std::process::Command::new("/init")
        .args(&job.argv)
        .env("PATH", PATH)
        .env("HOME", "/root")
        .env("TERM", "dumb")
        .status();
    match st {
        Ok(s) => s.code().unwrap_or(101),
        Err(e) => {
            eprintln!("fsbattery guest: cannot start the run: {e}");
            102
        }
    }
}

//! Stopping a guest's emulator: by our guard on teardown, by `cleanup` after a kill -9.
//!
//! The emulator is found by its command line, which names the pid file inside our session
//! directory (see `Resource::Emulator`), never by its pid alone. It is killed outright: the
//! guest holds nothing the host needs (its journal is on the host already, written through
//! the share), and its disks are removed right after.

use crate::targets::outcome::Outcome;
use crate::targets::release::{stop_process, Handle};
use crate::targets::state;
use std::path::Path;
use std::time::Duration;

/// The emulator's program name.
pub(crate) const PROGRAM: &str = "qemu-system-x86_64";

/// Kill the emulator whose `-pidfile` is `tag` (and reap it when it is our child).
pub(crate) fn stop_emulator(
    tag: &Path,
    pid: Option<(i32, u64)>,
    handle: Handle,
) -> Result<Outcome, String> {
    use nix::sys::signal::{kill, Signal};
    let tag = tag.to_string_lossy().into_owned();
    let matches = |p: i32| {
        state::cmdline(p).is_some_and(|a| state::program(&a) == PROGRAM && a.contains(&tag))
    };
    let found: Vec<(i32, u64)> = match pid {
        Some(p) => vec![p],
        // Crashed between spawning and recording the pid: our tag in its argv identifies it.
        None => state::pids()
            .into_iter()
            .filter(|&p| matches(p))
            .filter_map(|p| Some((p, state::start_time(p)?)))
            .collect(),
    };
    for (p, start) in found {
        if state::alive(p, start) && matches(p) {
            let _ = kill(nix::unistd::Pid::from_raw(p), Signal::SIGKILL);
        }
        stop_process(
            p,
            || state::alive(p, start) && matches(p),
            Duration::from_secs(10),
        )?;
    }
    if let Handle::Child(mut child) = handle {
        let _ = child.kill();
        let _ = child.wait();
    }
    Ok(Outcome::default())
}

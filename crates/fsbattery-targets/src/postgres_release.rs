//! Stopping a PostgreSQL server the pgbench workload started, from its state-file record
//! alone (`fsbattery cleanup` after a kill -9) or as the last line of its own teardown.
//!
//! Invariant: never touch a cluster we did not make. The postmaster is signalled only while
//! it is the very process recorded (pid and start time) and its command line names our data
//! directory; any other process is signalled only while it works in our data directory (a
//! PostgreSQL process chdirs into its data directory at start, pgbench was started in the
//! directory above it, and both lie in a scratch directory only fsbattery made). Idempotent: a server already stopped is success.

use super::outcome::Outcome;
use super::state;
use std::path::Path;
use std::time::{Duration, Instant};

/// The data directory of the server of the scratch directory `dir` (see the pgbench
/// workload: `DIR/pg/data`).
pub fn data_dir(dir: &Path) -> std::path::PathBuf {
    dir.join("pg").join("data")
}

/// Stop what is left of the server of the scratch directory `dir` whose postmaster was
/// `postmaster`.
pub fn stop(dir: &Path, postmaster: Option<(i32, u64)>) -> Result<Outcome, String> {
    stop_data(&data_dir(dir), postmaster)
}

/// Stop what is left of the server of the data directory `data`: the postmaster (if it is
/// still the one recorded), then every process working in the directory that holds `data`
/// (the server's processes work in `data`, pgbench in its parent, both only ours).
pub fn stop_data(data: &Path, postmaster: Option<(i32, u64)>) -> Result<Outcome, String> {
    if let Some((pid, start)) = postmaster {
        let names_ours =
            || state::cmdline(pid).is_some_and(|argv| argv.iter().any(|a| Path::new(a) == data));
        // SIGQUIT is PostgreSQL's immediate shutdown; SIGKILL if it does not listen.
        for sig in [libc::SIGQUIT, libc::SIGKILL] {
            if !state::alive(pid, start) || !names_ours() {
                break;
            }
            // SAFETY: kill(2) with a pid we just proved to be our postmaster.
            unsafe { libc::kill(pid, sig) };
            wait_until(|| !state::alive(pid, start), 5);
        }
    }
    let ours = data.parent().unwrap_or(data);
    for pid in working_in(ours) {
        // SAFETY: kill(2) on a process whose working directory is our data directory.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    wait_until(|| working_in(ours).is_empty(), 5);
    match working_in(ours).as_slice() {
        [] => Ok(Outcome::default()),
        left => Err(format!(
            "PostgreSQL processes {left:?} of {} did not stop",
            data.display()
        )),
    }
}

/// Pids of the processes whose working directory is `data` or below it.
pub fn working_in(data: &Path) -> Vec<i32> {
    state::pids()
        .into_iter()
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(data))
        })
        .collect()
}

/// Poll `done` every 50 ms for up to `secs` seconds.
fn wait_until(done: impl Fn() -> bool, secs: u64) {
    let t0 = Instant::now();
    while !done() && t0.elapsed() < Duration::from_secs(secs) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

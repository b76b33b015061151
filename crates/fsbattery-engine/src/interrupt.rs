//! Process-wide interruption flag, raised by the signals that end a run early — SIGINT
//! (Ctrl-C), SIGTERM, SIGHUP (the terminal or SSH session went away, `tmux kill-session`),
//! SIGQUIT (Ctrl-\) — or by a closed progress output (the SIGPIPE case, see
//! `fsbattery_core::notice::to_stderr`).
//!
//! Signal handlers only store which signal came; workloads poll the flag in their loops and
//! the runner starts no further cell once it is set. Teardown then runs on the normal path,
//! so every one of these ends the same way: torn down, journal kept, exit status 130.
//!
//! One polling rule for every loop that moves bytes or walks files: [`due`] reads the flag every
//! [`POLL_EVERY`] iterations (the engine driver, the workloads' loops), so a signal is answered
//! within a few hundred operations everywhere and the hot loops pay one branch per operation.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The signals that interrupt a run. Their default actions would kill fsbattery with
/// filesystems mounted (SIGHUP, SIGTERM, SIGINT) or dump core (SIGQUIT).
pub const SIGNALS: [i32; 4] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
];

/// Flag value of an interruption raised in code ([`request`]) rather than by a signal.
const BY_HAND: usize = usize::MAX;
/// Flag value once the progress output's reader went away (EPIPE on stderr).
const BY_CLOSED_OUTPUT: usize = usize::MAX - 1;

/// 0 while nothing asked to stop; else the signal number (or one of the values above) of the
/// first cause.
static FLAG: std::sync::OnceLock<Arc<AtomicUsize>> = std::sync::OnceLock::new();

fn flag() -> &'static Arc<AtomicUsize> {
    FLAG.get_or_init(|| Arc::new(AtomicUsize::new(0)))
}

/// Install the handlers of [`SIGNALS`] that raise the flag. Idempotent.
pub fn install() -> std::io::Result<()> {
    for sig in SIGNALS {
        // A handler stores the number of the signal it got; a second signal of another kind
        // overwrites it, which only changes how the end is worded.
        signal_hook::flag::register_usize(sig, Arc::clone(flag()), sig as usize)?;
    }
    Ok(())
}

/// True once a run was asked to stop.
pub fn requested() -> bool {
    flag().load(Ordering::Relaxed) != 0
}

/// Raise the flag by hand (tests, a fatal error elsewhere, another MPI rank's signal).
pub fn request() {
    raise(BY_HAND);
}

/// Raise the flag because the progress output (stderr) was closed by its reader: the run is
/// stopped and torn down as on SIGPIPE's default action, without being killed mid-mount.
pub fn request_closed_output() {
    raise(BY_CLOSED_OUTPUT);
}

/// Keep the first cause of an interruption raised in code.
fn raise(value: usize) {
    let _ = flag().compare_exchange(0, value, Ordering::Relaxed, Ordering::Relaxed);
}

/// What asked the run to stop, in words ("SIGHUP", "the progress output was closed"), once
/// something did.
pub fn cause() -> Option<String> {
    match flag().load(Ordering::Relaxed) {
        0 => None,
        BY_HAND => Some("a request to stop".into()),
        BY_CLOSED_OUTPUT => Some("the progress output was closed".into()),
        sig => Some(signal_name(sig as i32)),
    }
}

/// "SIGHUP" for 1, as `kill -l` names them; the number for any other.
fn signal_name(sig: i32) -> String {
    use signal_hook::consts::*;
    match sig {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        SIGQUIT => "SIGQUIT".into(),
        other => format!("signal {other}"),
    }
}

/// Iterations between two reads of the flag in a hot loop.
pub const POLL_EVERY: u64 = 256;

/// True when iteration `i` is one that reads the flag ([`POLL_EVERY`], 0 included) and the flag
/// is up.
#[inline]
pub fn due(i: u64) -> bool {
    i.is_multiple_of(POLL_EVERY) && requested()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named_as_kill_l_names_them() {
        assert_eq!(signal_name(signal_hook::consts::SIGHUP), "SIGHUP");
        assert_eq!(signal_name(signal_hook::consts::SIGQUIT), "SIGQUIT");
        assert_eq!(signal_name(64), "signal 64");
    }
}

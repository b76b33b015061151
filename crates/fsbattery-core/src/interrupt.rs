//! Process-wide interruption flag, raised by SIGINT or SIGTERM.
//!
//! Signal handlers only set an atomic; workloads poll it in their loops and the runner starts
//! no further cell once it is set. Teardown then runs on the normal path.
//!
//! One polling rule for every loop that moves bytes or walks files: [`due`] reads the flag every
//! [`POLL_EVERY`] iterations (the engine driver, the workloads' loops), so a signal is answered
//! within a few hundred operations everywhere and the hot loops pay one branch per operation.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();

fn flag() -> &'static Arc<AtomicBool> {
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Install SIGINT and SIGTERM handlers that raise the flag. Idempotent.
pub fn install() -> std::io::Result<()> {
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(flag()))?;
    }
    Ok(())
}

/// True once SIGINT or SIGTERM arrived.
pub fn requested() -> bool {
    flag().load(Ordering::Relaxed)
}

/// Raise the flag by hand (tests, or a fatal error elsewhere).
pub fn request() {
    flag().store(true, Ordering::Relaxed);
}

/// Iterations between two reads of the flag in a hot loop.
pub const POLL_EVERY: u64 = 256;

/// True when iteration `i` is one that reads the flag ([`POLL_EVERY`], 0 included) and the flag
/// is up.
#[inline]
pub fn due(i: u64) -> bool {
    i.is_multiple_of(POLL_EVERY) && requested()
}

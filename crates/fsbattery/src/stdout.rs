//! Writing to stdout. A reader that went away (`fsbattery list | head -1`) is no error: the
//! write returns [`Closed`], and `main` ends the command quietly with status 0, as a pipeline
//! expects, where `print!` would panic on EPIPE (the Rust runtime ignores SIGPIPE).
//!
//! SIGPIPE stays ignored on purpose: a `run` must never be killed while it has filesystems
//! mounted. `run` prints only after its targets are torn down and its results written, and a
//! closed stdout then changes nothing of its exit status; `compare` likewise keeps the status
//! of its `--fail-if-worse` gate.

use std::io::Write;

/// stdout was closed by its reader.
#[derive(Debug)]
pub struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for Closed {}

/// Write `bytes` to stdout and flush; a closed pipe is [`Closed`], any other failure an error
/// saying it was stdout.
pub fn write(bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes.as_ref()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Closed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("writing to stdout")),
        Ok(()) => Ok(()),
    }
}

/// Like [`write()`], for commands whose exit status must not depend on whether anyone still
/// reads: a closed stdout is fine, any other failure is still an error.
pub fn write_unless_closed(bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    match write(bytes) {
        Err(e) if e.is::<Closed>() => Ok(()),
        other => other,
    }
}

/// `println!` through [`write_unless_closed`], for the commands that report what they did
/// (`cleanup`, `setup`): their status says what happened, not whether anyone read it.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::stdout::write_unless_closed(format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

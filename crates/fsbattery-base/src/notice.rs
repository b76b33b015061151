//! Notices: what core code has to tell the user that is neither a result nor an error it can
//! return — a warning (a retried command, a lazily detached mount), a teardown report
//! (resources a `Drop` could not release) or a note.
//!
//! Much of it is raised where no caller can take a value back (guards' `Drop`, release
//! helpers deep under a teardown), so it is collected rather than returned: while a
//! [`Capture`] is alive on a thread, notices raised on that thread are queued, and the runner
//! hands them to its `RunObserver` (in the core's runner) (`warning`, `teardown`) at each step
//! boundary (notes as `message`), so `--quiet`, JSON output and tests see them like any other event.
//!
//! Invariants: nothing is lost — with no capture on the raising thread (the `cleanup`
//! command, a target dropped after the run, a worker thread) a notice goes to stderr, worded
//! as the observer of the binary prints it; captures nest, the innermost one collects.

use std::cell::RefCell;

/// One thing to tell the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Something went wrong but was worked around or can be ignored.
    Warning(String),
    /// A teardown could not release everything; says what remains and what to run.
    Teardown(String),
    /// Worth knowing, nothing went wrong (e.g. what a filesystem does not store).
    Note(String),
}

impl Notice {
    /// The line printed on stderr for it.
    pub fn line(&self) -> String {
        match self {
            Notice::Warning(t) => format!("fsbattery: warning: {t}"),
            Notice::Teardown(t) => format!("fsbattery: {t}"),
            Notice::Note(t) => format!("fsbattery: note: {t}"),
        }
    }
}

thread_local! {
    /// One queue per live capture on this thread, innermost last.
    static QUEUES: RefCell<Vec<Vec<Notice>>> = const { RefCell::new(Vec::new()) };
}

/// Raise a warning (see the module header for where it goes).
pub fn warn(text: impl Into<String>) {
    raise(Notice::Warning(text.into()));
}

/// Raise a teardown report (see the module header for where it goes).
pub fn teardown(text: impl Into<String>) {
    raise(Notice::Teardown(text.into()));
}

/// Raise a note (see the module header for where it goes).
pub fn note(text: impl Into<String>) {
    raise(Notice::Note(text.into()));
}

fn raise(n: Notice) {
    let unheard = QUEUES.with(|q| match q.borrow_mut().last_mut() {
        Some(queue) => {
            queue.push(n);
            None
        }
        None => Some(n),
    });
    if let Some(n) = unheard {
        to_stderr(&n.line());
    }
}

/// Write one line to stderr without ever panicking (`eprintln!` panics when the write fails).
///
/// A run's stderr can go away under it: its reader closes the pipe (`fsbattery run 2>&1 |
/// head`), or the terminal hangs up and writes fail with EIO. Neither may stop a teardown
/// half-way, so failures are swallowed here. A closed pipe (EPIPE; SIGPIPE itself stays
/// ignored, as the Rust runtime sets it) also stops the run as SIGPIPE's default action
/// would, only with the teardown: nobody is watching a run whose progress goes nowhere.
pub fn to_stderr(line: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let written = err
        .write_all(line.as_bytes())
        .and_then(|()| err.write_all(b"\n"))
        .and_then(|()| err.flush());
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            crate::interrupt::request_closed_output();
        }
    }
}

/// Collects the notices raised on this thread while it lives; those not taken when it is
/// dropped go to stderr, so none is lost.
pub struct Capture {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Capture {
    /// Start collecting on this thread.
    pub fn begin() -> Capture {
        QUEUES.with(|q| q.borrow_mut().push(Vec::new()));
        Capture {
            _not_send: std::marker::PhantomData,
        }
    }

    /// The notices collected so far, oldest first.
    pub fn take(&self) -> Vec<Notice> {
        QUEUES
            .with(|q| q.borrow_mut().last_mut().map(std::mem::take))
            .unwrap_or_default()
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        let left = QUEUES.with(|q| q.borrow_mut().pop()).unwrap_or_default();
        for n in left {
            raise(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captured_in_order_and_nested_captures_collect_their_own() {
        let outer = Capture::begin();
        warn("one");
        {
            let inner = Capture::begin();
            teardown("two");
            assert_eq!(inner.take(), vec![Notice::Teardown("two".into())]);
            warn("three");
            // Dropped untaken: handed to the outer capture, not lost.
        }
        assert_eq!(
            outer.take(),
            vec![
                Notice::Warning("one".into()),
                Notice::Warning("three".into())
            ]
        );
        assert!(outer.take().is_empty());
    }

    #[test]
    fn lines_read_as_before() {
        assert_eq!(Notice::Warning("x".into()).line(), "fsbattery: warning: x");
        assert_eq!(
            Notice::Teardown("cleanup failed: y".into()).line(),
            "fsbattery: cleanup failed: y"
        );
    }
}

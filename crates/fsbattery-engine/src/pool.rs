//! The one thread pool of every multithreaded workload: N threads, a common start line.
//!
//! Invariants:
//! - Each thread runs its `setup` (open files, build its engine: io_uring rings are
//!   single-issuer, so an engine is made on the thread that uses it and never crosses
//!   threads), then waits at one barrier; every thread reaches the barrier even when its setup
//!   failed, so a failing thread never leaves the others waiting. The timed window starts after
//!   the barrier.
//! - A thread that fails raises the shared `stop` flag; bodies poll it (with the interruption
//!   flag) and return soon after. The first real error wins over the "interrupted" (and any
//!   stop-induced error) of the others, so the user reads the cause, not its echo.
//! - One thread runs on the caller's thread (no spawn, no barrier): a single-threaded job pays
//!   nothing for the pool.

use super::EngineError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::Instant;

/// An error a pool thread can end with: the pool needs to tell an interruption (an echo of
/// someone else's failure or of Ctrl-C) from a real cause.
pub trait PoolError: Send {
    /// True for "interrupted".
    fn is_interruption(&self) -> bool;
}

impl PoolError for EngineError {
    fn is_interruption(&self) -> bool {
        matches!(self, EngineError::Interrupted)
    }
}

/// What every thread returned, in thread order, and the window from the first start to the
/// last end in seconds.
pub type PoolResult<R> = (Vec<R>, f64);

/// Run `body` on `n` threads (see the module's invariants). `setup(t)` prepares thread `t`;
/// `body(t, state, start)` runs after the common start line and should return soon after
/// `stop` is raised.
pub fn run_pool<S, R, E>(
    n: usize,
    stop: &AtomicBool,
    setup: impl Fn(usize) -> Result<S, E> + Sync,
    body: impl Fn(usize, S, Instant) -> Result<R, E> + Sync,
) -> Result<PoolResult<R>, E>
where
    R: Send,
    E: PoolError,
{
    let barrier = Barrier::new(n.max(1));
    let one = |t: usize| {
        let state = setup(t);
        if state.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        if n > 1 {
            barrier.wait();
        }
        let start = Instant::now();
        let out = state.and_then(|st| body(t, st, start));
        if out.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        out.map(|r| (r, start, Instant::now()))
    };
    let joined: Vec<Result<(R, Instant, Instant), E>> = if n == 1 {
        vec![one(0)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..n).map(|t| s.spawn(move || one(t))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    gather(joined)
}

/// Results in thread order and the window, or the error that explains the others.
fn gather<R, E: PoolError>(
    joined: Vec<Result<(R, Instant, Instant), E>>,
) -> Result<PoolResult<R>, E> {
    let mut results = Vec::with_capacity(joined.len());
    let mut window: Option<(Instant, Instant)> = None;
    let mut error: Option<E> = None;
    for r in joined {
        match r {
            Ok((v, a, b)) => {
                results.push(v);
                window = Some(window.map_or((a, b), |(f, l)| (f.min(a), l.max(b))));
            }
            Err(e) => {
                let echo = error.as_ref().is_some_and(PoolError::is_interruption);
                if error.is_none() || (echo && !e.is_interruption()) {
                    error = Some(e);
                }
            }
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    let secs = window.map_or(0.0, |(a, b)| b.duration_since(a).as_secs_f64());
    Ok((results, secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_thread_order() {
        let stop = AtomicBool::new(false);
        let (v, secs) =
            run_pool::<_, _, EngineError>(4, &stop, |t| Ok(t * 10), |t, s, _| Ok(s + t)).unwrap();
        assert_eq!(v, vec![0, 11, 22, 33]);
        assert!(secs >= 0.0);
        let (one, _) =
            run_pool::<_, _, EngineError>(1, &stop, |_| Ok(()), |_, (), _| Ok(7)).unwrap();
        assert_eq!(one, vec![7]);
    }
}

//! Timing one phase: wall time from CLOCK_MONOTONIC, CPU from getrusage.
//!
//! CPU covers this process and its reaped children, so command mode (child processes) and
//! native mode are accounted the same way. CPU % = (user + sys) / elapsed × 100, as seed S1.

use crate::model::Sample;
use nix::sys::resource::{getrusage, UsageWho};
use std::time::Instant;

/// CPU seconds (user, sys) of self plus reaped children so far.
fn cpu_now() -> (f64, f64) {
    let secs = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
    let mut user = 0.0;
    let mut sys = 0.0;
    for who in [UsageWho::RUSAGE_SELF, UsageWho::RUSAGE_CHILDREN] {
        if let Ok(u) = getrusage(who) {
            user += secs(u.user_time());
            sys += secs(u.system_time());
        }
    }
    (user, sys)
}

/// A running stopwatch over wall and CPU time.
#[derive(Debug, Clone, Copy)]
pub struct Stopwatch {
    wall: Instant,
    user: f64,
    sys: f64,
}

/// Wall and CPU time of a finished phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Wall seconds.
    pub elapsed_s: f64,
    /// User CPU seconds.
    pub user_s: f64,
    /// System CPU seconds.
    pub sys_s: f64,
    /// What the target's block devices did in the phase (set by `WorkloadCtx::phase` on
    /// block-backed targets only).
    pub io: Option<crate::model::DeviceIo>,
}

impl Stopwatch {
    /// Start now.
    pub fn start() -> Self {
        let (user, sys) = cpu_now();
        Stopwatch {
            wall: Instant::now(),
            user,
            sys,
        }
    }

    /// Time since start.
    pub fn stop(&self) -> Timing {
        let elapsed_s = self.wall.elapsed().as_secs_f64();
        let (user, sys) = cpu_now();
        Timing {
            elapsed_s,
            user_s: (user - self.user).max(0.0),
            sys_s: (sys - self.sys).max(0.0),
            io: None,
        }
    }
}

impl Timing {
    /// CPU utilisation in percent of one core.
    pub fn cpu_pct(&self) -> f64 {
        if self.elapsed_s > 0.0 {
            (self.user_s + self.sys_s) / self.elapsed_s * 100.0
        } else {
            0.0
        }
    }

    /// Two phases back to back (e.g. two unmounts of one teardown).
    pub fn plus(&self, other: &Timing) -> Timing {
        Timing {
            elapsed_s: self.elapsed_s + other.elapsed_s,
            user_s: self.user_s + other.user_s,
            sys_s: self.sys_s + other.sys_s,
            io: match (self.io, other.io) {
                (Some(a), Some(b)) => Some(a.plus(&b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// The CPU part alone.
    pub fn cpu(&self) -> crate::model::CpuSecs {
        crate::model::CpuSecs {
            user_s: self.user_s,
            sys_s: self.sys_s,
        }
    }

    /// A sample whose value is given (a rate, a count, or the elapsed time itself).
    pub fn sample(&self, repeat: u32, value: f64) -> Sample {
        Sample {
            repeat,
            value,
            elapsed_s: self.elapsed_s,
            user_s: self.user_s,
            sys_s: self.sys_s,
            cpu_pct: self.cpu_pct(),
            device_io: self.io,
            cache: None,
            ranks: Vec::new(),
        }
    }
}

/// `n` events (or bytes) over `secs`, per second; 0 for an empty window, never NaN or infinite.
/// The one rate every workload reports through.
#[inline]
pub fn per_s(n: f64, secs: f64) -> f64 {
    if secs > 0.0 {
        n / secs
    } else {
        0.0
    }
}

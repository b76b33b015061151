//! IO500's stonewall for the write phases (IOR `-D` with `stoneWallingWearOut=1`, mdtest
//! `-W`): each rank works until its set amount or the deadline; then, in wear-out mode (the
//! io500 app's), the ranks agree on the largest count any of them reached and every rank
//! goes on until it has done as much, so the later phases read, stat and remove a full,
//! equal set. In `each` mode every rank stops at its own count (the deadline alone).

use super::peers::Peers;
use crate::error::WorkloadError;
use std::time::{Duration, Instant};

/// When and how the write phases stop.
#[derive(Clone, Copy)]
pub(super) struct Stonewall {
    /// Seconds from the phase's start; `None`: every rank does its set amount.
    pub deadline: Option<Duration>,
    /// After the deadline, continue to the largest count of any rank.
    pub wearout: bool,
}

impl Stonewall {
    /// `f(i)` for i = 0, 1, … until `n` or the deadline; then, in wear-out mode, on until the
    /// largest count any rank reached (exchanged under `what`). Returns how many were done.
    pub(super) fn run(
        self,
        peers: Peers<'_>,
        what: &str,
        n: u64,
        mut f: impl FnMut(u64) -> Result<(), WorkloadError>,
    ) -> Result<u64, WorkloadError> {
        let start = Instant::now();
        let mut i = 0;
        while i < n {
            crate::poll(i)?;
            if self.deadline.is_some_and(|d| start.elapsed() >= d) {
                break;
            }
            f(i)?;
            i += 1;
        }
        // Every rank exchanges, those that finished their set amount too: the exchange is
        // collective, as IOR's and mdtest's all-reduce.
        if self.wearout && self.deadline.is_some() {
            let most = peers.max(what, i)?.min(n);
            while i < most {
                crate::poll(i)?;
                f(i)?;
                i += 1;
            }
        }
        Ok(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_deadline_every_unit_is_done() {
        let wall = Stonewall {
            deadline: None,
            wearout: true,
        };
        let mut seen = Vec::new();
        let done = wall
            .run(Peers::new(None), "t", 5, |i| {
                seen.push(i);
                Ok(())
            })
            .unwrap();
        assert_eq!(done, 5);
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_deadline_stops_the_work() {
        let wall = Stonewall {
            deadline: Some(Duration::from_millis(30)),
            wearout: true,
        };
        let done = wall
            .run(Peers::new(None), "t", u64::MAX, |_| {
                std::thread::sleep(Duration::from_millis(5));
                Ok(())
            })
            .unwrap();
        assert!((1..100).contains(&done), "{done}");
    }
}

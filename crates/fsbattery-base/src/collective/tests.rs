//! The protocol of [`Team`] with ranks as threads over an in-process all-gather: failures on
//! one rank reach every rank and nothing waits forever.

use super::*;
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

/// An all-gather among threads: each round completes when every rank has deposited.
struct Hub {
    n: usize,
    state: Mutex<Round>,
    cv: Condvar,
}

struct Round {
    generation: u64,
    slots: Vec<Option<Vec<u8>>>,
    last: Arc<Vec<Vec<u8>>>,
}

struct Rank {
    hub: Arc<Hub>,
    rank: usize,
    host: String,
}

impl Rank {
    fn gather(&self, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        let hub = &self.hub;
        let mut st = hub.state.lock().unwrap();
        let mine = st.generation;
        st.slots[self.rank] = Some(bytes);
        if st.slots.iter().all(Option::is_some) {
            let all: Vec<Vec<u8>> = st.slots.iter_mut().map(|s| s.take().unwrap()).collect();
            st.last = Arc::new(all);
            st.generation += 1;
            hub.cv.notify_all();
            return st.last.to_vec();
        }
        while st.generation == mine {
            st = hub.cv.wait(st).unwrap();
        }
        st.last.to_vec()
    }
}

impl Collective for Rank {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.hub.n
    }
    fn host(&self) -> &str {
        &self.host
    }
    fn node_leader(&self) -> bool {
        self.rank == 0
    }
    fn all_gather(&self, mine: Word) -> Vec<Word> {
        let bytes = mine.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.gather(bytes)
            .iter()
            .map(|b| {
                std::array::from_fn(|i| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap()))
            })
            .collect()
    }
    fn all_gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        self.gather(mine.to_vec())
    }
}

/// Run `body` on `n` ranks (threads); each returns its result, in rank order. Fails the test
/// instead of hanging when a rank does not finish within 10 s.
fn ranks<T: Send + 'static>(n: usize, body: fn(&Team<'_>) -> T) -> Vec<T> {
    let hub = Arc::new(Hub {
        n,
        state: Mutex::new(Round {
            generation: 0,
            slots: vec![None; n],
            last: Arc::new(Vec::new()),
        }),
        cv: Condvar::new(),
    });
    let (tx, rx) = mpsc::channel();
    for rank in 0..n {
        let (hub, tx) = (hub.clone(), tx.clone());
        std::thread::spawn(move || {
            let me = Rank {
                hub,
                rank,
                host: format!("node{rank}"),
            };
            tx.send((rank, body(&Team::new(&me)))).unwrap();
        });
    }
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    for _ in 0..n {
        let (rank, v) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("a rank hung in a collective");
        out[rank] = Some(v);
    }
    out.into_iter().map(Option::unwrap).collect()
}

/// One phase with one sample, as a workload does it; `fail` makes that rank fail before the
/// phase (its workload returns an error), as a lost file or ENOSPC would.
fn one_cell(team: &Team<'_>, fail: bool) -> (Result<Vec<RankPart>, Fault>, Vec<RankEnd>) {
    let rank = team.comm().rank();
    let res = if fail {
        Err(Fault::Diverged { rank })
    } else {
        team.phase_start()
            .and_then(|()| team.phase_end(true))
            .and_then(|()| team.gather("create", 100.0 * (rank + 1) as f64, 1.0))
    };
    let error = match &res {
        Ok(_) => None,
        Err(_) if fail => Some("No space left on device".to_string()),
        Err(e) => Some(e.to_string()),
    };
    let ends = team.cell_end(error.as_deref(), false, error.is_some() && !fail);
    (res, ends)
}

#[test]
fn every_rank_gets_every_ranks_sample_in_rank_order() {
    let out = ranks(3, |t| one_cell(t, false));
    for (res, ends) in out {
        let parts = res.unwrap();
        assert_eq!(
            parts.iter().map(|p| p.value).collect::<Vec<_>>(),
            [100.0, 200.0, 300.0]
        );
        assert!(ends.iter().all(|e| e.error.is_none()));
        assert_eq!(ends[2].host, "node2");
    }
}

#[test]
fn a_rank_that_fails_before_the_phase_fails_the_cell_on_every_rank() {
    let out = ranks(3, |t| one_cell(t, t.comm().rank() == 1));
    for (res, ends) in out {
        assert!(res.is_err());
        let failed = &ends[1];
        assert_eq!(failed.error.as_deref(), Some("No space left on device"));
        assert_eq!(failed.host, "node1");
        // The others only followed it out; the report names the rank that failed itself.
        assert!(!failed.followed && ends[0].followed && ends[2].followed);
    }
}

#[test]
fn a_failed_phase_is_reported_by_rank() {
    let out = ranks(3, |t| {
        t.phase_start().unwrap();
        let r = t.phase_end(t.comm().rank() != 2);
        t.cell_end(None, false, false);
        r
    });
    for r in out {
        assert_eq!(r, Err(Fault::Failed { ranks: vec![2] }));
    }
}

#[test]
fn ranks_at_different_samples_never_pair_up() {
    // Rank 0 stops after the first sample (as a failing workload does); the others' second
    // sample meets its cell end and fails instead of pairing with it.
    let out = ranks(2, |t| {
        let first = t.gather("create", 1.0, 1.0).map(|_| ());
        let second = if t.comm().rank() == 0 {
            Err(Fault::Diverged { rank: 0 })
        } else {
            t.gather("stat", 2.0, 1.0).map(|_| ())
        };
        t.cell_end(second.as_ref().err().map(|_| "stopped"), false, false);
        (first, second)
    });
    assert!(out.iter().all(|(first, _)| first.is_ok()));
    assert!(out.iter().all(|(_, second)| second.is_err()));
}

#[test]
fn a_stop_on_one_rank_stops_every_rank() {
    let out = ranks(3, |t| t.agree_stop(t.comm().rank() == 2));
    assert_eq!(out, [true, true, true]);
    assert_eq!(ranks(2, |t| t.agree_stop(false)), [false, false]);
}

#[test]
fn solo_is_one_rank_without_waiting() {
    let team = Team::new(&Solo);
    assert!(!team.is_parallel());
    team.phase_start().unwrap();
    assert_eq!(
        team.gather("m", 5.0, 2.0).unwrap(),
        [RankPart {
            value: 5.0,
            elapsed_s: 2.0
        }]
    );
    assert_eq!(
        team.cell_end(Some("x"), true, false)[0].error.as_deref(),
        Some("x")
    );
}

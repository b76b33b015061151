//! Many processes running one plan together (MPI ranks), without the runner knowing MPI.
//!
//! [`Collective`] is the transport: rank, size, host, whether this rank speaks for its node,
//! two all-gathers, and point-to-point messages for the one protocol whose ranks do not move
//! in step (io500's find, which steals work as pfind does and ends on every rank together by
//! its own token ring). A single process is [`Solo`]; the `fsbattery-mpi` crate implements it
//! over MPI. [`Team`] is the protocol every rank follows on top of it:
//! - a timed phase starts and ends with an exchange (each is a barrier: nobody leaves an
//!   all-gather before every rank has entered it), and each rank times itself in between;
//! - every sample is gathered, so rank 0 can combine the ranks' values as IOR does
//!   (`fsbattery_stats::stonewall`);
//! - a cell ends with [`Team::cell_end`], where every rank says whether it failed and why.
//!
//! Invariants (why nothing hangs): every exchange is the same MPI operation (an all-gather of
//! one fixed-size [`Word`]) and carries what the rank is doing (its step kind and a tag such as
//! the metric's hash). A rank that failed goes straight to `cell_end` while the others are
//! still in the workload; their next exchange then pairs with its `cell_end`, sees the
//! mismatch, and they fail the phase and go to `cell_end` too, where `cell_end` repeats until
//! every rank is there. So a failure never leaves a rank waiting in a collective that another
//! rank will not enter. A rank that dies outright is MPI's to handle (mpirun aborts the job).

use fsbattery_stats::RankPart;

/// One rank's contribution to an exchange: step kind, tag, two values (as `f64` bits).
pub type Word = [u64; 4];

/// How the ranks of one run talk to each other.
pub trait Collective {
    /// This process's rank, 0-based.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// The host this rank runs on (for messages: "rank 3 on node7").
    fn host(&self) -> &str;
    /// Whether this rank acts for its node where one action per node is right (dropping the
    /// page cache): the lowest rank of those sharing memory with it.
    fn node_leader(&self) -> bool;
    /// Every rank's word, in rank order; returns once every rank has called it.
    fn all_gather(&self, mine: Word) -> Vec<Word>;
    /// Every rank's bytes (any length), in rank order; returns once every rank has called it.
    fn all_gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>>;
    /// Point to point, for a protocol whose ranks do not move in step (io500's find steals
    /// work as pfind does): `bytes` to rank `to` under `tag`, returning once they are sent
    /// or buffered. A single process has no other rank to send to.
    fn send(&self, to: usize, tag: u16, bytes: &[u8]) {
        unreachable!(
            "rank {} of 1 sent {} bytes to rank {to} (tag {tag})",
            self.rank(),
            bytes.len()
        )
    }
    /// A message under `tag` from rank `from` (any rank: `None`), if one is waiting: its
    /// sender and bytes. Messages from one sender under one tag arrive in the order sent.
    fn try_receive(&self, from: Option<usize>, tag: u16) -> Option<(usize, Vec<u8>)> {
        let _ = (from, tag);
        None
    }
}

/// A run of one process: rank 0 of 1.
pub struct Solo;

impl Collective for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn host(&self) -> &str {
        "localhost"
    }
    fn node_leader(&self) -> bool {
        true
    }
    fn all_gather(&self, mine: Word) -> Vec<Word> {
        vec![mine]
    }
    fn all_gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        vec![mine.to_vec()]
    }
}

/// Why an exchange did not complete as planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// Another rank is elsewhere in the plan (it failed or stopped): give up the cell.
    #[error("rank {rank} left the phase (it failed or was interrupted)")]
    Diverged {
        /// The first rank that was elsewhere.
        rank: usize,
    },
    /// Ranks that reported a failed phase.
    #[error("rank {} failed the phase", join(.ranks))]
    Failed {
        /// The ranks that failed.
        ranks: Vec<usize>,
    },
}

fn join(ranks: &[usize]) -> String {
    let s: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
    s.join(", ")
}

/// What one rank reported at the end of a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankEnd {
    /// The rank.
    pub rank: usize,
    /// Its host.
    pub host: String,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// Whether it was interrupted.
    pub interrupted: bool,
    /// Whether its error only says that it followed another rank out of the cell (a
    /// [`Fault`]), rather than a failure of its own.
    pub followed: bool,
}

const PHASE_START: u64 = 1;
const PHASE_END: u64 = 2;
const SAMPLE: u64 = 3;
const CELL_END: u64 = 4;
const AGREE_STOP: u64 = 5;

/// The protocol of [`Collective`] ranks through one run (see the module header).
pub struct Team<'a> {
    comm: &'a dyn Collective,
}

impl<'a> Team<'a> {
    /// The protocol over `comm`.
    pub fn new(comm: &'a dyn Collective) -> Self {
        Team { comm }
    }

    /// The transport.
    pub fn comm(&self) -> &'a dyn Collective {
        self.comm
    }

    /// More than one rank.
    pub fn is_parallel(&self) -> bool {
        self.comm.size() > 1
    }

    fn exchange(&self, kind: u64, tag: u64, a: f64, b: f64) -> Result<Vec<Word>, Fault> {
        let all = self.comm.all_gather([kind, tag, a.to_bits(), b.to_bits()]);
        match all.iter().position(|w| w[0] != kind || w[1] != tag) {
            Some(rank) => Err(Fault::Diverged { rank }),
            None => Ok(all),
        }
    }

    /// The barrier before a timed phase.
    pub fn phase_start(&self) -> Result<(), Fault> {
        self.exchange(PHASE_START, 0, 0.0, 0.0).map(drop)
    }

    /// The barrier after a timed phase; fails when any rank's phase failed.
    pub fn phase_end(&self, ok: bool) -> Result<(), Fault> {
        let all = self.exchange(PHASE_END, 0, f64::from(u8::from(ok)), 0.0)?;
        let ranks: Vec<usize> = (0..all.len())
            .filter(|&r| f64::from_bits(all[r][2]) == 0.0)
            .collect();
        if ranks.is_empty() {
            Ok(())
        } else {
            Err(Fault::Failed { ranks })
        }
    }

    /// Every rank's value and elapsed time of `metric`, in rank order.
    pub fn gather(&self, metric: &str, value: f64, elapsed_s: f64) -> Result<Vec<RankPart>, Fault> {
        let all = self.exchange(SAMPLE, tag(metric), value, elapsed_s)?;
        Ok(all
            .iter()
            .map(|w| RankPart {
                value: f64::from_bits(w[2]),
                elapsed_s: f64::from_bits(w[3]),
            })
            .collect())
    }

    /// Whether any rank wants to stop (a signal reached it); every rank gets the same answer,
    /// so all stop at the same point of the plan.
    pub fn agree_stop(&self, mine: bool) -> bool {
        if !self.is_parallel() {
            return mine;
        }
        loop {
            let all = self.comm.all_gather([AGREE_STOP, 0, u64::from(mine), 0]);
            // A rank still finishing a cell is at `cell_end`: it repeats there, and so do we.
            if all.iter().all(|w| w[0] == AGREE_STOP) {
                return all.iter().any(|w| w[2] != 0);
            }
        }
    }

    /// The end of a cell: repeats until every rank is here, then gathers each rank's outcome
    /// (`followed`: the error is a [`Fault`], this rank gave up because another did).
    pub fn cell_end(&self, error: Option<&str>, interrupted: bool, followed: bool) -> Vec<RankEnd> {
        if self.is_parallel() {
            while !self
                .comm
                .all_gather([CELL_END, 0, 0, 0])
                .iter()
                .all(|w| w[0] == CELL_END)
            {}
        }
        let mine = encode_end(self.comm.host(), error, interrupted, followed);
        let all = self.comm.all_gather_bytes(&mine);
        all.iter()
            .enumerate()
            .map(|(rank, bytes)| decode_end(rank, bytes))
            .collect()
    }
}

/// A stable tag for a metric name (FNV-1a), so two ranks at different samples never pair up.
fn tag(metric: &str) -> u64 {
    metric.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `flags \0 host \0 error`: flags bit 0 = failed, bit 1 = interrupted, bit 2 = followed.
fn encode_end(host: &str, error: Option<&str>, interrupted: bool, followed: bool) -> Vec<u8> {
    let flags =
        u8::from(error.is_some()) | (u8::from(interrupted) << 1) | (u8::from(followed) << 2);
    let mut out = vec![flags, 0];
    out.extend_from_slice(host.as_bytes());
    out.push(0);
    out.extend_from_slice(error.unwrap_or("").as_bytes());
    out
}

fn decode_end(rank: usize, bytes: &[u8]) -> RankEnd {
    let flags = bytes.first().copied().unwrap_or(0);
    let rest = bytes.get(2..).unwrap_or(&[]);
    let mut parts = rest.splitn(2, |&b| b == 0);
    let host = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();
    let error = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();
    RankEnd {
        rank,
        host,
        error: (flags & 1 != 0).then_some(error),
        interrupted: flags & 2 != 0,
        followed: flags & 4 != 0,
    }
}

#[cfg(test)]
mod tests;

//! The exchanges io500 makes with the other ranks inside its timed phases, as IOR and mdtest
//! make them: the stonewall wear-out's maximum, IOR `-g`'s barriers, and the node layout
//! IOR's `-C` reads by.
//!
//! Every exchange is [`Team::gather`] with its own tag, so a rank that left the phase (it
//! failed) makes the others' exchange fail instead of hang (see `collective`'s invariants).
//! For a single process each is immediate. find's messages are point to point instead
//! ([`Mail`]); its protocol ends on every rank together (see `find`).

use super::find::Mail;
use crate::collective::Team;
use crate::error::WorkloadError;

/// The other ranks of the run, or none.
#[derive(Clone, Copy)]
pub(super) struct Peers<'a> {
    team: Option<&'a Team<'a>>,
}

impl<'a> Peers<'a> {
    pub(super) fn new(team: Option<&'a Team<'a>>) -> Self {
        Peers { team }
    }

    /// The largest `count` any rank holds (IOR's and mdtest's `MPI_Allreduce(MAX)` after the
    /// stonewall). Counts below 2^53 travel exactly as f64.
    pub(super) fn max(&self, what: &str, count: u64) -> Result<u64, WorkloadError> {
        let Some(team) = self.team else {
            return Ok(count);
        };
        let parts = team.gather(what, count as f64, 0.0)?;
        Ok(parts.iter().map(|p| p.value as u64).max().unwrap_or(count))
    }

    /// A barrier (IOR `-g`: between open, transfer and close).
    pub(super) fn barrier(&self, what: &str) -> Result<(), WorkloadError> {
        match self.team {
            Some(team) => team.gather(what, 0.0, 0.0).map(drop).map_err(Into::into),
            None => Ok(()),
        }
    }

    /// How many ranks share rank 0's host, and whether ranks fill a node before the next
    /// (rank 1 on rank 0's host: IOR's "tasks block mapping"); both as IOR's
    /// `GetNumTasksOnNode0` and `QueryNodeMapping` find them.
    pub(super) fn node_layout(&self) -> Result<(usize, bool), WorkloadError> {
        let Some(team) = self.team else {
            return Ok((1, true));
        };
        // A host name travels as a 52-bit hash: exact in an f64, and two hosts of one job
        // colliding is far less likely than a misconfigured hostfile.
        let mine = (fnv(team.comm().host().as_bytes()) >> 12) as f64;
        let hosts: Vec<f64> = team
            .gather("io500-node-layout", mine, 0.0)?
            .iter()
            .map(|p| p.value)
            .collect();
        let on_node0 = hosts.iter().filter(|&&h| h == hosts[0]).count();
        let block = hosts.len() < 2 || hosts[1] == hosts[0];
        Ok((on_node0, block))
    }
}

/// FNV-1a of `s`.
/// find's messages go over the run's transport; a single process is rank 0 of 1.
impl Mail for Peers<'_> {
    fn rank(&self) -> usize {
        self.team.map_or(0, |t| t.comm().rank())
    }
    fn size(&self) -> usize {
        self.team.map_or(1, |t| t.comm().size())
    }
    fn send(&self, to: usize, tag: u16, bytes: &[u8]) {
        if let Some(t) = self.team {
            t.comm().send(to, tag, bytes);
        }
    }
    fn try_receive(&self, from: Option<usize>, tag: u16) -> Option<(usize, Vec<u8>)> {
        self.team?.comm().try_receive(from, tag)
    }
}

pub(super) fn fnv(s: &[u8]) -> u64 {
    s.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// IOR's `-C -Q 1` read offset: one node's worth of ranks when ranks fill nodes in blocks,
/// else one rank (round-robin mapping); modulo the ranks, so on one node every rank reads
/// back its own data.
pub(super) fn ior_read_offset(ranks: usize, on_node0: usize, block: bool) -> usize {
    let shift = if block { on_node0 } else { 1 };
    shift % ranks.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_read_offset_is_iors() {
        // One node, 4 ranks: IOR reads its own data.
        assert_eq!(ior_read_offset(4, 4, true), 0);
        // Two nodes of 4, block mapping: the next node's rank.
        assert_eq!(ior_read_offset(8, 4, true), 4);
        // Round-robin mapping: the next rank, which is on the next node.
        assert_eq!(ior_read_offset(8, 1, false), 1);
        assert_eq!(ior_read_offset(1, 1, true), 0);
    }
}

//! `MPI_COMM_WORLD` as a [`Collective`]: rank, size, processor name, the node-local
//! communicator (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`) to pick one leader per node,
//! the two all-gathers, and point-to-point sends and probes.

use fsbattery_core::collective::{Collective, Word};
use mpi::datatype::PartitionMut;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use mpi::Count;

/// The initialised MPI world; finalised when dropped (at the end of the run).
pub struct World {
    world: SimpleCommunicator,
    node_rank: i32,
    host: String,
    // Declared last, so dropped last: MPI_Finalize after the communicators are freed.
    _universe: mpi::environment::Universe,
}

impl World {
    /// Initialise MPI (single-threaded: only the main thread talks to other ranks).
    pub fn init() -> Option<World> {
        let universe = mpi::initialize()?;
        let world = universe.world();
        let node = world.split_shared(world.rank());
        let host = mpi::environment::processor_name().unwrap_or_else(|_| "?".into());
        Some(World {
            world,
            node_rank: node.rank(),
            host,
            _universe: universe,
        })
    }
}

impl Collective for World {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }
    fn size(&self) -> usize {
        self.world.size() as usize
    }
    fn host(&self) -> &str {
        &self.host
    }
    fn node_leader(&self) -> bool {
        self.node_rank == 0
    }
    fn all_gather(&self, mine: Word) -> Vec<Word> {
        let mut flat = vec![0u64; 4 * self.size()];
        self.world.all_gather_into(&mine[..], &mut flat[..]);
        flat.chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect()
    }
    fn send(&self, to: usize, tag: u16, bytes: &[u8]) {
        self.world
            .process_at_rank(to as i32)
            .send_with_tag(bytes, i32::from(tag));
    }
    fn try_receive(&self, from: Option<usize>, tag: u16) -> Option<(usize, Vec<u8>)> {
        let tag = i32::from(tag);
        // A matched probe: the message found is the one received, even with several senders.
        let probed = match from {
            Some(r) => self
                .world
                .process_at_rank(r as i32)
                .immediate_matched_probe_with_tag(tag)?,
            None => self
                .world
                .any_process()
                .immediate_matched_probe_with_tag(tag)?,
        };
        let (bytes, status) = probed.matched_receive_vec::<u8>();
        Some((status.source_rank() as usize, bytes))
    }
    fn all_gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        let n = self.size();
        let mut counts: Vec<Count> = vec![0; n];
        self.world
            .all_gather_into(&(mine.len() as Count), &mut counts[..]);
        let displs: Vec<Count> = counts
            .iter()
            .scan(0, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect();
        let total: Count = counts.iter().sum();
        // Every rank sent nothing (every rank knows it from the counts): Open MPI refuses a
        // gather of no bytes into an empty buffer (MPI_ERR_ARG), so none is made.
        if total == 0 {
            return vec![Vec::new(); n];
        }
        let mut buf = vec![0u8; total as usize];
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(mine, &mut part);
        }
        (0..n)
            .map(|r| {
                let at = displs[r] as usize;
                buf[at..at + counts[r] as usize].to_vec()
            })
            .collect()
    }
}

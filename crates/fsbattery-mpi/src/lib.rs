//! fsbattery's ranks over MPI: [`fsbattery_core::collective::Collective`] on `MPI_COMM_WORLD`.
//!
//! Built with the `mpi` feature, [`init`] starts MPI when the process was launched by
//! `mpirun`/`mpiexec` (their environment says so) and returns the world; without the feature,
//! or outside a launcher, the run is a single process. Every exchange is an
//! `MPI_Allgather` of one fixed-size word (or `MPI_Allgatherv` of bytes), which is what the
//! core protocol needs to detect ranks that are elsewhere in the plan instead of hanging.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

#[cfg(feature = "mpi")]
mod world;

use fsbattery_core::collective::Collective;

/// Environment variables a launcher sets in every rank (Open MPI, MPICH/Hydra, Slurm PMI).
const LAUNCHER_VARS: [&str; 3] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"];

/// Whether this process was started by an MPI launcher.
pub fn launched_by_mpirun() -> bool {
    LAUNCHER_VARS.iter().any(|v| std::env::var_os(v).is_some())
}

/// Whether this build can run under MPI.
pub const BUILT_WITH_MPI: bool = cfg!(feature = "mpi");

/// The ranks of this run when it was launched by mpirun and built with MPI; `None` for a
/// single process.
pub fn init() -> Option<Box<dyn Collective>> {
    if !launched_by_mpirun() {
        return None;
    }
    #[cfg(feature = "mpi")]
    {
        world::World::init().map(|w| Box::new(w) as Box<dyn Collective>)
    }
    #[cfg(not(feature = "mpi"))]
    {
        None
    }
}

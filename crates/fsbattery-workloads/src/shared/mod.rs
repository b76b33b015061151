//! What several workloads share: the context and scratch directory they run in, what they
//! need from a target, where MPI ranks put their files, block and file-set IO, filesystem
//! operations done the seeds' way, and command mode.

pub(super) mod app_cmd;
pub(super) mod blockio;
pub mod command;
pub(super) mod ctx;
pub(super) mod fileset;
mod find_rm;
pub(super) mod fsops;
pub(super) mod io;
pub mod layout;
pub mod needs;
pub(super) mod quantile;
pub(super) mod scratch;
pub(super) mod specs;

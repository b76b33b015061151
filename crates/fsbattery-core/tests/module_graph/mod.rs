//! A module-dependency view of the workspace's crates: which module of a folder imports
//! which of its siblings, and the circles among them (see `tests/module_cycles.rs`).

pub mod circles;
pub mod graph;
pub mod source;

//! The option spaces `fsbattery tune` searches: loading, rendering configurations as target
//! specs, narrowing, and plan-time probing of what this machine accepts.
//!
//! The statistics of the search (designs, effects, race) live in `fsbattery_stats::tune`; the
//! command that measures configurations as ordinary run cells lives in the binary.

mod config;
mod probe;
mod space;

pub use probe::{probe, Refused};
pub use space::{from_file, parse, shipped, space, Arg, At, Invalid, OptionSpace, TuneOption};

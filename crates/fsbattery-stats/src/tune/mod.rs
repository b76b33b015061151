//! The statistics of `fsbattery tune`: screening designs, option effects and importance, and
//! the race among the best configurations.
//!
//! Role: the search core as pure code — no filesystem, no clock. The tune measures what
//! [`latin_hypercube`] lays out, estimates each option's effect with [`estimate`], races the
//! best configurations with [`survivors`], and verifies the winner against the defaults with
//! the same pairwise decision ([`crate::pair`]) and adaptive repeats every run uses. What it
//! recommends is [`select`]: the defaults changed only where an effect is significant.
//! `planted` tests them against synthetic responses whose effects are known.

mod design;
mod effects;
mod lsq;
mod race;
mod select;

pub use design::{full_factorial, latin_hypercube, Config, Factor};
pub use effects::{estimate, LevelEffect, Observation, OptionEffect};
pub use lsq::{fit, Fit};
pub use race::{leader, survivors};
pub use select::{select, Change, LeftOut, Selection};

#[cfg(test)]
mod planted;

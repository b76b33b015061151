//! The statistics of `fsbattery tune`: screening designs, option effects and importance, and
//! the race among the best configurations.
//!
//! Role: the search core as pure code — no filesystem, no clock. The tune measures what
//! [`latin_hypercube`] lays out, estimates each option's effect with [`estimate`], races the
//! best configurations with [`survivors_blocked`] (paired per round, ending at [`race_futile`]), and verifies the winner against the defaults with
//! the same pairwise decision ([`crate::pair`]) and adaptive repeats every run uses. What it
//! recommends is [`select`]: the defaults changed only where an effect is significant.
//! Each option's verdict — matters, negligible within a margin, or not resolved — is
//! [`judge`]'s. `planted` and `planted_verdict` test them against synthetic responses whose effects are known.

mod design;
mod effects;
mod lsq;
mod race;
mod select;
mod verdict;

pub use design::{fill_distinct, full_factorial, latin_hypercube, Config, Factor};
pub use effects::{estimate, LevelEffect, Observation, OptionEffect};
pub use lsq::{fit, Fit};
pub use race::{leader, race_futile, survivors, survivors_blocked, Entrant};
pub use select::{select, Change, LeftOut, Selection};
pub use verdict::{judge, log_margin, Verdict};

#[cfg(test)]
mod planted;
#[cfg(test)]
mod planted_verdict;

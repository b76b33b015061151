//! Pure statistics for fsbattery: per-benchmark summaries, confidence
//! intervals and significance tests used to compare two runs.
//!
//! Role: a leaf crate with no I/O and no knowledge of filesystems. Every
//! function takes plain `f64` samples and returns plain values, so the
//! numerics can be tested exhaustively in isolation.
//!
//! Invariants shared by every module:
//! - Inputs are expected to be finite. Functions that summarise or test
//!   samples return `None` (or [`Verdict::NotEnoughSamples`]) rather than
//!   propagate NaN/infinity, so a corrupt measurement can never masquerade as
//!   a statistically meaningful result.
//! - Nothing here panics on user data; degenerate inputs (empty slices, zero
//!   variance, zero means) have documented, deterministic answers.
//! - The special functions (incomplete beta/gamma, Student's t) are
//!   implemented in-crate so results do not depend on a platform libm beyond
//!   the basic `f64` methods.
#![deny(missing_docs)]
// No unwrap outside tests (tests unwrap freely; integration tests are crates of their own).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
#![forbid(unsafe_code)]

mod aggregate;
mod better;
mod change_point;
mod compare;
pub mod composite;
mod drift;
mod energy;
mod equivalence;
mod futility;
mod holm;
mod hypothesis;
mod kendall;
mod moments;
mod pair;
mod paired;
mod precision;
mod rank;
mod repeats;
mod sequential;
mod special;
mod stonewall;
mod student_t;
mod summary;
pub mod tune;
mod verdict;
mod welch_diff;

pub use aggregate::{Aggregate, ParseAggregateError};
pub use better::Better;
pub use change_point::{change_points, ChangePoint, WINDOW};
pub use compare::{compare, Comparison, Verdict, MIN_SAMPLES};
pub use drift::{sample_flags, SampleFlags, TREND_ALPHA};
pub use equivalence::{tost, tost_relative, Tost, DEFAULT_MARGIN_PCT};
pub use futility::{hopeless, HOPE_FACTOR, JUDGED_AFTER};
pub use holm::holm;
pub use hypothesis::{mann_whitney_u, welch_t_test, MannWhitney, TTest};
pub use kendall::{kendall_tau_b, kendall_tau_b_pooled, KendallTau};
pub use pair::{pair, Pair, PairOutcome};
pub use precision::{ci95_relative_pct, widest_ci95, Widest};
pub use rank::{rank_row, rank_row_within, Mark, Outcome, RowVerdict, DEFAULT_ALPHA};
pub use repeats::MAX_REPEATS;
pub use sequential::{look_alpha, INTERIM_ALPHA};
pub use stonewall::{stonewall, Combine, RankPart, Stonewall};
pub use student_t::{student_t_cdf, student_t_quantile, student_t_sf};
pub use summary::Summary;
pub use verdict::{decide_row, decided, Contestant, Decision, Row, RowTest, Standing};

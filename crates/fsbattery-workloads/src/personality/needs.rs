//! The space the filebench personalities hold at their peak: the file set as its flow keeps
//! it, and what grows with the runtime. Growth with time depends on how fast the machine runs
//! the loop, so these estimates are upper bounds from the fastest growth seen (the plan warns
//! rather than refuses over them); what is certain is a block for each entry made before the
//! timed phase.
//!
//! Measured on a loop ext4 (tests/needs_peaks.rs, 2 CPUs, debug build, 2026-11-26):
//! - fileserver: each loop creates one entry and deletes one, and appends to another; the
//!   peak did not move between 1 s and 4 s of runtime (13.1 and 13.3 MB for 300 entries of
//!   32 KiB), above the set alone because the appended entries are not the deleted ones: the
//!   estimate keeps every entry at 1.25 × the mean plus one whole APPEND_SIZE.
//! - varmail: deletes one, creates one empty and appends to it, appends to another; the
//!   appends outgrow the deletions, about 1 MB/s here (4.8, 6.6, 11.2 and 19.2 MB after 1, 4,
//!   6 and 16 s; fsync-bound, so a faster device grows it faster).
//! - webserver: reads the set and appends 1..=APPEND_SIZE bytes to one log every loop: the log
//!   grew 57–90 MB/s here (65–90 MB after 1 s, 237 MB after 4 s), so a 60 s standard run
//!   writes gigabytes of it.
//!
//! On the same machine without other load (2026-11-26, the CI run of tests/needs_peaks.rs)
//! everything grew faster: fileserver 24–29 MB after 1 s, varmail 10.0–10.4 and 15.4–16.5 MB
//! after 1 and 6 s, webserver 231–314 MB after 1 s and 513–531 MB after 2 s. The rates below
//! cover those with a margin and stay within twice them (1.3–1.8×); on a loaded machine the
//! same runs hold a half to a third as much, so the estimates are then 2.3–3.8× the peak.

use super::settings::Settings;
use crate::needs::{files_bytes, Needs, BLOCK};

/// Which personality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Fileserver,
    Varmail,
    Webserver,
}

/// fileserver's growth a second beyond its set (its appends land on entries it does not
/// delete): 29.2 MB after 1 s against a 17.6 MB set, with a margin.
const FILESERVER_GROWTH: u64 = 24 << 20;
/// varmail's net growth in its first second (appends less deletions): 4–10 MB seen; it then
/// slows to [`VARMAIL_GROWTH`] (15.4–16.5 MB after 6 s on the quiet machine).
const VARMAIL_FIRST_SECOND: u64 = 12 << 20;
/// varmail's net growth a second after the first, with a margin.
const VARMAIL_GROWTH: u64 = 2 << 20;
/// webserver's log growth a second: 230–320 MB in the first second and about 250 MB/s after
/// it on the quiet machine, with a margin.
const LOG_GROWTH: u64 = 384 << 20;

/// The expected peak of `flow` with `c`, and the entries made first as the certain part.
pub(super) fn needs(flow: Flow, c: &Settings) -> Needs {
    let (files, mean, append) = (c.files, c.mean_size, c.append_size);
    let made = files.saturating_mul(c.prealloc.min(100)) / 100;
    let runtime = c.runtime.max(1);
    let bytes = match flow {
        // Every entry may exist (creations fill the absent ones as fast as deletions empty
        // them), with gamma's tail and an append each.
        Flow::Fileserver => {
            files_bytes(files, mean.saturating_add(mean / 4).saturating_add(append))
                .saturating_add(runtime.saturating_mul(FILESERVER_GROWTH))
        }
        Flow::Varmail => gamma_set(made, mean)
            .saturating_add(VARMAIL_FIRST_SECOND)
            .saturating_add((runtime - 1).saturating_mul(VARMAIL_GROWTH)),
        Flow::Webserver => gamma_set(made, mean).saturating_add(runtime.saturating_mul(LOG_GROWTH)),
    };
    let dirs = files / c.dirwidth.max(1) + 2;
    Needs::space(
        bytes,
        files + dirs,
        "files, mean_size, append_size and runtime",
    )
    .uncertain(made.saturating_mul(BLOCK))
}

/// `n` files of gamma sizes (shape 1.5, so a standard deviation of mean/√1.5 each) with
/// `mean`: n × (mean + a block for the rounding) plus three standard deviations of the sum.
fn gamma_set(n: u64, mean: u64) -> u64 {
    let sd = mean as f64 / 1.5f64.sqrt() * (n as f64).sqrt();
    n.saturating_mul(mean.saturating_add(BLOCK))
        .saturating_add((3.0 * sd) as u64)
}

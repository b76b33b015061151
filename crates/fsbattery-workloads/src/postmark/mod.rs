//! `postmark`, `postmark-1`, `-10`, `-100`: PostMark 1.53 (Katcher, NetApp 1997–2005; Debian's
//! `postmark` 1.53) natively — seed S4's "postmark 1, 10, and 100" rows (read and write KB/s).
//!
//! PostMark's run, step for step (the system calls are in `run.rs`): make SUBDIRS
//! subdirectories (untimed); create FILES files of SIZE_LOW + RND(SIZE_HIGH − SIZE_LOW) bytes,
//! each in subdirectory RND(SUBDIRS); run TRANSACTIONS transactions, each (a) a read of a whole
//! random file or an append of RND(SIZE_HIGH − size) + 1 bytes to one (RND(10) < BIAS_READ
//! reads), then (b) the creation of a new file or the deletion of a random one (RND(10) <
//! BIAS_CREATE creates; no create while PostMark's table of 2 × FILES slots is full); delete
//! every remaining file in slot order; remove the subdirectories (untimed). The generator is
//! PostMark's own (MT19937 with its 1999 seeding, `mt.rs`), so the same seed gives
//! the same files, sizes and choices. PostMark does nothing to the page cache, and neither
//! does this workload under `--cache tool` (the default).
//!
//! Rates are PostMark's (its verbose and terse reports): transactions, reads, appends and the
//! creations and deletions mixed with transactions per second of the transaction phase;
//! creations, deletions and KB/s (1024 bytes) per second of the whole run (creation +
//! transactions + deletion); "alone" creations and deletions per second of their own phase.
//! The one difference, on purpose: time is monotonic and in nanoseconds where PostMark used
//! time(2) (1 s resolution, which is why S4's KB/s come in steps of 1/N).
//!
//! Reading S4's "1, 10 and 100" as SUBDIRS: S4 printed read and write KB/s with 1 s timing,
//! so rate × whole seconds gives the bytes each run moved. For "1" every column gives about
//! 26,710 KB read and 84,830 KB written; for "10" and "100" every column gives the same
//! 27,145 KB and 85,080 KB. A changed file count, size range or transaction count would move
//! those volumes several-fold; a changed subdirectory count moves them by a hair, and PostMark
//! draws one extra random number per created file only when SUBDIRS > 1, which makes "10" and
//! "100" draw the very same sizes and "1" a different sequence: exactly the pattern in the
//! table. The volumes fit 10,000 files of 500..10,000 bytes and 10,000 transactions (PostMark
//! 1.51 replayed with its own generator moves 27–28 MB read and 85–88 MB written), so those
//! are the presets' standard values.

use super::fileset::{count, Tally, MAX_FILES};
mod mt;
mod run;

use super::{Scratch, WorkloadCtx};
use crate::error::WorkloadError;
use crate::model::MetricSpec;
use crate::params::{ParamSpec, MAX_REQUEST};
use crate::settings::Group;
use crate::TypedWorkload;
use run::session;
use std::sync::OnceLock;

/// One PostMark registry entry: the plain tool defaults, or one of S4's three runs.
pub struct Postmark {
    name: &'static str,
    summary: &'static str,
    defaults: Defaults,
    /// Its specs, made from `defaults` on first use.
    specs: &'static OnceLock<Vec<ParamSpec>>,
}

/// What differs between the entries: files and transactions per scale, subdirectories.
#[derive(Debug, Clone, Copy)]
pub struct Defaults {
    files: [u64; 2],
    transactions: [u64; 2],
    subdirs: u64,
}

const CLASSIC: Defaults = Defaults {
    files: [500, 500],
    transactions: [500, 500],
    subdirs: 0,
};
const fn s4(subdirs: u64) -> Defaults {
    Defaults {
        files: [2_000, 10_000],
        transactions: [5_000, 10_000],
        subdirs,
    }
}

crate::settings! {
    /// PostMark's settings.
    pub struct Config(d: Defaults = CLASSIC) {
        /// Files created before the transactions.
        pub files: u64 = count(
            "files",
            "files created before the transactions",
            d.files[0],
            d.files[1],
        )
        .range(1, MAX_FILES),
        /// Transactions run.
        pub transactions: u64 = count(
            "transactions",
            "transactions run",
            d.transactions[0],
            d.transactions[1],
        ),
        /// Smallest file created, bytes.
        pub low: u64 =
            count("size_low", "smallest file created, bytes", 500, 500).range(1, MAX_REQUEST),
        /// Largest file size, bytes.
        pub high: u64 = count(
            "size_high",
            "largest file size (creates and appends), bytes",
            10_000,
            10_000,
        )
        .range(1, MAX_REQUEST),
        /// Subdirectories the files are spread over.
        pub subdirs: u64 = count(
            "subdirs",
            "subdirectories the files are spread over (0 or 1: one directory)",
            d.subdirs,
            d.subdirs,
        )
        .range(0, MAX_FILES),
        /// Chance in 10 that a transaction reads.
        pub bias_read: u64 = count(
            "bias_read",
            "chance in 10 that a transaction reads rather than appends",
            5,
            5,
        )
        .range(0, 10),
        /// Chance in 10 that a transaction creates.
        pub bias_create: u64 = count(
            "bias_create",
            "chance in 10 that a transaction creates rather than deletes",
            5,
            5,
        )
        .range(0, 10),
        /// Seed of sizes and choices.
        pub seed: u64 = count(
            "seed",
            "seed of sizes and choices (PostMark's default: 42)",
            42,
            42,
        )
        .range(0, u32::MAX as u64),
    }
}

/// PostMark's flow, for every entry's listing (a macro: `concat!` takes literals only).
macro_rules! flow {
    () => {
        " Follows PostMark 1.53 (buffered IO, its default): its generator and seed, its \
         system calls (open, fstat, st_blksize-sized reads and writes, lseek before an \
         append, unlink), names relative to the run's directory, no cache drop. Flow: create \
         FILES files of SIZE_LOW..SIZE_HIGH bytes over SUBDIRS subdirectories; run \
         TRANSACTIONS transactions, each a read of a whole random file or an append of \
         1..=(SIZE_HIGH - size) bytes to one (BIAS_READ in 10 reads), then a create or the \
         deletion of a random file (BIAS_CREATE in 10 creates); delete every file. Reports \
         transactions/s, files created/read/appended/deleted per second and read/write KB/s \
         (1024 B) with PostMark 1.53's denominators, timed in nanoseconds (PostMark: 1 s)."
    };
}

static CLASSIC_SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();
static S4_1_SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();
static S4_10_SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();
static S4_100_SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();

/// `postmark`: PostMark 1.53's own defaults.
pub const POSTMARK: Postmark = Postmark {
    name: "postmark",
    summary: concat!(
        "PostMark 1.53 small-file transactions with the tool's own defaults (500 files of \
         500..10,000 B in one directory, 500 transactions, seed 42).",
        flow!()
    ),
    defaults: CLASSIC,
    specs: &CLASSIC_SPECS,
};

/// `postmark-1`: S4's "postmark 1" (one directory).
pub const POSTMARK_1: Postmark = Postmark {
    name: "postmark-1",
    summary: concat!(
        "S4 'postmark 1' (read/write KB/s rows): PostMark with SUBDIRS=1, i.e. one \
         directory; 10,000 files and 10,000 transactions at standard scale, S4's volumes \
         (S4's '1, 10, 100' read as subdirectories: see workload/postmark/mod.rs).",
        flow!()
    ),
    defaults: s4(1),
    specs: &S4_1_SPECS,
};

/// `postmark-10`: S4's "postmark 10" (ten subdirectories).
pub const POSTMARK_10: Postmark = Postmark {
    name: "postmark-10",
    summary: concat!(
        "S4 'postmark 10' (read/write KB/s rows): PostMark with SUBDIRS=10; 10,000 files and \
         10,000 transactions at standard scale.",
        flow!()
    ),
    defaults: s4(10),
    specs: &S4_10_SPECS,
};

/// `postmark-100`: S4's "postmark 100" (a hundred subdirectories).
pub const POSTMARK_100: Postmark = Postmark {
    name: "postmark-100",
    summary: concat!(
        "S4 'postmark 100' (read/write KB/s rows): PostMark with SUBDIRS=100; 10,000 files \
         and 10,000 transactions at standard scale.",
        flow!()
    ),
    defaults: s4(100),
    specs: &S4_100_SPECS,
};

impl TypedWorkload for Postmark {
    type Settings = Config;
    fn needs(&self, c: &Config) -> super::needs::Needs {
        let n = peak_of(c);
        let inodes = n.files.saturating_add(c.subdirs) + 2;
        // The FILES files made first are certain, each of at least SIZE_LOW bytes.
        let floor = super::needs::files_bytes(c.files, c.low);
        super::needs::Needs::space(n.bytes, inodes, "files, transactions and size_high")
            .uncertain(floor)
    }
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn params(&self) -> &'static [ParamSpec] {
        self.specs
            .get_or_init(|| <Config as Group>::specs(&self.defaults))
    }
    /// PostMark does nothing to the cache between its phases.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "PostMark 1.53"
    }
    fn metrics(&self, _: &Config) -> Vec<MetricSpec> {
        let files = |n: &str, h: &str| MetricSpec::rate(n, "files/s", h);
        vec![
            MetricSpec::rate(
                "transactions",
                "tx/s",
                "transactions per second of the transaction phase",
            ),
            files("created", "files created per second of the whole run"),
            files(
                "created_alone",
                "files created per second before the transactions",
            ),
            files(
                "created_mixed",
                "files created per second of the transaction phase (mixed with transactions)",
            ),
            files("read", "files read per second of the transaction phase"),
            files(
                "appended",
                "files appended to per second of the transaction phase",
            ),
            files("deleted", "files deleted per second of the whole run"),
            files(
                "deleted_alone",
                "files deleted per second after the transactions",
            ),
            files(
                "deleted_mixed",
                "files deleted per second of the transaction phase (mixed with transactions)",
            ),
            MetricSpec::rate("read_kbps", "KB/s", "KiB read per second of the whole run"),
            MetricSpec::rate(
                "write_kbps",
                "KB/s",
                "KiB written per second of the whole run",
            ),
        ]
    }
    fn check(&self, c: &Config) -> Result<(), WorkloadError> {
        Config::new(self.name, c).map(drop)
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        let cfg = Config::new(self.name, c)?;
        let scratch = Scratch::create(ctx.root(), self.name)?;
        let tally = Tally::default();
        for d in 0..cfg.dirs() {
            super::fileset::mkdir(&scratch.join(format!("s{d}")), &tally)?;
        }
        let (c, t) = ctx.phase(&[scratch.path()], || session(&cfg, scratch.path(), &tally))?;
        c.record(ctx, &t);
        Ok(())
    }
}

impl Config {
    /// The settings, checked: ranges (again, for values that were not resolved from text) and
    /// size_low ≤ size_high.
    fn new(name: &str, c: &Config) -> Result<Config, WorkloadError> {
        let (low, high) = (c.low, c.high);
        crate::settings::within(name, c)?;
        if low > high {
            return Err(WorkloadError::Failed(format!(
                "{name}: size_low {low} must be at most size_high {high}"
            )));
        }
        Ok(c.clone())
    }

    /// Subdirectories made: none for 0 or 1, as PostMark.
    fn dirs(&self) -> u64 {
        if self.subdirs > 1 {
            self.subdirs
        } else {
            0
        }
    }
}

/// The most files and bytes a run holds at once, expected, with three standard deviations.
struct Peak {
    files: u64,
    bytes: u64,
}

/// PostMark's peak, from its flow rather than its worst case (every transaction a create):
///
/// - Files: each transaction creates (chance c = BIAS_CREATE/10) or deletes one, so the
///   population is a random walk from FILES with drift 2c − 1 and variance 4c(1 − c) a step.
///   Its peak after T transactions is at most FILES + max(0, (2c − 1)T) + 3·√(4c(1 − c)T):
///   by the reflection principle a symmetric walk passes a·√T with chance 2·P(Z > a), 0.3 %
///   for a = 3. PostMark's table caps it at 2 × FILES.
/// - Sizes: a file starts at SIZE_LOW + RND(SIZE_HIGH − SIZE_LOW), its gap to SIZE_HIGH
///   (HIGH − LOW)/2 on average, and each append adds RND(gap) + 1, halving the gap on
///   average. A living file takes appends (chance a = 1 − BIAS_READ/10 a transaction) and
///   the deletion (d = 1 − c) at the same per-file rate 1/N, so the appends it has had are
///   geometric, P(k) = (1 − q)qᵏ with q = a/(a + d), and E[gap] = (HIGH − LOW)/2 ·
///   E[2⁻ᵏ] = (HIGH − LOW)/2 · (1 − q)/(1 − q/2). That is the steady state a long run reaches
///   from above (new files have had no appends yet), so it bounds short runs too. Rounding up
///   to whole blocks adds less than one block a file.
/// - The sum over N files spreads by at most (HIGH − LOW)/2 · √N; three of those are added.
///
/// At PostMark's defaults (c = ½, q = ½): FILES + 3√T files of SIZE_HIGH − (HIGH − LOW)/3
/// bytes plus a block — 10,000 files and 300,000 transactions of 500–10,000 B peak near
/// 11,643 × 10,929 B ≈ 127 MB, where every transaction creating would be 3.5 GiB.
fn peak_of(cfg: &Config) -> Peak {
    let (files, t) = (cfg.files as f64, cfg.transactions as f64);
    let (low, high) = (cfg.low as f64, cfg.high.max(cfg.low) as f64);
    let c = cfg.bias_create.min(10) as f64 / 10.0;
    let (a, d) = (1.0 - cfg.bias_read.min(10) as f64 / 10.0, 1.0 - c);
    let walk = (2.0 * c - 1.0).max(0.0) * t + 3.0 * (4.0 * c * (1.0 - c) * t).sqrt();
    let n = (files + walk).min(2.0 * files).ceil();
    let q = if a + d > 0.0 { a / (a + d) } else { 0.0 };
    let gap = (high - low) / 2.0 * (1.0 - q) / (1.0 - q / 2.0);
    let block = super::needs::BLOCK as f64;
    let most = (high / block).ceil().max(1.0) * block;
    let per_file = (high - gap + block).min(most);
    let bytes = (n * per_file + 3.0 * (high - low) / 2.0 * n.sqrt()).min(n * most);
    // f64 → u64 saturates: a peak past u64 is refused as huge, not wrapped.
    Peak {
        files: n as u64,
        bytes: bytes as u64,
    }
}

/// [`peak_of`] the settings `c` (tests).
#[cfg(test)]
fn expected_peak(c: &Config) -> Peak {
    peak_of(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Sample;
    use crate::Method;
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    /// Quick-scale parameters of `w` with `overrides`.
    pub(crate) fn params(w: &Postmark, overrides: &[(&str, u64)]) -> Config {
        let mut pairs: Vec<(&str, u64)> = w.params().iter().map(|s| (s.name, s.quick)).collect();
        pairs.extend_from_slice(overrides);
        crate::settings::with_pairs(&pairs)
    }

    #[test]
    fn every_preset_reports_every_metric_and_cleans_up() {
        for w in [&POSTMARK, &POSTMARK_1, &POSTMARK_10, &POSTMARK_100] {
            let tmp = tempfile::tempdir().unwrap();
            let p = params(w, &[("files", 300), ("transactions", 600)]);
            let mut got = BTreeMap::new();
            let mut on = |m: &str, s: Sample| {
                got.insert(m.to_string(), s.value);
            };
            let mut ctx = WorkloadCtx::new(tmp.path(), 0, Method::Native, Duration::ZERO, &mut on);
            w.run(&mut ctx, &p).unwrap();
            drop(ctx);
            for m in w.metrics(&p) {
                let v = got.get(&m.name).copied();
                assert!(v.is_some_and(|v| v > 0.0), "{}: {} = {v:?}", w.name, m.name);
            }
            assert_eq!(
                std::fs::read_dir(tmp.path()).unwrap().count(),
                0,
                "{}",
                w.name
            );
        }
    }

    #[test]
    fn counts_are_consistent_and_every_file_is_gone() {
        for (subdirs, dirs) in [(1, 0), (10, 10)] {
            let tmp = tempfile::tempdir().unwrap();
            let p = params(
                &POSTMARK,
                &[("files", 200), ("transactions", 1000), ("subdirs", subdirs)],
            );
            let cfg = Config::new("postmark", &p).unwrap();
            for d in 0..cfg.dirs() {
                std::fs::create_dir(tmp.path().join(format!("s{d}"))).unwrap();
            }
            let tally = Tally::default();
            let c = session(&cfg, tmp.path(), &tally).unwrap();
            assert_eq!(
                c.created, c.deleted,
                "created − deleted must be 0 at the end"
            );
            assert_eq!(c.transactions, 1000);
            assert_eq!(c.pool, 200);
            // Each transaction is one read or append (appends skip full files) and one
            // create or delete.
            assert!(c.read + c.appended <= 1000 && c.read > 0 && c.appended > 0);
            assert_eq!(c.created - c.pool + (c.deleted - c.deleted_alone), 1000);
            assert!(c.bytes_written >= c.created * 500);
            let entries: Vec<_> = walk_files(tmp.path());
            assert!(entries.is_empty(), "left: {entries:?}");
            assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), dirs);
        }
    }

    fn walk_files(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                out.extend(walk_files(&e.path()));
            } else {
                out.push(e.path());
            }
        }
        out
    }

    /// PostMark 1.53's own terse reports (Debian postmark 1.53-2, seed 42, sizes 500..10,000)
    /// for three configurations: files, transactions, subdirectories → created, read,
    /// appended, deleted after the transactions, bytes read, bytes written (the terse report
    /// gives rates: count = rate × its whole seconds). Same generator,
    /// same draws, same table: the same files, byte for byte.
    #[test]
    fn does_postmarks_own_work() {
        let cases: [([u64; 3], [u64; 6]); 3] = [
            ([200, 400, 3], [408, 206, 194, 216, 1_251_200, 2_525_293]),
            ([500, 500, 0], [764, 243, 257, 528, 1_430_770, 4_662_068]),
            ([300, 1000, 10], [837, 506, 491, 374, 3_116_341, 5_294_397]),
        ];
        for ([files, tx, subdirs], want) in cases {
            let tmp = tempfile::tempdir().unwrap();
            let over = [("files", files), ("transactions", tx), ("subdirs", subdirs)];
            let cfg = Config::new("postmark", &params(&POSTMARK, &over)).unwrap();
            for d in 0..cfg.dirs() {
                std::fs::create_dir(tmp.path().join(format!("s{d}"))).unwrap();
            }
            let c = session(&cfg, tmp.path(), &Tally::default()).unwrap();
            let got = [c.created, c.read, c.appended, c.deleted_alone];
            let bytes = [c.bytes_read, c.bytes_written];
            assert_eq!(got[..], want[..4], "{over:?}");
            assert_eq!(bytes[..], want[4..], "{over:?}");
            assert_eq!(c.deleted, c.created, "{over:?}");
        }
    }

    #[test]
    fn running_out_of_files_and_bad_sizes_are_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let p = params(
            &POSTMARK,
            &[("files", 5), ("transactions", 1000), ("bias_create", 0)],
        );
        let cfg = Config::new("postmark", &p).unwrap();
        let e = session(&cfg, tmp.path(), &Tally::default()).unwrap_err();
        assert!(e.to_string().contains("ran out of files"), "{e}");
        let p = params(&POSTMARK, &[("size_low", 20_000)]);
        assert!(Config::new("postmark", &p).is_err());
    }

    #[test]
    fn the_estimate_is_the_walks_peak_not_every_transaction_creating() {
        // Issue 29's run: 10,000 files, 300,000 transactions of 500..10,000 B, refused for
        // 3.5 GiB before; its expected peak with the margin is about 130 MB.
        let p = params(&POSTMARK, &[("files", 10_000), ("transactions", 300_000)]);
        let n = POSTMARK.needs(&p);
        assert!(n.bytes > 127_000_000 && n.bytes < 135_000_000, "{n:?}");
        assert_eq!(n.floor, 10_000 * 4096);
        // Creates only: the walk climbs to the table's 2 x FILES files, each grown to
        // SIZE_HIGH by the appends it keeps getting.
        let p = params(&POSTMARK, &[("files", 100), ("bias_create", 10)]);
        assert!(POSTMARK.needs(&p).floor < POSTMARK.needs(&p).bytes);
        assert_eq!(expected_peak(&p).files, 200);
        assert_eq!(expected_peak(&p).bytes, 200 * 12_288);
    }
}

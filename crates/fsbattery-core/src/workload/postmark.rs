//! `postmark`, `postmark-1`, `-10`, `-100`: PostMark 1.5 (Katcher, NetApp 1997) natively —
//! seed S4's "postmark 1, 10, and 100" rows (read and write KB/s).
//!
//! PostMark's run, step for step: make SUBDIRS subdirectories (untimed); create FILES files of
//! a uniformly random size in SIZE_LOW..SIZE_HIGH, each in a random subdirectory; run
//! TRANSACTIONS transactions, each (a) a read of a whole random file or an append of
//! 1..=(SIZE_HIGH − size) bytes to one (BIAS_READ in 10 for the read), then (b) the creation
//! of a new file or the deletion of a random one (BIAS_CREATE in 10 for the create; no create
//! once 2 × FILES files exist, as PostMark's table of 2 × FILES slots); delete every remaining
//! file; remove the subdirectories (untimed). Rates are PostMark's: transactions, reads and
//! appends per second of the transaction phase; creations, deletions and KB/s (1024 bytes)
//! per second of the whole run (creation + transactions + deletion).
//!
//! Differences, on purpose: time is monotonic and in nanoseconds where PostMark used time(2)
//! (1 s resolution, which is why S4's KB/s come in steps of 1/N); the random generator is
//! xorshift64*, not the Mersenne Twister, so the file sequence differs from PostMark's for
//! the same seed while its distribution is the same; IO goes through the engine in IO_BLOCK
//! requests, which is what PostMark's buffered stdio issued for its 512-byte fread/fwrite
//! calls (one st_blksize buffer, 4 KiB on the filesystems of 2007).
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

use super::fileset::{count, Port, Site, Tally, DEPTH_PARAM, ENGINE_PARAM, MAX_FILES};
use super::{poll, Scratch, Workload, WorkloadCtx};
use crate::engine::{OpKind, XorShift};
use crate::error::is_full;
use crate::error::WorkloadError;
use crate::measure::per_s;
use crate::measure::Timing;
use crate::model::MetricSpec;
use crate::params::{ParamSpec, Params, MAX_REQUEST};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One PostMark registry entry: the plain tool defaults, or one of S4's three runs.
pub struct Postmark {
    name: &'static str,
    summary: &'static str,
    params: &'static [ParamSpec],
}

/// Parameters with the given defaults (files and transactions per scale, subdirectories).
const fn specs(files: [u64; 2], transactions: [u64; 2], subdirs: u64) -> [ParamSpec; 11] {
    [
        count(
            "files",
            "files created before the transactions",
            files[0],
            files[1],
        )
        .range(1, MAX_FILES),
        count(
            "transactions",
            "transactions run",
            transactions[0],
            transactions[1],
        ),
        count("size_low", "smallest file created, bytes", 500, 500).range(1, MAX_REQUEST),
        count(
            "size_high",
            "largest file size (creates and appends), bytes",
            10_000,
            10_000,
        )
        .range(1, MAX_REQUEST),
        count(
            "subdirs",
            "subdirectories the files are spread over (0 or 1: one directory)",
            subdirs,
            subdirs,
        )
        .range(0, MAX_FILES),
        count(
            "io_block",
            "bytes per read/write request (PostMark's stdio buffer)",
            4 << 10,
            4 << 10,
        )
        .range(1, MAX_REQUEST),
        count(
            "bias_read",
            "chance in 10 that a transaction reads rather than appends",
            5,
            5,
        )
        .range(0, 10),
        count(
            "bias_create",
            "chance in 10 that a transaction creates rather than deletes",
            5,
            5,
        )
        .range(0, 10),
        count(
            "seed",
            "seed of sizes and choices (PostMark's default: 42)",
            42,
            42,
        )
        .range(0, u64::MAX),
        ENGINE_PARAM,
        DEPTH_PARAM,
    ]
}

static CLASSIC: [ParamSpec; 11] = specs([500, 500], [500, 500], 0);
static S4_1: [ParamSpec; 11] = specs([2_000, 10_000], [5_000, 10_000], 1);
static S4_10: [ParamSpec; 11] = specs([2_000, 10_000], [5_000, 10_000], 10);
static S4_100: [ParamSpec; 11] = specs([2_000, 10_000], [5_000, 10_000], 100);

/// PostMark's flow, for every entry's listing (a macro: `concat!` takes literals only).
macro_rules! flow {
    () => {
        " Flow: create FILES files of SIZE_LOW..SIZE_HIGH bytes over SUBDIRS subdirectories; \
         run TRANSACTIONS transactions, each a read of a whole random file or an append of \
         1..=(SIZE_HIGH - size) bytes to one (BIAS_READ in 10 reads), then a create or the \
         deletion of a random file (BIAS_CREATE in 10 creates); delete every file. Reports \
         transactions/s, files created/read/appended/deleted per second and read/write KB/s \
         (1024 B) with PostMark 1.5's denominators, timed in nanoseconds (PostMark: 1 s)."
    };
}

/// `postmark`: PostMark 1.5's own defaults.
pub const POSTMARK: Postmark = Postmark {
    name: "postmark",
    summary: concat!(
        "PostMark 1.5 small-file transactions with the tool's own defaults (500 files of \
         500..10,000 B in one directory, 500 transactions, seed 42).",
        flow!()
    ),
    params: &CLASSIC,
};

/// `postmark-1`: S4's "postmark 1" (one directory).
pub const POSTMARK_1: Postmark = Postmark {
    name: "postmark-1",
    summary: concat!(
        "S4 'postmark 1' (read/write KB/s rows): PostMark with SUBDIRS=1, i.e. one \
         directory; 10,000 files and 10,000 transactions at standard scale, S4's volumes \
         (S4's '1, 10, 100' read as subdirectories: see workload/postmark.rs).",
        flow!()
    ),
    params: &S4_1,
};

/// `postmark-10`: S4's "postmark 10" (ten subdirectories).
pub const POSTMARK_10: Postmark = Postmark {
    name: "postmark-10",
    summary: concat!(
        "S4 'postmark 10' (read/write KB/s rows): PostMark with SUBDIRS=10; 10,000 files and \
         10,000 transactions at standard scale.",
        flow!()
    ),
    params: &S4_10,
};

/// `postmark-100`: S4's "postmark 100" (a hundred subdirectories).
pub const POSTMARK_100: Postmark = Postmark {
    name: "postmark-100",
    summary: concat!(
        "S4 'postmark 100' (read/write KB/s rows): PostMark with SUBDIRS=100; 10,000 files \
         and 10,000 transactions at standard scale.",
        flow!()
    ),
    params: &S4_100,
};

impl Workload for Postmark {
    fn needs(&self, p: &Params) -> super::needs::Needs {
        // At most every transaction creates a file; appends stop at size_high.
        let files = p.get("files").saturating_add(p.get("transactions"));
        let bytes = super::needs::files_bytes(files, p.get("size_high"));
        let inodes = files.saturating_add(p.get("subdirs")) + 2;
        super::needs::Needs::space(bytes, inodes, "files, transactions and size_high").engine(p)
    }
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn params(&self) -> &'static [ParamSpec] {
        self.params
    }
    /// PostMark does nothing to the cache between its phases.
    fn tool_cache(&self) -> Option<crate::cache::ToolCache> {
        Some(crate::cache::ToolCache::Nothing)
    }
    fn metrics(&self, _: &Params) -> Vec<MetricSpec> {
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
            MetricSpec::rate("read_kbps", "KB/s", "KiB read per second of the whole run"),
            MetricSpec::rate(
                "write_kbps",
                "KB/s",
                "KiB written per second of the whole run",
            ),
        ]
    }
    fn check(&self, p: &Params) -> Result<(), WorkloadError> {
        Config::new(self.name, p).map(drop)
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, p: &Params) -> Result<(), WorkloadError> {
        let cfg = Config::new(self.name, p)?;
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

/// Parameters, resolved.
struct Config {
    files: u64,
    transactions: u64,
    low: u64,
    high: u64,
    subdirs: u64,
    io_block: u64,
    bias_read: u64,
    bias_create: u64,
    seed: u64,
    engine: crate::engine::EngineSpec,
}

impl Config {
    fn new(name: &str, p: &Params) -> Result<Config, WorkloadError> {
        let (low, high) = (p.get("size_low"), p.get("size_high"));
        // Ranges are the specs' data (checked again here for values built without them).
        let specs = super::find(name).map_or(&[][..], |w| w.params());
        p.within(name, specs)
            .map_err(|e| WorkloadError::Failed(e.to_string()))?;
        if low > high {
            return Err(WorkloadError::Failed(format!(
                "{name}: size_low {low} must be at most size_high {high}"
            )));
        }
        Ok(Config {
            files: p.get("files"),
            transactions: p.get("transactions"),
            low,
            high,
            subdirs: p.get("subdirs"),
            io_block: p.get("io_block"),
            bias_read: p.get("bias_read"),
            bias_create: p.get("bias_create"),
            seed: p.get("seed"),
            engine: super::fileset::engine_spec(name, p, false)?,
        })
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

/// A file of the run: its number (its name), subdirectory and current size.
struct Live {
    number: u64,
    dir: Option<u64>,
    size: u64,
}

/// Counts and phase times of one run.
#[derive(Debug, Default, Clone, PartialEq)]
struct Counters {
    created: u64,
    deleted: u64,
    read: u64,
    appended: u64,
    bytes_read: u64,
    bytes_written: u64,
    transactions: u64,
    pool: u64,
    deleted_alone: u64,
    create_secs: f64,
    tx_secs: f64,
    delete_secs: f64,
}

impl Counters {
    fn total_secs(&self) -> f64 {
        self.create_secs + self.tx_secs + self.delete_secs
    }

    /// Record every metric of [`Postmark::metrics`].
    fn record(&self, ctx: &mut WorkloadCtx<'_>, t: &Timing) {
        let total = self.total_secs();
        let values = [
            (
                "transactions",
                per_s(self.transactions as f64, self.tx_secs),
            ),
            ("created", per_s(self.created as f64, total)),
            ("created_alone", per_s(self.pool as f64, self.create_secs)),
            ("read", per_s(self.read as f64, self.tx_secs)),
            ("appended", per_s(self.appended as f64, self.tx_secs)),
            ("deleted", per_s(self.deleted as f64, total)),
            (
                "deleted_alone",
                per_s(self.deleted_alone as f64, self.delete_secs),
            ),
            ("read_kbps", per_s(self.bytes_read as f64 / 1024.0, total)),
            (
                "write_kbps",
                per_s(self.bytes_written as f64 / 1024.0, total),
            ),
        ];
        for (name, v) in values {
            ctx.record(name, t, v);
        }
    }
}

/// One PostMark run in `dir` (subdirectories made): pool, transactions, deletion.
fn session(cfg: &Config, dir: &Path, tally: &Tally) -> Result<Counters, WorkloadError> {
    let mut pm = Pm {
        cfg,
        dir,
        tally,
        port: Port::new(&cfg.engine, cfg.io_block as usize, 4096, cfg.seed)?,
        rng: XorShift::new(cfg.seed),
        live: Vec::with_capacity(2 * cfg.files as usize),
        c: Counters::default(),
    };
    let t0 = Instant::now();
    for i in 0..cfg.files {
        poll(i)?;
        pm.create()?;
    }
    pm.c.pool = pm.c.created;
    let t1 = Instant::now();
    for i in 0..cfg.transactions {
        poll(i)?;
        pm.transaction(i)?;
    }
    let t2 = Instant::now();
    let mut i = 0;
    while !pm.live.is_empty() {
        poll(i)?;
        pm.delete(pm.live.len() - 1)?;
        i += 1;
    }
    pm.c.deleted_alone = i;
    let t3 = Instant::now();
    pm.c.create_secs = (t1 - t0).as_secs_f64();
    pm.c.tx_secs = (t2 - t1).as_secs_f64();
    pm.c.delete_secs = (t3 - t2).as_secs_f64();
    Ok(pm.c)
}

/// The state of one run.
struct Pm<'a> {
    cfg: &'a Config,
    dir: &'a Path,
    tally: &'a Tally,
    port: Port,
    rng: XorShift,
    live: Vec<Live>,
    c: Counters,
}

impl Pm<'_> {
    fn path(&self, f: &Live) -> PathBuf {
        match f.dir {
            Some(d) => self.dir.join(format!("s{d}")).join(f.number.to_string()),
            None => self.dir.join(f.number.to_string()),
        }
    }

    /// Transaction `i`: read or append, then create or delete.
    fn transaction(&mut self, i: u64) -> Result<(), WorkloadError> {
        if self.live.is_empty() {
            return Err(WorkloadError::Failed(format!(
                "postmark ran out of files after {i} transactions: raise files or lower \
                 transactions"
            )));
        }
        let pick = self.rng.below(10) < self.cfg.bias_read;
        let f = self.rng.below(self.live.len() as u64) as usize;
        if pick {
            self.read(f)?;
        } else {
            self.append(f)?;
        }
        if self.rng.below(10) < self.cfg.bias_create {
            self.create()?;
        } else {
            let f = self.rng.below(self.live.len() as u64) as usize;
            self.delete(f)?;
        }
        self.c.transactions += 1;
        Ok(())
    }

    /// A new file of a random size; nothing when the table of 2 × FILES files is full.
    fn create(&mut self) -> Result<(), WorkloadError> {
        if self.live.len() as u64 >= 2 * self.cfg.files {
            return Ok(());
        }
        let dir = (self.cfg.subdirs > 1).then(|| self.rng.below(self.cfg.subdirs));
        self.c.created += 1;
        let size = self.cfg.low + self.rng.below(self.cfg.high - self.cfg.low);
        let f = Live {
            number: self.c.created,
            dir,
            size,
        };
        let path = self.path(&f);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| self.tally.io(format!("create {}", path.display()), e))?;
        self.tally.created();
        self.write(file, &path, 0, size)?;
        self.c.bytes_written += size;
        self.live.push(f);
        Ok(())
    }

    /// Read file `i` whole.
    fn read(&mut self, i: usize) -> Result<(), WorkloadError> {
        let (path, size) = (self.path(&self.live[i]), self.live[i].size);
        let file = std::fs::File::open(&path)
            .map_err(|e| WorkloadError::io(format!("open {}", path.display()), e))?;
        let id = self.port.add(file)?;
        let site = Site {
            path: &path,
            tally: self.tally,
        };
        let res = self.port.transfer(OpKind::Read, id, 0, size, site);
        self.port.close(id);
        res?;
        self.c.read += 1;
        self.c.bytes_read += size;
        Ok(())
    }

    /// Append 1..=(SIZE_HIGH − size) bytes to file `i`, unless it is at SIZE_HIGH already.
    fn append(&mut self, i: usize) -> Result<(), WorkloadError> {
        let (path, size) = (self.path(&self.live[i]), self.live[i].size);
        if size >= self.cfg.high {
            return Ok(());
        }
        let n = self.rng.below(self.cfg.high - size) + 1;
        let file = OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|e| WorkloadError::io(format!("open {}", path.display()), e))?;
        self.write(file, &path, size, n)?;
        self.live[i].size += n;
        self.c.appended += 1;
        self.c.bytes_written += n;
        Ok(())
    }

    /// Write `len` bytes at `offset` of the open `file` and close it.
    fn write(
        &mut self,
        file: std::fs::File,
        path: &Path,
        offset: u64,
        len: u64,
    ) -> Result<(), WorkloadError> {
        let id = self.port.add(file)?;
        let site = Site {
            path,
            tally: self.tally,
        };
        let res = self.port.transfer(OpKind::Write, id, offset, len, site);
        self.port.close(id);
        res
    }

    /// Delete file `i`.
    fn delete(&mut self, i: usize) -> Result<(), WorkloadError> {
        let path = self.path(&self.live[i]);
        std::fs::remove_file(&path).map_err(|e| {
            // Deleting never needs room on the filesystems we know, but say so if it does.
            if is_full(&e) {
                self.tally
                    .full(&format!("unlink {}", path.display()), &e.to_string())
            } else {
                WorkloadError::io(format!("unlink {}", path.display()), e)
            }
        })?;
        self.live.swap_remove(i);
        self.c.deleted += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Sample;
    use crate::workload::Method;
    use std::collections::BTreeMap;
    use std::time::Duration;

    /// Quick-scale parameters of `w` with `overrides`.
    pub(in crate::workload) fn params(w: &Postmark, overrides: &[(&str, u64)]) -> Params {
        let mut p: BTreeMap<String, u64> = w
            .params
            .iter()
            .map(|s| (s.name.to_string(), s.quick))
            .collect();
        p.extend(overrides.iter().map(|(k, v)| (k.to_string(), *v)));
        let pairs: Vec<(&str, u64)> = p.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        Params::from_pairs(&pairs)
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

    #[test]
    fn same_seed_same_run() {
        let run = || {
            let tmp = tempfile::tempdir().unwrap();
            let p = params(&POSTMARK, &[("files", 100), ("transactions", 300)]);
            let cfg = Config::new("postmark", &p).unwrap();
            let c = session(&cfg, tmp.path(), &Tally::default()).unwrap();
            (c.created, c.read, c.appended, c.bytes_read, c.bytes_written)
        };
        assert_eq!(run(), run());
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
}

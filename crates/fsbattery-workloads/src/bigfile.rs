//! `bigfile`: seed S2's "Datei 16 GB schreiben / lesen / löschen" rows — a test of its own
//! beside bonnie++, not bonnie's block output and input (S2's table has both, with different
//! numbers: ext2 122 vs 109.6 MB/s written, 128 vs 133.9 read).
//!
//! S2 wrote one file of twice its RAM (16 GB on 8 GB) in large sequential writes, read it
//! back, and deleted it, reporting MB/s for the first two and, for the delete, the system CPU
//! seconds and the fastest and slowest wall time of its runs. Phases, each quiesced by
//! [`WorkloadCtx::phase`]: `write` (open, truncate, SIZE in BLOCK writes, closing fsync: the
//! clock stops when fsync returned, as `dd conv=fsync`), `read` (SIZE in BLOCK reads),
//! `delete` (one unlink; its system seconds are `delete_sys`). SIZE is 2 × RAM at full scale,
//! as S2 sized it. Native mode moves the bytes through the engine ([`BlockFile`] on the
//! driver); command mode runs `dd conv=fsync`, `dd of=/dev/null` and `rm`.
//! Invariant: the file is a whole number of blocks and is removed on every path (the scratch
//! directory is a guard).

use super::blockio::{self, BlockFile, IoDefaults, IoGroup, IoSettings, Open};
use super::{command, Method, Scratch, WorkloadCtx};
use crate::engine::OpKind;
use crate::error::{IoContext, WorkloadError};
use crate::model::MetricSpec;
use crate::settings::Bytes;
use crate::TypedWorkload;
use std::path::Path;

/// The bigfile workload.
pub struct BigFile;

crate::settings! {
    /// bigfile's settings.
    pub struct BigFileSettings {
        /// Bytes of the file.
        pub size: Bytes = blockio::file_size(
            "size",
            "size of the big file (S2: 16 GB, twice its RAM; 2 x RAM at full scale)",
            64 << 20,
            1 << 30,
            true,
        ),
        /// Bytes per write and read.
        pub block: Bytes = blockio::request_size("block", "bytes per write and read (dd bs)", 1 << 20),
        /// Engine, depth, O_DIRECT, fill.
        pub io: IoGroup => IoDefaults::BLOCK,
    }
}

impl TypedWorkload for BigFile {
    type Settings = BigFileSettings;
    /// S2's own file test (dd-like writes, reads and rm) drops nothing between them.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "dd, cat, rm"
    }
    fn needs(&self, s: &BigFileSettings) -> super::needs::Needs {
        super::needs::Needs::space(s.size.get(), 2, "size")
            .engine(&s.io)
            .direct(&s.io, "false", true, &[("block", s.block.get())])
    }
    fn commands(&self) -> &'static [&'static str] {
        &["dd", "rm"]
    }
    fn name(&self) -> &'static str {
        "bigfile"
    }
    fn summary(&self) -> &'static str {
        "write a SIZE file (2 x RAM at full scale) in 1 MiB writes ending with fsync, read it, \
         delete it: wall and system seconds (S2 \"Datei 16 GB\" rows)"
    }
    fn metrics(&self, s: &BigFileSettings) -> Vec<MetricSpec> {
        let mut m = vec![
            MetricSpec::rate(
                "write",
                "MB/s",
                "SIZE over the time until the closing fsync returned (S2 \"schreiben\")",
            ),
            MetricSpec::rate("read", "MB/s", "SIZE read back (S2 \"lesen\")"),
            MetricSpec::seconds("delete", "unlink the file: wall seconds (S2 \"löschen\")"),
            MetricSpec::seconds(
                "delete_sys",
                "unlink the file: system CPU seconds (S2 \"löschen [sys s]\")",
            ),
        ];
        m.extend(blockio::direct_metric(&s.io));
        m
    }
    fn check(&self, s: &BigFileSettings) -> Result<(), WorkloadError> {
        blockio::whole_chunks("bigfile", s.size.get(), s.block.get(), "block").map(drop)
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &BigFileSettings) -> Result<(), WorkloadError> {
        let block = s.block.get();
        let size = blockio::whole_chunks("bigfile", s.size.get(), block, "block")?;
        let scratch = Scratch::create(ctx.root(), "bigfile")?;
        let path = scratch.join("bigfile");
        if ctx.method() == Method::Commands {
            return run_commands(ctx, scratch.path(), size, block);
        }
        let io = IoSettings::resolve("bigfile", &s.io, scratch.path())?;
        let seed = 0xb16f ^ u64::from(ctx.repeat());
        let evict = [scratch.path()];
        let ((), t) = ctx.phase(&evict, || {
            let mut f = BlockFile::open(&path, Open::Truncate, &io, block as u32, seed)?;
            f.stream(OpKind::Write, size)?;
            f.fsync()
        })?;
        ctx.record("write", &t, blockio::mb_per_s(size, t.elapsed_s));
        let (_, t) = ctx.phase(&evict, || {
            BlockFile::open(&path, Open::Existing, &io, block as u32, seed)?
                .stream(OpKind::Read, size)
        })?;
        ctx.record("read", &t, blockio::mb_per_s(size, t.elapsed_s));
        let t = ctx.timed("delete", &evict, || {
            std::fs::remove_file(&path).ctx(|| format!("unlink {}", path.display()))
        })?;
        ctx.record("delete_sys", &t, t.sys_s);
        blockio::record_direct(ctx, &s.io, &io);
        Ok(())
    }
}

/// `dd if=/dev/zero of=bigfile bs=BLOCK count=N conv=fsync`, `dd if=bigfile of=/dev/null`,
/// `rm bigfile`; the delete's system seconds are the child's (rusage of children).
fn run_commands(
    ctx: &mut WorkloadCtx<'_>,
    dir: &Path,
    size: u64,
    block: u64,
) -> Result<(), WorkloadError> {
    let bs = format!("bs={block}");
    let count = format!("count={}", size / block);
    let write = [
        "if=/dev/zero",
        "of=bigfile",
        &bs,
        &count,
        "conv=fsync",
        "status=none",
    ];
    let ((), t) = ctx.phase(&[dir], || command::run(dir, "dd", &write))?;
    ctx.record("write", &t, blockio::mb_per_s(size, t.elapsed_s));
    let read = ["if=bigfile", "of=/dev/null", &bs, "status=none"];
    let ((), t) = ctx.phase(&[dir], || command::run(dir, "dd", &read))?;
    ctx.record("read", &t, blockio::mb_per_s(size, t.elapsed_s));
    let t = ctx.timed("delete", &[dir], || command::run(dir, "rm", &["bigfile"]))?;
    ctx.record("delete_sys", &t, t.sys_s);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockio::testutil::{assert_clean, run_typed as run_native, values};

    fn params(over: &[(&str, u64)]) -> BigFileSettings {
        let defaults = [
            ("size", 4 << 20),
            ("block", 1 << 20),
            ("direct", 0),
            ("buffered_fallback", 0),
            ("engine", 0),
            ("depth", 4),
            ("fill", 0),
            ("compress_pct", 50),
        ];
        crate::blockio::testutil::settings_of(&defaults, over)
    }

    /// Every declared metric is recorded once: rates and the wall time positive, the system
    /// seconds of one unlink possibly 0 (S2 printed 0,00 for most filesystems), and nothing
    /// is left behind.
    #[test]
    fn writes_reads_and_deletes_the_file() {
        let p = params(&[]);
        let (samples, tmp) = run_native(&BigFile, &p).unwrap();
        let v = values(&samples);
        let names: Vec<String> = BigFile.metrics(&p).into_iter().map(|m| m.name).collect();
        assert_eq!(
            v.keys().cloned().collect::<Vec<_>>().len(),
            names.len(),
            "{v:?}"
        );
        assert!(
            v["write"] > 0.0 && v["read"] > 0.0 && v["delete"] > 0.0,
            "{v:?}"
        );
        assert!(v["delete_sys"] >= 0.0, "{v:?}");
        assert_clean(tmp.path());
    }

    #[test]
    fn command_mode_runs_dd_and_rm() {
        let tmp = tempfile::tempdir().unwrap();
        let mut samples = Vec::new();
        let mut on = |m: &str, s: crate::model::Sample| samples.push((m.to_string(), s));
        let mut ctx = WorkloadCtx::new(
            tmp.path(),
            0,
            Method::Commands,
            std::time::Duration::ZERO,
            &mut on,
        );
        BigFile.run(&mut ctx, &params(&[])).unwrap();
        drop(ctx);
        let v = values(&samples);
        assert!(
            v["write"] > 0.0 && v["read"] > 0.0 && v["delete"] > 0.0,
            "{v:?}"
        );
        assert_clean(tmp.path());
    }

    #[test]
    fn a_size_under_one_block_is_refused_before_any_io() {
        let e = BigFile.check(&params(&[("size", 1000)])).unwrap_err();
        assert!(e.to_string().contains("smaller than one block"), "{e}");
    }
}

//! `dd`: seed S4's `dd if=/dev/zero of=bigfile bs=1048576 count=4096` — write SIZE to a new
//! file in BLOCK-sized writes, reported in MB/s.
//!
//! Two numbers, as `stream` does for S1: `write` stops the clock when the last write returned
//! (what `dd` prints: mostly page cache when the file is smaller than RAM), `write_durable`
//! when the closing fsync and close returned (`dd conv=fsync`, GNU coreutils 9.1). Both clocks
//! start after the file is open, as dd's does. With the defaults (sync engine, zeros, no
//! O_DIRECT) native mode copies as dd does (`copy.rs`: /dev/zero into one page-aligned
//! buffer, write(2)); other engines, fills or O_DIRECT go through the IO engine. Command mode
//! runs dd itself and then `sync bigfile`, so it always writes zeros and ignores engine, depth
//! and fill.
//! Invariant: the file is a whole number of blocks (SIZE is rounded down), and it is removed
//! on every path with the scratch directory.
//!
//! Under MPI `layout=shared` makes every rank write its blocks into one file, interleaved by
//! rank (rank r's block i at (i × ranks + r) × BLOCK, IOR without `-F`), one synchronous write
//! each; O_DIRECT's alignment of BLOCK is checked at plan time as for one file.

mod copy;

use super::blockio::{self, BlockFile, IoDefaults, IoGroup, IoSettings, Open};
use super::layout::{Layout, LayoutDefaults, LayoutSettings, SharedDir};
use super::{command, Method, Scratch, WorkloadCtx};
use crate::engine::{EngineSpec, Fill, OpKind};
use crate::error::WorkloadError;
use crate::measure::Stopwatch;
use crate::model::MetricSpec;
use crate::settings::Bytes;
use crate::TypedWorkload;
use std::path::Path;

/// The dd workload.
pub struct Dd;

crate::settings! {
    /// dd's settings.
    pub struct DdSettings {
        /// Bytes written.
        pub size: Bytes = blockio::file_size(
            "size",
            "bytes written (dd bs × count; rounded down to whole blocks)",
            64 << 20,
            4096 << 20,
            true,
        ),
        /// Bytes per write.
        pub block: Bytes = blockio::request_size("block", "bytes per write (dd bs)", 1 << 20),
        /// Engine, depth, O_DIRECT, fill.
        pub io: IoGroup => IoDefaults::BLOCK,
        /// Where MPI ranks put the file.
        pub layout: LayoutSettings => LayoutDefaults::Layout,
    }
}

impl TypedWorkload for Dd {
    type Settings = DdSettings;
    /// Dd drops nothing.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "GNU dd"
    }
    fn needs(&self, s: &DdSettings) -> super::needs::Needs {
        super::needs::Needs::space(s.size.get(), 2, "size")
            .engine(&s.io)
            .direct(&s.io, "false", true, &[("block", s.block.get())])
    }
    fn commands(&self) -> &'static [&'static str] {
        &["dd", "sync"]
    }
    fn name(&self) -> &'static str {
        "dd"
    }
    /// Its phases run in step on every MPI rank (see [`crate::collective`]).
    fn runs_on_ranks(&self) -> bool {
        true
    }
    fn summary(&self) -> &'static str {
        "write SIZE of zeros to a new file in 1 MiB blocks (S4 dd 4 GB). Follows GNU dd \
         (coreutils 9.1) if=/dev/zero bs=1M conv=fsync: the file is opened (O_TRUNC) before \
         the clock starts; each block is read from /dev/zero into one page-aligned buffer and \
         written; write_durable includes the fsync and close, as dd's conv=fsync rate does \
         (engine, fill or direct other than the defaults write through the IO engine instead)"
    }
    fn metrics(&self, s: &DdSettings) -> Vec<MetricSpec> {
        let mut m = vec![
            MetricSpec::rate(
                "write",
                "MB/s",
                "SIZE over the time until the last write returned (what dd prints)",
            ),
            MetricSpec::rate(
                "write_durable",
                "MB/s",
                "SIZE over the time until fsync returned (dd conv=fsync)",
            ),
        ];
        m.extend(blockio::direct_metric(&s.io));
        m
    }
    fn check(&self, s: &DdSettings) -> Result<(), WorkloadError> {
        blockio::whole_chunks("dd", s.size.get(), s.block.get(), "block").map(drop)
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &DdSettings) -> Result<(), WorkloadError> {
        let block = s.block.get();
        let size = blockio::whole_chunks("dd", s.size.get(), block, "block")?;
        let scratch = Scratch::create(ctx.root(), "dd")?;
        let path = scratch.join("bigfile");
        if ctx.method() == Method::Commands {
            return run_command(ctx, scratch.path(), size, block, s.io.direct);
        }
        let io = IoSettings::resolve("dd", &s.io, scratch.path())?;
        let seed = 0xdd ^ u64::from(ctx.repeat());
        let layout = Layout::of(ctx, &s.layout);
        let shared = SharedDir::make(ctx, &layout, "dd", scratch.path())?;
        if layout.shared && ctx.method() == Method::Commands {
            return Err(WorkloadError::Failed(
                "dd.layout=shared runs with --method native only".into(),
            ));
        }
        let path = match layout.shared {
            true => shared.path().join("bigfile"),
            false => path,
        };
        // dd's own path (zeros through a buffer, write(2), no O_DIRECT) unless asked otherwise;
        // a shared file is written at this rank's interleaved offsets through the engine.
        let as_dd =
            !layout.shared && io.engine == EngineSpec::Sync && io.fill == Fill::Zeros && !io.direct;
        let ((returned, mut durable), t) = ctx.phase(&[shared.path()], || {
            if as_dd {
                return copy::copy_zeros(&path, block, size / block);
            }
            // Opened before the clock starts, as dd opens of= before its start_time; one file
            // for all ranks is not truncated (nobody truncates what another wrote).
            let open = match layout.shared {
                true => Open::Create,
                false => Open::Truncate,
            };
            let mut f = BlockFile::open(&path, open, &io, block as u32, seed)?;
            let sw = Stopwatch::start();
            if layout.shared {
                // This rank's blocks, interleaved with the others' (IOR without -F).
                for i in 0..size / block {
                    f.write_at(layout.offset(layout.rank, i, block), i * block)?;
                }
            } else {
                f.stream(OpKind::Write, size)?;
            }
            let returned = sw.stop();
            f.fsync()?;
            drop(f);
            Ok((returned, sw.stop()))
        })?;
        durable.io = t.io;
        ctx.record(
            "write",
            &returned,
            blockio::mb_per_s(size, returned.elapsed_s),
        );
        ctx.record(
            "write_durable",
            &durable,
            blockio::mb_per_s(size, durable.elapsed_s),
        );
        blockio::record_direct(ctx, &s.io, &io);
        Ok(())
    }
}

/// `dd if=/dev/zero of=bigfile bs=BLOCK count=N [oflag=direct]`, then `sync bigfile` for the
/// durable number. dd's own errors (a full target included) become the cell's reason.
fn run_command(
    ctx: &mut WorkloadCtx<'_>,
    dir: &Path,
    size: u64,
    block: u64,
    direct: bool,
) -> Result<(), WorkloadError> {
    let bs = format!("bs={block}");
    let count = format!("count={}", size / block);
    let mut args = vec!["if=/dev/zero", "of=bigfile", &bs, &count, "status=none"];
    if direct {
        args.push("oflag=direct");
    }
    let (returned, durable) = ctx.phase(&[dir], || {
        let sw = Stopwatch::start();
        command::run(dir, "dd", &args)?;
        let returned = sw.stop();
        command::run(dir, "sync", &["bigfile"])?;
        Ok(returned)
    })?;
    ctx.record(
        "write",
        &returned,
        blockio::mb_per_s(size, returned.elapsed_s),
    );
    ctx.record(
        "write_durable",
        &durable,
        blockio::mb_per_s(size, durable.elapsed_s),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockio::testutil::{assert_clean, run_typed as run_native, uring_ok, values};

    fn params(over: &[(&str, u64)]) -> DdSettings {
        let defaults = [
            ("size", 4 << 20),
            ("block", 1 << 20),
            ("direct", 0),
            ("buffered_fallback", 0),
            ("engine", 0),
            ("depth", 4),
            ("fill", 0),
            ("compress_pct", 50),
            ("layout", 0),
        ];
        crate::blockio::testutil::settings_of(&defaults, over)
    }

    #[test]
    fn writes_the_file_and_reports_both_rates() {
        let p = params(&[("size", (4 << 20) + 12345)]);
        let (samples, _tmp) = run_native(&Dd, &p).unwrap();
        let v = values(&samples);
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(v["write"] > 0.0 && v["write_durable"] > 0.0, "{v:?}");
        // The durable clock includes the fsync, so it can only be slower.
        assert!(v["write_durable"] <= v["write"], "{v:?}");
    }

    #[test]
    fn direct_writes_record_that_direct_was_used() {
        if !crate::blockio::testutil::direct_ok() {
            return;
        }
        let p = params(&[("direct", 1), ("buffered_fallback", 1)]);
        let (samples, _tmp) = run_native(&Dd, &p).unwrap();
        assert_eq!(values(&samples)["direct_used"], 1.0);
    }

    #[test]
    fn io_uring_and_every_fill_work() {
        if !uring_ok() {
            return;
        }
        for fill in 0..3 {
            let p = params(&[("engine", 1), ("fill", fill), ("block", 64 << 10)]);
            let (samples, _tmp) = run_native(&Dd, &p).unwrap();
            assert!(values(&samples)["write"] > 0.0);
        }
    }

    #[test]
    fn command_mode_runs_dd() {
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
        Dd.run(&mut ctx, &params(&[])).unwrap();
        drop(ctx);
        let v = values(&samples);
        assert!(v["write"] > 0.0 && v["write_durable"] > 0.0, "{v:?}");
        assert_clean(tmp.path());
    }

    #[test]
    fn too_small_a_size_fails_before_any_io() {
        let e = run_native(&Dd, &params(&[("size", 1000)])).unwrap_err();
        assert!(e.contains("smaller than one block"), "{e}");
    }
}

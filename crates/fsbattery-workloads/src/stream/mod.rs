//! `stream`: seed S1 tests 013, 014 and 021 — create a file of SIZE from zeros in 1 MiB writes,
//! copy it on the same filesystem, cat it to /dev/null.
//!
//! Each write phase is reported twice: when the last write(2) returned (what `dd` and `cp`
//! printed in 2006, mostly page cache) and when fsync(2) returned (the data durable), so a
//! reader sees what the seeds' numbers meant; and the closing fsync alone (`*_fsync`, the
//! difference of the two), the cost of making SIZE durable.

mod ranks;

use super::blockio::bytes;
use super::layout::{LayoutDefaults, LayoutSettings};
use super::{command, poll, Method, Scratch, WorkloadCtx};
use crate::error::{IoContext, WorkloadError};
use crate::measure::{Stopwatch, Timing};
use crate::model::MetricSpec;
use crate::params::{MAX_REQUEST, MAX_SIZE};
use crate::settings::Bytes;
use crate::TypedWorkload;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

/// The stream workload.
pub struct Stream;

crate::settings! {
    /// stream's settings.
    pub struct StreamSettings {
        /// Bytes of the big file.
        pub size: Bytes =
            bytes("size", "size of the big file", 64 << 20, 1 << 30, true).range(4 << 10, MAX_SIZE),
        /// Bytes per call.
        pub block: Bytes = bytes(
            "block",
            "bytes per read(2)/write(2) call",
            1 << 20,
            1 << 20,
            false,
        )
        .range(1, MAX_REQUEST),
        /// Where MPI ranks put the file.
        pub layout: LayoutSettings => LayoutDefaults::WithReorder,
    }
}

impl TypedWorkload for Stream {
    type Settings = StreamSettings;
    /// Dd, cp and cat drop nothing.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "dd, cp, cat"
    }
    fn needs(&self, s: &StreamSettings) -> super::needs::Needs {
        // The file and its copy.
        super::needs::Needs::space(s.size.get().saturating_mul(2), 3, "size")
    }
    fn commands(&self) -> &'static [&'static str] {
        &["dd", "cp", "sync", "cat"]
    }
    fn check(&self, s: &StreamSettings) -> Result<(), WorkloadError> {
        let (size, block) = (("size", s.size.get()), ("block", s.block.get()));
        super::layout::check_shared("stream", &s.layout, size, block)
    }
    fn name(&self) -> &'static str {
        "stream"
    }
    /// Its phases run in step on every MPI rank (see [`crate::collective`]).
    fn runs_on_ranks(&self) -> bool {
        true
    }
    fn summary(&self) -> &'static str {
        "create a SIZE file from zeros, copy it on the same filesystem, cat it to /dev/null \
         (S1 013, 014, 021)"
    }
    fn metrics(&self, _: &StreamSettings) -> Vec<MetricSpec> {
        vec![
            MetricSpec::seconds(
                "create",
                "write SIZE of zeros: until the last write returned",
            ),
            MetricSpec::seconds(
                "create_durable",
                "write SIZE of zeros: until fsync returned",
            ),
            MetricSpec::seconds(
                "create_fsync",
                "write SIZE of zeros: the closing fsync alone (its commit cost)",
            ),
            MetricSpec::seconds("copy", "copy the file: until the last write returned"),
            MetricSpec::seconds("copy_durable", "copy the file: until fsync returned"),
            MetricSpec::seconds(
                "copy_fsync",
                "copy the file: the closing fsync alone (its commit cost)",
            ),
            MetricSpec::seconds("read", "read the file to nowhere (cat > /dev/null)"),
        ]
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, s: &StreamSettings) -> Result<(), WorkloadError> {
        let (size, block) = (s.size.get(), s.block.get().max(1) as usize);
        let scratch = Scratch::create(ctx.root(), "stream")?;
        let (src, dst) = (scratch.join("bigfile"), scratch.join("bigfile.copy"));
        let mut buf = vec![0u8; block];

        let layout = super::layout::Layout::of(ctx, &s.layout);
        if layout.ranks > 1 && (layout.shared || layout.reorder) {
            if ctx.method() == Method::Commands {
                return Err(WorkloadError::Failed(
                    "stream.layout=shared and stream.reorder run with --method native only".into(),
                ));
            }
            return ranks::run(ctx, &layout, &scratch, size, block as u64);
        }
        if ctx.method() == Method::Commands {
            return run_commands(ctx, &scratch, size, block);
        }
        let (returned, durable) = ctx.phase(&[scratch.path()], || {
            let mut out = create(&src)?;
            write_zeros(&mut out, &src, size, &buf)
        })?;
        record_write(ctx, "create", &returned, &durable);

        let (returned, durable) = ctx.phase(&[scratch.path()], || copy(&src, &dst, &mut buf))?;
        record_write(ctx, "copy", &returned, &durable);

        ctx.timed("read", &[scratch.path()], || {
            read_all(&src, &mut buf).map(|_| ())
        })?;
        Ok(())
    }
}

/// The seed's commands: `dd if=/dev/zero`, `cp --reflink=never`, `cat > /dev/null`; "durable" adds a
/// `sync FILE` (fsync through coreutils) after the command returned.
fn run_commands(
    ctx: &mut WorkloadCtx<'_>,
    scratch: &Scratch,
    size: u64,
    block: usize,
) -> Result<(), WorkloadError> {
    let dir = scratch.path();
    let count = format!("count={}", size.div_ceil(block as u64));
    let bs = format!("bs={block}");
    let dd = [
        "if=/dev/zero",
        "of=bigfile",
        bs.as_str(),
        count.as_str(),
        "status=none",
    ];
    let steps: [(&str, &str, Vec<&str>, &str); 2] = [
        ("create", "dd", dd.to_vec(), "bigfile"),
        (
            "copy",
            "cp",
            // coreutils 9 would clone the file on xfs/btrfs (a metadata-only "copy"); the
            // seeds' cp copied bytes.
            vec!["--reflink=never", "bigfile", "bigfile.copy"],
            "bigfile.copy",
        ),
    ];
    for (metric, program, args, written) in steps {
        let (returned, durable) = ctx.phase(&[dir], || {
            let sw = Stopwatch::start();
            command::run(dir, program, &args)?;
            let returned = sw.stop();
            command::run(dir, "sync", &[written])?;
            Ok(returned)
        })?;
        record_write(ctx, metric, &returned, &durable);
    }
    ctx.timed("read", &[dir], || command::run(dir, "cat", &["bigfile"]))?;
    Ok(())
}

/// Record a write phase three ways: until the last write returned (`metric`), until the
/// closing fsync returned (`metric_durable`), and that fsync alone (`metric_fsync`: the
/// durable timing less the returned one, CPU included, device I/O not split).
pub(crate) fn record_write(
    ctx: &mut WorkloadCtx<'_>,
    metric: &str,
    returned: &Timing,
    durable: &Timing,
) {
    ctx.record(metric, returned, returned.elapsed_s);
    ctx.record(&format!("{metric}_durable"), durable, durable.elapsed_s);
    let fsync = Timing {
        elapsed_s: (durable.elapsed_s - returned.elapsed_s).max(0.0),
        user_s: (durable.user_s - returned.user_s).max(0.0),
        sys_s: (durable.sys_s - returned.sys_s).max(0.0),
        io: None,
    };
    ctx.record(&format!("{metric}_fsync"), &fsync, fsync.elapsed_s);
}

fn create(path: &Path) -> Result<File, WorkloadError> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .ctx(|| format!("create {}", path.display()))
}

/// Times from the phase start are taken here so "returned" excludes only the fsync.
fn write_zeros(
    out: &mut File,
    path: &Path,
    size: u64,
    buf: &[u8],
) -> Result<Timing, WorkloadError> {
    let sw = Stopwatch::start();
    let mut left = size;
    let mut i = 0u64;
    while left > 0 {
        poll(i)?;
        let n = left.min(buf.len() as u64) as usize;
        out.write_all(&buf[..n])
            .ctx(|| format!("write {}", path.display()))?;
        left -= n as u64;
        i += 1;
    }
    let returned = sw.stop();
    out.sync_all().ctx(|| format!("fsync {}", path.display()))?;
    Ok(returned)
}

fn copy(src: &Path, dst: &Path, buf: &mut [u8]) -> Result<Timing, WorkloadError> {
    let sw = Stopwatch::start();
    let mut input = File::open(src).ctx(|| format!("open {}", src.display()))?;
    let mut out = create(dst)?;
    let mut i = 0u64;
    loop {
        poll(i)?;
        let n = input.read(buf).ctx(|| format!("read {}", src.display()))?;
        if n == 0 {
            break;
        }
        out.write_all(&buf[..n])
            .ctx(|| format!("write {}", dst.display()))?;
        i += 1;
    }
    let returned = sw.stop();
    out.sync_all().ctx(|| format!("fsync {}", dst.display()))?;
    Ok(returned)
}

/// Read `path` to the end, returning the bytes read.
pub(crate) fn read_all(path: &Path, buf: &mut [u8]) -> Result<u64, WorkloadError> {
    let mut input = File::open(path).ctx(|| format!("open {}", path.display()))?;
    let mut total = 0u64;
    let mut i = 0u64;
    loop {
        poll(i)?;
        let n = input.read(buf).ctx(|| format!("read {}", path.display()))?;
        if n == 0 {
            return Ok(total);
        }
        total += n as u64;
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockio::testutil::{run_typed, values};

    #[test]
    fn the_closing_fsync_is_recorded_apart() {
        let p: StreamSettings =
            crate::settings::with_pairs(&[("size", 1 << 20), ("block", 1 << 16)]);
        let (samples, _tmp) = run_typed(&Stream, &p).unwrap();
        let v = values(&samples);
        for phase in ["create", "copy"] {
            let (returned, durable) = (v[phase], v[&format!("{phase}_durable")]);
            let fsync = v[&format!("{phase}_fsync")];
            assert!(fsync >= 0.0 && durable >= returned, "{v:?}");
            assert!((returned + fsync - durable).abs() < 1e-9, "{v:?}");
        }
    }
}

//! `split`: seed S1 tests 015–019 — split a 10 MiB file into pieces of 1000, 1024, 2048, 4096
//! and 8192 bytes, one metric per piece size.
//!
//! As split(1): the input is read through a buffer and each piece is one file written with
//! one write(2). Each size splits into a directory of its own and the pieces stay until the
//! workload ends, when they go with the source and are written back (untimed): nothing
//! fsbattery does between two sizes lands in the next size's clock, nor in the unmount row's.
//! Removing each size's pieces before the next size had made ext2's later splits take 4–12 s
//! instead of 0.9–2.1 s, depending on timing (6 rounds each, loaded machine, 2026-11-29): an
//! artifact of that removal, which the seed's split never did.

use super::blockio::bytes;
use super::fsops::remove_untimed;
use super::{command, poll, Method, Scratch, WorkloadCtx};
use crate::error::{IoContext, WorkloadError};
use crate::model::MetricSpec;
use crate::settings::Bytes;
use crate::TypedWorkload;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;

/// The split workload.
pub struct Split;

/// S1's piece sizes.
pub const PIECES: [u64; 5] = [1000, 1024, 2048, 4096, 8192];

crate::settings! {
    /// split's settings.
    pub struct Config {
        /// Bytes of the file split.
        pub size: Bytes =
            bytes("size", "size of the file that is split", 10 << 20, 10 << 20, false)
                .range(8 << 10, 1 << 30),
    }
}

impl TypedWorkload for Split {
    type Settings = Config;
    /// Split drops nothing.
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn reference(&self) -> &'static str {
        "split"
    }
    fn needs(&self, c: &Config) -> super::needs::Needs {
        // The file and every size's pieces (all kept to the end), one block each at least.
        let size = c.size.get();
        let (mut bytes, mut files) = (size, 2 + PIECES.len() as u64);
        for piece in PIECES {
            let n = size.div_ceil(piece);
            bytes = bytes.saturating_add(super::needs::files_bytes(n, piece));
            files += n;
        }
        super::needs::Needs::space(bytes, files, "size")
    }
    fn commands(&self) -> &'static [&'static str] {
        &["split"]
    }
    fn name(&self) -> &'static str {
        "split"
    }
    fn summary(&self) -> &'static str {
        "split a 10 MiB file into 1000, 1024, 2048, 4096 and 8192-byte pieces (S1 015-019)"
    }
    fn metrics(&self, _: &Config) -> Vec<MetricSpec> {
        PIECES
            .iter()
            .map(|b| {
                MetricSpec::seconds(
                    &format!("split_{b}"),
                    &format!("split into {b}-byte pieces"),
                )
            })
            .collect()
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, c: &Config) -> Result<(), WorkloadError> {
        let size = c.size.get();
        let scratch = Scratch::create(ctx.root(), "split")?;
        let src = scratch.join("10M");
        write_source(&src, size)?;
        for piece in PIECES {
            let out = scratch.join(format!("pieces{piece}"));
            std::fs::create_dir(&out).ctx(|| format!("mkdir {}", out.display()))?;
            let expected = size.div_ceil(piece);
            let method = ctx.method();
            ctx.timed(&format!("split_{piece}"), &[scratch.path()], || {
                let made = match method {
                    Method::Native => split(&src, &out, piece as usize)?,
                    Method::Commands => split_command(&src, &out, piece)?,
                };
                if made != expected {
                    return Err(WorkloadError::Failed(format!(
                        "split made {made} pieces, expected {expected}"
                    )));
                }
                Ok(())
            })?;
        }
        remove_untimed(scratch.path())
    }
}

/// `split -b PIECE -a 7 -d SRC x` (a 7-digit suffix, since 10 MiB / 1000 B needs 10,486 names
/// and split's default two letters stop at 676); returns the number of pieces made.
fn split_command(src: &Path, out: &Path, piece: u64) -> Result<u64, WorkloadError> {
    let src = src.to_string_lossy();
    command::run(
        out,
        "split",
        &["-b", &piece.to_string(), "-a", "7", "-d", &src, "x"],
    )?;
    let made = std::fs::read_dir(out)
        .ctx(|| format!("read directory {}", out.display()))?
        .count();
    Ok(made as u64)
}

/// Text-like source content (split is content-blind, but zeros could be special-cased by a
/// compressing filesystem).
fn write_source(path: &Path, size: u64) -> Result<(), WorkloadError> {
    let line = b"fsbattery split source: the quick brown fox jumps over the lazy dog 0123456789\n";
    let mut f = File::create(path).ctx(|| format!("create {}", path.display()))?;
    let mut left = size as usize;
    let mut chunk = Vec::with_capacity(1 << 16);
    while chunk.len() < (1 << 16) {
        chunk.extend_from_slice(line);
    }
    while left > 0 {
        let n = left.min(chunk.len());
        f.write_all(&chunk[..n])
            .ctx(|| format!("write {}", path.display()))?;
        left -= n;
    }
    f.sync_all().ctx(|| format!("fsync {}", path.display()))
}

/// Split `src` into files of `piece` bytes under `out`; returns how many were made.
fn split(src: &Path, out: &Path, piece: usize) -> Result<u64, WorkloadError> {
    let mut input = BufReader::with_capacity(
        128 << 10,
        File::open(src).ctx(|| format!("open {}", src.display()))?,
    );
    let mut buf = vec![0u8; piece];
    let mut made = 0u64;
    loop {
        poll(made)?;
        let n = read_up_to(&mut input, &mut buf).ctx(|| format!("read {}", src.display()))?;
        if n == 0 {
            return Ok(made);
        }
        let path = out.join(format!("x{made:07}"));
        let mut f = File::create(&path).ctx(|| format!("create {}", path.display()))?;
        f.write_all(&buf[..n])
            .ctx(|| format!("write {}", path.display()))?;
        made += 1;
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

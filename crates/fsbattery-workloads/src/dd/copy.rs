//! GNU dd's copy for `dd if=/dev/zero of=F bs=B count=N conv=fsync` (coreutils 9.1), with
//! its clock: dd opens both files (`of=` with O_WRONLY|O_CREAT|O_TRUNC) before it starts
//! timing; inside the timed region it allocates its page-aligned buffer, reads each block
//! from /dev/zero and writes it, fsyncs (conv=fsync) and closes, then prints the rate.
//!
//! Why not the engine: timing the open as well put the create (and the truncate) of a file in
//! a directory whose metadata the cold-cache drop had just evicted inside the clock — 4–10 ms
//! of metadata reads on this machine's loop ext4, against 60–80 ms for the whole 64 MiB — and
//! its size varied with the disk, which is where dd's 0.99–1.16 scatter came from. dd's
//! bytes also cost a read of /dev/zero per block (a 1 MiB clear in the kernel), which a
//! prefilled buffer skips.

use crate::blockio::target_full;
use crate::error::{is_full, WorkloadError};
use crate::measure::{Stopwatch, Timing};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

/// dd's buffer alignment (`alignalloc(page_size, …)`).
const PAGE: usize = 4096;

/// Copy `count` blocks of `block` zero bytes into a new `path` as dd does; returns the time
/// until the last write returned and the time until the closing fsync and close returned,
/// both from dd's start (after the opens).
pub(super) fn copy_zeros(
    path: &Path,
    block: u64,
    count: u64,
) -> Result<(Timing, Timing), WorkloadError> {
    let io = |what: &str, e: std::io::Error| WorkloadError::io(what.to_string(), e);
    let mut zero = File::open("/dev/zero").map_err(|e| io("open /dev/zero", e))?;
    let mut out = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(|e| io(&format!("open {}", path.display()), e))?;
    let sw = Stopwatch::start();
    let len = block as usize;
    let mut raw = vec![0u8; len + PAGE];
    let at = raw.as_ptr().align_offset(PAGE).min(PAGE);
    let buf = &mut raw[at..at + len];
    let mut written = 0u64;
    for _ in 0..count {
        zero.read_exact(buf).map_err(|e| io("read /dev/zero", e))?;
        out.write_all(buf).map_err(|e| {
            let what = format!("write {}", path.display());
            if is_full(&e) {
                target_full(path, written, &format!("{what}: {e}"))
            } else {
                io(&what, e)
            }
        })?;
        written += block;
    }
    let returned = sw.stop();
    out.sync_all()
        .map_err(|e| io(&format!("fsync {}", path.display()), e))?;
    drop(out);
    drop(zero);
    Ok((returned, sw.stop()))
}

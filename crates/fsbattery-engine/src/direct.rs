//! Direct IO: whether a directory's filesystem honours O_DIRECT, and which alignment it needs.
//!
//! Invariants: probing creates at most one small file in the directory and always removes it;
//! tmpfs accepts O_DIRECT (Linux ≥ 6.6) but still serves from the page cache, so it is reported
//! as [`DirectIo::SupportedButCached`], never as plain `Supported`; alignment falls back to
//! 512-byte offsets and 4096-byte memory when the kernel does not report `STATX_DIOALIGN`.

use super::buffer::AlignedBuf;
use serde::{Deserialize, Serialize};
use std::ffi::CString;
use std::fs::OpenOptions;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// What O_DIRECT means in a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "reason", rename_all = "snake_case")]
pub enum DirectIo {
    /// Reads and writes bypass the page cache.
    Supported,
    /// O_DIRECT is accepted but data still lives in memory (tmpfs): numbers measure memory.
    SupportedButCached,
    /// O_DIRECT fails here; the reason says how.
    Unsupported(String),
}

/// Alignment O_DIRECT needs on one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DioAlignment {
    /// Buffer address alignment in bytes (never below 4096 here: page alignment is free).
    pub mem: usize,
    /// File offset and length alignment in bytes (the logical block size).
    pub offset: usize,
    /// True if the kernel reported it (`STATX_DIOALIGN`), false for the fallback.
    pub reported: bool,
}

/// Alignment for O_DIRECT on `path` (an existing file or directory).
pub fn dio_alignment(path: &Path) -> DioAlignment {
    let fallback = DioAlignment {
        mem: 4096,
        offset: 512,
        reported: false,
    };
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return fallback;
    };
    // SAFETY: statx is plain old data; zero is a valid bit pattern.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: c is a valid NUL-terminated path and stx a valid out-pointer.
    let rc = unsafe {
        libc::statx(
            libc::AT_FDCWD,
            c.as_ptr(),
            0,
            libc::STATX_DIOALIGN,
            &mut stx,
        )
    };
    if rc != 0 || stx.stx_mask & libc::STATX_DIOALIGN == 0 || stx.stx_dio_offset_align == 0 {
        return fallback;
    }
    DioAlignment {
        mem: (stx.stx_dio_mem_align as usize).max(4096),
        offset: stx.stx_dio_offset_align as usize,
        reported: true,
    }
}

/// ramfs's magic (linux/magic.h); neither nix nor libc name it.
const RAMFS_MAGIC: u64 = 0x8584_58f6;

/// True if `dir` is on tmpfs (or ramfs): O_DIRECT there cannot bypass memory.
fn on_memory_fs(dir: &Path) -> bool {
    match nix::sys::statfs::statfs(dir) {
        Ok(s) => {
            let t = s.filesystem_type();
            t == nix::sys::statfs::TMPFS_MAGIC || t.0 as u64 == RAMFS_MAGIC
        }
        Err(_) => false,
    }
}

/// Probe whether O_DIRECT works in `dir` by opening, writing and reading one aligned block of
/// a scratch file there (removed before returning).
pub fn check_direct(dir: &Path) -> DirectIo {
    let probe = dir.join(format!(".fsbattery-dio-probe-{}", std::process::id()));
    let result = probe_file(&probe);
    let _ = std::fs::remove_file(&probe);
    match result {
        Err(reason) => DirectIo::Unsupported(reason),
        Ok(()) if on_memory_fs(dir) => DirectIo::SupportedButCached,
        Ok(()) => DirectIo::Supported,
    }
}

fn probe_file(probe: &Path) -> Result<(), String> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(probe)
        .map_err(|e| format!("open {} with O_DIRECT: {e}", probe.display()))?;
    let align = dio_alignment(probe);
    let len = align.mem.max(align.offset).max(4096);
    let mut buf = AlignedBuf::new(len, align.mem);
    buf.as_mut_slice().fill(0xA5);
    f.write_all_at(buf.as_slice(), 0)
        .map_err(|e| format!("O_DIRECT write of {len} bytes to {}: {e}", probe.display()))?;
    buf.as_mut_slice().fill(0);
    f.read_exact_at(buf.as_mut_slice(), 0)
        .map_err(|e| format!("O_DIRECT read of {len} bytes from {}: {e}", probe.display()))?;
    if buf.as_slice().iter().any(|&b| b != 0xA5) {
        return Err(format!(
            "O_DIRECT read back wrong data from {}",
            probe.display()
        ));
    }
    Ok(())
}

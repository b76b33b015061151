//! PostMark's buffered I/O (its default, `buffered_io`) through the C library's own stdio:
//! a file opened by PostMark is a `FILE`, written with `fwrite` of `write_block_size` (512)
//! bytes at a time and read with `fread` of `read_block_size` (512), then `fclose`d
//! (postmark-1.53.c `fwrite_blocks`, `read_file`). So per file fsbattery pays what PostMark
//! pays besides its system calls: the `FILE` and its buffer allocated and freed, the buffer
//! sized by an `fstat` (`_IO_file_doallocate`), every 512-byte piece copied through it.
//!
//! That work is why this is not Rust I/O: with plain `read`/`write` calls of a whole buffer
//! and the same system calls, fsbattery's transactions ran 8-15 % faster than PostMark 1.53's
//! on ext4 (40,000 transactions, 2026-11-27); stdio was 10 % of PostMark's profile.
//!
//! The one difference: PostMark's `fopen(name, mode)` opens by a name relative to its working
//! directory; here the file is opened with `openat` relative to the run's directory (the
//! process's working directory is shared by every thread) and handed to `fdopen`, which adds
//! an `fcntl(F_GETFL)` (it checks the descriptor's access mode). An append's
//! `lseek(0, SEEK_END)`, which `fopen("a")` does, is the caller's.

use std::ffi::CStr;
use std::io;
use std::os::fd::{IntoRawFd, OwnedFd};
use std::ptr::NonNull;

/// PostMark's `read_block_size` and `write_block_size` (their defaults; the workload has no
/// parameter for them, as S4's runs used the defaults).
pub(super) const BLOCK: usize = 512;

/// An open `FILE`, closed by [`Stream::close`] (or, on an error path, when dropped).
pub(super) struct Stream(Option<NonNull<libc::FILE>>);

impl Stream {
    /// `fdopen(fd, mode)`: the descriptor is the stream's from here on.
    pub(super) fn adopt(fd: OwnedFd, mode: &CStr) -> io::Result<Stream> {
        let raw = fd.into_raw_fd();
        // SAFETY: `raw` is an open descriptor this function owns, `mode` a C string.
        let fp = unsafe { libc::fdopen(raw, mode.as_ptr()) };
        match NonNull::new(fp) {
            Some(fp) => Ok(Stream(Some(fp))),
            None => {
                let e = io::Error::last_os_error();
                // SAFETY: fdopen failed, so the descriptor is still ours to close.
                unsafe { libc::close(raw) };
                Err(e)
            }
        }
    }

    fn fp(&self) -> *mut libc::FILE {
        self.0.expect("a stream is used only before close").as_ptr()
    }

    /// `fwrite_blocks` without its `fclose`: `src` in [`BLOCK`]-byte pieces, then the rest
    /// (also when it is empty, as PostMark calls `fwrite` for it).
    pub(super) fn write_blocks(&mut self, src: &[u8]) -> io::Result<()> {
        let whole = src.len() - src.len() % BLOCK;
        for piece in src[..whole].chunks(BLOCK).chain([&src[whole..]]) {
            // SAFETY: `piece` is valid for `piece.len()` bytes; the stream is open.
            let n = unsafe { libc::fwrite(piece.as_ptr().cast(), piece.len(), 1, self.fp()) };
            if n != 1 && !piece.is_empty() {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// `read_file`'s loop: `size` bytes in [`BLOCK`]-byte pieces into `buf` (at least
    /// [`BLOCK`] long), then the rest. `Ok(false)` when the file ends first.
    pub(super) fn read_blocks(&mut self, size: usize, buf: &mut [u8]) -> io::Result<bool> {
        let mut left = size;
        loop {
            let piece = left.min(BLOCK);
            // SAFETY: `buf` holds at least BLOCK ≥ piece bytes; the stream is open.
            let n = unsafe { libc::fread(buf.as_mut_ptr().cast(), piece, 1, self.fp()) };
            if n != 1 && piece > 0 {
                // SAFETY: the stream is open.
                return match unsafe { libc::ferror(self.fp()) } {
                    0 => Ok(false),
                    _ => Err(io::Error::last_os_error()),
                };
            }
            if left < BLOCK {
                return Ok(true);
            }
            left -= BLOCK;
        }
    }

    /// `fclose`: the buffer's rest written, the descriptor closed, `FILE` and buffer freed.
    pub(super) fn close(mut self) -> io::Result<()> {
        let fp = self.0.take().expect("closed once");
        // SAFETY: `fp` is open and closed only here.
        match unsafe { libc::fclose(fp.as_ptr()) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Some(fp) = self.0.take() {
            // SAFETY: still open (close() takes it out first).
            unsafe { libc::fclose(fp.as_ptr()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::OwnedFd;

    fn open(path: &std::path::Path, opts: &mut std::fs::OpenOptions) -> OwnedFd {
        OwnedFd::from(opts.open(path).unwrap())
    }

    #[test]
    fn what_is_written_in_pieces_reads_back_whole_and_a_short_file_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let src: Vec<u8> = (0..5_000u32).map(|i| (32 + i % 95) as u8).collect();
        for len in [0, 1, 511, 512, 513, 4_096, 5_000] {
            let fd = open(
                &path,
                std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true),
            );
            let mut s = Stream::adopt(fd, c"w").unwrap();
            s.write_blocks(&src[..len]).unwrap();
            s.close().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), &src[..len], "{len} bytes");

            let mut buf = vec![0u8; BLOCK];
            let fd = open(&path, std::fs::OpenOptions::new().read(true));
            let mut s = Stream::adopt(fd, c"r").unwrap();
            assert!(s.read_blocks(len, &mut buf).unwrap(), "{len} bytes read");
            s.close().unwrap();
            let fd = open(&path, std::fs::OpenOptions::new().read(true));
            let mut s = Stream::adopt(fd, c"r").unwrap();
            assert!(
                !s.read_blocks(len + 1, &mut buf).unwrap(),
                "{len}+1 bytes: short"
            );
        }
    }

    #[test]
    fn a_full_filesystem_fails_at_the_latest_on_close() {
        // /dev/full accepts the open and fails every write with ENOSPC.
        let fd = open(
            std::path::Path::new("/dev/full"),
            std::fs::OpenOptions::new().write(true),
        );
        let mut s = Stream::adopt(fd, c"w").unwrap();
        let wrote = s.write_blocks(&[b'x'; 10_000]);
        let closed = s.close();
        let e = wrote.err().or(closed.err()).expect("ENOSPC reported");
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
    }
}

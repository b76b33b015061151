//! A writer of the `newc` cpio format, the one the Linux kernel unpacks as an initramfs.
//!
//! Written by hand rather than taken from a crate: the format is a 110-byte ASCII header per
//! entry, the name, and the data, each padded to 4 bytes, ended by a `TRAILER!!!` entry —
//! about fifty lines, with no crate in the dependency tree doing it. Entries are streamed:
//! a file's bytes are copied from the host file, never held in memory.
//!
//! Invariant: a directory is written before anything inside it (the kernel creates entries
//! in order and does not make missing parents).

use std::io::{self, Read, Write};

/// A newc archive being written to `W`.
pub struct Cpio<W: Write> {
    out: W,
    ino: u32,
    written: u64,
}

impl<W: Write> Cpio<W> {
    /// Start an archive.
    pub fn new(out: W) -> Cpio<W> {
        Cpio {
            out,
            ino: 1,
            written: 0,
        }
    }

    /// A directory, mode 0755.
    pub fn dir(&mut self, name: &str) -> io::Result<()> {
        self.entry(name, 0o040_755, 2, &mut io::empty(), 0)
    }

    /// A symbolic link `name` → `target`.
    pub fn symlink(&mut self, name: &str, target: &str) -> io::Result<()> {
        let t = target.as_bytes();
        self.entry(name, 0o120_777, 1, &mut &t[..], t.len() as u64)
    }

    /// A regular file of `len` bytes read from `data`, with permission bits `perm`.
    pub fn file(&mut self, name: &str, perm: u32, data: &mut dyn Read, len: u64) -> io::Result<()> {
        self.entry(name, 0o100_000 | (perm & 0o7777), 1, data, len)
    }

    /// End the archive; returns the writer and the bytes written.
    pub fn finish(mut self) -> io::Result<(W, u64)> {
        self.entry("TRAILER!!!", 0, 1, &mut io::empty(), 0)?;
        self.out.flush()?;
        Ok((self.out, self.written))
    }

    fn entry(
        &mut self,
        name: &str,
        mode: u32,
        nlink: u32,
        data: &mut dyn Read,
        len: u64,
    ) -> io::Result<()> {
        let len32 = u32::try_from(len)
            .map_err(|_| io::Error::other(format!("{name}: over 4 GiB, too large for newc")))?;
        let name = name.trim_start_matches('/');
        let header = format!(
            "070701{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}",
            self.ino,
            mode,
            0,
            0,
            nlink,
            0,
            len32,
            0,
            0,
            0,
            0,
            name.len() + 1,
            0
        );
        self.ino += 1;
        self.put(header.as_bytes())?;
        self.put(name.as_bytes())?;
        self.put(&[0])?;
        self.pad()?;
        let copied = io::copy(&mut data.take(len), &mut self.out)?;
        if copied != len {
            return Err(io::Error::other(format!(
                "{name}: {copied} of {len} bytes read (the file changed)"
            )));
        }
        self.written += copied;
        self.pad()
    }

    fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.out.write_all(b)?;
        self.written += b.len() as u64;
        Ok(())
    }

    fn pad(&mut self) -> io::Result<()> {
        let n = (4 - (self.written % 4) as usize) % 4;
        self.put(&[0; 3][..n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_aligned_and_terminated() {
        let mut c = Cpio::new(Vec::new());
        c.dir("/usr").unwrap();
        c.file("usr/x", 0o755, &mut &b"hello"[..], 5).unwrap();
        c.symlink("bin", "usr/bin").unwrap();
        let (bytes, n) = c.finish().unwrap();
        assert_eq!(bytes.len() as u64, n);
        assert_eq!(bytes.len() % 4, 0);
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.starts_with("070701"));
        assert!(text.contains("usr/x\0"));
        assert!(text.contains("hello"));
        assert!(text.ends_with("TRAILER!!!\0\0\0\0") || text.contains("TRAILER!!!\0"));
        // The file's header: mode 0100755, size 5.
        let at = text.find("usr/x").unwrap() - 110;
        assert_eq!(&text[at + 14..at + 22], "000081ed");
        assert_eq!(&text[at + 54..at + 62], "00000005");
    }

    #[test]
    fn a_file_shorter_than_said_is_refused() {
        let mut c = Cpio::new(Vec::new());
        assert!(c.file("f", 0o644, &mut &b"abc"[..], 5).is_err());
    }
}

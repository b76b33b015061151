//! A cpio "newc" (SVR4, no CRC) archive writer: what `find NAMES | cpio -o -H newc` writes.
//!
//! Format: per entry a 110-byte ASCII header — magic `070701` and 13 eight-digit hex fields
//! (ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor, rdevminor,
//! namesize including the NUL, check = 0) — then the name and NUL padded to a multiple of 4,
//! then the data padded to a multiple of 4 (a symlink's data is its target). The archive ends
//! with an entry named `TRAILER!!!` and, as GNU cpio writes it, is padded to 512-byte blocks.
//! Hard links are stored as independent files (nlink 1), which every reader accepts.

use super::ops::{walk, Kind, COPY_BUF};
use crate::error::{IoContext, WorkloadError};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

const MAGIC: &str = "070701";
const TRAILER: &str = "TRAILER!!!";
/// GNU cpio's default output block size.
const BLOCK: u64 = 512;

/// The 13 header fields of one entry, in format order.
struct Fields {
    ino: u64,
    mode: u32,
    uid: u32,
    gid: u32,
    nlink: u64,
    mtime: i64,
    size: u64,
    dev: u64,
}

/// Counts bytes so the end can be padded to a block.
struct Out<W: Write> {
    w: W,
    written: u64,
}

impl<W: Write> Out<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.w.write_all(bytes)?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    fn pad(&mut self, to: u64) -> std::io::Result<()> {
        let n = (to - self.written % to) % to;
        self.put(&[0u8; BLOCK as usize][..n as usize])
    }

    fn header(&mut self, f: &Fields, name: &[u8]) -> std::io::Result<()> {
        // newc fields are 32 bits; inode numbers and times beyond that wrap, as in GNU cpio.
        let h = format!(
            "{MAGIC}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}",
            f.ino as u32,
            f.mode,
            f.uid,
            f.gid,
            f.nlink as u32,
            f.mtime as u32,
            f.size as u32,
            nix::sys::stat::major(f.dev) as u32,
            nix::sys::stat::minor(f.dev) as u32,
            0,
            0,
            name.len() + 1,
            0
        );
        self.put(h.as_bytes())?;
        self.put(name)?;
        self.put(&[0])?;
        self.pad(4)
    }
}

/// Write a newc archive of `names` below `base` (walk order, names relative to `base`).
pub(super) fn write_newc(base: &Path, names: &[String], out: &Path) -> Result<(), WorkloadError> {
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
        .ctx(|| format!("create {}", out.display()))?;
    let mut o = Out {
        w: BufWriter::with_capacity(64 << 10, file),
        written: 0,
    };
    let werr = |e| WorkloadError::io(format!("write {}", out.display()), e);
    let mut buf = vec![0u8; COPY_BUF];
    walk(base, names, &mut |v| {
        if v.kind == Kind::Leave {
            return Ok(());
        }
        let m = v.meta;
        let mut f = Fields {
            ino: m.ino(),
            mode: m.mode(),
            uid: m.uid(),
            gid: m.gid(),
            nlink: if v.kind == Kind::Enter { m.nlink() } else { 1 },
            mtime: m.mtime(),
            size: 0,
            dev: m.dev(),
        };
        let name = v.rel.as_os_str().as_bytes();
        match v.kind {
            Kind::File => {
                f.size = m.len();
                if f.size > u64::from(u32::MAX) {
                    return Err(WorkloadError::Failed(format!(
                        "{}: larger than the 4 GiB a newc cpio archive can hold",
                        v.abs.display()
                    )));
                }
                o.header(&f, name).map_err(werr)?;
                let src = File::open(v.abs).ctx(|| format!("open {}", v.abs.display()))?;
                copy_exact(src.take(f.size), &mut o, f.size, &mut buf, v.abs)?;
            }
            Kind::Symlink => {
                let target =
                    std::fs::read_link(v.abs).ctx(|| format!("readlink {}", v.abs.display()))?;
                f.size = target.as_os_str().len() as u64;
                o.header(&f, name).map_err(werr)?;
                o.put(target.as_os_str().as_bytes()).map_err(werr)?;
            }
            _ => o.header(&f, name).map_err(werr)?,
        }
        o.pad(4).map_err(werr)
    })?;
    let end = Fields {
        ino: 0,
        mode: 0,
        uid: 0,
        gid: 0,
        nlink: 1,
        mtime: 0,
        size: 0,
        dev: 0,
    };
    o.header(&end, TRAILER.as_bytes()).map_err(werr)?;
    o.pad(BLOCK).map_err(werr)?;
    o.w.into_inner().map_err(|e| werr(e.into_error()))?;
    Ok(())
}

/// Copy exactly `size` bytes of `src` into the archive; a file that shrank while being read
/// would corrupt every later entry, so that is an error.
fn copy_exact<W: Write>(
    mut src: impl Read,
    o: &mut Out<W>,
    size: u64,
    buf: &mut [u8],
    path: &Path,
) -> Result<(), WorkloadError> {
    let mut left = size;
    while left > 0 {
        let n = src.read(buf).ctx(|| format!("read {}", path.display()))?;
        if n == 0 {
            return Err(WorkloadError::Failed(format!(
                "{} shrank while it was archived",
                path.display()
            )));
        }
        o.put(&buf[..n])
            .ctx(|| "write the cpio archive".to_string())?;
        left -= n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{content_hash, generate, profile};
    use std::process::{Command, Stdio};

    /// Whether `cpio` runs here; missing, it skips the test unless CI requires every tool.
    fn have_cpio() -> bool {
        let ok = Command::new("cpio")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok && std::env::var_os("FSBATTERY_REQUIRE_PRIVILEGED").is_some_and(|v| v == "1") {
            panic!("cpio is required (FSBATTERY_REQUIRE_PRIVILEGED=1): apt-get install cpio");
        }
        ok
    }

    fn cpio(dir: &Path, args: &[&str], input: &Path) -> String {
        let out = Command::new("cpio")
            .current_dir(dir)
            .args(args)
            .stdin(File::open(input).unwrap())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "cpio {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn system_cpio_lists_and_extracts_the_archive() {
        if !have_cpio() {
            eprintln!("skipped: cpio not installed");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        let m = generate(profile::by_id(2614).unwrap(), 256, 4, &src).unwrap();
        std::os::unix::fs::symlink("Makefile", src.join(&m.top).join("link")).unwrap();
        let archive = tmp.path().join("tree.cpio");
        write_newc(&src, std::slice::from_ref(&m.top), &archive).unwrap();
        assert_eq!(std::fs::metadata(&archive).unwrap().len() % BLOCK, 0);

        let mut want = Vec::new();
        walk(&src, std::slice::from_ref(&m.top), &mut |v| {
            if v.kind != Kind::Leave {
                want.push(v.rel.display().to_string());
            }
            Ok(())
        })
        .unwrap();
        let listed: Vec<String> = cpio(tmp.path(), &["-it"], &archive)
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(listed, want);

        let x = tmp.path().join("x");
        std::fs::create_dir(&x).unwrap();
        cpio(&x, &["-idm", "--quiet"], &archive);
        assert_eq!(content_hash(&x).unwrap(), content_hash(&src).unwrap());
    }

    #[test]
    fn header_layout_matches_newc() {
        let mut o = Out {
            w: Vec::new(),
            written: 0,
        };
        let f = Fields {
            ino: 5,
            mode: 0o100644,
            uid: 0,
            gid: 0,
            nlink: 1,
            mtime: 1,
            size: 3,
            dev: 0,
        };
        o.header(&f, b"ab").unwrap();
        let s = String::from_utf8(o.w.clone()).unwrap();
        assert!(s.starts_with("07070100000005000081A4"));
        // 110 bytes of header + "ab\0" = 113, padded to 116.
        assert_eq!(o.written, 116);
        assert_eq!(&s[94..102], "00000003", "namesize counts the NUL");
    }
}

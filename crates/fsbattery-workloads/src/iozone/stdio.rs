//! iozone's stdio tests (fwrite, frewrite, fread, freread): a user-space buffered stream over
//! the test file, as libc's `FILE` gives iozone.
//!
//! iozone opens the file with `fopen` ("w+" for fwrite, "r+" for frewrite, "r" for the reads),
//! calls `setvbuf(stream, buf, _IOFBF, reclen)` and moves `reclen` bytes per `fwrite`/`fread`
//! call. `-I` does not reach these streams (fopen takes no O_DIRECT), so the stdio tests are
//! buffered in iozone too: fread/freread measure the page cache the fwrite tests just filled,
//! which is why S3's fread column is four times its read column.
//!
//! Invariants: the timer starts after the open and stops after the last call returned and the
//! stream was flushed into the kernel (never after an fsync: iozone without `-e` excludes it);
//! a `std::io::BufWriter`/`BufReader` of the stream's buffer size stands in for glibc's `FILE`,
//! which, like glibc with a buffer of one record, hands whole records straight to write(2) and
//! read(2); the interruption flag is read before every record, so even 16 MiB records stop
//! within one call.

use crate::error::{IoContext, WorkloadError};
use crate::measure::{Stopwatch, Timing};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

/// One stdio pass over a file: `records` calls of `record` bytes through a stream buffer of
/// `buffer` bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stream<'a> {
    /// The test file.
    pub path: &'a Path,
    /// fwrite/fread calls per pass.
    pub records: u64,
    /// Bytes per call.
    pub record: usize,
    /// The stream's buffer (`setvbuf` size).
    pub buffer: usize,
}

fn interrupted() -> Result<(), WorkloadError> {
    if crate::interrupt::requested() {
        Err(WorkloadError::Interrupted)
    } else {
        Ok(())
    }
}

impl Stream<'_> {
    /// fwrite (`truncate`: "w+", a new file) or frewrite ("r+", over the existing bytes) of
    /// `data` (one record) `records` times. Returns the timing and the bytes written.
    pub fn write(&self, truncate: bool, data: &[u8]) -> Result<(Timing, u64), WorkloadError> {
        let path = self.path;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(truncate)
            .truncate(truncate)
            .open(path)
            .ctx(|| format!("fopen {}", path.display()))?;
        let mut out = BufWriter::with_capacity(self.buffer.max(1), file);
        let data = &data[..self.record];
        let sw = Stopwatch::start();
        for i in 0..self.records {
            interrupted()?;
            out.write_all(data)
                .ctx(|| format!("fwrite record {i} of {}", path.display()))?;
        }
        out.flush().ctx(|| format!("fflush {}", path.display()))?;
        let t = sw.stop();
        Ok((t, self.records * self.record as u64))
    }

    /// fread (or freread) the file from its start, `records` calls of one record into `buf`.
    /// Returns the timing and the bytes read.
    pub fn read(&self, buf: &mut [u8]) -> Result<(Timing, u64), WorkloadError> {
        let path = self.path;
        let file = File::open(path).ctx(|| format!("fopen {}", path.display()))?;
        let mut input = BufReader::with_capacity(self.buffer.max(1), file);
        let buf = &mut buf[..self.record];
        let sw = Stopwatch::start();
        for i in 0..self.records {
            interrupted()?;
            input
                .read_exact(buf)
                .ctx(|| format!("fread record {i} of {}", path.display()))?;
        }
        let t = sw.stop();
        Ok((t, self.records * self.record as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read_round_trips_every_record() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        let s = Stream {
            path: &path,
            records: 5,
            record: 3000,
            buffer: 4096,
        };
        let data: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
        let (_, wrote) = s.write(true, &data).unwrap();
        assert_eq!(wrote, 15_000);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 15_000);
        // frewrite keeps the length: "r+" overwrites in place.
        s.write(false, &data).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 15_000);
        let mut buf = vec![0u8; 3000];
        let (_, read) = s.read(&mut buf).unwrap();
        assert_eq!(read, 15_000);
        assert_eq!(buf, data);
    }

    #[test]
    fn short_file_is_an_error_naming_the_record() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        std::fs::write(&path, [0u8; 100]).unwrap();
        let s = Stream {
            path: &path,
            records: 2,
            record: 64,
            buffer: 64,
        };
        let e = s.read(&mut [0u8; 64]).unwrap_err().to_string();
        assert!(e.contains("fread record 1 of"), "{e}");
    }
}

//! `stream` under MPI with a shared file or rank-shifted reads (see [`crate::layout`]): the
//! ranks write their pieces of SIZE in BLOCK transfers, each piece stamped with its rank and
//! index, into one shared file (interleaved by rank, IOR without `-F`) or into one file each in
//! a directory they share (IOR `-F`); copy them in place to a second file; and read back the
//! pieces of the rank `reorder` names (IOR `-C`: the next rank's), checking every stamp, so a
//! layout that put a piece anywhere else fails the cell instead of reading fast.

use crate::error::{IoContext, WorkloadError};
use crate::layout::{Layout, SharedDir};
use crate::measure::{Stopwatch, Timing};
use crate::{poll, Scratch, WorkloadCtx};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes of a piece's stamp: rank and index, little-endian u64s.
const STAMP: usize = 16;

/// The files and the pieces of one rank.
struct Pieces<'a> {
    l: &'a Layout,
    dir: PathBuf,
    size: u64,
    block: u64,
}

impl Pieces<'_> {
    /// `rank`'s file (`bigfile` when shared, `bigfile.rN` each otherwise), or its copy.
    fn file(&self, rank: usize, copy: bool) -> PathBuf {
        let base = if copy { "bigfile.copy" } else { "bigfile" };
        match self.l.shared {
            true => self.dir.join(base),
            false => self.dir.join(format!("{base}.r{rank}")),
        }
    }
    /// (offset, length) of `rank`'s piece i, for i in 0..count.
    fn piece(&self, rank: usize, i: u64) -> (u64, usize) {
        let len = self.block.min(self.size - i * self.block);
        (self.l.offset(rank, i, self.block), len as usize)
    }
    fn count(&self) -> u64 {
        self.size.div_ceil(self.block)
    }
}

/// The three phases as `stream` records them (create and copy three ways: returned, durable,
/// the fsync alone).
pub(super) fn run(
    ctx: &mut WorkloadCtx<'_>,
    l: &Layout,
    scratch: &Scratch,
    size: u64,
    block: u64,
) -> Result<(), WorkloadError> {
    let dir = SharedDir::make_if(ctx, l, true, "stream", scratch.path())?;
    let p = Pieces {
        l,
        dir: dir.path().to_path_buf(),
        size,
        block,
    };
    let me = l.rank;
    let (returned, durable) = ctx.phase(&[dir.path()], || write_pieces(&p, me))?;
    super::record_write(ctx, "create", &returned, &durable);
    let (returned, durable) = ctx.phase(&[dir.path()], || copy_pieces(&p, me))?;
    super::record_write(ctx, "copy", &returned, &durable);
    let from = l.read_rank();
    ctx.timed("read", &[dir.path()], || read_pieces(&p, from))?;
    Ok(())
}

fn open_rw(path: &Path) -> Result<File, WorkloadError> {
    // Several ranks may create the one shared file: O_CREAT without O_EXCL or O_TRUNC.
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .ctx(|| format!("open {}", path.display()))
}

fn stamp(buf: &mut [u8], rank: usize, i: u64) {
    let n = buf.len().min(STAMP);
    let mut s = [0u8; STAMP];
    s[..8].copy_from_slice(&(rank as u64).to_le_bytes());
    s[8..].copy_from_slice(&i.to_le_bytes());
    buf[..n].copy_from_slice(&s[..n]);
}

/// This rank's pieces, stamped, at their offsets; returns when the last write returned (the
/// phase's own timing then includes the fsync).
fn write_pieces(p: &Pieces<'_>, me: usize) -> Result<Timing, WorkloadError> {
    let path = p.file(me, false);
    let out = open_rw(&path)?;
    let mut buf = vec![0u8; p.block as usize];
    let sw = Stopwatch::start();
    for i in 0..p.count() {
        poll(i)?;
        let (at, len) = p.piece(me, i);
        stamp(&mut buf[..len], me, i);
        out.write_all_at(&buf[..len], at)
            .ctx(|| format!("write {} at {at}", path.display()))?;
    }
    let returned = sw.stop();
    out.sync_all().ctx(|| format!("fsync {}", path.display()))?;
    Ok(returned)
}

/// This rank's pieces copied to the same offsets of the copy.
fn copy_pieces(p: &Pieces<'_>, me: usize) -> Result<Timing, WorkloadError> {
    let (src, dst) = (p.file(me, false), p.file(me, true));
    let input = File::open(&src).ctx(|| format!("open {}", src.display()))?;
    let out = open_rw(&dst)?;
    let mut buf = vec![0u8; p.block as usize];
    let sw = Stopwatch::start();
    for i in 0..p.count() {
        poll(i)?;
        let (at, len) = p.piece(me, i);
        input
            .read_exact_at(&mut buf[..len], at)
            .ctx(|| format!("read {} at {at}", src.display()))?;
        out.write_all_at(&buf[..len], at)
            .ctx(|| format!("write {} at {at}", dst.display()))?;
    }
    let returned = sw.stop();
    out.sync_all().ctx(|| format!("fsync {}", dst.display()))?;
    Ok(returned)
}

/// `rank`'s pieces read back, each checked to hold `rank`'s stamp for its index.
fn read_pieces(p: &Pieces<'_>, rank: usize) -> Result<(), WorkloadError> {
    let path = p.file(rank, false);
    let input = File::open(&path).ctx(|| format!("open {}", path.display()))?;
    let mut buf = vec![0u8; p.block as usize];
    let mut want = [0u8; STAMP];
    for i in 0..p.count() {
        poll(i)?;
        let (at, len) = p.piece(rank, i);
        input
            .read_exact_at(&mut buf[..len], at)
            .ctx(|| format!("read {} at {at}", path.display()))?;
        let n = len.min(STAMP);
        stamp(&mut want[..n], rank, i);
        if buf[..n] != want[..n] {
            return Err(WorkloadError::Failed(format!(
                "{} at offset {at} does not hold rank {rank}'s piece {i}: the layout misplaced it",
                path.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(dir: &Path, rank: usize, reorder: bool) -> (Layout, PathBuf) {
        let l = Layout {
            rank,
            ranks: 3,
            shared: true,
            reorder,
        };
        (l, dir.to_path_buf())
    }

    #[test]
    fn three_ranks_fill_one_shared_file_with_their_stamped_pieces_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let block = 4096u64;
        for rank in 0..3 {
            let (l, dir) = pieces(tmp.path(), rank, true);
            let p = Pieces {
                l: &l,
                dir,
                size: 4 * block,
                block,
            };
            write_pieces(&p, rank).unwrap();
        }
        // Segment i holds ranks 0, 1, 2's piece i, in that order, each stamped (rank, i).
        let data = std::fs::read(tmp.path().join("bigfile")).unwrap();
        assert_eq!(data.len() as u64, 12 * block);
        for (k, chunk) in data.chunks(block as usize).enumerate() {
            let (i, rank) = ((k / 3) as u64, (k % 3) as u64);
            assert_eq!(chunk[..8], rank.to_le_bytes(), "block {k}");
            assert_eq!(chunk[8..16], i.to_le_bytes(), "block {k}");
        }
        // Rank 1 reading rank-shifted reads rank 2's pieces, and their stamps are checked.
        let (l, dir) = pieces(tmp.path(), 1, true);
        assert_eq!(l.read_rank(), 2);
        let p = Pieces {
            l: &l,
            dir,
            size: 4 * block,
            block,
        };
        read_pieces(&p, l.read_rank()).unwrap();
        // A piece out of place fails the read, naming it.
        let f = OpenOptions::new()
            .write(true)
            .open(tmp.path().join("bigfile"))
            .unwrap();
        f.write_all_at(&[9u8; 16], 5 * block).unwrap();
        let e = read_pieces(&p, 2).unwrap_err().to_string();
        assert!(e.contains("rank 2's piece 1"), "{e}");
    }
}

//! Aligned IO buffers and what goes into them.
//!
//! Invariants:
//! - An [`AlignedBuf`] never moves or reallocates: its address is handed to the kernel
//!   (O_DIRECT needs the alignment, io_uring registered buffers need the address to stay put).
//! - A [`BufferPool`] is one allocation cut into `slots` slots, each starting on an `align`
//!   boundary, so slot `i` is also registered buffer `i`.
//! - Block contents are a pure function of (fill, seed, offset): every slot starts as the same
//!   base block and a write only stamps the block's offset into its first 16 bytes (not for
//!   [`Fill::Zeros`], which stays all zeros). Any thread writing any offset in any order thus
//!   leaves the same bytes, which is what lets reads be verified.

use super::pattern::XorShift;
use serde::{Deserialize, Serialize};
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::fmt;
use std::ptr::NonNull;
use std::str::FromStr;

/// Bytes of the per-block stamp written at the start of each block (offset and its complement).
pub const STAMP_LEN: usize = 16;

/// Chunk size over which [`Fill::Compressible`] alternates random bytes and zeros; small
/// enough that any compressor's window sees the ratio, as fio's `buffer_compress_chunk`.
pub const COMPRESS_CHUNK: usize = 4096;

/// Buffers of at least this size start on a 2 MiB boundary and are backed by transparent
/// huge pages where the kernel has them (`madvise` mode included). Measured on a virtio disk
/// (max_segments 254): a 1 MiB O_DIRECT read from 4 KiB pages is 256 segments, which the
/// block layer splits into two requests (io_uring registered buffers are never merged back);
/// from one huge page it is one segment and one request, as fio's reads were
/// (docs/src/performance.md).
pub const HUGE_PAGE: usize = 2 << 20;

/// A zeroed heap buffer aligned to `align` bytes.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Box<[u8]>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only hands out &[u8].
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// `len` zero bytes aligned to `align` (a power of two). `len` 0 allocates one byte.
    /// From `HUGE_PAGE` bytes up, the buffer starts on a huge-page boundary and asks for
    /// transparent huge pages before its first touch (see `HUGE_PAGE` for why).
    pub fn new(len: usize, align: usize) -> Self {
        let huge = len >= HUGE_PAGE;
        let align = if huge { align.max(HUGE_PAGE) } else { align };
        let layout = Layout::from_size_align(len.max(1), align)
            .expect("buffer alignment must be a power of two and the size must fit");
        if !huge {
            // SAFETY: layout has a non-zero size.
            let raw = unsafe { alloc_zeroed(layout) };
            return Self::from_raw(raw, layout);
        }
        // SAFETY: layout has a non-zero size.
        let raw = unsafe { alloc(layout) };
        let buf = Self::from_raw(raw, layout);
        // SAFETY: the range is our allocation, aligned to HUGE_PAGE; the advice only changes
        // how its pages are backed (it fails harmlessly where THP is off).
        unsafe {
            libc::madvise(raw.cast(), len / HUGE_PAGE * HUGE_PAGE, libc::MADV_HUGEPAGE);
            // Zero it ourselves, after the advice, so the first touch faults huge pages.
            std::ptr::write_bytes(raw, 0, len);
        }
        buf
    }

    fn from_raw(raw: *mut u8, layout: Layout) -> Self {
        let Some(ptr) = NonNull::new(raw) else {
            std::alloc::handle_alloc_error(layout);
        };
        AlignedBuf { ptr, layout }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// True if the buffer has no bytes (never: see [`AlignedBuf::new`]).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() initialised (zeroed) bytes we own.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// The bytes, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusivity.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// Start address, for the kernel.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this very layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

impl fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlignedBuf")
            .field("len", &self.layout.size())
            .field("align", &self.layout.align())
            .finish()
    }
}

/// `slots` equally sized, individually aligned buffers in one allocation.
#[derive(Debug)]
pub struct BufferPool {
    buf: AlignedBuf,
    slot_len: usize,
    stride: usize,
    slots: usize,
}

impl BufferPool {
    /// A pool of `slots` buffers of `slot_len` bytes, each aligned to `align`.
    pub fn new(slots: usize, slot_len: usize, align: usize) -> Self {
        let stride = slot_len.next_multiple_of(align);
        BufferPool {
            buf: AlignedBuf::new(stride * slots.max(1), align),
            slot_len,
            stride,
            slots: slots.max(1),
        }
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Bytes per slot.
    pub fn slot_len(&self) -> usize {
        self.slot_len
    }

    /// Slot `i`.
    #[inline]
    pub fn slot(&self, i: usize) -> &[u8] {
        let start = i * self.stride;
        &self.buf.as_slice()[start..start + self.slot_len]
    }

    /// Slot `i`, mutably.
    #[inline]
    pub fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        let start = i * self.stride;
        let len = self.slot_len;
        &mut self.buf.as_mut_slice()[start..start + len]
    }

    /// Raw start of slot `i`, for the kernel. Valid while the pool lives. Bounds-checked: a
    /// slot past the pool panics rather than hand the kernel a pointer outside it.
    #[inline]
    pub fn slot_ptr(&mut self, i: usize) -> *mut u8 {
        self.slot_mut(i).as_mut_ptr()
    }

    /// One iovec per slot, for io_uring buffer registration.
    pub fn iovecs(&mut self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec {
                iov_base: self.slot_ptr(i).cast(),
                iov_len: self.slot_len,
            })
            .collect()
    }

    /// Copy `base` into every slot.
    pub fn fill_all(&mut self, base: &[u8]) {
        for i in 0..self.slots {
            self.slot_mut(i).copy_from_slice(base);
        }
    }
}

/// What written blocks contain.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", content = "random_fraction", rename_all = "lowercase")]
pub enum Fill {
    /// All zeros (as `dd if=/dev/zero`): maximally compressible, dedupable, and what some
    /// filesystems turn into holes.
    Zeros,
    /// Pseudo-random bytes: incompressible; each block stamped with its offset so no two
    /// blocks are equal.
    #[default]
    Random,
    /// In every 4 KiB chunk the first `fraction` is random and the rest zeros, so a compressor
    /// shrinks the data to about `fraction` of its size (0.0 ≤ fraction ≤ 1.0).
    Compressible(f64),
}

impl Fill {
    /// Whether writes stamp their offset into the block (everything but zeros).
    #[inline]
    pub fn stamps(&self) -> bool {
        !matches!(self, Fill::Zeros)
    }

    /// Expected compressed size over raw size: 0 for zeros, 1 for random.
    pub fn random_fraction(&self) -> f64 {
        match self {
            Fill::Zeros => 0.0,
            Fill::Random => 1.0,
            Fill::Compressible(f) => f.clamp(0.0, 1.0),
        }
    }

    /// Fill `block` with this pattern's base content, seeded by `seed`.
    pub fn generate(&self, seed: u64, block: &mut [u8]) {
        block.fill(0);
        let frac = self.random_fraction();
        if frac == 0.0 {
            return;
        }
        let mut rng = XorShift::new(seed);
        for chunk in block.chunks_mut(COMPRESS_CHUNK) {
            let n = ((chunk.len() as f64) * frac).round() as usize;
            for word in chunk[..n].chunks_mut(8) {
                let bytes = rng.next_u64().to_le_bytes();
                word.copy_from_slice(&bytes[..word.len()]);
            }
        }
    }
}

impl fmt::Display for Fill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fill::Zeros => f.write_str("zeros"),
            Fill::Random => f.write_str("random"),
            Fill::Compressible(x) => write!(f, "compress:{x}"),
        }
    }
}

impl FromStr for Fill {
    type Err = String;

    /// `zeros`, `random`, or `compress:F` with F the random fraction in [0, 1].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "zeros" | "zero" => Ok(Fill::Zeros),
            "random" => Ok(Fill::Random),
            _ => {
                let f = s
                    .strip_prefix("compress:")
                    .and_then(|v| v.parse::<f64>().ok())
                    .filter(|f| (0.0..=1.0).contains(f))
                    .ok_or_else(|| {
                        format!("fill '{s}': use zeros, random or compress:F with 0 <= F <= 1")
                    })?;
                Ok(Fill::Compressible(f))
            }
        }
    }
}

/// Write the stamp of `offset` into the first bytes of `block`.
#[inline]
pub(crate) fn stamp(block: &mut [u8], offset: u64) {
    if block.len() >= STAMP_LEN {
        block[..8].copy_from_slice(&offset.to_le_bytes());
        block[8..STAMP_LEN].copy_from_slice(&(!offset).to_le_bytes());
    }
}

/// Whether `got` is exactly what a write of `offset` with base block `base` leaves.
pub(crate) fn matches(got: &[u8], base: &[u8], offset: u64, stamped: bool) -> bool {
    if got.len() != base.len() {
        return false;
    }
    if !stamped || got.len() < STAMP_LEN {
        return got == base;
    }
    let mut head = [0u8; STAMP_LEN];
    stamp(&mut head, offset);
    got[..STAMP_LEN] == head && got[STAMP_LEN..] == base[STAMP_LEN..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_slots_are_aligned_and_disjoint() {
        let mut p = BufferPool::new(3, 5000, 4096);
        for i in 0..3 {
            assert_eq!(p.slot_ptr(i) as usize % 4096, 0);
            p.slot_mut(i).fill(i as u8 + 1);
        }
        for i in 0..3 {
            assert!(p.slot(i).iter().all(|&b| b == i as u8 + 1));
            assert_eq!(p.slot(i).len(), 5000);
        }
        assert_eq!(p.iovecs().len(), 3);
    }

    #[test]
    fn compressible_fill_has_the_asked_random_fraction() {
        for frac in [0.0, 0.25, 0.5, 0.9, 1.0] {
            let mut b = vec![0u8; 1 << 20];
            Fill::Compressible(frac).generate(7, &mut b);
            let nonzero = b.iter().filter(|&&x| x != 0).count() as f64 / b.len() as f64;
            // Random bytes are zero 1/256 of the time.
            let want = frac * 255.0 / 256.0;
            assert!(
                (nonzero - want).abs() < 0.01,
                "fraction {frac}: nonzero {nonzero}"
            );
            // The random part is really random: byte values are spread evenly.
            if frac > 0.0 {
                let mut hist = [0u32; 256];
                b.iter()
                    .filter(|&&x| x != 0)
                    .for_each(|&x| hist[x as usize] += 1);
                let mean = hist[1..].iter().sum::<u32>() as f64 / 255.0;
                assert!(hist[1..]
                    .iter()
                    .all(|&c| (c as f64 - mean).abs() < mean * 0.2));
            }
        }
        let mut z = vec![1u8; 9000];
        Fill::Zeros.generate(1, &mut z);
        assert!(z.iter().all(|&x| x == 0));
    }

    #[test]
    fn fill_parses_and_prints() {
        assert_eq!("zeros".parse::<Fill>().unwrap(), Fill::Zeros);
        assert_eq!("random".parse::<Fill>().unwrap(), Fill::Random);
        assert_eq!(
            "compress:0.5".parse::<Fill>().unwrap(),
            Fill::Compressible(0.5)
        );
        assert!("compress:2".parse::<Fill>().is_err());
        assert_eq!(Fill::Compressible(0.25).to_string(), "compress:0.25");
    }

    #[test]
    fn stamp_and_match() {
        let mut base = vec![0u8; 512];
        Fill::Random.generate(3, &mut base);
        let mut b = base.clone();
        stamp(&mut b, 4096);
        assert!(matches(&b, &base, 4096, true));
        assert!(!matches(&b, &base, 8192, true));
        assert!(matches(&base, &base, 0, false));
    }
}

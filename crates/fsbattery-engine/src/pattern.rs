//! Access patterns: which block each operation touches.
//!
//! Invariants: offsets are always whole blocks (`index * block_size`), so they keep the
//! alignment O_DIRECT needs; a generator stays inside its region (one thread's share of the
//! file) and wraps around at its end; generation costs a few nanoseconds and never allocates.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Order of the blocks a job visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", content = "blocks", rename_all = "lowercase")]
pub enum Pattern {
    /// Block 0, 1, 2, ... (iozone write/read, bonnie, dd).
    #[default]
    Sequential,
    /// Uniformly random blocks, with repeats (iozone random, randomio).
    Random,
    /// Last block to first (iozone "backward read").
    Backward,
    /// Blocks 0, s, 2s, ... then 1, 1+s, ... : every block once per pass, `s` blocks apart
    /// (iozone "stride read", whose default stride is 17 records).
    Stride(u64),
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Sequential => f.write_str("seq"),
            Pattern::Random => f.write_str("rand"),
            Pattern::Backward => f.write_str("backward"),
            Pattern::Stride(s) => write!(f, "stride:{s}"),
        }
    }
}

impl FromStr for Pattern {
    type Err = String;

    /// `seq`, `rand`, `backward` or `stride:N` (N blocks).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "seq" | "sequential" => Ok(Pattern::Sequential),
            "rand" | "random" => Ok(Pattern::Random),
            "backward" | "bkwd" => Ok(Pattern::Backward),
            _ => s
                .strip_prefix("stride:")
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&n| n >= 1)
                .map(Pattern::Stride)
                .ok_or_else(|| format!("pattern '{s}': use seq, rand, backward or stride:N")),
        }
    }
}

/// xorshift64* (Vigna 2016): one multiply per number, good enough to pick offsets and mixes.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from any seed (0 included: the seed is mixed first).
    pub fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift((z ^ (z >> 31)) | 1)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` by multiply-shift (n > 0).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// Produces the offsets of one thread's operations.
#[derive(Debug, Clone)]
pub struct OffsetGen {
    pattern: Pattern,
    first: u64,
    blocks: u64,
    block_size: u64,
    pos: u64,
    lane: u64,
    rng: XorShift,
}

impl OffsetGen {
    /// Offsets over blocks `first..first + blocks` of `block_size` bytes (`blocks` > 0).
    pub fn new(pattern: Pattern, first: u64, blocks: u64, block_size: u64, seed: u64) -> Self {
        assert!(blocks > 0, "an offset generator needs at least one block");
        OffsetGen {
            pattern,
            first,
            blocks,
            block_size,
            pos: 0,
            lane: 0,
            rng: XorShift::new(seed),
        }
    }

    /// The next offset in bytes.
    #[inline]
    pub fn next_offset(&mut self) -> u64 {
        (self.first + self.next_index()) * self.block_size
    }

    /// The next block index within the region.
    #[inline]
    fn next_index(&mut self) -> u64 {
        match self.pattern {
            Pattern::Random => self.rng.below(self.blocks),
            Pattern::Sequential => {
                let i = self.pos;
                self.pos = if i + 1 == self.blocks { 0 } else { i + 1 };
                i
            }
            Pattern::Backward => {
                let i = self.blocks - 1 - self.pos;
                self.pos = if self.pos + 1 == self.blocks {
                    0
                } else {
                    self.pos + 1
                };
                i
            }
            Pattern::Stride(s) => {
                let i = self.pos;
                self.pos += s;
                if self.pos >= self.blocks {
                    self.lane += 1;
                    if self.lane >= s.min(self.blocks) {
                        self.lane = 0;
                    }
                    self.pos = self.lane;
                }
                i
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(p: Pattern, blocks: u64, n: usize) -> Vec<u64> {
        let mut g = OffsetGen::new(p, 10, blocks, 4096, 1);
        (0..n).map(|_| g.next_offset() / 4096 - 10).collect()
    }

    #[test]
    fn patterns_visit_the_right_blocks() {
        assert_eq!(take(Pattern::Sequential, 3, 5), [0, 1, 2, 0, 1]);
        assert_eq!(take(Pattern::Backward, 3, 5), [2, 1, 0, 2, 1]);
        assert_eq!(take(Pattern::Stride(3), 7, 9), [0, 3, 6, 1, 4, 2, 5, 0, 3]);
        // Stride wider than the region degrades to sequential.
        assert_eq!(take(Pattern::Stride(17), 4, 5), [0, 1, 2, 3, 0]);
        let r = take(Pattern::Random, 100, 10_000);
        assert!(r.iter().all(|&i| i < 100));
        let distinct: std::collections::HashSet<_> = r.iter().collect();
        assert_eq!(distinct.len(), 100);
    }

    #[test]
    fn every_stride_pass_covers_each_block_once() {
        for (s, n) in [(17u64, 100u64), (2, 9), (5, 5), (1, 4)] {
            let mut v = take(Pattern::Stride(s), n, n as usize);
            v.sort_unstable();
            assert_eq!(v, (0..n).collect::<Vec<_>>(), "stride {s} over {n}");
        }
    }

    #[test]
    fn parse_and_print_round_trip() {
        for p in [
            Pattern::Sequential,
            Pattern::Random,
            Pattern::Backward,
            Pattern::Stride(17),
        ] {
            assert_eq!(p.to_string().parse::<Pattern>().unwrap(), p);
        }
        assert!("stride:0".parse::<Pattern>().is_err());
    }
}

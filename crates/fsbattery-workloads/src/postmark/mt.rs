//! PostMark 1.53's random numbers: MT19937 seeded by its 1999 `sgenrand` (Knuth's 69069
//! linear congruential fill), and `RND(x)` = `genrand() % x`, no draw at all for `x == 0`.
//!
//! Why not a crate: `rand_mt` and the 2002 reference code seed with `init_genrand`
//! (multiplier 1812433253), which yields a different sequence for the same seed. With
//! PostMark's own seeding and modulo reduction the workload creates, reads, appends and
//! deletes the very files PostMark does for the same seed and configuration, so the two do
//! the same work, file for file, not merely work of the same distribution.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// The generator's state (PostMark keeps one, seeded at the start of every `run`).
pub(super) struct Mt {
    mt: [u32; N],
    i: usize,
}

impl Mt {
    /// `sgenrand(seed)`: each word takes the upper halves of two LCG steps. PostMark's
    /// `unsigned long` is 64 bits on Linux, but every word is masked to 32 bits, so 32-bit
    /// arithmetic gives the same words.
    pub fn new(seed: u32) -> Mt {
        let mut mt = [0u32; N];
        let mut s = seed;
        for w in mt.iter_mut() {
            *w = s & 0xffff_0000;
            s = s.wrapping_mul(69069).wrapping_add(1);
            *w |= (s & 0xffff_0000) >> 16;
            s = s.wrapping_mul(69069).wrapping_add(1);
        }
        Mt { mt, i: N }
    }

    /// `genrand()`: the next tempered 32-bit word.
    pub fn next_u32(&mut self) -> u32 {
        if self.i >= N {
            self.twist();
        }
        let mut y = self.mt[self.i];
        self.i += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `RND(x)`: `genrand() % x`, and 0 without drawing when `x` is 0.
    pub fn rnd(&mut self, x: u64) -> u64 {
        if x == 0 {
            0
        } else {
            u64::from(self.next_u32()) % x
        }
    }

    /// Regenerate all N words at once, as the reference code does.
    fn twist(&mut self) {
        let mag = |y: u32| if y & 1 == 1 { MATRIX_A } else { 0 };
        for k in 0..N {
            let y = (self.mt[k] & UPPER) | (self.mt[(k + 1) % N] & LOWER);
            self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag(y);
        }
        self.i = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PostMark 1.53 under strace (seed 42, sizes 500..10,000, 3 subdirectories): after the
    /// 20,000 draws of its data source, its first files were s0/1 of 4,732 bytes, s1/2 of
    /// 6,507, s0/3 of 8,219 and s2/4 of 2,341 (subdirectory drawn before size).
    #[test]
    fn draws_postmarks_first_files() {
        let mut mt = Mt::new(42);
        for _ in 0..20_000 {
            mt.rnd(95);
        }
        let files: Vec<(u64, u64)> = (0..4).map(|_| (mt.rnd(3), 500 + mt.rnd(9_500))).collect();
        assert_eq!(files, [(0, 4_732), (1, 6_507), (0, 8_219), (2, 2_341)]);
    }

    #[test]
    fn rnd_of_zero_draws_nothing() {
        let (mut a, mut b) = (Mt::new(42), Mt::new(42));
        assert_eq!(a.rnd(0), 0);
        assert_eq!(a.rnd(10), b.rnd(10));
    }
}

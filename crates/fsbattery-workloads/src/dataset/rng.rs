//! The dataset's own pseudo-random numbers: bit-identical on every platform and release.
//!
//! Invariant: a (profile, scale, seed) triple names one tree forever, so its content hash can
//! be compared across machines and years. That rules out `rand` (its distributions may change
//! between versions) and libm's `exp`/`ln` (not correctly rounded everywhere). Only integer
//! arithmetic and IEEE-754 `+ - * /` (exact and reproducible by the standard) are used.

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, passes BigCrush; good enough to shape a
/// directory tree and pick lines of text.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in `0..n` (`n` > 0), by multiply-shift (bias below 2^-32 for our n).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// True with probability `per_mille` / 1000.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }

    /// Uniform in [0, 1) with 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Approximately standard normal: Irwin–Hall sum of 12 uniforms minus 6. Its tails stop
    /// at ±6σ, which for file sizes only trims sizes the profile clamps anyway.
    pub fn normal(&mut self) -> f64 {
        let mut s = 0.0;
        for _ in 0..12 {
            s += self.unit();
        }
        s - 6.0
    }
}

/// The SplitMix64 finaliser: a strong 64-bit mixer, also used to derive sub-seeds.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A sub-seed for stream `tag` of a dataset seeded with `parts`.
pub fn derive(parts: &[u64], tag: u64) -> u64 {
    parts.iter().fold(
        mix(tag ^ 0x6673_6261_7474_6572),
        |acc, &p| mix(acc ^ mix(p)),
    )
}

/// e^x from IEEE basic operations only: x = k·ln2 + r with |r| ≤ ln2/2, e^r by its Taylor
/// series (25 terms: exact to the last bit for such r), times 2^k built from the exponent
/// field. Valid for |x| < 700, far more than file sizes need.
pub fn exp(x: f64) -> f64 {
    let k = (x / std::f64::consts::LN_2).round();
    let r = x - k * std::f64::consts::LN_2;
    let mut term = 1.0;
    let mut sum = 1.0;
    for n in 1..25 {
        term = term * r / f64::from(n);
        sum += term;
    }
    let two_k = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    sum * two_k
}

/// ln(x) for normal x > 0, by Newton's method on the deterministic `exp`, started from the
/// binary exponent (only needed once per dataset to turn a mean/median ratio into a spread).
pub fn ln(x: f64) -> f64 {
    let exponent = ((x.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    let mut y = exponent as f64 * std::f64::consts::LN_2;
    for _ in 0..200 {
        let e = exp(y);
        let next = y - 1.0 + x / e;
        if next == y {
            break;
        }
        y = next;
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_ln_match_libm_closely() {
        for x in [-5.0, -1.0, -0.3, 0.0, 0.5, 1.0, 2.5, 10.0, 13.7] {
            let (a, b) = (exp(x), f64::exp(x));
            assert!(((a - b) / b).abs() < 1e-14, "exp({x}) = {a}, libm {b}");
        }
        for x in [0.1, 1.0, 2.21, 10.0, 1e6] {
            let (a, b) = (ln(x), f64::ln(x));
            assert!((a - b).abs() < 1e-12, "ln({x}) = {a}, libm {b}");
        }
    }

    #[test]
    fn generator_is_reproducible_and_uniform_enough() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        // Known first output of SplitMix64 seeded with 0 (reference implementation).
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut r = SplitMix64::new(1);
        let n = 20_000;
        let mean: f64 = (0..n).map(|_| r.normal()).sum::<f64>() / f64::from(n);
        assert!(mean.abs() < 0.05, "normal mean {mean}");
        assert!((0..1000).all(|_| r.below(10) < 10));
    }
}

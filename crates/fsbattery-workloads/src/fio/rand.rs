//! Random offsets as fio draws them: uniform with replacement (`norandommap`), every block
//! once per pass (fio's random map, here a keyed permutation), and the skewed distributions
//! of `random_distribution`, whose hot blocks fio scatters over the file with a hash (as
//! here), following fio's `lib/zipf.c` (Gray et al.'s zipf, pareto by inversion) and
//! `lib/gauss.c` (a sum of 12 uniforms).
//!
//! Pure and allocation-free after construction; a few nanoseconds per draw.

use super::options::Distribution;
use crate::engine::XorShift;

/// Most ranks the zipf normaliser is summed over (fio caps it at 10 M the same way).
const ZIPF_MAX: u64 = 10_000_000;

/// A 64-bit mix (splitmix64's finaliser): fio's `__hash_u64` role.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A bijection of `0..n` keyed by a seed: a 4-round Feistel network over the smallest even
/// power of two above `n`, cycle-walking values past `n` (at most 4 steps on average).
#[derive(Debug, Clone)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    /// A permutation of `0..n` (n > 0).
    pub fn new(n: u64, seed: u64) -> Self {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let keys = [1, 2, 3, 4].map(|i| mix(seed ^ (i * 0x1234_5678_9abc)));
        Permutation { n, half_bits, keys }
    }

    /// The `i`-th element (i < n).
    pub fn at(&self, i: u64) -> u64 {
        let mut x = i;
        loop {
            x = self.round_trip(x);
            if x < self.n {
                return x;
            }
        }
    }

    fn round_trip(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut l, mut r) = (x >> self.half_bits, x & mask);
        for k in self.keys {
            let f = mix(r ^ k) & mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half_bits) | r
    }
}

/// Block indices in `0..n` from a distribution.
#[derive(Debug, Clone)]
pub enum Picker {
    /// Uniform with replacement.
    Uniform,
    /// Each index once per `n` draws.
    Map(Permutation),
    /// zipf: Gray's constants.
    Zipf {
        /// theta.
        theta: f64,
        /// zeta(n).
        zetan: f64,
        /// 1 / (1 - theta).
        alpha: f64,
        /// Gray's eta.
        eta: f64,
        /// Ranks the normaliser covers.
        ranks: u64,
    },
    /// pareto: fio's power log(h) / log(1 - h).
    Pareto(f64),
    /// normal around the middle with this standard deviation in blocks.
    Normal(f64),
}

impl Picker {
    /// The picker for `dist` over `n` blocks (`map`: one pass visits every block once).
    pub fn new(dist: Distribution, n: u64, map: bool, seed: u64) -> Self {
        match dist {
            Distribution::Random if map => Picker::Map(Permutation::new(n, seed)),
            Distribution::Random => Picker::Uniform,
            Distribution::Zipf(theta) => {
                let ranks = n.clamp(1, ZIPF_MAX);
                let zeta = |m: u64| (1..=m).map(|i| (i as f64).powf(-theta)).sum::<f64>();
                let zetan = zeta(ranks);
                let zeta2 = zeta(2.min(ranks));
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / ranks as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                Picker::Zipf {
                    theta,
                    zetan,
                    alpha,
                    eta,
                    ranks,
                }
            }
            Distribution::Pareto(h) => Picker::Pareto(h.ln() / (1.0 - h).ln()),
            Distribution::Normal(dev) => Picker::Normal(n as f64 * dev / 100.0),
        }
    }

    /// The `i`-th draw over `n` blocks.
    #[inline]
    pub fn pick(&self, i: u64, n: u64, rng: &mut XorShift) -> u64 {
        let unit = |rng: &mut XorShift| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let scatter = |v: u64| mix(v) % n;
        match self {
            Picker::Uniform => rng.below(n),
            Picker::Map(p) => p.at(i % n),
            Picker::Zipf {
                theta,
                zetan,
                alpha,
                eta,
                ranks,
            } => {
                let u = unit(rng);
                let uz = u * zetan;
                let rank = if uz < 1.0 {
                    0
                } else if uz < 1.0 + 0.5f64.powf(*theta) {
                    1
                } else {
                    let v = *ranks as f64 * (eta * u - eta + 1.0).powf(*alpha);
                    (v as u64).min(ranks - 1)
                };
                scatter(rank)
            }
            Picker::Pareto(power) => {
                let v = ((n - 1) as f64 * unit(rng).powf(*power)) as u64;
                scatter(v.min(n - 1))
            }
            Picker::Normal(sd) => {
                let z: f64 = (0..12).map(|_| unit(rng)).sum::<f64>() - 6.0;
                let v = (n as f64 / 2.0 + z * sd).clamp(0.0, (n - 1) as f64);
                scatter(v as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_visit_every_index_once() {
        for n in [1u64, 2, 3, 7, 64, 1000, 4099] {
            let p = Permutation::new(n, 42);
            let mut seen: Vec<u64> = (0..n).map(|i| p.at(i)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn skewed_distributions_favour_few_blocks() {
        let n = 10_000;
        for d in [
            Distribution::Zipf(1.2),
            Distribution::Pareto(0.9),
            Distribution::Normal(5.0),
        ] {
            let p = Picker::new(d, n, false, 1);
            let mut rng = XorShift::new(7);
            let mut hits = std::collections::HashMap::new();
            for i in 0..100_000 {
                let v = p.pick(i, n, &mut rng);
                assert!(v < n);
                *hits.entry(v).or_insert(0u32) += 1;
            }
            let mut counts: Vec<u32> = hits.into_values().collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            let top: u32 = counts.iter().take(100).sum();
            // The hottest 1 % of blocks take far more than 1 % of the draws.
            assert!(top > 5_000, "{d:?}: {top}");
        }
    }
}

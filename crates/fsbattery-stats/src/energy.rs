//! The E-divisive candidate of a series: the split that maximises the energy statistic
//! q̂ of Matteson and James (2014), over every start < τ < κ ≤ end, as Apache Otava's
//! `PairDistanceCalculator` computes it (distance |x − y|, power 1).
//!
//! Written here rather than taken from a crate: no maintained Rust crate implements
//! E-divisive, and the statistic is a few sums over one distance matrix.

/// Pairwise |x_i − x_j| summed over rectangles of the distance matrix, in O(1) per query
/// after an O(n²) table.
pub(crate) struct Distances {
    /// `sums[i][j]` = Σ_{a < i, b < j} |x_a − x_b|, stored row-major with stride n + 1.
    sums: Vec<f64>,
    stride: usize,
}

impl Distances {
    pub(crate) fn new(x: &[f64]) -> Distances {
        let stride = x.len() + 1;
        let mut sums = vec![0.0; stride * stride];
        for i in 0..x.len() {
            let mut row = 0.0;
            for j in 0..x.len() {
                row += (x[i] - x[j]).abs();
                sums[(i + 1) * stride + j + 1] = sums[i * stride + j + 1] + row;
            }
        }
        Distances { sums, stride }
    }

    /// Σ |x_a − x_b| over a in [a0, a1), b in [b0, b1).
    fn block(&self, a0: usize, a1: usize, b0: usize, b1: usize) -> f64 {
        let s = |i: usize, j: usize| self.sums[i * self.stride + j];
        s(a1, b1) - s(a0, b1) - s(a1, b0) + s(a0, b0)
    }

    /// Σ_{a < b} |x_a − x_b| within [a0, a1).
    fn within(&self, a0: usize, a1: usize) -> f64 {
        self.block(a0, a1, a0, a1) / 2.0
    }

    /// q̂ of X = x[start..tau] against Y = x[tau..kappa]:
    /// 2/(m+n) Σ|X−Y| − 2m/((m+n)(n−1)) Σ_{i<k}|X_i−X_k| − 2n/((m+n)(m−1)) Σ_{j<k}|Y_j−Y_k|,
    /// a within-term dropped when its side has one element (Otava does the same).
    fn qhat(&self, start: usize, tau: usize, kappa: usize) -> f64 {
        let (n, m) = ((tau - start) as f64, (kappa - tau) as f64);
        let between = 2.0 / (m + n) * self.block(start, tau, tau, kappa);
        let left = if n > 1.0 {
            2.0 * m / ((m + n) * (n - 1.0)) * self.within(start, tau)
        } else {
            0.0
        };
        let right = if m > 1.0 {
            2.0 * n / ((m + n) * (m - 1.0)) * self.within(tau, kappa)
        } else {
            0.0
        };
        between - left - right
    }

    /// The split τ of [start, end) whose q̂ is largest over every κ, with that q̂; `None` for
    /// an interval of fewer than two points. Ties go to the smallest τ, then κ (numpy's
    /// argmax order in Otava).
    pub(crate) fn candidate(&self, start: usize, end: usize) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for tau in start + 1..end {
            for kappa in tau + 1..=end {
                let q = self.qhat(start, tau, kappa);
                if best.is_none_or(|(_, b)| q > b) {
                    best = Some((tau, q));
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// q̂ by its definition, summing every pair directly.
    fn qhat_direct(x: &[f64], start: usize, tau: usize, kappa: usize) -> f64 {
        let (xs, ys) = (&x[start..tau], &x[tau..kappa]);
        let (n, m) = (xs.len() as f64, ys.len() as f64);
        let mut between = 0.0;
        for a in xs {
            for b in ys {
                between += (a - b).abs();
            }
        }
        let within = |v: &[f64]| {
            let mut s = 0.0;
            for i in 0..v.len() {
                for k in i + 1..v.len() {
                    s += (v[i] - v[k]).abs();
                }
            }
            s
        };
        let mut q = 2.0 / (m + n) * between;
        if n > 1.0 {
            q -= 2.0 * m / ((m + n) * (n - 1.0)) * within(xs);
        }
        if m > 1.0 {
            q -= 2.0 * n / ((m + n) * (m - 1.0)) * within(ys);
        }
        q
    }

    #[test]
    fn table_sums_match_the_definition() {
        let x = [3.0, 1.5, 4.0, 1.0, 5.5, 9.0, 2.5, 6.0];
        let d = Distances::new(&x);
        for start in 0..x.len() {
            for tau in start + 1..x.len() {
                for kappa in tau + 1..=x.len() {
                    let (a, b) = (
                        d.qhat(start, tau, kappa),
                        qhat_direct(&x, start, tau, kappa),
                    );
                    assert!((a - b).abs() < 1e-9, "{start} {tau} {kappa}: {a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn a_clean_step_is_the_candidate() {
        let x = [1.0, 1.1, 0.9, 1.0, 2.0, 2.1, 1.9, 2.0];
        assert_eq!(Distances::new(&x).candidate(0, 8).map(|c| c.0), Some(4));
        assert_eq!(Distances::new(&[1.0]).candidate(0, 1), None);
    }
}

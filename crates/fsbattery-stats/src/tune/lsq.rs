//! Ordinary least squares with the coefficients' covariance, for a few dozen columns.
//!
//! Role: the effect estimates of a screen are the coefficients of a main-effects model fitted
//! to every measured sample. Written by hand on the normal equations (Gauss–Jordan with
//! partial pivoting) because the systems are tiny (under ~40 columns) and this crate stays
//! free of heavy dependencies: nalgebra would add a large generic crate to a leaf crate whose
//! every other function is a few lines of `f64` arithmetic, to invert one small matrix.
//!
//! Invariants:
//! - `None` when the design is rank-deficient (a pivot below 1e-10 of the matrix's scale) or
//!   has no residual degrees of freedom, never coefficients of an unidentified model;
//! - the residual variance uses `n - p` degrees of freedom (unbiased under the model).

/// A fitted linear model.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Coefficients, one per column.
    pub beta: Vec<f64>,
    /// `(XᵀX)⁻¹`: times `sigma2`, the coefficients' covariance.
    pub xtx_inv: Vec<Vec<f64>>,
    /// Residual variance estimate.
    pub sigma2: f64,
    /// Residual degrees of freedom, `n - p`.
    pub df: usize,
}

impl Fit {
    /// Standard error of coefficient `j`.
    pub fn se(&self, j: usize) -> f64 {
        (self.sigma2 * self.xtx_inv[j][j]).max(0.0).sqrt()
    }
}

/// Fit `y ≈ X β` by least squares; rows of `x` are observations.
pub fn fit(x: &[Vec<f64>], y: &[f64]) -> Option<Fit> {
    let (n, p) = (x.len(), x.first()?.len());
    if n != y.len() || n <= p || p == 0 {
        return None;
    }
    let mut xtx = vec![vec![0.0; p]; p];
    let mut xty = vec![0.0; p];
    for (row, &yi) in x.iter().zip(y) {
        for i in 0..p {
            xty[i] += row[i] * yi;
            for j in 0..p {
                xtx[i][j] += row[i] * row[j];
            }
        }
    }
    let inv = invert(&xtx)?;
    let beta: Vec<f64> = (0..p)
        .map(|i| (0..p).map(|j| inv[i][j] * xty[j]).sum())
        .collect();
    let rss: f64 = x
        .iter()
        .zip(y)
        .map(|(row, &yi)| {
            let fitted: f64 = row.iter().zip(&beta).map(|(a, b)| a * b).sum();
            (yi - fitted).powi(2)
        })
        .sum();
    let df = n - p;
    Some(Fit {
        beta,
        xtx_inv: inv,
        sigma2: rss / df as f64,
        df,
    })
}

/// Inverse of a square matrix by Gauss–Jordan elimination with partial pivoting.
fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let p = a.len();
    let scale = a
        .iter()
        .flatten()
        .fold(0.0_f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut r = row.clone();
            r.extend((0..p).map(|j| f64::from(u8::from(i == j))));
            r
        })
        .collect();
    for col in 0..p {
        let piv = (col..p).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))?;
        if m[piv][col].abs() < 1e-10 * scale {
            return None;
        }
        m.swap(col, piv);
        let d = m[col][col];
        m[col].iter_mut().for_each(|v| *v /= d);
        for r in 0..p {
            if r != col {
                let factor = m[r][col];
                if factor != 0.0 {
                    let pivot_row = m[col].clone();
                    m[r].iter_mut()
                        .zip(&pivot_row)
                        .for_each(|(v, pv)| *v -= factor * pv);
                }
            }
        }
    }
    Some(m.into_iter().map(|r| r[p..].to_vec()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_an_exact_line_and_its_textbook_errors() {
        // y = 1 + 2x exactly: zero residual variance.
        let x: Vec<Vec<f64>> = (0..5).map(|i| vec![1.0, i as f64]).collect();
        let y: Vec<f64> = (0..5).map(|i| 1.0 + 2.0 * i as f64).collect();
        let f = fit(&x, &y).unwrap();
        assert!((f.beta[0] - 1.0).abs() < 1e-12 && (f.beta[1] - 2.0).abs() < 1e-12);
        assert!(f.sigma2 < 1e-20);
        // Simple regression: Var(slope) = σ² / Σ(x - x̄)²; Σ(x - x̄)² = 10 for 0..5.
        assert!((f.xtx_inv[1][1] - 0.1).abs() < 1e-12);
    }

    #[test]
    fn known_noisy_fit() {
        // x = 1..5, y = [2, 4, 5, 4, 5]: slope 0.6, intercept 2.2, RSS 2.4, σ² = 0.8.
        let x: Vec<Vec<f64>> = (1..=5).map(|i| vec![1.0, i as f64]).collect();
        let f = fit(&x, &[2.0, 4.0, 5.0, 4.0, 5.0]).unwrap();
        assert!((f.beta[1] - 0.6).abs() < 1e-12 && (f.beta[0] - 2.2).abs() < 1e-12);
        assert!((f.sigma2 - 0.8).abs() < 1e-12 && f.df == 3);
        assert!((f.se(1) - (0.8f64 / 10.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn rank_deficient_and_saturated_designs_are_refused() {
        let x = vec![vec![1.0, 2.0], vec![2.0, 4.0], vec![3.0, 6.0]];
        assert!(fit(&x, &[1.0, 2.0, 3.0]).is_none());
        let x = vec![vec![1.0, 0.0], vec![1.0, 1.0]];
        assert!(fit(&x, &[1.0, 2.0]).is_none(), "no residual df");
    }
}

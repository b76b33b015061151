//! Screening designs over options with a few discrete levels each.
//!
//! Role: choose which configurations a tune measures. The screen is a Latin hypercube over
//! levels (Carver, FAST '20, samples its parameter spaces this way): in every column each
//! level appears equally often (±1), the columns shuffled independently, so every option's
//! main effect is estimable from a number of configurations that grows with the sum of the
//! options' levels, not with their product. A full factorial is here too, to check the screen
//! against it on a few two-level options.
//!
//! Invariants:
//! - row 0 is always the defaults (every factor at its default level), so each effect has its
//!   reference measured in the same run;
//! - every row passes `valid` (invalid combinations are repaired by swapping a level with
//!   another row, and a row that cannot be repaired is dropped rather than measured;
//!   [`fill_distinct`] then replaces what was dropped with random valid rows);
//! - the same factors, size and seed give the same design.

/// One option as the design sees it: how many levels, and which is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Factor {
    /// Number of levels (at least 1).
    pub levels: usize,
    /// The default level's index.
    pub default: usize,
}

/// A configuration: one level index per factor.
pub type Config = Vec<usize>;

/// How many swap attempts repair one invalid row before it is dropped.
const REPAIR_TRIES: usize = 200;

/// Hypercubes drawn per design; the one whose main effects are best separated is kept.
const CANDIDATES: u64 = 32;

/// Defaults first, then `runs - 1` Latin-hypercube rows that pass `valid` (fewer when some
/// could not be repaired). Of 32 hypercubes drawn from `seed`, the one with the
/// largest determinant of its main-effects information matrix is kept (D-optimal among
/// them): a single random shuffle of few rows can alias two options' columns, which leaves
/// their effects inseparable.
pub fn latin_hypercube(
    factors: &[Factor],
    runs: usize,
    seed: u64,
    valid: &dyn Fn(&[usize]) -> bool,
) -> Vec<Config> {
    (0..CANDIDATES)
        .map(|c| one_hypercube(factors, runs, seed.wrapping_mul(CANDIDATES) + c, valid))
        .map(|d| (log_det(factors, &d), d))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, d)| d)
        .unwrap_or_default()
}

/// `ln det(XᵀX)` of the treatment-coded main-effects model of `design`; −∞ when singular.
fn log_det(factors: &[Factor], design: &[Config]) -> f64 {
    let x: Vec<Vec<f64>> = design
        .iter()
        .map(|r| {
            let mut row = vec![1.0];
            for (j, f) in factors.iter().enumerate() {
                row.extend(
                    (0..f.levels)
                        .filter(|&l| l != f.default)
                        .map(|l| f64::from(u8::from(r[j] == l))),
                );
            }
            row
        })
        .collect();
    let p = x.first().map_or(0, Vec::len);
    let mut a = vec![vec![0.0; p]; p];
    for row in &x {
        for i in 0..p {
            for j in 0..p {
                a[i][j] += row[i] * row[j];
            }
        }
    }
    let mut sum = 0.0;
    for col in 0..p {
        let piv = (col..p).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()));
        let Some(piv) = piv.filter(|&i| a[i][col].abs() > 1e-9) else {
            return f64::NEG_INFINITY;
        };
        a.swap(col, piv);
        sum += a[col][col].abs().ln();
        for r in col + 1..p {
            let f = a[r][col] / a[col][col];
            let pivot_row = a[col].clone();
            a[r].iter_mut()
                .zip(&pivot_row)
                .for_each(|(v, pv)| *v -= f * pv);
        }
    }
    sum
}

/// One seeded hypercube, repaired.
fn one_hypercube(
    factors: &[Factor],
    runs: usize,
    seed: u64,
    valid: &dyn Fn(&[usize]) -> bool,
) -> Vec<Config> {
    let defaults: Config = factors.iter().map(|f| f.default).collect();
    let n = runs.saturating_sub(1);
    let mut rng = fastrand::Rng::with_seed(seed);
    let columns: Vec<Vec<usize>> = factors
        .iter()
        .map(|f| {
            let mut col: Vec<usize> = (0..n).map(|i| i % f.levels.max(1)).collect();
            rng.shuffle(&mut col);
            col
        })
        .collect();
    let mut rows: Vec<Config> = (0..n)
        .map(|r| columns.iter().map(|c| c[r]).collect())
        .collect();
    repair(&mut rows, factors.len(), &mut rng, valid);
    let mut out = vec![defaults];
    out.extend(rows.into_iter().filter(|r| valid(r)));
    out
}

/// `design` without repeated rows, then seeded random valid rows, each new, until it has
/// `runs` distinct rows (or the tries run out): where `[[invalid]]` rules forbid most rows
/// with one level (ext4 without a journal takes no `data=`, `commit=` or journal size), swaps
/// cannot repair half a column, the hypercube drops those rows, and a design short of
/// distinct rows cannot fit the model at all.
pub fn fill_distinct(
    design: &mut Vec<Config>,
    factors: &[Factor],
    runs: usize,
    seed: u64,
    valid: &dyn Fn(&[usize]) -> bool,
) {
    let mut seen = std::collections::BTreeSet::new();
    design.retain(|c| seen.insert(c.clone()));
    let (out, mut rng) = (design, fastrand::Rng::with_seed(seed ^ 0x5eed));
    let mut tries = 0;
    while out.len() < runs && tries < REPAIR_TRIES * runs {
        tries += 1;
        let r: Config = factors
            .iter()
            .map(|f| rng.usize(..f.levels.max(1)))
            .collect();
        if valid(&r) && !out.contains(&r) {
            out.push(r);
        }
    }
}

/// Swap single levels between rows until invalid rows pass (each swap keeps every column's
/// level counts, so the hypercube's balance survives repairs).
fn repair(
    rows: &mut [Config],
    k: usize,
    rng: &mut fastrand::Rng,
    valid: &dyn Fn(&[usize]) -> bool,
) {
    if rows.len() < 2 || k == 0 {
        return;
    }
    for r in 0..rows.len() {
        let mut tries = 0;
        while !valid(&rows[r]) && tries < REPAIR_TRIES {
            tries += 1;
            let (other, col) = (rng.usize(..rows.len()), rng.usize(..k));
            if other == r {
                continue;
            }
            let (a, b) = (rows[r][col], rows[other][col]);
            rows[r][col] = b;
            rows[other][col] = a;
            // Keep the swap only if it does not break the row it came from.
            if !valid(&rows[other]) && valid_before(&rows[other], col, b, valid) {
                rows[r][col] = a;
                rows[other][col] = b;
            }
        }
    }
}

/// Whether `row` was valid with `old` at `col`.
fn valid_before(row: &[usize], col: usize, old: usize, valid: &dyn Fn(&[usize]) -> bool) -> bool {
    let mut r = row.to_vec();
    r[col] = old;
    valid(&r)
}

/// Every combination of levels that passes `valid`, defaults first.
pub fn full_factorial(factors: &[Factor], valid: &dyn Fn(&[usize]) -> bool) -> Vec<Config> {
    let defaults: Config = factors.iter().map(|f| f.default).collect();
    let mut out = vec![defaults.clone()];
    let mut row = vec![0; factors.len()];
    loop {
        if row != defaults && valid(&row) {
            out.push(row.clone());
        }
        // Odometer increment; done when it wraps around.
        let mut i = 0;
        loop {
            if i == factors.len() {
                return out;
            }
            row[i] += 1;
            if row[i] < factors[i].levels {
                break;
            }
            row[i] = 0;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(levels: usize) -> Factor {
        Factor { levels, default: 0 }
    }

    #[test]
    fn hypercube_balances_each_column_and_starts_with_defaults() {
        let fs = [f(2), f(3), f(2)];
        let d = latin_hypercube(&fs, 13, 7, &|_| true);
        assert_eq!(d.len(), 13);
        assert_eq!(d[0], vec![0, 0, 0]);
        for (j, fac) in fs.iter().enumerate() {
            for level in 0..fac.levels {
                let count = d[1..].iter().filter(|r| r[j] == level).count();
                assert_eq!(count, 12 / fac.levels, "column {j} level {level}");
            }
        }
        assert_eq!(
            d,
            latin_hypercube(&fs, 13, 7, &|_| true),
            "seeded: same design"
        );
    }

    #[test]
    fn invalid_rows_are_repaired_or_dropped() {
        let fs = [f(2), f(2), f(3)];
        // Level 1 of factor 0 cannot go with level 1 of factor 1.
        let valid = |r: &[usize]| !(r[0] == 1 && r[1] == 1);
        let d = latin_hypercube(&fs, 17, 3, &valid);
        assert!(d.iter().all(|r| valid(r)));
        assert!(d.len() >= 12, "most rows survive: {}", d.len());
    }

    #[test]
    fn rows_a_rule_forbids_in_bulk_are_replaced_so_the_model_still_fits() {
        // Level 1 of factor 0 (half its column) goes only with every other factor at 0, as
        // ext4's has_journal=off does: swaps cannot repair that many rows.
        let fs = [f(2), f(3), f(3), f(4), f(2)];
        let valid = |r: &[usize]| r[0] == 0 || r[1..].iter().all(|&l| l == 0);
        let mut d = latin_hypercube(&fs, 16, 5, &valid);
        assert!(d.len() < 16, "the hypercube alone drops rows: {d:?}");
        fill_distinct(&mut d, &fs, 16, 5, &valid);
        assert_eq!(d.len(), 16, "{d:?}");
        assert!(d.iter().all(|r| valid(r)));
        let mut seen = d.clone();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), d.len(), "distinct rows");
        assert!(
            d.contains(&vec![1, 0, 0, 0, 0]),
            "the one valid row with level 1"
        );
    }

    #[test]
    fn full_factorial_counts_valid_combinations() {
        let fs = [f(2), f(2), f(3)];
        assert_eq!(full_factorial(&fs, &|_| true).len(), 12);
        let valid = |r: &[usize]| !(r[0] == 1 && r[1] == 1);
        assert_eq!(full_factorial(&fs, &valid).len(), 9);
    }
}

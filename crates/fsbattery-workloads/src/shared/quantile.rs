//! Percentiles of a list of latencies as the database workloads report them (sqlite's commit
//! times, pgbench's per-transaction log): nearest rank over the sorted values, so a reported
//! percentile is always a latency some transaction had, as pgbench's own `--progress` and the
//! HDR histograms of the engine report them.

/// The `p`-th percentile (0 < p ≤ 100) of `sorted` (ascending) by nearest rank:
/// the ⌈p/100 · n⌉-th smallest value. `None` for an empty list.
pub fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, n) - 1])
}

/// Mean of `values` (0 for an empty list, which no caller records).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_picks_a_value_of_the_list() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 50.0), Some(50.0));
        assert_eq!(nearest_rank(&v, 95.0), Some(95.0));
        assert_eq!(nearest_rank(&v, 99.0), Some(99.0));
        assert_eq!(nearest_rank(&v, 100.0), Some(100.0));
        assert_eq!(nearest_rank(&[7.0], 1.0), Some(7.0));
        assert_eq!(nearest_rank(&[1.0, 2.0, 3.0], 50.0), Some(2.0));
        assert_eq!(nearest_rank(&[], 50.0), None);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
    }
}

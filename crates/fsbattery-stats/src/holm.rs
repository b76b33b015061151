//! Holm's step-down adjustment of a family of p-values.
//!
//! Role: a row compares its best column with each of the k − 1 others; without an
//! adjustment the chance of at least one false "significant" grows with k. Holm (1979)
//! controls that family-wise error at α with more power than Bonferroni, and its adjusted
//! p-values can be shown directly: a comparison is significant at α exactly when its
//! adjusted p is below α.
//!
//! Invariants:
//! - the output has the input's length and order; every value is in `[0, 1]`;
//! - adjusted p ≥ raw p, and the adjusted values are monotone in the raw ones (the step-down
//!   "max so far" makes a smaller raw p never end with a larger adjusted p);
//! - a NaN p-value counts as 1 (no evidence), so it can never make anything significant;
//! - matches `statsmodels.stats.multitest.multipletests(p, method="holm")[1]`.

/// Holm-adjusted p-values of `p`, in the input's order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let clean = |x: f64| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
    let mut order: Vec<usize> = (0..m).collect();
    // Stable sort: equal p-values keep their order, so the answer is deterministic.
    order.sort_by(|&i, &j| clean(p[i]).total_cmp(&clean(p[j])));
    let mut adjusted = vec![1.0; m];
    let mut running = 0.0_f64;
    for (rank, &i) in order.iter().enumerate() {
        let step = ((m - rank) as f64 * clean(p[i])).min(1.0);
        running = running.max(step);
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-12)
    }

    #[test]
    fn matches_statsmodels() {
        // statsmodels 0.14: multipletests([0.01, 0.04, 0.03, 0.005], method="holm")[1]
        // = [0.03, 0.06, 0.06, 0.02]
        let got = holm(&[0.01, 0.04, 0.03, 0.005]);
        assert!(close(&got, &[0.03, 0.06, 0.06, 0.02]), "{got:?}");
        // multipletests([0.2, 0.001, 0.6], method="holm")[1] = [0.4, 0.003, 0.6]
        let got = holm(&[0.2, 0.001, 0.6]);
        assert!(close(&got, &[0.4, 0.003, 0.6]), "{got:?}");
    }

    #[test]
    fn caps_at_one_and_keeps_singletons() {
        assert!(close(&holm(&[0.7, 0.8]), &[1.0, 1.0]));
        assert!(close(&holm(&[0.02]), &[0.02]));
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn nan_counts_as_no_evidence() {
        let got = holm(&[f64::NAN, 0.01]);
        assert!(close(&got, &[1.0, 0.02]), "{got:?}");
    }
}

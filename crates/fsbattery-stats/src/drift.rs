//! Flags on a cell's repeats that hyperfine would warn about: outliers (a first repeat on a
//! cold dataset, a hiccup of the machine) and a monotone trend across the repeats (warm-up
//! still going, or the machine drifting). They do not change a verdict; they tell the reader
//! that the repeats are not the exchangeable samples the verdicts assume.
//!
//! Outliers are values whose modified z-score (0.6745 × |x − median| / MAD, Iglewicz and
//! Hoaglin) exceeds 14, hyperfine's threshold, looked for from five repeats on: with a
//! handful of repeats quartile fences flag ordinary noise (Tukey's far fences flagged 5 % of
//! eight-repeat normal cells in this module's test), the high threshold only real hiccups. The trend is the Mann–Kendall test:
//! Kendall's τ between repeat order and value, flagged at p < [`TREND_ALPHA`] — strict, because
//! a run has many cells and a flag should be rare when nothing is wrong; with the normal
//! approximation this needs six or more repeats.

use crate::kendall_tau_b;

/// The level below which a trend is flagged.
pub const TREND_ALPHA: f64 = 0.01;
/// hyperfine's modified z-score threshold.
const OUTLIER_Z: f64 = 14.0;
/// Repeats below which outliers are not looked for.
const MIN_FOR_OUTLIERS: usize = 5;

/// What looks wrong with a cell's repeats.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleFlags {
    /// Indices (in the given order) of values beyond the far fences.
    pub outliers: Vec<usize>,
    /// A significant monotone trend: Kendall's τ (positive: rising) and its p.
    pub trend: Option<(f64, f64)>,
}

impl SampleFlags {
    /// Whether anything was flagged.
    pub fn any(&self) -> bool {
        !self.outliers.is_empty() || self.trend.is_some()
    }
}

/// The flags of `samples`, in the order they were measured.
pub fn sample_flags(samples: &[f64]) -> SampleFlags {
    let mut out = SampleFlags::default();
    if samples.len() >= MIN_FOR_OUTLIERS {
        let median = median(samples);
        let deviations: Vec<f64> = samples.iter().map(|v| (v - median).abs()).collect();
        let mad = median_of(deviations);
        out.outliers = samples
            .iter()
            .enumerate()
            .filter(|(_, v)| {
                let d = (**v - median).abs();
                // A zero MAD (most repeats identical, e.g. a quantised value) flags nothing.
                mad > 0.0 && 0.6745 * d / mad > OUTLIER_Z
            })
            .map(|(i, _)| i)
            .collect();
    }
    let order: Vec<f64> = (0..samples.len()).map(|i| i as f64).collect();
    if let Some(k) = kendall_tau_b(&order, samples) {
        if let Some(p) = k.p.filter(|p| *p < TREND_ALPHA) {
            out.trend = Some((k.tau, p));
        }
    }
    out
}

fn median(v: &[f64]) -> f64 {
    median_of(v.to_vec())
}

fn median_of(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n % 2 {
        1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_first_repeat_is_an_outlier() {
        // The randomio case: first repeats far below the rest.
        let f = sample_flags(&[749.0, 6010.0, 5990.0, 6050.0, 5970.0, 6020.0]);
        assert_eq!(f.outliers, vec![0]);
    }

    #[test]
    fn a_steady_rise_is_a_trend() {
        let v: Vec<f64> = (0..10)
            .map(|i| 100.0 + 3.0 * i as f64 + (i % 2) as f64)
            .collect();
        let (tau, p) = sample_flags(&v).trend.unwrap();
        assert!(tau > 0.9 && p < 0.001, "{tau} {p}");
        let falling: Vec<f64> = v.iter().rev().copied().collect();
        assert!(sample_flags(&falling).trend.unwrap().0 < -0.9);
    }

    #[test]
    fn exchangeable_repeats_are_rarely_flagged() {
        // Normal noise in random order: across 1,000 cells of 8 repeats, flags stay rare.
        let mut rng = fastrand::Rng::with_seed(11);
        let flagged = (0..1000)
            .filter(|_| {
                let v: Vec<f64> = (0..8)
                    .map(|_| {
                        let (u, w) = (rng.f64().max(1e-12), rng.f64());
                        10.0 + (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * w).cos()
                    })
                    .collect();
                sample_flags(&v).any()
            })
            .count();
        assert!(flagged <= 30, "{flagged} of 1000 flagged");
    }

    #[test]
    fn few_repeats_are_not_judged() {
        assert!(!sample_flags(&[1.0, 100.0, 1.0, 1.0]).any());
        assert!(!sample_flags(&[]).any());
        assert!(
            !sample_flags(&[1.0, 2.0, 3.0, 4.0, 5.0]).any(),
            "five rising is not enough"
        );
    }
}

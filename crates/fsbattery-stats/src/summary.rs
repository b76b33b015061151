//! Descriptive summary of one benchmark's repeated samples.
//!
//! Role: reduce `n` measurements to the numbers a report shows (centre,
//! spread, best run, 95% confidence interval). Invariants:
//! - A `Summary` only exists for a non-empty, all-finite sample; every field
//!   is finite, so it always serialises to valid JSON.
//! - `min <= median <= max`, `min <= mean <= max`, `best` is `min` or `max`
//!   according to [`Better`], `stddev >= 0`.
//! - Spread-derived fields follow the usual conventions rather than
//!   inventing values: `stddev = 0` and `ci95_half_width = None` for `n < 2`;
//!   `cov = None` when the mean is zero.

use serde::{Deserialize, Serialize};

use crate::moments::moments;
use crate::student_t::student_t_quantile;
use crate::{Aggregate, Better};

/// Summary statistics of a set of samples of one metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (mean of the two middle values for even `n`).
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Best sample: `max` for [`Better::Higher`], `min` for [`Better::Lower`].
    pub best: f64,
    /// Sample standard deviation (`n - 1` denominator); `0` when `n < 2`.
    pub stddev: f64,
    /// Coefficient of variation `stddev / |mean|`; `None` when the mean is 0.
    pub cov: Option<f64>,
    /// Half width of the two-sided 95% Student t confidence interval for the
    /// mean, `t_{0.975, n-1} * stddev / sqrt(n)`; `None` when `n < 2`.
    pub ci95_half_width: Option<f64>,
}

impl Summary {
    /// Summarises `samples`, choosing `best` according to `better`.
    ///
    /// Returns `None` for an empty slice or if any sample is NaN or infinite
    /// (a broken measurement must not yield a plausible-looking summary).
    pub fn from_samples(samples: &[f64], better: Better) -> Option<Summary> {
        let m = moments(samples)?;
        let stddev = m.variance.sqrt();
        let best = match better {
            Better::Higher => m.max,
            Better::Lower => m.min,
        };
        // cov is undefined at mean 0 rather than infinite: report absence.
        let cov = (m.mean != 0.0).then(|| stddev / m.mean.abs());
        let ci95_half_width = (m.n >= 2).then(|| {
            let nf = m.n as f64;
            student_t_quantile(0.975, nf - 1.0) * stddev / nf.sqrt()
        });
        Some(Summary {
            n: m.n,
            mean: m.mean,
            median: median(samples),
            min: m.min,
            max: m.max,
            best,
            stddev,
            cov,
            ci95_half_width,
        })
    }

    /// The statistic selected by `a`.
    pub fn aggregate(&self, a: Aggregate) -> f64 {
        match a {
            Aggregate::Mean => self.mean,
            Aggregate::Best => self.best,
            Aggregate::Median => self.median,
            Aggregate::Min => self.min,
            Aggregate::Max => self.max,
        }
    }

    /// The 95% confidence interval `(low, high)` for the mean, or `None` when
    /// `n < 2` (one sample says nothing about spread).
    pub fn ci95(&self) -> Option<(f64, f64)> {
        self.ci95_half_width.map(|h| (self.mean - h, self.mean + h))
    }
}

/// Median of a non-empty, finite slice (caller has validated it).
fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        // Halving each term first cannot overflow, and for finite doubles the
        // result still lies within [lo, hi].
        sorted[mid - 1] / 2.0 + sorted[mid] / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn one_to_five_hand_checked() {
        let s = Summary::from_samples(&[1.0, 2.0, 3.0, 4.0, 5.0], Better::Higher).unwrap();
        assert_eq!(s.n, 5);
        assert_eq!(s.mean, 3.0);
        assert_eq!(s.median, 3.0);
        assert_eq!((s.min, s.max, s.best), (1.0, 5.0, 5.0));
        // sqrt(2.5)
        assert!(close(s.stddev, 1.581_138_830_084_19, 1e-12));
        assert!(close(s.cov.unwrap(), 1.581_138_830_084_19 / 3.0, 1e-12));
        // t_{0.975,4} * sqrt(2.5) / sqrt(5) = 2.776445105 * 0.707106781
        let h = s.ci95_half_width.unwrap();
        assert!(close(h, 1.963_243_161_477_557_2, 1e-9), "{h}");
        let (lo, hi) = s.ci95().unwrap();
        assert!(close(lo, 3.0 - h, 1e-15) && close(hi, 3.0 + h, 1e-15));
    }

    #[test]
    fn best_follows_direction() {
        let xs = [4.0, 1.0, 9.0, 2.0];
        assert_eq!(Summary::from_samples(&xs, Better::Lower).unwrap().best, 1.0);
        assert_eq!(
            Summary::from_samples(&xs, Better::Higher).unwrap().best,
            9.0
        );
    }

    #[test]
    fn even_length_median_averages_middle_pair() {
        let s = Summary::from_samples(&[10.0, 1.0, 4.0, 2.0], Better::Lower).unwrap();
        assert_eq!(s.median, 3.0);
    }

    #[test]
    fn single_sample_has_no_spread() {
        let s = Summary::from_samples(&[42.0], Better::Lower).unwrap();
        assert_eq!((s.n, s.mean, s.median, s.stddev), (1, 42.0, 42.0, 0.0));
        assert_eq!(s.cov, Some(0.0));
        assert_eq!(s.ci95_half_width, None);
        assert_eq!(s.ci95(), None);
    }

    #[test]
    fn zero_mean_has_no_cov() {
        let s = Summary::from_samples(&[-1.0, 1.0], Better::Higher).unwrap();
        assert_eq!(s.mean, 0.0);
        assert_eq!(s.cov, None);
        // t_{0.975,1} * sqrt(2) / sqrt(2) = 12.7062...
        assert!(close(
            s.ci95_half_width.unwrap(),
            12.706_204_736_174_694,
            1e-9
        ));
    }

    #[test]
    fn rejects_empty_and_non_finite() {
        assert!(Summary::from_samples(&[], Better::Higher).is_none());
        assert!(Summary::from_samples(&[1.0, f64::NAN], Better::Higher).is_none());
        assert!(Summary::from_samples(&[f64::NEG_INFINITY], Better::Lower).is_none());
    }

    #[test]
    fn aggregate_selects_field() {
        let s = Summary::from_samples(&[1.0, 2.0, 6.0], Better::Lower).unwrap();
        assert_eq!(s.aggregate(Aggregate::Mean), 3.0);
        assert_eq!(s.aggregate(Aggregate::Median), 2.0);
        assert_eq!(s.aggregate(Aggregate::Best), 1.0);
    }

    #[test]
    fn serde_round_trip() {
        let s = Summary::from_samples(&[1.0, 2.0, 3.5], Better::Higher).unwrap();
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"ci95_half_width\""));
        let back: Summary = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
    }
}

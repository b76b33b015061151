//! Shared first- and second-moment computation over a sample slice.
//!
//! Role: the one place that turns raw samples into count, mean, sample
//! variance and range, so [`Summary`](crate::Summary) and the hypothesis tests
//! agree exactly on these numbers. Invariants:
//! - Returns `None` for an empty slice or any non-finite sample, and also when
//!   a derived value would not be finite (e.g. the variance of samples near
//!   `f64::MAX` overflows), so callers never see NaN or infinity.
//! - `min <= mean <= max` holds exactly: rounding in the summation can push
//!   the mean an ulp outside the range, so it is clamped.
//! - `variance` uses the unbiased `n - 1` denominator and is `0` when `n < 2`.

/// Count, mean, unbiased variance and range of a non-empty finite sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Moments {
    pub n: usize,
    pub mean: f64,
    pub variance: f64,
    pub min: f64,
    pub max: f64,
}

/// Computes [`Moments`] with a two-pass algorithm (mean first, then squared
/// deviations), which avoids the cancellation of the one-pass
/// `sum(x^2) - n mean^2` formula when the spread is small relative to the mean
/// — the normal case for repeated benchmark runs.
pub(crate) fn moments(samples: &[f64]) -> Option<Moments> {
    if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let n = samples.len();
    let nf = n as f64;
    let (min, max) = samples
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    let mut mean = samples.iter().sum::<f64>() / nf;
    if !mean.is_finite() {
        // The plain sum overflowed; pre-scaling each term cannot.
        mean = samples.iter().map(|x| x / nf).sum::<f64>();
    }
    let mean = mean.clamp(min, max);
    let variance = if n < 2 {
        0.0
    } else {
        samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (nf - 1.0)
    };
    if !variance.is_finite() {
        return None;
    }
    Some(Moments {
        n,
        mean,
        variance,
        min,
        max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_values() {
        let m = moments(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(m.n, 5);
        assert_eq!(m.mean, 3.0);
        assert_eq!(m.variance, 2.5);
        assert_eq!((m.min, m.max), (1.0, 5.0));
    }

    #[test]
    fn single_sample_has_zero_variance() {
        let m = moments(&[7.5]).unwrap();
        assert_eq!((m.n, m.mean, m.variance), (1, 7.5, 0.0));
    }

    #[test]
    fn rejects_empty_and_non_finite() {
        assert!(moments(&[]).is_none());
        assert!(moments(&[1.0, f64::NAN]).is_none());
        assert!(moments(&[f64::INFINITY]).is_none());
    }

    #[test]
    fn large_values_do_not_overflow_the_mean() {
        let m = moments(&[f64::MAX, f64::MAX]).unwrap();
        assert_eq!(m.mean, f64::MAX);
        assert_eq!(m.variance, 0.0);
        // The spread itself overflows, so the moments are not representable.
        assert!(moments(&[f64::MAX, -f64::MAX]).is_none());
    }

    #[test]
    fn small_spread_on_large_offset_is_exact() {
        // One-pass formulas lose all digits here; two-pass does not.
        let m = moments(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0]).unwrap();
        assert_eq!(m.mean, 1e9 + 2.0);
        assert_eq!(m.variance, 1.0);
    }
}

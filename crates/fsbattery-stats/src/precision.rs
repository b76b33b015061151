//! Whether repeated samples pin their mean down well enough: the relative half-width of the
//! 95 % confidence interval of the mean, as `run --repeat auto` uses it to decide when to stop.
//!
//! Invariants: a relative half-width is `Some` only when it is finite — two or more finite
//! samples, and a non-zero mean unless there is no spread at all (identical zeros are exact,
//! `0 %`). Anything else is `None`, which callers treat as "not precise yet": a metric whose
//! precision cannot be stated never lets a run stop early.

use crate::{Better, Summary};

/// Half-width of the two-sided 95 % Student t interval for the mean, in percent of |mean|;
/// `None` when it cannot be stated (see the module header).
pub fn ci95_relative_pct(samples: &[f64]) -> Option<f64> {
    let s = Summary::from_samples(samples, Better::Lower)?;
    let h = s.ci95_half_width?;
    if h == 0.0 {
        return Some(0.0);
    }
    let pct = h / s.mean.abs() * 100.0;
    pct.is_finite().then_some(pct)
}

/// The least precise of several sample sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Widest {
    /// Index of the set in the slice given.
    pub index: usize,
    /// Its relative CI95 half-width in percent; `None` when it cannot be stated.
    pub half_width_pct: Option<f64>,
}

impl Widest {
    /// True when its half-width is known and within `precision_pct`.
    pub fn within(&self, precision_pct: f64) -> bool {
        self.half_width_pct.is_some_and(|w| w <= precision_pct)
    }
}

/// The set with the widest relative CI95 half-width (an unstated one counts as the widest;
/// the first of equals wins); `None` for no sets.
pub fn widest_ci95(sets: &[&[f64]]) -> Option<Widest> {
    let width = |w: Option<f64>| w.unwrap_or(f64::INFINITY);
    sets.iter()
        .enumerate()
        .map(|(index, s)| Widest {
            index,
            half_width_pct: ci95_relative_pct(s),
        })
        .reduce(|a, b| {
            if width(b.half_width_pct) > width(a.half_width_pct) {
                b
            } else {
                a
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_checked_relative_half_width() {
        // 1..5: half-width 1.963243161 around a mean of 3 (see summary's test).
        let pct = ci95_relative_pct(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert!((pct - 65.441_438_7).abs() < 1e-6, "{pct}");
        // Negative means are measured by their magnitude.
        let neg = ci95_relative_pct(&[-1.0, -2.0, -3.0, -4.0, -5.0]).unwrap();
        assert!((neg - pct).abs() < 1e-12);
    }

    #[test]
    fn degenerate_inputs_have_documented_answers() {
        assert_eq!(ci95_relative_pct(&[]), None);
        assert_eq!(
            ci95_relative_pct(&[7.0]),
            None,
            "one sample: no spread known"
        );
        assert_eq!(ci95_relative_pct(&[7.0, 7.0, 7.0]), Some(0.0));
        assert_eq!(ci95_relative_pct(&[0.0, 0.0]), Some(0.0), "exact zeros");
        assert_eq!(ci95_relative_pct(&[-1.0, 1.0]), None, "zero mean, spread");
        assert_eq!(ci95_relative_pct(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn widest_names_the_least_precise_set() {
        let quiet: &[f64] = &[100.0, 100.5, 99.5];
        let noisy: &[f64] = &[50.0, 150.0, 100.0];
        let w = widest_ci95(&[quiet, noisy, quiet]).unwrap();
        assert_eq!(w.index, 1);
        assert!(!w.within(3.0));
        let q = widest_ci95(&[quiet]).unwrap();
        assert!(q.within(3.0) && !q.within(0.1), "{q:?}");
        let unknown = widest_ci95(&[quiet, &[1.0]]).unwrap();
        assert_eq!((unknown.index, unknown.half_width_pct), (1, None));
        assert!(!unknown.within(f64::MAX));
        assert_eq!(widest_ci95(&[]), None);
    }

    proptest! {
        #[test]
        fn more_identical_spread_never_widens(x in 1.0f64..1e6, d in 0.0f64..0.5, n in 2usize..20) {
            // The same two values repeated: t shrinks and sqrt(n) grows, so precision improves.
            let set = |k: usize| -> Vec<f64> {
                (0..2 * k).map(|i| if i % 2 == 0 { x * (1.0 + d) } else { x * (1.0 - d) }).collect()
            };
            let a = ci95_relative_pct(&set(n)).unwrap();
            let b = ci95_relative_pct(&set(n + 1)).unwrap();
            prop_assert!(b <= a * (1.0 + 1e-12), "{a} then {b}");
            prop_assert!(a >= 0.0);
        }
    }
}

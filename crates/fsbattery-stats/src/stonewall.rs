//! One timed phase run by many processes at once, summed as IOR sums it.
//!
//! Every rank starts the phase after a common barrier and times itself until it is done.
//! The phase's aggregate is all ranks' work over the time from the first start to the last
//! end ("stonewall"): with a common start that span is the slowest rank's elapsed time. A
//! rate that each rank measured over its own elapsed time is turned back into an amount
//! (rate × elapsed) before it is summed, so a fast rank that finished early does not inflate
//! the aggregate (summing per-rank rates would). The spread between ranks is kept beside it:
//! min, max and the skew between the first and the last rank to finish.
//!
//! Invariants: inputs with a non-finite or negative value or elapsed time, or no ranks at all,
//! give `None`; nothing panics on user data.

/// How one rank's value of a metric combines with the others'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// A duration of the phase: the aggregate is the slowest rank's (the phase lasts until
    /// the last rank is done).
    Duration,
    /// Work per second: the aggregate is the sum of the ranks' amounts over the stonewall span.
    Rate,
    /// Anything else (CPU %, a size): the mean of the ranks.
    Mean,
}

/// One rank's part of a phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankPart {
    /// The rank's value of the metric.
    pub value: f64,
    /// The rank's own elapsed seconds, from the common start to its end.
    pub elapsed_s: f64,
}

/// The phase over all ranks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stonewall {
    /// The aggregate value (see [`Combine`]).
    pub value: f64,
    /// First start to last end, seconds.
    pub span_s: f64,
    /// Smallest per-rank value.
    pub min: f64,
    /// Largest per-rank value.
    pub max: f64,
    /// Seconds between the first and the last rank to finish.
    pub skew_s: f64,
}

/// Combine the ranks' parts of one phase.
pub fn stonewall(parts: &[RankPart], combine: Combine) -> Option<Stonewall> {
    let sane = |x: f64| x.is_finite() && x >= 0.0;
    if parts.is_empty() || parts.iter().any(|p| !sane(p.value) || !sane(p.elapsed_s)) {
        return None;
    }
    let fold = |f: fn(f64, f64) -> f64, init: f64, g: fn(&RankPart) -> f64| {
        parts.iter().map(g).fold(init, f)
    };
    let span_s = fold(f64::max, 0.0, |p| p.elapsed_s);
    let first_end = fold(f64::min, f64::INFINITY, |p| p.elapsed_s);
    let value = match combine {
        Combine::Duration => fold(f64::max, 0.0, |p| p.value),
        Combine::Rate if span_s > 0.0 => {
            parts.iter().map(|p| p.value * p.elapsed_s).sum::<f64>() / span_s
        }
        // A phase too short to time: the ranks' rates are all there is.
        Combine::Rate => parts.iter().map(|p| p.value).sum(),
        Combine::Mean => parts.iter().map(|p| p.value).sum::<f64>() / parts.len() as f64,
    };
    Some(Stonewall {
        value,
        span_s,
        min: fold(f64::min, f64::INFINITY, |p| p.value),
        max: fold(f64::max, f64::NEG_INFINITY, |p| p.value),
        skew_s: span_s - first_end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(value: f64, elapsed_s: f64) -> RankPart {
        RankPart { value, elapsed_s }
    }

    #[test]
    fn rates_are_summed_as_amounts_over_the_slowest_rank() {
        // Rank 0 did 100 ops in 1 s, rank 1 did 100 ops in 2 s: 200 ops in 2 s = 100 ops/s,
        // not the 150 ops/s a sum of per-rank rates would claim.
        let s = stonewall(&[part(100.0, 1.0), part(50.0, 2.0)], Combine::Rate).unwrap();
        assert_eq!(s.value, 100.0);
        assert_eq!(s.span_s, 2.0);
        assert_eq!((s.min, s.max), (50.0, 100.0));
        assert_eq!(s.skew_s, 1.0);
    }

    #[test]
    fn a_duration_lasts_until_the_last_rank_is_done() {
        let s = stonewall(&[part(1.5, 1.5), part(2.5, 2.5)], Combine::Duration).unwrap();
        assert_eq!(s.value, 2.5);
        assert_eq!(s.skew_s, 1.0);
    }

    #[test]
    fn equal_ranks_sum_exactly() {
        let parts = vec![part(1000.0, 3.0); 4];
        let s = stonewall(&parts, Combine::Rate).unwrap();
        assert_eq!(s.value, 4000.0);
        assert_eq!(s.skew_s, 0.0);
        assert_eq!(stonewall(&parts, Combine::Mean).unwrap().value, 1000.0);
    }

    #[test]
    fn a_single_rank_is_itself() {
        for c in [Combine::Rate, Combine::Duration, Combine::Mean] {
            assert_eq!(stonewall(&[part(7.0, 2.0)], c).unwrap().value, 7.0);
        }
    }

    #[test]
    fn degenerate_input_has_no_aggregate() {
        assert!(stonewall(&[], Combine::Rate).is_none());
        assert!(stonewall(&[part(f64::NAN, 1.0)], Combine::Rate).is_none());
        assert!(stonewall(&[part(1.0, -1.0)], Combine::Rate).is_none());
        // Untimeable phase: the rates themselves are summed.
        assert_eq!(
            stonewall(&[part(5.0, 0.0), part(6.0, 0.0)], Combine::Rate)
                .unwrap()
                .value,
            11.0
        );
    }
}

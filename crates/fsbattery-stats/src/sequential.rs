//! Stopping early without spending the verdict's α: the Haybittle–Peto rule.
//!
//! Adaptive repeats look at a row after every round and stop its cells once it is decided.
//! Were each look a test at the verdict's α, the looks would add up: with two truly equal
//! targets, a winner would be declared in about a quarter of rows by the 30th repeat, not
//! in 5 % (measured by the test below with the real [`decided`](crate::decided): 0.20–0.25 at
//! a noise of 5–20 %). Haybittle and Peto's rule keeps α whole for the final look: an
//! interim look stops only at p < [`INTERIM_ALPHA`] (winner, worse or equivalent alike), and
//! the final look — the report's verdict over all the samples, when the maximum or the budget
//! ends the repeats — tests at α. The overall rate stays near α (the test: ≤ 0.075 over 400 seeded pairs).
//! Chosen over an α-spending function (Lan–DeMets) because the number of looks is not known in
//! advance (the budget ends them) and the rule needs no schedule of them.

/// The level an interim look tests at (Haybittle 1971, Peto et al. 1976).
pub const INTERIM_ALPHA: f64 = 0.001;

/// The level a look tests at: `alpha` at the final look, [`INTERIM_ALPHA`] (or `alpha`
/// when smaller) before it.
pub fn look_alpha(alpha: f64, final_look: bool) -> f64 {
    if final_look {
        alpha
    } else {
        INTERIM_ALPHA.min(alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decided, Better, Contestant};

    /// A normal deviate (Box–Muller), so the test needs no distribution crate.
    fn normal(rng: &mut fastrand::Rng) -> f64 {
        let (u, v) = (rng.f64().max(f64::EPSILON), rng.f64());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    fn contestant(v: &[f64]) -> Option<Contestant<'_>> {
        Some(Contestant {
            value: v.iter().sum::<f64>() / v.len() as f64,
            samples: v,
            rounds: None,
        })
    }

    /// Share of `trials` pairs of equal targets (log-normal noise `sigma`) that end with a
    /// winner when repeats run 3..=30 and each look tests at `look(n)`.
    fn false_winners(sigma: f64, trials: usize, look: impl Fn(usize) -> f64) -> f64 {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut wins = 0;
        for _ in 0..trials {
            let draw = |rng: &mut fastrand::Rng| -> Vec<f64> {
                (0..30).map(|_| (sigma * normal(rng)).exp()).collect()
            };
            let (a, b) = (draw(&mut rng), draw(&mut rng));
            for n in 3..=30 {
                let cells = [contestant(&a[..n]), contestant(&b[..n])];
                let d = decided(&cells, Better::Lower, look(n), 5.0);
                if d.iter().all(|&x| x) {
                    // Both placed: a winner unless the row is equivalent.
                    let row = crate::decide_row(&cells, Better::Lower, look(n), 5.0);
                    if matches!(row.decision, crate::Decision::Winner { .. }) {
                        wins += 1;
                    }
                    break;
                }
            }
        }
        wins as f64 / trials as f64
    }

    #[test]
    fn looking_every_round_at_alpha_inflates_false_winners_and_the_rule_does_not() {
        for sigma in [0.05, 0.1, 0.2] {
            let naive = false_winners(sigma, 400, |_| 0.05);
            let rule = false_winners(sigma, 400, |n| look_alpha(0.05, n == 30));
            eprintln!("sigma {sigma}: false winners {naive} looking at α, {rule} by the rule");
            assert!(naive > 0.12, "sigma {sigma}: naive {naive}");
            assert!(rule <= 0.075, "sigma {sigma}: Haybittle–Peto {rule}");
        }
    }

    #[test]
    fn the_final_look_keeps_alpha() {
        assert_eq!(look_alpha(0.05, true), 0.05);
        assert_eq!(look_alpha(0.05, false), INTERIM_ALPHA);
        assert_eq!(look_alpha(0.0001, false), 0.0001);
    }
}

//! How a tune spends its budget: the sizes of the screen and the race from the time one
//! configuration costs, with the rest left to the verification's adaptive repeats.
//!
//! The split (half to the screen, a quarter to the race, the rest to verifying) follows what
//! each phase decides: the screen answers which options matter, for every option at once, so
//! it gets the most; the race only separates a few candidates; the verification repeats the
//! winner against the defaults until the difference is significant or the time is gone.

/// Repeats of each configuration in the screen (two give the residual its pure-error part).
pub const SCREEN_REPEATS: u32 = 2;
/// Repeats added to each surviving candidate per race round.
pub const RACE_REPEATS: u32 = 2;
/// Candidates raced per filesystem.
pub const RACE_CANDIDATES: usize = 4;
/// Most race rounds.
pub const RACE_ROUNDS: usize = 4;

/// The most of the budget the smallest screen may take.
const MAX_SCREEN_SHARE: f64 = 0.9;

/// What one configuration costs, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    /// One repeat of every workload, mkfs and mount included.
    pub repeat: f64,
    /// The trial make-and-mount `run` does once per target with options.
    pub trial: f64,
}

impl Cost {
    /// Seconds of `configs` configurations × `repeats` in one run.
    pub fn phase(&self, configs: usize, repeats: u32) -> f64 {
        configs as f64 * (self.trial + f64::from(repeats) * self.repeat)
    }
}

/// The plan of one tune.
#[derive(Debug, Clone, PartialEq)]
pub struct Sizes {
    /// Screen configurations per filesystem (defaults included).
    pub screen: Vec<usize>,
    /// Race rounds.
    pub rounds: usize,
    /// Seconds left for verification.
    pub verify_secs: f64,
}

/// Sizes for filesystems whose main-effects models have `columns` columns each, within
/// `budget` seconds at `cost`; `max_configs` caps each screen (the valid configurations).
/// `Err` says how much budget the smallest screen needs.
pub fn sizes(
    columns: &[usize],
    max_configs: &[usize],
    cost: Cost,
    budget: f64,
) -> Result<Sizes, f64> {
    // The smallest screen: one configuration more than the model has columns; with every
    // configuration measured twice the residual then has p + 2 degrees of freedom.
    let min: Vec<usize> = columns
        .iter()
        .zip(max_configs)
        .map(|(&p, &m)| (p + 3).min(m))
        .collect();
    let min_secs = cost.phase(min.iter().sum(), SCREEN_REPEATS);
    // A screen may take up to 90 % when that is what the smallest one needs: the race and the
    // follow-ups are the phases a small budget can do without, and the verification's
    // adaptive repeats start at 3 (what is left is about a dozen configuration repeats).
    if min_secs > MAX_SCREEN_SHARE * budget {
        return Err(min_secs / MAX_SCREEN_SHARE);
    }
    let per_fs = 0.5 * budget / columns.len() as f64;
    let round = cost.phase(RACE_CANDIDATES * columns.len(), RACE_REPEATS);
    let screen: Vec<usize> = columns
        .iter()
        .zip(&min)
        .zip(max_configs)
        .map(|((&p, &lo), &m)| {
            let afford = (per_fs / cost.phase(1, SCREEN_REPEATS)) as usize;
            afford.clamp(lo, (3 * p).max(lo)).min(m)
        })
        .collect();
    let screen_secs = cost.phase(screen.iter().sum(), SCREEN_REPEATS);
    let race = (0.25 * budget).min(0.5 * (budget - screen_secs)).max(0.0);
    let rounds = ((race / round) as usize).min(RACE_ROUNDS);
    let verify_secs = budget - screen_secs - rounds as f64 * round;
    Ok(Sizes {
        screen,
        rounds,
        verify_secs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const COST: Cost = Cost {
        repeat: 2.0,
        trial: 0.5,
    };

    #[test]
    fn the_plan_fits_the_budget() {
        let s = sizes(&[12, 14], &[1000, 1000], COST, 600.0).unwrap();
        let spent = COST.phase(s.screen.iter().sum(), SCREEN_REPEATS)
            + s.rounds as f64 * COST.phase(8, RACE_REPEATS)
            + s.verify_secs;
        assert!((spent - 600.0).abs() < 1e-9 && s.verify_secs > 0.0, "{s:?}");
        assert!(s.screen.iter().zip([12, 14]).all(|(&n, p)| n > p));
    }

    #[test]
    fn small_spaces_are_screened_whole_and_a_tiny_budget_is_refused() {
        let s = sizes(&[3], &[4], COST, 600.0).unwrap();
        assert_eq!(s.screen, vec![4]);
        let need = sizes(&[12], &[1000], COST, 30.0).unwrap_err();
        assert!(need > 30.0);
    }
}

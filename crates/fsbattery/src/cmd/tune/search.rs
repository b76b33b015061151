//! One filesystem's search: its option space, the screen's configurations and what was
//! measured of each, the effects, the race's candidates and its winner.
//!
//! The statistics are `fsbattery_stats::tune`'s; this module only keeps the books between
//! phases (which configuration is which spec, which samples belong to which configuration).

use super::budget::RACE_CANDIDATES;
use fsbattery_core::tune::OptionSpace;
use fsbattery_stats::tune::{
    estimate, fill_distinct, full_factorial, judge, latin_hypercube, leader, race_futile, select,
    survivors_blocked, Config, Entrant, Factor, Observation, OptionEffect, Selection, Verdict,
};
use std::collections::BTreeMap;

/// The books of one filesystem's tune.
pub struct FsSearch {
    /// The target as given (`loop:ext4,size=1G`).
    pub target: String,
    /// Spec options given with it (`size=1G`), kept in every configuration.
    pub extra: String,
    /// The space searched (narrowed and probed).
    pub space: OptionSpace,
    /// Log-objective samples by configuration, every phase together.
    pub samples: BTreeMap<Config, Vec<f64>>,
    /// Parallel to `samples`: the block of each sample, [`ROUNDS_PER_PHASE`] × the phase's
    /// number in `phases` + its repeat (the phase's interleaved round, shared by every
    /// configuration of the phase).
    pub blocks: BTreeMap<Config, Vec<u32>>,
    /// The phases whose samples were taken, in order (their directories' names).
    pub phases: Vec<String>,
    /// The race ended because no further round could change it ([`race_futile`]).
    pub race_over: bool,
    /// The screen's configurations.
    pub design: Vec<Config>,
    /// The screen's effects (None until screened, or when the model could not be fitted).
    pub effects: Option<Vec<OptionEffect>>,
    /// Per option, its verdict from `effects` (None for an option with one level, or before
    /// the screen).
    pub verdicts: Vec<Option<Verdict>>,
    /// Race candidates and which are still in.
    pub candidates: Vec<Config>,
    /// Parallel to `candidates`.
    pub alive: Vec<bool>,
    /// The candidate's samples in the verification (empty when it did not run).
    pub verified: Vec<f64>,
    /// The defaults' samples in the verification (empty when the candidate is the defaults).
    pub verified_defaults: Vec<f64>,
    /// The changes from the defaults the effects support, each with its reason (None until
    /// screened, or when the model could not be fitted).
    pub selection: Option<Selection>,
}

impl FsSearch {
    /// A search of `space` for `target`.
    pub fn new(target: &str, space: OptionSpace) -> FsSearch {
        let extra = target.split_once(',').map_or("", |(_, e)| e).to_string();
        FsSearch {
            target: target.to_string(),
            extra,
            space,
            samples: BTreeMap::new(),
            blocks: BTreeMap::new(),
            phases: Vec::new(),
            race_over: false,
            design: Vec::new(),
            effects: None,
            verdicts: Vec::new(),
            candidates: Vec::new(),
            alive: Vec::new(),
            verified: Vec::new(),
            verified_defaults: Vec::new(),
            selection: None,
        }
    }

    /// The options as design factors.
    pub fn factors(&self) -> Vec<Factor> {
        self.space
            .options
            .iter()
            .map(|o| Factor {
                levels: o.values.len(),
                default: o.default_level(),
            })
            .collect()
    }

    /// Columns of the main-effects model.
    pub fn columns(&self) -> usize {
        1 + self.factors().iter().map(|f| f.levels - 1).sum::<usize>()
    }

    /// Valid configurations, counted up to `cap`.
    pub fn valid_configs(&self, cap: usize) -> usize {
        let total: usize = self.factors().iter().map(|f| f.levels).product();
        if total > cap {
            return cap;
        }
        full_factorial(&self.factors(), &|c| self.space.broken_rule(c).is_none()).len()
    }

    /// The spec of `config`.
    pub fn spec(&self, config: &[usize]) -> String {
        self.space.spec(config, &self.extra)
    }

    /// Lay out a screen of `runs` configurations (all valid ones when that is fewer).
    pub fn plan_screen(&mut self, runs: usize, seed: u64) {
        let space = &self.space;
        let valid = |c: &[usize]| space.broken_rule(c).is_none();
        let (factors, all) = (self.factors(), self.valid_configs(runs + 1));
        let mut design = if all <= runs {
            full_factorial(&factors, &valid)
        } else {
            latin_hypercube(&factors, runs, seed, &valid)
        };
        fill_distinct(&mut design, &factors, runs.min(all), seed, &valid);
        self.design = design;
    }

    /// Take the samples (by spec, each with its repeat) of phase `phase` for the
    /// configurations of this search.
    pub fn take(
        &mut self,
        phase: &str,
        by_spec: &BTreeMap<String, Vec<(u32, f64)>>,
        configs: &[Config],
    ) {
        let number = match self.phases.iter().position(|p| p == phase) {
            Some(n) => n,
            None => {
                self.phases.push(phase.to_string());
                self.phases.len() - 1
            }
        } as u32;
        for c in configs {
            if let Some(v) = by_spec.get(&self.spec(c)).filter(|v| !v.is_empty()) {
                let blocks = v.iter().map(|(r, _)| number * ROUNDS_PER_PHASE + r);
                self.samples
                    .entry(c.clone())
                    .or_default()
                    .extend(v.iter().map(|(_, x)| x));
                self.blocks.entry(c.clone()).or_default().extend(blocks);
            }
        }
    }

    /// The blocks of `config`'s samples, when every one is known.
    fn blocks_of(&self, config: &Config) -> Option<&[u32]> {
        let b = self.blocks.get(config)?;
        (b.len() == self.samples.get(config).map_or(0, Vec::len)).then_some(b.as_slice())
    }

    /// Effects and verdicts from every sample so far (at `alpha`, margin ±`margin` %).
    pub fn estimate(&mut self, alpha: f64, margin: f64) {
        let obs: Vec<Observation> = self
            .samples
            .iter()
            .flat_map(|(c, v)| {
                let blocks = self.blocks_of(c);
                v.iter().enumerate().map(move |(i, &value)| Observation {
                    config: c.clone(),
                    value,
                    block: blocks.map(|b| b[i]),
                })
            })
            .collect();
        self.effects = estimate(&self.factors(), &obs, alpha);
        let factors = self.factors();
        self.verdicts = factors
            .iter()
            .enumerate()
            .map(|(j, f)| {
                if f.levels < 2 {
                    return None;
                }
                let e = self.effects.as_ref().map(|fx| &fx[j]);
                Some(e.map_or(Verdict::Unresolved { grow: None }, |e| {
                    judge(f, e, alpha, margin)
                }))
            })
            .collect();
    }

    /// [`Self::estimate`], then the changes the effects support and the race's candidates:
    /// that configuration and the best measured ones, each with the options shown
    /// negligible put back to their defaults (a later phase does not spend repeats on them).
    pub fn analyse(&mut self, alpha: f64, margin: f64) {
        self.estimate(alpha, margin);
        let mut cands: Vec<Config> = Vec::new();
        if let Some(fx) = &self.effects {
            let broken = |c: &[usize]| self.space.broken_rule(c).map(str::to_string);
            let selection = select(&self.factors(), fx, alpha, &broken);
            cands.push(selection.config.clone());
            self.selection = Some(selection);
        }
        let mut measured: Vec<(&Config, f64)> =
            self.samples.iter().map(|(c, v)| (c, mean(v))).collect();
        measured.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (c, _) in measured {
            let c = self.without_negligible(c);
            if cands.len() < RACE_CANDIDATES && !cands.contains(&c) {
                cands.push(c);
            }
        }
        self.alive = vec![true; cands.len()];
        self.candidates = cands;
    }

    /// `config` with every option shown negligible at its default.
    fn without_negligible(&self, config: &[usize]) -> Config {
        let defaults = self.space.defaults();
        let mut c = config.to_vec();
        for (j, v) in self.verdicts.iter().enumerate() {
            if *v == Some(Verdict::Negligible) {
                c[j] = defaults[j];
            }
        }
        if self.space.broken_rule(&c).is_some() {
            return config.to_vec();
        }
        c
    }

    /// The options not resolved yet (indices), every searched one before the screen.
    pub fn unresolved(&self) -> Vec<usize> {
        self.verdicts
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_some_and(|v| !v.resolved()))
            .map(|(j, _)| j)
            .collect()
    }

    /// Mean repeats per measured configuration so far.
    pub fn repeats_per_config(&self) -> f64 {
        let n: usize = self.samples.values().map(Vec::len).sum();
        n as f64 / self.samples.len().max(1) as f64
    }

    /// A follow-up design of `runs` configurations varying only the unresolved options, the
    /// others at their defaults (valid ones only); empty when nothing is unresolved.
    pub fn follow_up(&self, runs: usize, seed: u64) -> Vec<Config> {
        let open = self.unresolved();
        if open.is_empty() {
            return Vec::new();
        }
        let defaults = self.space.defaults();
        let factors: Vec<Factor> = self
            .factors()
            .into_iter()
            .enumerate()
            .map(|(j, f)| {
                if open.contains(&j) {
                    f
                } else {
                    Factor {
                        levels: 1,
                        default: 0,
                    }
                }
            })
            .collect();
        let real = |c: &[usize]| -> Config {
            c.iter()
                .enumerate()
                .map(|(j, &l)| if open.contains(&j) { l } else { defaults[j] })
                .collect()
        };
        let valid = |c: &[usize]| self.space.broken_rule(&real(c)).is_none();
        let mut seen = std::collections::BTreeSet::new();
        latin_hypercube(&factors, runs.max(2), seed, &valid)
            .iter()
            .map(|c| real(c))
            .filter(|c| seen.insert(c.clone()))
            .collect()
    }

    /// Specs of the candidates still racing (none once one is left, or once the race is
    /// futile).
    pub fn racing(&self) -> Vec<Config> {
        if self.race_over || self.alive.iter().filter(|&&a| a).count() < 2 {
            return Vec::new();
        }
        self.candidates
            .iter()
            .zip(&self.alive)
            .filter(|(_, &a)| a)
            .map(|(c, _)| c.clone())
            .collect()
    }

    /// After a round: drop the candidates the leader significantly beats (round by round
    /// where they shared rounds); then end the race when no round more could change it with
    /// `rounds_left` rounds of `per_round` repeats still affordable.
    pub fn judge(&mut self, alpha: f64, rounds_left: usize, per_round: usize) {
        let empty: &[f64] = &[];
        let entrants: Vec<Entrant<'_>> = self
            .candidates
            .iter()
            .map(|c| Entrant {
                samples: self.samples.get(c).map_or(empty, Vec::as_slice),
                rounds: self.blocks_of(c),
            })
            .collect();
        let alive = survivors_blocked(&entrants, &self.alive, alpha, RACE_MARGIN_PCT);
        let made = entrants.iter().map(|e| e.samples.len()).max().unwrap_or(0);
        let affordable = made + rounds_left * per_round;
        let futile = race_futile(&entrants, &alive, alpha, RACE_MARGIN_PCT, affordable);
        self.alive = alive;
        self.race_over |= futile;
    }

    /// The configuration verified against the defaults: the defaults changed only where the
    /// screen found an option significantly better ([`select`]); the defaults when the
    /// effects could not be estimated.
    pub fn candidate(&self) -> Config {
        self.selection
            .as_ref()
            .map_or_else(|| self.space.defaults(), |s| s.config.clone())
    }

    /// Whether the race dropped the candidate: a configuration it measured was
    /// significantly better (an interaction, or an effect the screen could not resolve).
    pub fn race_beat_candidate(&self) -> bool {
        self.selection.is_some() && self.alive.first() == Some(&false)
    }

    /// The race's winner (the defaults when nothing was measured).
    pub fn best(&self) -> Config {
        let s: Vec<Vec<f64>> = self
            .candidates
            .iter()
            .map(|c| self.samples.get(c).cloned().unwrap_or_default())
            .collect();
        leader(&s, &self.alive)
            .map_or_else(|| self.space.defaults(), |i| self.candidates[i].clone())
    }
}

/// Repeats a phase may have at most: blocks of different phases never meet.
pub const ROUNDS_PER_PHASE: u32 = 1000;

/// The race's equivalence margin (±%), as it always was.
const RACE_MARGIN_PCT: f64 = 2.0;

/// Mean of a non-empty slice (NaN for an empty one, which sorts last).
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follow_up_varies_only_the_options_still_open() {
        let mut space = fsbattery_core::tune::space("ext4").unwrap();
        let only = ["data", "atime", "lazytime"].map(String::from);
        space.narrow(&only, &[], false).unwrap();
        let mut s = FsSearch::new("loop:ext4", space);
        let at = |n: &str| s.space.options.iter().position(|o| o.name == n).unwrap();
        let (data, atime, lazy) = (at("data"), at("atime"), at("lazytime"));
        s.verdicts = vec![None; 3];
        s.verdicts[data] = Some(Verdict::Matters);
        s.verdicts[atime] = Some(Verdict::Negligible);
        s.verdicts[lazy] = Some(Verdict::Unresolved { grow: Some(3.0) });
        assert_eq!(s.unresolved(), vec![lazy]);
        let d = s.follow_up(8, 1);
        let defaults = s.space.defaults();
        assert!(d
            .iter()
            .all(|c| c[data] == defaults[data] && c[atime] == defaults[atime]));
        let mut levels: Vec<usize> = d.iter().map(|c| c[lazy]).collect();
        levels.sort_unstable();
        levels.dedup();
        assert_eq!(levels, vec![0, 1], "both levels of the open option: {d:?}");
        // Nothing open: no follow-up.
        s.verdicts[lazy] = Some(Verdict::Negligible);
        assert!(s.follow_up(8, 1).is_empty());
        // A negligible option goes back to its default in a race candidate.
        let mut c = defaults.clone();
        c[atime] = 1;
        c[data] = 1;
        let back = s.without_negligible(&c);
        assert_eq!((back[atime], back[data]), (defaults[atime], 1));
    }
}

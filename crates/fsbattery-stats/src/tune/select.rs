//! The configuration a tune recommends: the filesystem's defaults, changed only where the
//! screen found an option's level significantly better than its default.
//!
//! Role: the answer a user acts on. A race's best measured configuration also carries the
//! levels its options happened to have in the design — options that, by the screen's own
//! estimate, do not matter — and a `mkfs`/`mount` line built from it would ask the user to
//! change things (and take risks, `^has_journal`) for nothing shown. So a recommendation is
//! built from the effects instead: every change in it has a reason, its significant effect
//! (Holm-adjusted over every level of every option) with CI and p.
//!
//! - Per option, the level with the largest effect among those significantly *better* than
//!   the default (effect > 0 on a higher-is-better response); an option whose only
//!   significant levels are worse keeps its default (it matters: that is why it stays).
//! - Changes are added largest effect first; one that makes an invalid combination with the
//!   changes already taken (`data=journal` needs a journal) is left out with the rule's
//!   reason, so a conflict is settled for the larger effect.
//!
//! Invariants: options not significant keep their default; the result passes `broken`; the
//! same effects give the same selection.

use super::design::{Config, Factor};
use super::effects::{LevelEffect, OptionEffect};

/// One change from the defaults and why it is there.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The option's index.
    pub factor: usize,
    /// Its effect (level, effect, CI, p): significantly better than the default.
    pub effect: LevelEffect,
}

/// A significantly better level left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// The option's index.
    pub factor: usize,
    /// Its effect.
    pub effect: LevelEffect,
    /// The invalid combination it would have made.
    pub why: String,
}

/// What a tune recommends for one filesystem.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The defaults with `changes` applied.
    pub config: Config,
    /// Each change from the defaults with its reason, largest effect first.
    pub changes: Vec<Change>,
    /// Better levels that could not be combined with larger changes.
    pub left_out: Vec<LeftOut>,
}

/// The recommended configuration from `effects` at significance `alpha`; `broken` names the
/// rule a configuration breaks (None when it is valid).
pub fn select(
    factors: &[Factor],
    effects: &[OptionEffect],
    alpha: f64,
    broken: &dyn Fn(&[usize]) -> Option<String>,
) -> Selection {
    let mut wanted: Vec<Change> = effects
        .iter()
        .filter_map(|e| {
            e.levels
                .iter()
                .filter(|l| l.p_holm < alpha && l.effect > 0.0)
                .max_by(|a, b| a.effect.total_cmp(&b.effect))
                .map(|l| Change {
                    factor: e.factor,
                    effect: *l,
                })
        })
        .collect();
    wanted.sort_by(|a, b| b.effect.effect.total_cmp(&a.effect.effect));
    let mut config: Config = factors.iter().map(|f| f.default).collect();
    let (mut changes, mut left_out) = (Vec::new(), Vec::new());
    for c in wanted {
        let mut next = config.clone();
        next[c.factor] = c.effect.level;
        match broken(&next) {
            None => {
                config = next;
                changes.push(c);
            }
            Some(why) => left_out.push(LeftOut {
                factor: c.factor,
                effect: c.effect,
                why,
            }),
        }
    }
    Selection {
        config,
        changes,
        left_out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(level: usize, effect: f64, p_holm: f64) -> LevelEffect {
        LevelEffect {
            level,
            effect,
            ci: (effect - 0.05, effect + 0.05),
            conf: 0.95,
            se: 0.02,
            df: 10.0,
            p: p_holm,
            p_holm,
        }
    }

    fn option(factor: usize, levels: Vec<LevelEffect>) -> OptionEffect {
        OptionEffect {
            factor,
            significant: levels.iter().any(|l| l.p_holm < 0.05),
            levels,
            importance: 0.0,
        }
    }

    const FACTORS: [Factor; 4] = [
        Factor {
            levels: 3,
            default: 0,
        },
        Factor {
            levels: 2,
            default: 0,
        },
        Factor {
            levels: 2,
            default: 1,
        },
        Factor {
            levels: 2,
            default: 0,
        },
    ];

    #[test]
    fn only_significantly_better_levels_change_and_each_says_why() {
        let fx = vec![
            // Level 2 better, level 1 better still but not significant: level 2 is taken.
            option(0, vec![level(1, 0.4, 0.2), level(2, 0.3, 0.001)]),
            // Significantly worse: the default stays.
            option(1, vec![level(1, -0.5, 0.0001)]),
            // A large estimate without significance: not taken (the README's ^has_journal).
            option(2, vec![level(0, 0.2, 0.3)]),
            option(3, vec![level(1, 0.1, 0.01)]),
        ];
        let s = select(&FACTORS, &fx, 0.05, &|_| None);
        assert_eq!(s.config, vec![2, 0, 1, 1]);
        let why: Vec<(usize, usize)> = s
            .changes
            .iter()
            .map(|c| (c.factor, c.effect.level))
            .collect();
        assert_eq!(why, vec![(0, 2), (3, 1)], "largest effect first");
        assert!(s.left_out.is_empty());
    }

    #[test]
    fn a_conflict_is_settled_for_the_larger_effect_with_the_rules_reason() {
        let fx = vec![
            option(0, vec![level(1, 0.1, 0.01)]),
            option(1, vec![]),
            option(2, vec![]),
            option(3, vec![level(1, 0.3, 0.001)]),
        ];
        let broken = |c: &[usize]| (c[0] == 1 && c[3] == 1).then(|| "a needs no d".to_string());
        let s = select(&FACTORS, &fx, 0.05, &broken);
        assert_eq!(s.config, vec![0, 0, 1, 1]);
        assert_eq!(s.left_out.len(), 1);
        assert_eq!(
            (s.left_out[0].factor, s.left_out[0].why.as_str()),
            (0, "a needs no d")
        );
    }

    #[test]
    fn nothing_significant_recommends_the_defaults() {
        let fx = vec![
            option(0, vec![level(1, 0.4, 0.06), level(2, -0.1, 0.5)]),
            option(1, vec![level(1, 0.2, 0.9)]),
            option(2, vec![]),
            option(3, vec![]),
        ];
        let s = select(&FACTORS, &fx, 0.05, &|_| None);
        assert_eq!(s.config, vec![0, 0, 1, 0]);
        assert!(s.changes.is_empty());
    }
}

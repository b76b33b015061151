//! Each option's main effect with its confidence interval and significance, and its
//! importance as a share of the variance.
//!
//! Role: turns the screen's samples into the tune's first answer. The response is any
//! higher-is-better number; the tune passes the log of the objective, so an effect `e` is a
//! factor `exp(e)` on the objective.
//!
//! - **Effects**: a main-effects model fitted by least squares to every sample, each level
//!   coded against the option's default (treatment coding), so a level's coefficient is its
//!   effect over the default with the others held fixed. Its p-value is Student's t on the
//!   residual variance; the p-values of every level of every option form one family,
//!   adjusted by Holm ([`crate::holm`]), so a screen of many options that matter nothing calls
//!   none significant with probability ≥ 1 − α.
//! - **Intervals** are Holm-consistent: a level Holm rejects at step `r` (0-based, of `m`)
//!   gets the `1 − α/(m − r)` interval its step tested, every level it does not reject the
//!   `1 − α/(m − k)` interval of the step where it stopped (`k` rejected). So an interval
//!   excludes 0 exactly when the level is significant — a printed interval never contradicts
//!   the verdict — and the intervals of the levels not rejected are simultaneous at `1 − α`
//!   (Bonferroni over the `m − k` left), which is what a claim of "no effect beyond ±X %"
//!   over several of them needs.
//! - **Importance**: Carver's (FAST '20) variance-based metric, the variance reduction from
//!   splitting the samples by the option's level, `Var(y) − Σ_v (n_v/n) Var(y | level v)`,
//!   as a share of `Var(y)`: how much of what was measured the option alone explains. Carver
//!   conditions greedily on the options already chosen, because in a small sample an option
//!   that does nothing picks up the effect of a strong one whose levels happen to line up with
//!   its own; here the split is made on the partial residuals (the samples with every other
//!   option's fitted effect taken out), which removes that alignment for all options at once.
//!
//! - **Blocks**: when every sample names the interleaved round it was measured in (every
//!   configuration of a phase is measured once per round, so a round is a block), the model
//!   has one more column per round beyond the first: drift that moves a whole round is
//!   taken out of the residual instead of counting as noise. Rounds that would leave the
//!   model no residual degree of freedom are not blocked (the independent model, as before).
//!
//! Invariants: `None` when the model cannot be fitted (too few samples for its columns, or
//! levels aliased with each other); levels the design never measured have no effect rather
//! than a guess.

use super::design::Factor;
use super::lsq;
use crate::{holm, student_t_quantile, student_t_sf};

/// One measured sample: the configuration (level per factor) and the response.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Level index per factor.
    pub config: Vec<usize>,
    /// The response, higher is better.
    pub value: f64,
    /// The block (interleaved round of one phase) it was measured in; `None`: unknown.
    pub block: Option<u32>,
}

/// One level's effect over its option's default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelEffect {
    /// The level's index.
    pub level: usize,
    /// Estimated effect over the default level.
    pub effect: f64,
    /// Its Holm-consistent confidence interval (see the module's header): it excludes 0
    /// exactly when `p_holm < α`.
    pub ci: (f64, f64),
    /// The interval's confidence level (`1 − α/(m − r)` at Holm's step `r`).
    pub conf: f64,
    /// Standard error of `effect` (residual degrees of freedom `df`).
    pub se: f64,
    /// The residual degrees of freedom the interval's quantile used.
    pub df: f64,
    /// Two-sided p-value, raw.
    pub p: f64,
    /// Holm-adjusted over every level of every option.
    pub p_holm: f64,
}

/// What one option does to the response.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionEffect {
    /// The factor's index.
    pub factor: usize,
    /// Every measured non-default level.
    pub levels: Vec<LevelEffect>,
    /// Whether any level differs significantly from the default (Holm-adjusted, at α).
    pub significant: bool,
    /// Carver's variance reduction as a share of the total variance, in `[0, 1]`.
    pub importance: f64,
}

impl OptionEffect {
    /// The level to report: the largest |effect| among significant levels, else among all.
    pub fn headline(&self, alpha: f64) -> Option<&LevelEffect> {
        let by_size =
            |a: &&LevelEffect, b: &&LevelEffect| a.effect.abs().total_cmp(&b.effect.abs());
        self.levels
            .iter()
            .filter(|l| l.p_holm < alpha)
            .max_by(by_size)
            .or_else(|| self.levels.iter().max_by(by_size))
    }
}

/// Effects of every factor at significance level `alpha` (Holm-consistent CIs).
pub fn estimate(factors: &[Factor], obs: &[Observation], alpha: f64) -> Option<Vec<OptionEffect>> {
    // Columns: intercept, then (factor, level) for every measured non-default level.
    let mut cols: Vec<(usize, usize)> = Vec::new();
    for (j, f) in factors.iter().enumerate() {
        for level in (0..f.levels).filter(|&l| l != f.default) {
            if obs.iter().any(|o| o.config[j] == level) {
                cols.push((j, level));
            }
        }
    }
    let blocks = block_columns(obs, 1 + cols.len());
    let x: Vec<Vec<f64>> = obs
        .iter()
        .map(|o| {
            std::iter::once(1.0)
                .chain(
                    cols.iter()
                        .map(|&(j, l)| f64::from(u8::from(o.config[j] == l))),
                )
                .chain(
                    blocks
                        .iter()
                        .map(|&b| f64::from(u8::from(o.block == Some(b)))),
                )
                .collect()
        })
        .collect();
    let y: Vec<f64> = obs.iter().map(|o| o.value).collect();
    let fit = lsq::fit(&x, &y)?;
    let mut raw: Vec<LevelEffect> = cols
        .iter()
        .enumerate()
        .map(|(c, &(_, level))| level_effect(&fit, c + 1, level))
        .collect();
    let adjusted = holm(&raw.iter().map(|l| l.p).collect::<Vec<_>>());
    let levels = holm_levels(&raw, &adjusted, alpha);
    for (le, conf) in raw.iter_mut().zip(levels) {
        let q = student_t_quantile(0.5 + conf / 2.0, le.df);
        le.ci = (le.effect - q * le.se, le.effect + q * le.se);
        le.conf = conf;
    }
    let mut out: Vec<OptionEffect> = (0..factors.len())
        .map(|j| OptionEffect {
            factor: j,
            levels: Vec::new(),
            significant: false,
            importance: importance(obs, j, &partial_residuals(&x, &y, &fit, &cols, j), &y),
        })
        .collect();
    for ((&(j, _), mut le), p_holm) in cols.iter().zip(raw).zip(adjusted) {
        le.p_holm = p_holm;
        out[j].significant |= p_holm < alpha;
        out[j].levels.push(le);
    }
    Some(out)
}

/// The blocks that get a column of their own (every distinct block but the first), when
/// every observation names its block and the model with them (`columns` before them) keeps
/// a residual degree of freedom; otherwise none.
fn block_columns(obs: &[Observation], columns: usize) -> Vec<u32> {
    let Some(mut blocks) = obs.iter().map(|o| o.block).collect::<Option<Vec<u32>>>() else {
        return Vec::new();
    };
    blocks.sort_unstable();
    blocks.dedup();
    if blocks.len() < 2 || obs.len() < columns + blocks.len() {
        return Vec::new();
    }
    blocks.split_off(1)
}

/// The confidence level of each level's interval, consistent with Holm's decisions
/// `adjusted` at `alpha`: the level of the step that rejected it, or of the step where the
/// procedure stopped. The order is [`holm`]'s (stable, NaN as 1), so ties step alike.
fn holm_levels(raw: &[LevelEffect], adjusted: &[f64], alpha: f64) -> Vec<f64> {
    let m = raw.len();
    let clean = |x: f64| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| clean(raw[i].p).total_cmp(&clean(raw[j].p)));
    let k = adjusted.iter().filter(|&&p| p < alpha).count();
    let mut conf = vec![1.0 - alpha / (m - k).max(1) as f64; m];
    for (r, &i) in order.iter().enumerate().take(k) {
        conf[i] = 1.0 - alpha / (m - r) as f64;
    }
    conf
}

/// Coefficient `c` as a level effect (its interval is set once Holm has stepped).
fn level_effect(fit: &lsq::Fit, c: usize, level: usize) -> LevelEffect {
    let (b, se) = (fit.beta[c], fit.se(c));
    let p = if se > 0.0 {
        (2.0 * student_t_sf((b / se).abs(), fit.df as f64)).min(1.0)
    } else if b == 0.0 {
        1.0
    } else {
        0.0
    };
    LevelEffect {
        level,
        effect: b,
        ci: (b, b),
        conf: 1.0,
        se,
        df: fit.df as f64,
        p,
        p_holm: p,
    }
}

/// `y` with the fitted effects of every factor but `j` taken out.
fn partial_residuals(
    x: &[Vec<f64>],
    y: &[f64],
    fit: &lsq::Fit,
    cols: &[(usize, usize)],
    j: usize,
) -> Vec<f64> {
    x.iter()
        .zip(y)
        .map(|(row, &yi)| {
            let others: f64 = cols
                .iter()
                .enumerate()
                .filter(|(_, &(f, _))| f != j)
                .map(|(c, _)| row[c + 1] * fit.beta[c + 1])
                .sum();
            // The blocks' columns come after the options': their drift is taken out too.
            let drift: f64 = (1 + cols.len()..row.len())
                .map(|c| row[c] * fit.beta[c])
                .sum();
            yi - others - drift
        })
        .collect()
}

/// Carver's variance reduction of factor `j` on `partial` as a share of `Var(y)`.
fn importance(obs: &[Observation], j: usize, partial: &[f64], y: &[f64]) -> f64 {
    let var = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64
    };
    let total = var(y);
    if total <= 0.0 {
        return 0.0;
    }
    let own = var(partial);
    let mut levels: Vec<usize> = obs.iter().map(|o| o.config[j]).collect();
    levels.sort_unstable();
    levels.dedup();
    let within: f64 = levels
        .iter()
        .map(|&l| {
            let group: Vec<f64> = obs
                .iter()
                .zip(partial)
                .filter(|(o, _)| o.config[j] == l)
                .map(|(_, &v)| v)
                .collect();
            group.len() as f64 / y.len() as f64 * var(&group)
        })
        .sum();
    ((own - within) / total).clamp(0.0, 1.0)
}

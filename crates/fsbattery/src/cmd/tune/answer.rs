//! The tune's answer: per filesystem the options that matter (effect with CI, importance),
//! those that do not, the recommended mkfs and mount lines — the defaults changed only where
//! an effect is significant, each change with its reason — with their risks and the gain
//! verified on exactly that configuration; across filesystems the ranking at their best. As
//! JSON here (`--format json`, and always `tune.json` under `--out`); the terminal's short
//! text and the charts are the report crate's, read from the view `super::view` builds, and
//! `super::show` prints and saves them.
//!
//! Effects and gains are shown as percent changes of the objective: the search works on
//! logs, and `exp(effect) - 1` turns an effect on the log into the change it makes.

use super::search::{mean, FsSearch};
use crate::cli::TuneArgs;
use fsbattery_stats::tune::Config;
use fsbattery_stats::PairOutcome;
// The verification and a place against the first are shown by the report crate's renderers.
pub use fsbattery_report::tune::{Verified, VersusFirst};
use serde_json::{json, Value};

/// One place of the ranking across filesystems.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// Index of the search.
    pub search: usize,
    /// Geometric-mean objective of its winner in the verification.
    pub value: f64,
    /// This place against the first (None for the first).
    pub versus_first: Option<VersusFirst>,
}

/// `this` against `first` (log samples) at `alpha`, margin ±`margin` %.
fn versus(this: &[f64], first: &[f64], alpha: f64, margin: f64) -> Option<VersusFirst> {
    let (lo, hi) = fsbattery_stats::tune::log_margin(margin);
    // TOST at α/2 reports the two-sided 1 − α interval of the difference.
    let t = fsbattery_stats::tost(this, first, hi, alpha / 2.0)?;
    let p = fsbattery_stats::welch_t_test(this, first)?.p_value;
    let ci = (t.diff_ci.0.exp(), t.diff_ci.1.exp());
    Some(VersusFirst {
        ratio: t.diff.exp(),
        ci,
        p,
        separated: t.diff_ci.1 < 0.0,
        equivalent: t.diff_ci.0 > lo && t.diff_ci.1 < hi,
    })
}

/// Everything the tune found.
pub struct Answer {
    /// Per search, the verification (None when there was no time).
    pub verified: Vec<Option<Verified>>,
    /// The winners, best first.
    pub ranking: Vec<Ranked>,
    /// Option values the machine refused.
    pub refused: Vec<String>,
    /// Wall seconds.
    pub secs: f64,
    /// The budget in seconds.
    pub budget: f64,
    /// Why the tune ended when it did ("every option was resolved", or what is still open).
    pub ended: String,
}

/// Each filesystem's recommendation ranked by its verification samples, each against the
/// first.
pub fn rank(searches: &[FsSearch], v: &[Option<Verified>], alpha: f64, margin: f64) -> Vec<Ranked> {
    let samples: Vec<Vec<f64>> = searches
        .iter()
        .zip(v)
        .map(|(s, v)| recommended_samples(s, v.as_ref()))
        .collect();
    let mut order: Vec<usize> = (0..searches.len())
        .filter(|&i| !samples[i].is_empty())
        .collect();
    order.sort_by(|&a, &b| mean(&samples[b]).total_cmp(&mean(&samples[a])));
    order
        .iter()
        .enumerate()
        .map(|(k, &i)| Ranked {
            search: i,
            value: mean(&samples[i]).exp(),
            versus_first: if k > 0 {
                versus(&samples[i], &samples[order[0]], alpha, margin)
            } else {
                None
            },
        })
        .collect()
}

/// The samples of what is recommended: the verification's, else every phase's.
fn recommended_samples(s: &FsSearch, v: Option<&Verified>) -> Vec<f64> {
    let rec = recommended(s, v);
    let verified = if rec == s.candidate() {
        &s.verified
    } else {
        &s.verified_defaults
    };
    if verified.is_empty() {
        s.samples.get(&rec).cloned().unwrap_or_default()
    } else {
        verified.clone()
    }
}

/// What to recommend: the candidate (the defaults changed only where the screen found an
/// option significantly better) when the verification confirmed it significantly better than
/// the defaults, or when there was no time to verify (the text says so); else the defaults.
pub fn recommended(s: &FsSearch, v: Option<&Verified>) -> Config {
    match v {
        Some(v) if v.outcome != PairOutcome::ABetter => s.space.defaults(),
        _ => s.candidate(),
    }
}

/// Whether the verification confirmed the candidate (a candidate that is the defaults
/// needs none).
pub fn confirmed(s: &FsSearch, v: Option<&Verified>) -> bool {
    s.candidate() == s.space.defaults() || v.is_some_and(|v| v.outcome == PairOutcome::ABetter)
}

/// Each change of the candidate with its reason, and the better levels left out.
fn changes_json(s: &FsSearch) -> (Vec<Value>, Vec<Value>) {
    let Some(sel) = &s.selection else {
        return (Vec::new(), Vec::new());
    };
    let name = |f: usize, l: usize| {
        let o = &s.space.options[f];
        (o.name.clone(), o.values[l].clone())
    };
    let changes = sel.changes.iter().map(|c| {
        let (n, v) = name(c.factor, c.effect.level);
        let risk = s.space.options[c.factor].risk.get(&v).cloned();
        json!({"option": n, "value": v, "effect": pct(c.effect.effect),
            "ci": [pct(c.effect.ci.0), pct(c.effect.ci.1)], "p": c.effect.p_holm,
            "risk": risk})
    });
    let left = sel.left_out.iter().map(|c| {
        let (n, v) = name(c.factor, c.effect.level);
        json!({"option": n, "value": v, "effect": pct(c.effect.effect), "why": c.why})
    });
    (changes.collect(), left.collect())
}

pub use super::outcome::pct;

/// Each option's outcome with its decisive interval (see [`super::outcome`]).
fn options_json(s: &FsSearch, alpha: f64, margin: f64) -> Vec<Value> {
    super::outcome::outcomes(s, alpha)
        .iter()
        .map(|r| {
            let o = &s.space.options[r.factor];
            let e = s.effects.as_ref().map(|fx| &fx[r.factor]);
            json!({
                "name": o.name, "outcome": r.name(),
                "value": r.level.map(|l| o.values[l].clone()),
                "effect": r.effect, "ci": r.ci.map(|(a, b)| [a, b]), "ci_level": r.conf,
                "margin_pct": margin, "p": r.p,
                "significant": e.is_some_and(|e| e.significant),
                "importance": r.importance, "repeats_needed": r.repeats_needed,
                "risks": o.risk,
                "levels": e.map_or(Vec::new(), |e| e.levels.iter().map(|l| json!({
                    "value": o.values[l.level], "effect": pct(l.effect),
                    "ci": [pct(l.ci.0), pct(l.ci.1)], "ci_level": l.conf, "p": l.p_holm,
                })).collect()),
            })
        })
        .collect()
}

/// The JSON answer (the shape, with the option's level and the risks added).
pub fn json(args: &TuneArgs, searches: &[FsSearch], a: &Answer) -> Value {
    let targets: Vec<Value> = searches
        .iter()
        .zip(&a.verified)
        .map(|(s, v)| {
            let best = recommended(s, v.as_ref());
            let (changes, left_out) = changes_json(s);
            let risks: Vec<Value> = s
                .space
                .risks(&best)
                .into_iter()
                .map(|(n, v, r)| json!({"option": n, "value": v, "risk": r}))
                .collect();
            let paste = super::paste::paste(&s.space, &best);
            json!({
                "target": s.target,
                "options": options_json(s, args.alpha, args.margin),
                "best_found": s.spec(&s.best()),
                "race_beat_candidate": s.race_beat_candidate(),
                "recommended": {
                    "spec": s.spec(&best),
                    "mkfs": paste.mkfs, "mkfs_defaults": paste.mkfs_defaults,
                    "mount_options": paste.mount_options, "fstab": paste.fstab,
                    "mount": paste.mount_options,
                    "risks": risks,
                    "candidate": s.spec(&s.candidate()),
                    "changes": changes, "left_out": left_out,
                    "confirmed": confirmed(s, v.as_ref()),
                    "gain": v.map(|v| v.gain * 100.0),
                    "ci": v.map(|v| [v.ci.0 * 100.0, v.ci.1 * 100.0]),
                    "p": v.and_then(|v| v.p),
                    "verdict": v.map(|v| format!("{:?}", v.outcome)),
                    "repeats": v.map(|v| [v.n.0, v.n.1]),
                },
            })
        })
        .collect();
    let ranking: Vec<Value> = a
        .ranking
        .iter()
        .map(|r| {
            let s = &searches[r.search];
            let vs = r.versus_first.map(|v| {
                let verdict = if v.separated {
                    "first significantly better"
                } else if v.equivalent {
                    "equivalent within the margin"
                } else {
                    "not separated"
                };
                json!({
                    "ratio": v.ratio, "ci": [v.ci.0, v.ci.1], "p": v.p,
                    "separated": v.separated, "equivalent": v.equivalent, "verdict": verdict,
                })
            });
            json!({
                "target": s.target,
                "spec": s.spec(&recommended(s, a.verified[r.search].as_ref())),
                "objective": r.value,
                "versus_first": vs,
            })
        })
        .collect();
    let open: usize = searches.iter().map(|s| s.unresolved().len()).sum();
    json!({"objective": args.objective, "margin_pct": args.margin, "alpha": args.alpha,
        "targets": targets, "ranking": ranking,
        "refused": a.refused, "seconds": a.secs, "budget_seconds": a.budget,
        "ended": a.ended, "every_option_resolved": open == 0})
}

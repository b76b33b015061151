//! The tune's answer: per filesystem the options that matter (effect with CI, importance),
//! those that do not, the recommended mkfs and mount lines — the defaults changed only where
//! an effect is significant, each change with its reason — with their risks and the gain
//! verified on exactly that configuration; across filesystems the ranking at their best. As
//! JSON here (`--format json`, and always `tune.json` under `--out`); the terminal's short
//! text is [`super::text`], and `super::show` prints and saves them.
//!
//! Effects and gains are shown as percent changes of the objective: the search works on
//! logs, and `exp(effect) - 1` turns an effect on the log into the change it makes.

use super::search::{mean, FsSearch};
use crate::cli::TuneArgs;
use fsbattery_stats::tune::Config;
use fsbattery_stats::{pair, Better, PairOutcome};
use serde_json::{json, Value};

/// The winner against the defaults.
#[derive(Debug, Clone, Copy)]
pub struct Verified {
    /// Relative gain (0.12 = +12 %).
    pub gain: f64,
    /// Its CI at 1 − α.
    pub ci: (f64, f64),
    /// Welch's p of a difference.
    pub p: Option<f64>,
    /// The pairwise decision.
    pub outcome: PairOutcome,
    /// Samples (winner, defaults).
    pub n: (usize, usize),
}

impl Verified {
    /// The winner is the defaults.
    pub fn same(n: usize) -> Verified {
        Verified {
            gain: 0.0,
            ci: (0.0, 0.0),
            p: None,
            outcome: PairOutcome::Equivalent,
            n: (n, n),
        }
    }
}

/// One place of the ranking across filesystems.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// Index of the search.
    pub search: usize,
    /// Geometric-mean objective of its winner in the verification.
    pub value: f64,
    /// Against the first place (None for the first).
    pub versus_first: Option<(PairOutcome, Option<f64>)>,
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
}

/// Each filesystem's recommendation ranked by its verification samples, each against the
/// first.
pub fn rank(searches: &[FsSearch], v: &[Option<Verified>], alpha: f64) -> Vec<Ranked> {
    let samples: Vec<Vec<f64>> = searches
        .iter()
        .zip(v)
        .map(|(s, v)| recommended_samples(s, v.as_ref()))
        .collect();
    let mut order: Vec<usize> = (0..searches.len())
        .filter(|&i| !samples[i].is_empty())
        .collect();
    order.sort_by(|&a, &b| mean(&samples[b]).total_cmp(&mean(&samples[a])));
    let e = |v: &[f64]| v.iter().map(|x| x.exp()).collect::<Vec<f64>>();
    order
        .iter()
        .enumerate()
        .map(|(k, &i)| Ranked {
            search: i,
            value: mean(&samples[i]).exp(),
            versus_first: (k > 0).then(|| {
                let p = pair(
                    &e(&samples[order[0]]),
                    &e(&samples[i]),
                    Better::Higher,
                    alpha,
                    5.0,
                );
                (p.outcome, p.p_diff)
            }),
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
        json!({"option": n, "value": v, "effect": pct(c.effect.effect),
            "ci": [pct(c.effect.ci.0), pct(c.effect.ci.1)], "p": c.effect.p_holm})
    });
    let left = sel.left_out.iter().map(|c| {
        let (n, v) = name(c.factor, c.effect.level);
        json!({"option": n, "value": v, "effect": pct(c.effect.effect), "why": c.why})
    });
    (changes.collect(), left.collect())
}

/// An effect on the log as a percent change of the objective.
pub fn pct(x: f64) -> f64 {
    (x.exp() - 1.0) * 100.0
}

/// The JSON answer (the shape, with the option's level and the risks added).
pub fn json(args: &TuneArgs, searches: &[FsSearch], a: &Answer) -> Value {
    let targets: Vec<Value> = searches
        .iter()
        .zip(&a.verified)
        .map(|(s, v)| {
            let best = recommended(s, v.as_ref());
            let (changes, left_out) = changes_json(s);
            let options: Vec<Value> = s
                .effects
                .iter()
                .flatten()
                .filter_map(|e| {
                    let o = &s.space.options[e.factor];
                    let h = e.headline(args.alpha)?;
                    Some(json!({
                        "name": o.name, "value": o.values[h.level],
                        "effect": pct(h.effect), "ci": [pct(h.ci.0), pct(h.ci.1)],
                        "p": h.p_holm, "significant": e.significant, "importance": e.importance,
                    }))
                })
                .collect();
            let risks: Vec<Value> = s
                .space
                .risks(&best)
                .into_iter()
                .map(|(n, v, r)| json!({"option": n, "value": v, "risk": r}))
                .collect();
            json!({
                "target": s.target,
                "options": options,
                "best_found": s.spec(&s.best()),
                "race_beat_candidate": s.race_beat_candidate(),
                "recommended": {
                    "spec": s.spec(&best),
                    "mkfs": s.space.mkfs_args(&best), "mount": s.space.mount_opts(&best),
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
    let ranking: Vec<Value> = a.ranking.iter().map(|r| json!({
        "target": searches[r.search].target,
        "spec": searches[r.search].spec(&recommended(&searches[r.search], a.verified[r.search].as_ref())),
        "objective": r.value,
        "versus_first": r.versus_first.map(|(o, p)| json!({"verdict": format!("{o:?}"), "p": p})),
    })).collect();
    json!({"objective": args.objective, "targets": targets, "ranking": ranking,
        "refused": a.refused, "seconds": a.secs, "budget_seconds": a.budget})
}

//! The tune's answer: per filesystem the options that matter (effect with CI, importance),
//! those that do not, the recommended mkfs and mount lines with their risks, the verified
//! gain over the defaults; across filesystems the ranking at their best. As a short text for
//! the terminal, or JSON (`--format json`), and always as `tune.json` under `--out`.
//!
//! Effects and gains are shown as percent changes of the objective: the search works on
//! logs, and `exp(effect) - 1` turns an effect on the log into the change it makes.

use super::search::{mean, FsSearch};
use crate::cli::{TuneArgs, TuneFormat};
use fsbattery_stats::{pair, Better, PairOutcome};
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::Path;

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

/// The winners ranked by their verification samples, each against the first.
pub fn rank(searches: &[FsSearch], _v: &[Option<Verified>], alpha: f64) -> Vec<Ranked> {
    let samples: Vec<Vec<f64>> = searches
        .iter()
        .map(|s| {
            if s.verified.is_empty() {
                s.samples.get(&s.best()).cloned().unwrap_or_default()
            } else {
                s.verified.clone()
            }
        })
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

/// What to recommend: the race's winner when the verification found it significantly better
/// than the defaults; without a verification, the levels the screen found significantly
/// better; else the defaults — a change is recommended only on evidence.
pub fn recommended(s: &FsSearch, v: Option<&Verified>) -> fsbattery_stats::tune::Config {
    match v {
        Some(v) if v.outcome == PairOutcome::ABetter => s.best(),
        Some(_) => s.space.defaults(),
        // Not verified: only the levels the screen found significantly better.
        None if s.by_effects.is_empty() => s.space.defaults(),
        None => s.by_effects.clone(),
    }
}

fn pct(x: f64) -> f64 {
    (x.exp() - 1.0) * 100.0
}

/// The JSON answer (the shape, with the option's level and the risks added).
pub fn json(args: &TuneArgs, searches: &[FsSearch], a: &Answer) -> Value {
    let targets: Vec<Value> = searches
        .iter()
        .zip(&a.verified)
        .map(|(s, v)| {
            let best = recommended(s, v.as_ref());
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
                "recommended": {
                    "spec": s.spec(&best),
                    "mkfs": s.space.mkfs_args(&best), "mount": s.space.mount_opts(&best),
                    "changes": s.space.describe(&best), "risks": risks,
                    "gain": v.map(|v| v.gain * 100.0),
                    "ci": v.map(|v| [v.ci.0 * 100.0, v.ci.1 * 100.0]),
                    "p": v.and_then(|v| v.p),
                    "verdict": v.map(|v| format!("{:?}", v.outcome)),
                },
            })
        })
        .collect();
    let ranking: Vec<Value> = a.ranking.iter().map(|r| json!({
        "target": searches[r.search].target,
        "spec": searches[r.search].spec(&searches[r.search].best()),
        "objective": r.value,
        "versus_first": r.versus_first.map(|(o, p)| json!({"verdict": format!("{o:?}"), "p": p})),
    })).collect();
    json!({"objective": args.objective, "targets": targets, "ranking": ranking,
        "refused": a.refused, "seconds": a.secs, "budget_seconds": a.budget})
}

/// The short text answer.
pub fn text(args: &TuneArgs, searches: &[FsSearch], a: &Answer) -> Result<String, std::fmt::Error> {
    let mut out = String::new();
    for (s, v) in searches.iter().zip(&a.verified) {
        writeln!(
            out,
            "\n{} — objective {} ({} configurations measured)",
            s.target,
            args.objective,
            s.samples.len()
        )?;
        let Some(fx) = &s.effects else {
            writeln!(out, "  effects: the screen could not separate the options (too few configurations measured)")?;
            continue;
        };
        let mut fx: Vec<_> = fx.iter().collect();
        fx.sort_by(|a, b| b.importance.total_cmp(&a.importance));
        writeln!(
            out,
            "  matters (effect over the default, 95 % CI, share of variance):"
        )?;
        for e in fx.iter().filter(|e| e.significant) {
            let o = &s.space.options[e.factor];
            if let Some(h) = e.headline(args.alpha) {
                writeln!(
                    out,
                    "    {:<16} {:<10} {:+6.1} % [{:+.1}, {:+.1}]  importance {:.0} %",
                    o.name,
                    o.values[h.level],
                    pct(h.effect),
                    pct(h.ci.0),
                    pct(h.ci.1),
                    e.importance * 100.0
                )?;
            }
        }
        let not: Vec<&str> = fx
            .iter()
            .filter(|e| !e.significant && !s.space.options[e.factor].values.len().eq(&1))
            .map(|e| s.space.options[e.factor].name.as_str())
            .collect();
        writeln!(
            out,
            "  does not matter here: {}",
            if not.is_empty() {
                "-".into()
            } else {
                not.join(", ")
            }
        )?;
        let best = recommended(s, v.as_ref());
        let mkfs = s.space.mkfs_args(&best);
        let mount = s.space.mount_opts(&best);
        let or_defaults = |t: &str| {
            if t.is_empty() {
                "(defaults)".to_string()
            } else {
                t.to_string()
            }
        };
        writeln!(
            out,
            "  recommended: mkfs.{} {}",
            s.space.fs,
            or_defaults(&mkfs)
        )?;
        writeln!(
            out,
            "               mount -o {}",
            if mount.is_empty() { "defaults" } else { &mount }
        )?;
        for (n, val, r) in s.space.risks(&best) {
            writeln!(out, "  risk: {n}={val}: {r}")?;
        }
        let found = s.space.describe(&s.best()).join(" ");
        match v {
            _ if found.is_empty() => writeln!(out, "  the race's winner is the defaults")?,
            Some(v) => writeln!(out, "  best found ({found}) against the defaults: {:+.1} % [{:+.1}, {:+.1}], p = {}, {} ({} vs {} repeats){}",
                v.gain * 100.0, v.ci.0 * 100.0, v.ci.1 * 100.0, v.p.map_or("-".into(), |p| format!("{p:.2e}")),
                verdict(v.outcome), v.n.0, v.n.1,
                if v.outcome == PairOutcome::ABetter { "" } else { ": not shown better, so the defaults stay" })?,
            None => writeln!(out, "  best found ({found}): not verified against the defaults (no time left)")?,
        }
    }
    if a.ranking.len() > 1 {
        writeln!(out, "\nat their best:")?;
        for (k, r) in a.ranking.iter().enumerate() {
            let s = &searches[r.search];
            let vs = r.versus_first.map_or(String::new(), |(o, p)| {
                format!(
                    "  vs 1st: {}{}",
                    verdict_vs(o),
                    p.map_or(String::new(), |p| format!(", p = {p:.2e}"))
                )
            });
            writeln!(out, "  {}. {}{vs}", k + 1, s.spec(&s.best()))?;
        }
    }
    writeln!(out, "\ntook {:.0} s of a {:.0} s budget", a.secs, a.budget)?;
    Ok(out)
}

fn verdict(o: PairOutcome) -> &'static str {
    match o {
        PairOutcome::ABetter => "significantly better",
        PairOutcome::BBetter => "significantly worse",
        PairOutcome::Equivalent => "equivalent within 5 %",
        PairOutcome::Undecided => "undecided",
        PairOutcome::NotEnoughSamples => "too few repeats",
    }
}

fn verdict_vs(o: PairOutcome) -> &'static str {
    match o {
        PairOutcome::ABetter => "1st significantly better",
        PairOutcome::BBetter => "better than 1st",
        PairOutcome::Equivalent => "equivalent within 5 %",
        PairOutcome::Undecided => "undecided",
        PairOutcome::NotEnoughSamples => "too few repeats",
    }
}

/// Print the answer and save `tune.json`.
pub fn print(args: &TuneArgs, searches: &[FsSearch], a: &Answer, out: &Path) -> anyhow::Result<()> {
    let j = json(args, searches, a);
    let mut bytes = serde_json::to_vec_pretty(&j)?;
    bytes.push(b'\n');
    fsbattery_core::atomic::write(&out.join("tune.json"), &bytes)?;
    let page = super::chart::html(searches, &args.objective, args.alpha);
    fsbattery_core::atomic::write(&out.join("tune.html"), page.as_bytes())?;
    let shown = match args.format {
        TuneFormat::Json => String::from_utf8(bytes)?,
        TuneFormat::Table => format!(
            "{}\nresults: {}\nreport:  {}\ncharts:  {}\n",
            text(args, searches, a)?,
            out.display(),
            out.join("report.html").display(),
            out.join("tune.html").display()
        ),
    };
    crate::stdout::write_unless_closed(shown)
}

//! The tune's answer as the terminal's short text: per filesystem the options that matter and
//! those that do not, each recommended change from the defaults with the effect it is there
//! for, the verification of exactly that configuration, the `mkfs`/`mount` lines and their
//! risks, and what the race's best measured configuration adds; then the ranking.

use super::answer::{confirmed, pct, recommended, Answer, Verified};
use super::search::FsSearch;
use crate::cli::TuneArgs;
use fsbattery_stats::PairOutcome;
use std::fmt::{Result, Write};

/// The short text answer.
pub fn text(
    args: &TuneArgs,
    searches: &[FsSearch],
    a: &Answer,
) -> std::result::Result<String, std::fmt::Error> {
    let mut out = String::new();
    for (s, v) in searches.iter().zip(&a.verified) {
        writeln!(
            out,
            "\n{} — objective {} ({} configurations measured)",
            s.target,
            args.objective,
            s.samples.len()
        )?;
        if s.effects.is_none() {
            writeln!(out, "  effects: the screen could not separate the options (too few configurations measured)")?;
        }
        effects(&mut out, args, s)?;
        changes(&mut out, s, v.as_ref())?;
        lines(&mut out, s, v.as_ref())?;
        race(&mut out, s, args.alpha)?;
    }
    if a.ranking.len() > 1 {
        writeln!(out, "\nat their best (as recommended):")?;
        for (k, r) in a.ranking.iter().enumerate() {
            let s = &searches[r.search];
            let vs = r.versus_first.map_or("  the best".to_string(), |v| {
                let what = if v.separated {
                    "the 1st significantly faster"
                } else if v.equivalent {
                    "not separated: equivalent within the margin"
                } else {
                    "not separated"
                };
                format!(
                    "  {:.3}× the 1st [{:.3}, {:.3}], {what}, p = {:.2e}",
                    v.ratio, v.ci.0, v.ci.1, v.p
                )
            });
            let rec = recommended(s, a.verified[r.search].as_ref());
            writeln!(out, "  {}. {}{vs}", k + 1, s.spec(&rec))?;
        }
    }
    writeln!(
        out,
        "\ntook {:.0} s of a {:.0} s budget ({:.0} %): {}",
        a.secs,
        a.budget,
        100.0 * a.secs / a.budget.max(1e-9),
        a.ended
    )?;
    Ok(out)
}

/// Each option's outcome with the interval that decided it: what matters, what is shown
/// to make no difference beyond ±margin, and what this budget did not resolve.
fn effects(out: &mut String, args: &TuneArgs, s: &FsSearch) -> Result {
    let rows = super::outcome::outcomes(s, args.alpha);
    let iv = |r: &super::outcome::Outcome| {
        r.ci.map_or(
            "no interval (a level was never measured)".into(),
            |(a, b)| format!("[{a:+.1}, {b:+.1}] %"),
        )
    };
    let name = |r: &super::outcome::Outcome| s.space.options[r.factor].name.as_str();
    let value = |r: &super::outcome::Outcome| {
        r.level
            .map_or("", |l| s.space.options[r.factor].values[l].as_str())
    };
    let of = |v: &'static str| rows.iter().filter(move |r| r.name() == v);
    writeln!(
        out,
        "  matters (effect over the default, Holm-consistent interval, share of variance):"
    )?;
    if of("matters").next().is_none() {
        writeln!(out, "    -")?;
    }
    for r in of("matters") {
        writeln!(
            out,
            "    {:<16} {:<10} {:+6.1} % {}  importance {:.0} %",
            name(r),
            value(r),
            r.effect.unwrap_or(0.0),
            iv(r),
            r.importance * 100.0
        )?;
    }
    writeln!(
        out,
        "  no effect beyond ±{} % (every level's interval inside the margin):",
        args.margin
    )?;
    if of("negligible").next().is_none() {
        writeln!(out, "    -")?;
    }
    for r in of("negligible") {
        writeln!(out, "    {:<16} all levels within {}", name(r), iv(r))?;
    }
    writeln!(out, "  not resolved at this budget (interval of its levels; repeats per configuration that would resolve it if the estimates held):")?;
    if of("unresolved").next().is_none() {
        writeln!(out, "    - (every option resolved)")?;
    }
    for r in of("unresolved") {
        let need = r
            .repeats_needed
            .map_or("more than a tune can give at this noise".into(), |n| {
                format!("about {n:.0} (has {:.1})", s.repeats_per_config())
            });
        writeln!(out, "    {:<16} {}  needs {need}", name(r), iv(r))?;
    }
    Ok(())
}

/// Each change from the defaults with its reason, what was left out, and the verification
/// of exactly that configuration.
fn changes(out: &mut String, s: &FsSearch, v: Option<&Verified>) -> Result {
    let Some(sel) = &s.selection else {
        return Ok(());
    };
    if sel.changes.is_empty() {
        return writeln!(
            out,
            "  changes from the defaults: none (no option's level was significantly better than its default)"
        );
    }
    writeln!(
        out,
        "  changes from the defaults, each for its effect (Holm-consistent interval, Holm-adjusted p):"
    )?;
    for c in &sel.changes {
        let o = &s.space.options[c.factor];
        let e = &c.effect;
        let nv = format!("{}={}", o.name, o.values[e.level]);
        writeln!(
            out,
            "    {nv:<26} {:+6.1} % [{:+.1}, {:+.1}], p = {:.2e}",
            pct(e.effect),
            pct(e.ci.0),
            pct(e.ci.1),
            e.p_holm
        )?;
    }
    for l in &sel.left_out {
        let o = &s.space.options[l.factor];
        let (value, effect) = (&o.values[l.effect.level], pct(l.effect.effect));
        writeln!(
            out,
            "    not {}={value} ({effect:+.1} %): {}",
            o.name, l.why
        )?;
    }
    match v {
        None => writeln!(
            out,
            "  verified: no time was left; the changes are the screen's estimate"
        ),
        Some(v) => writeln!(
            out,
            "  verified, these changes against the defaults: {:+.1} % [{:+.1}, {:+.1}], p = {}, {} ({} vs {} repeats){}",
            v.gain * 100.0,
            v.ci.0 * 100.0,
            v.ci.1 * 100.0,
            v.p.map_or("-".into(), |p| format!("{p:.2e}")),
            verdict(v.outcome),
            v.n.0,
            v.n.1,
            if confirmed(s, Some(v)) {
                ""
            } else {
                ": not shown better, so the defaults stay"
            }
        ),
    }
}

/// The recommended mkfs and mount lines and their risks.
fn lines(out: &mut String, s: &FsSearch, v: Option<&Verified>) -> Result {
    let best = recommended(s, v);
    let p = super::paste::paste(&s.space, &best);
    let defaults = if p.mkfs_defaults { "defaults: " } else { "" };
    writeln!(out, "  recommended, ready to paste:")?;
    writeln!(out, "    {defaults}{}", p.mkfs)?;
    writeln!(
        out,
        "    mount -o {} {} {}",
        p.mount_options,
        super::paste::DEVICE,
        super::paste::MOUNTPOINT
    )?;
    writeln!(out, "    /etc/fstab: {}", p.fstab)?;
    for (n, val, r) in s.space.risks(&best) {
        writeln!(out, "    risk of {n}={val}: {r}")?;
    }
    Ok(())
}

/// The race's best measured configuration, and why what it changes beyond the
/// recommendation is not recommended.
fn race(out: &mut String, s: &FsSearch, alpha: f64) -> Result {
    let (best, candidate) = (s.best(), s.candidate());
    if best == candidate || s.candidates.is_empty() {
        return writeln!(out, "  best measured: the recommendation itself");
    }
    let found = s.space.describe(&best).join(" ");
    let found = if found.is_empty() {
        "the defaults".to_string()
    } else {
        found
    };
    let (than, its) = if candidate == s.space.defaults() {
        ("the defaults", "its changes")
    } else {
        ("the recommendation", "its other changes")
    };
    let why = extra_reasons(s, &best, &candidate, alpha);
    if s.race_beat_candidate() {
        writeln!(
            out,
            "  best measured ({found}) was significantly better than {than} in the race; {its}: {why}: \
             an interaction or an effect the screen could not resolve, to tune with --option and a larger --budget"
        )
    } else {
        writeln!(
            out,
            "  best measured ({found}): not shown better than {than} in the race; {its}: {why}, so not recommended"
        )
    }
}

/// Why each level `best` changes from the defaults beyond `candidate` is not recommended,
/// grouped by reason: a conflict with a larger change, significantly worse than the default,
/// or no significant effect.
fn extra_reasons(s: &FsSearch, best: &[usize], candidate: &[usize], alpha: f64) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (j, o) in s.space.options.iter().enumerate() {
        let level = best[j];
        if level == candidate[j] || level == o.default_level() {
            continue;
        }
        let effect = s
            .effects
            .iter()
            .flatten()
            .filter(|e| e.factor == j)
            .flat_map(|e| &e.levels)
            .find(|l| l.level == level);
        let left = s
            .selection
            .iter()
            .flat_map(|sel| &sel.left_out)
            .find(|l| l.factor == j && l.effect.level == level);
        let reason = match (left, effect) {
            (Some(l), _) => l.why.clone(),
            (None, Some(e)) if e.p_holm < alpha && e.effect < 0.0 => {
                "significantly worse than the default".to_string()
            }
            _ => "no significant effect here".to_string(),
        };
        let change = format!("{}={}", o.name, o.values[level]);
        match groups.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, v)) => v.push(change),
            None => groups.push((reason, vec![change])),
        }
    }
    groups
        .into_iter()
        .map(|(r, v)| format!("{r} ({})", v.join(" ")))
        .collect::<Vec<_>>()
        .join("; ")
}

fn verdict(o: PairOutcome) -> &'static str {
    match o {
        PairOutcome::ABetter => "significantly better",
        PairOutcome::BBetter => "significantly worse",
        PairOutcome::Equivalent => "equivalent within the margin",
        PairOutcome::Undecided => "undecided",
        PairOutcome::NotEnoughSamples => "too few repeats",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_stats::tune::Config;

    /// Planted log effects on ext4's `data`, `has_journal` and `atime`: `data=writeback`
    /// +0.3, `data=journal` −0.7, the rest nothing; a small deterministic noise.
    fn planted() -> FsSearch {
        let mut space = fsbattery_core::tune::space("ext4").unwrap();
        let only = ["data", "has_journal", "atime"].map(String::from);
        space.narrow(&only, &[], false).unwrap();
        let mut s = FsSearch::new("loop:ext4", space);
        s.plan_screen(9, 3);
        let idx = |n: &str| s.space.options.iter().position(|o| o.name == n).unwrap();
        let (data, journal, atime) = (idx("data"), idx("has_journal"), idx("atime"));
        let values = s.space.options[data].values.clone();
        let truth = |c: &Config| match values[c[data]].as_str() {
            "writeback" => 0.3,
            "journal" => -0.7,
            _ => 0.0,
        };
        // A fixed sequence in [-0.02, 0.02] (splitmix64 bits), so the test is deterministic.
        let mut k = 0u64;
        let mut noise = || {
            k = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let z = (k ^ (k >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            0.02 * (((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        };
        let mut samples = std::collections::BTreeMap::new();
        for c in s.design.clone() {
            let v: Vec<f64> = (0..2).map(|_| truth(&c) + noise()).collect();
            samples.insert(c, v);
        }
        s.samples = samples;
        s.analyse(0.05, 5.0);
        // The race's leader: the candidate with has_journal=off-like luck on an option that
        // does not matter (atime), measured a little higher.
        let mut lucky = s.candidate();
        lucky[atime] = 1;
        assert_eq!(s.space.options[journal].default, "on");
        s.samples
            .insert(lucky.clone(), vec![0.32, 0.33, 0.31, 0.34]);
        s.candidates.push(lucky);
        s.alive.push(true);
        s
    }

    fn confirmed_gain() -> Verified {
        Verified {
            gain: 0.33,
            ci: (0.25, 0.41),
            p: Some(1e-4),
            outcome: PairOutcome::ABetter,
            n: (6, 6),
        }
    }

    #[test]
    fn only_the_option_that_matters_is_recommended_with_its_reason() {
        let s = planted();
        let v = confirmed_gain();
        assert_ne!(
            s.best(),
            s.candidate(),
            "the race's leader carries atime=noatime"
        );
        assert_eq!(
            s.space.describe(&recommended(&s, Some(&v))),
            vec!["data=writeback"]
        );
        let mut out = String::new();
        changes(&mut out, &s, Some(&v)).unwrap();
        lines(&mut out, &s, Some(&v)).unwrap();
        race(&mut out, &s, 0.05).unwrap();
        assert!(out.contains("    data=writeback "), "{out}");
        assert!(
            out.contains(
                "+33.0 % [+25.0, +41.0], p = 1.00e-4, significantly better (6 vs 6 repeats)\n"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "    defaults: mkfs.ext4 /dev/DEVICE\n    mount -o data=writeback /dev/DEVICE /MOUNTPOINT\n"
            ),
            "{out}"
        );
        assert!(
            out.contains("/etc/fstab: /dev/DEVICE  /MOUNTPOINT  ext4  data=writeback  0  2\n"),
            "{out}"
        );
        assert!(out.contains("risk of data=writeback:"), "{out}");
        assert!(
            out.contains(
                "best measured (data=writeback atime=noatime): not shown better than the recommendation in \
                 the race; its other changes: no significant effect here (atime=noatime), so not recommended"
            ),
            "{out}"
        );
    }

    #[test]
    fn an_unconfirmed_change_leaves_the_defaults() {
        let s = planted();
        let v = Verified {
            outcome: PairOutcome::Undecided,
            ..confirmed_gain()
        };
        assert_eq!(recommended(&s, Some(&v)), s.space.defaults());
        let mut out = String::new();
        changes(&mut out, &s, Some(&v)).unwrap();
        lines(&mut out, &s, Some(&v)).unwrap();
        assert!(
            out.contains(": not shown better, so the defaults stay"),
            "{out}"
        );
        assert!(
            out.contains("defaults: mkfs.ext4 /dev/DEVICE\n")
                && out.contains("mount -o defaults /dev/DEVICE"),
            "{out}"
        );
        assert!(!out.contains("risk of"), "{out}");
    }
}

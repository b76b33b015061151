//! The tune's answer as the report crate's [`TuneView`]: the search books turned into the
//! names, values and percent intervals the text and the charts show
//! (`fsbattery_report::tune`). Every decision is made here or before — which options matter
//! ([`super::outcome`]), what is recommended and whether it was confirmed
//! ([`super::answer`]), why the race's best is not — so the renderers only lay it out.

use super::answer::{confirmed, recommended, Answer, Verified};
use super::outcome::{outcomes, pct, Outcome};
use super::search::FsSearch;
use fsbattery_report::tune::{Change, Changes, FsView, LeftOut, OptionRow, Place, Race, TuneView};
use fsbattery_stats::tune::Selection;

/// The view of a finished tune of `searches` (at `alpha`, margin ±`margin` %).
pub fn view(
    objective: &str,
    alpha: f64,
    margin: f64,
    searches: &[FsSearch],
    a: &Answer,
) -> TuneView {
    let ranking = a.ranking.iter().map(|r| {
        let s = &searches[r.search];
        Place {
            spec: s.spec(&recommended(s, a.verified[r.search].as_ref())),
            versus_first: r.versus_first,
        }
    });
    TuneView {
        objective: objective.to_string(),
        margin,
        filesystems: searches
            .iter()
            .zip(&a.verified)
            .map(|(s, v)| filesystem(s, v.as_ref(), alpha))
            .collect(),
        ranking: ranking.collect(),
        secs: a.secs,
        budget: a.budget,
        ended: a.ended.clone(),
    }
}

/// One filesystem's search as shown, `v` its verification.
fn filesystem(s: &FsSearch, v: Option<&Verified>, alpha: f64) -> FsView {
    let best = recommended(s, v);
    FsView {
        target: s.target.clone(),
        configurations: s.samples.len(),
        separated: s.effects.is_some(),
        options: outcomes(s, alpha).iter().map(|r| row(s, r)).collect(),
        repeats_per_config: s.repeats_per_config(),
        changes: s.selection.as_ref().map(|sel| changes(s, sel)),
        verified: v.copied(),
        confirmed: confirmed(s, v),
        paste: super::paste::paste(&s.space, &best),
        risks: s.space.risks(&best),
        race: race(s, alpha),
    }
}

/// One option's outcome with its name and the value of its level shown.
fn row(s: &FsSearch, r: &Outcome) -> OptionRow {
    let o = &s.space.options[r.factor];
    OptionRow {
        name: o.name.clone(),
        value: r.level.map(|l| o.values[l].clone()),
        verdict: r.verdict,
        effect: r.effect,
        ci: r.ci,
        importance: r.importance,
        repeats_needed: r.repeats_needed,
    }
}

/// The selection's changes and left-out levels, named and in percent.
fn changes(s: &FsSearch, sel: &Selection) -> Changes {
    let named = |f: usize, l: usize| {
        let o = &s.space.options[f];
        (o.name.clone(), o.values[l].clone())
    };
    let changes = sel.changes.iter().map(|c| {
        let (option, value) = named(c.factor, c.effect.level);
        let e = &c.effect;
        Change {
            option,
            value,
            effect: pct(e.effect),
            ci: (pct(e.ci.0), pct(e.ci.1)),
            p_holm: e.p_holm,
        }
    });
    let left_out = sel.left_out.iter().map(|l| {
        let (option, value) = named(l.factor, l.effect.level);
        LeftOut {
            option,
            value,
            effect: pct(l.effect.effect),
            why: l.why.clone(),
        }
    });
    Changes {
        changes: changes.collect(),
        left_out: left_out.collect(),
    }
}

/// The race's best measured configuration against the candidate (what the verification
/// measured), and why what it changes beyond that is not recommended.
fn race(s: &FsSearch, alpha: f64) -> Race {
    let (best, candidate) = (s.best(), s.candidate());
    if best == candidate || s.candidates.is_empty() {
        return Race::Recommendation;
    }
    Race::Other {
        found: s.space.describe(&best),
        against_defaults: candidate == s.space.defaults(),
        reasons: extra_reasons(s, &best, &candidate, alpha),
        beat: s.race_beat_candidate(),
    }
}

/// Why each level `best` changes from the defaults beyond `candidate` is not recommended,
/// grouped by reason: a conflict with a larger change, significantly worse than the default,
/// or no significant effect.
fn extra_reasons(
    s: &FsSearch,
    best: &[usize],
    candidate: &[usize],
    alpha: f64,
) -> Vec<(String, Vec<String>)> {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_stats::tune::Config;
    use fsbattery_stats::PairOutcome;

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

    /// The text the report crate renders of `s` verified by `v`.
    fn shown(s: &FsSearch, v: &Verified) -> String {
        let a = Answer {
            verified: vec![Some(*v)],
            ranking: Vec::new(),
            refused: Vec::new(),
            secs: 1.0,
            budget: 1.0,
            ended: String::new(),
        };
        let t = view("ops/s", 0.05, 5.0, std::slice::from_ref(s), &a);
        fsbattery_report::tune::text::text(&t).unwrap()
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
        let out = shown(&s, &v);
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
        let out = shown(&s, &v);
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

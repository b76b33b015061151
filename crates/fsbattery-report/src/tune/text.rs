//! The tune's answer as the terminal's short text: per filesystem the options that matter and
//! those that do not, each recommended change from the defaults with the effect it is there
//! for, the verification of exactly that configuration, the `mkfs`/`mount` lines and their
//! risks, and what the race's best measured configuration adds; then the ranking.

use super::{Changes, FsView, OptionRow, Race, TuneView, Verified, DEVICE, MOUNTPOINT};
use fsbattery_stats::tune::Verdict;
use fsbattery_stats::PairOutcome;
use std::fmt::{Result, Write};

/// The short text answer.
pub fn text(t: &TuneView) -> std::result::Result<String, std::fmt::Error> {
    let mut out = String::new();
    for s in &t.filesystems {
        writeln!(
            out,
            "\n{} — objective {} ({} configurations measured)",
            s.target, t.objective, s.configurations
        )?;
        if !s.separated {
            writeln!(out, "  effects: the screen could not separate the options (too few configurations measured)")?;
        }
        effects(&mut out, t.margin, s)?;
        changes(&mut out, s)?;
        lines(&mut out, s)?;
        race(&mut out, &s.race)?;
    }
    if t.ranking.len() > 1 {
        writeln!(out, "\nat their best (as recommended):")?;
        for (k, r) in t.ranking.iter().enumerate() {
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
            writeln!(out, "  {}. {}{vs}", k + 1, r.spec)?;
        }
    }
    writeln!(
        out,
        "\ntook {:.0} s of a {:.0} s budget ({:.0} %): {}",
        t.secs,
        t.budget,
        100.0 * t.secs / t.budget.max(1e-9),
        t.ended
    )?;
    Ok(out)
}

/// The verdict's name, as the rows are grouped.
fn group(r: &OptionRow) -> &'static str {
    match r.verdict {
        Verdict::Matters => "matters",
        Verdict::Negligible => "negligible",
        Verdict::Unresolved { .. } => "unresolved",
    }
}

/// Each option's outcome with the interval that decided it: what matters, what is shown
/// to make no difference beyond ±margin, and what this budget did not resolve.
fn effects(out: &mut String, margin: f64, s: &FsView) -> Result {
    let rows = &s.options;
    let iv = |r: &OptionRow| {
        r.ci.map_or(
            "no interval (a level was never measured)".into(),
            |(a, b)| format!("[{a:+.1}, {b:+.1}] %"),
        )
    };
    fn name(r: &OptionRow) -> &str {
        &r.name
    }
    fn value(r: &OptionRow) -> &str {
        r.value.as_deref().unwrap_or("")
    }
    let of = |v: &'static str| rows.iter().filter(move |r| group(r) == v);
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
        margin
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
                format!("about {n:.0} (has {:.1})", s.repeats_per_config)
            });
        writeln!(out, "    {:<16} {}  needs {need}", name(r), iv(r))?;
    }
    Ok(())
}

/// Each change from the defaults with its reason, what was left out, and the verification
/// of exactly that configuration.
fn changes(out: &mut String, s: &FsView) -> Result {
    let Some(Changes { changes, left_out }) = &s.changes else {
        return Ok(());
    };
    if changes.is_empty() {
        return writeln!(
            out,
            "  changes from the defaults: none (no option's level was significantly better than its default)"
        );
    }
    writeln!(
        out,
        "  changes from the defaults, each for its effect (Holm-consistent interval, Holm-adjusted p):"
    )?;
    for c in changes {
        let nv = format!("{}={}", c.option, c.value);
        writeln!(
            out,
            "    {nv:<26} {:+6.1} % [{:+.1}, {:+.1}], p = {:.2e}",
            c.effect, c.ci.0, c.ci.1, c.p_holm
        )?;
    }
    for l in left_out {
        let (value, effect) = (&l.value, l.effect);
        writeln!(
            out,
            "    not {}={value} ({effect:+.1} %): {}",
            l.option, l.why
        )?;
    }
    verification(out, s.verified.as_ref(), s.confirmed)
}

/// The verification of the changes against the defaults.
fn verification(out: &mut String, v: Option<&Verified>, confirmed: bool) -> Result {
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
            if confirmed {
                ""
            } else {
                ": not shown better, so the defaults stay"
            }
        ),
    }
}

/// The recommended mkfs and mount lines and their risks.
fn lines(out: &mut String, s: &FsView) -> Result {
    let p = &s.paste;
    let defaults = if p.mkfs_defaults { "defaults: " } else { "" };
    writeln!(out, "  recommended, ready to paste:")?;
    writeln!(out, "    {defaults}{}", p.mkfs)?;
    writeln!(
        out,
        "    mount -o {} {DEVICE} {MOUNTPOINT}",
        p.mount_options
    )?;
    writeln!(out, "    /etc/fstab: {}", p.fstab)?;
    for (n, val, r) in &s.risks {
        writeln!(out, "    risk of {n}={val}: {r}")?;
    }
    Ok(())
}

/// The race's best measured configuration, and why what it changes beyond the
/// recommendation is not recommended.
fn race(out: &mut String, race: &Race) -> Result {
    let Race::Other {
        found,
        against_defaults,
        reasons,
        beat,
    } = race
    else {
        return writeln!(out, "  best measured: the recommendation itself");
    };
    let found = if found.is_empty() {
        "the defaults".to_string()
    } else {
        found.join(" ")
    };
    let (than, its) = if *against_defaults {
        ("the defaults", "its changes")
    } else {
        ("the recommendation", "its other changes")
    };
    let why = reasons
        .iter()
        .map(|(r, v)| format!("{r} ({})", v.join(" ")))
        .collect::<Vec<_>>()
        .join("; ");
    if *beat {
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
    use crate::tune::{Change, LeftOut, Paste};

    /// A view as the binary builds it: one change, one better level left out for a
    /// conflict, and a race leader that beat the recommendation.
    fn one() -> TuneView {
        let fs = FsView {
            target: "loop:xfs".into(),
            configurations: 12,
            separated: true,
            options: vec![OptionRow {
                name: "log_size".into(),
                value: Some("64m".into()),
                verdict: Verdict::Unresolved { grow: Some(2.0) },
                effect: Some(3.0),
                ci: Some((-1.0, 7.5)),
                importance: 0.4,
                repeats_needed: Some(6.0),
            }],
            repeats_per_config: 3.0,
            changes: Some(Changes {
                changes: vec![Change {
                    option: "logbufs".into(),
                    value: "8".into(),
                    effect: 12.5,
                    ci: (4.0, 21.0),
                    p_holm: 0.002,
                }],
                left_out: vec![LeftOut {
                    option: "crc".into(),
                    value: "0".into(),
                    effect: 9.0,
                    why: "crc=0 needs finobt=0".into(),
                }],
            }),
            verified: None,
            confirmed: false,
            paste: Paste {
                mkfs: "mkfs.xfs /dev/DEVICE".into(),
                mkfs_defaults: true,
                mount_options: "logbufs=8".into(),
                fstab: "/dev/DEVICE  /MOUNTPOINT  xfs  logbufs=8  0  0".into(),
            },
            risks: Vec::new(),
            race: Race::Other {
                found: vec!["logbufs=8".into(), "crc=0".into()],
                against_defaults: false,
                reasons: vec![("crc=0 needs finobt=0".into(), vec!["crc=0".into()])],
                beat: true,
            },
        };
        TuneView {
            objective: "stream.write.MiB/s".into(),
            margin: 5.0,
            filesystems: vec![fs],
            ranking: Vec::new(),
            secs: 30.0,
            budget: 60.0,
            ended: "the budget was spent".into(),
        }
    }

    #[test]
    fn every_part_of_the_view_is_laid_out() {
        let out = text(&one()).unwrap();
        for line in [
            "\nloop:xfs — objective stream.write.MiB/s (12 configurations measured)\n",
            "    log_size         [-1.0, +7.5] %  needs about 6 (has 3.0)\n",
            "    logbufs=8                   +12.5 % [+4.0, +21.0], p = 2.00e-3\n",
            "    not crc=0 (+9.0 %): crc=0 needs finobt=0\n",
            "  verified: no time was left; the changes are the screen's estimate\n",
            "    defaults: mkfs.xfs /dev/DEVICE\n    mount -o logbufs=8 /dev/DEVICE /MOUNTPOINT\n",
            "  best measured (logbufs=8 crc=0) was significantly better than the recommendation \
             in the race; its other changes: crc=0 needs finobt=0 (crc=0): an interaction",
            "\ntook 30 s of a 60 s budget (50 %): the budget was spent\n",
        ] {
            assert!(out.contains(line), "{line:?} not in\n{out}");
        }
        assert!(
            !out.contains("at their best"),
            "one filesystem has no ranking"
        );
    }
}

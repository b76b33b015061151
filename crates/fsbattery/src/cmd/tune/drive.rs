//! The tune's phases in order, each measured by [`super::phase::measure`] and booked into the
//! filesystems' [`FsSearch`]es; the deadline (start + `--budget`) bounds every phase. Time
//! left after the screen goes first to follow-ups on the options not resolved, keeping what
//! the verification needs (at least a sixth of the budget); what the verification leaves goes
//! to follow-ups again. The answer says why the tune ended: every option resolved, or how
//! many were still open when the budget ran out.

use super::answer::{Answer, Verified};
use super::budget::{sizes, Cost, RACE_CANDIDATES, RACE_REPEATS, SCREEN_REPEATS};
use super::objective::Objective;
use super::phase::{measure, Measured, Refused, Repeats};
use super::search::{mean, FsSearch};
use crate::cli::TuneArgs;
use crate::stderr::errln;
use fsbattery_core::error::UsageError;
use fsbattery_core::targets::TargetOptions;
use fsbattery_stats::tune::Config;
use fsbattery_stats::{pair, Better};
use std::path::Path;
use std::time::Instant;

/// Seconds kept at the end for the report.
const REPORT_SECS: f64 = 5.0;

/// Probe, pilot, screen, race and verify; the answer.
pub fn execute(
    args: &TuneArgs,
    objective: &Objective,
    searches: &mut [FsSearch],
    out: &Path,
) -> anyhow::Result<Answer> {
    let start = Instant::now();
    let budget = args.budget.as_secs_f64();
    let left = |start: &Instant| budget - start.elapsed().as_secs_f64();
    fsbattery_core::targets::check_workdir(&args.workdir)?;
    // The plain target first: a machine that cannot make it at all (no root, no loop
    // devices, no mkfs) is told so in one line, before anything is made.
    for s in searches.iter() {
        let plain = s.spec(&s.space.defaults());
        drop(fsbattery_core::targets::parse(
            &plain,
            &target_options(args),
        )?);
    }
    let refused = probe(args, searches)?;
    std::fs::create_dir_all(out)?;
    errln!(
        "tune: pilot: the defaults of {} filesystem(s), 2 repeats",
        searches.len()
    );
    let defaults: Vec<(usize, Config)> = searches
        .iter()
        .enumerate()
        .map(|(i, s)| (i, s.space.defaults()))
        .collect();
    let pilot = run_phase(
        args,
        objective,
        searches,
        &defaults,
        Repeats::Fixed(2),
        &out.join("01-pilot"),
    )?;
    let (z, cost, overhead) = plan_sizes(args, searches, &pilot, budget - left(&start), out)?;

    let mut design: Vec<(usize, Config)> = Vec::new();
    for (i, (s, &n)) in searches.iter_mut().zip(&z.screen).enumerate() {
        s.plan_screen(n, args.seed);
        design.extend(s.design.iter().map(|c| (i, c.clone())));
    }
    errln!(
        "tune: screen: {} configurations × {SCREEN_REPEATS} repeats (about {:.0} s)",
        design.len(),
        cost.phase(design.len(), SCREEN_REPEATS)
    );
    run_phase(
        args,
        objective,
        searches,
        &design,
        Repeats::Fixed(SCREEN_REPEATS),
        &out.join("02-screen"),
    )?;
    for s in searches.iter_mut() {
        s.analyse(args.alpha, args.margin);
    }
    // Follow-ups first, up to what the verification and a sixth of the budget need: an
    // option left unresolved is an answer the user cannot act on.
    let verify_min = cost.phase(2 * searches.len(), 3) + overhead;
    let keep = verify_min.max(budget / 6.0) + REPORT_SECS;
    let mut follow = FollowUps::default();
    follow.run(
        args,
        objective,
        searches,
        cost,
        overhead,
        &|| left(&start) - keep,
        out,
    )?;
    for s in searches.iter_mut() {
        s.analyse(args.alpha, args.margin);
    }

    let round_secs = cost.phase(RACE_CANDIDATES * searches.len(), RACE_REPEATS);
    for round in 1..=z.rounds {
        let racing: Vec<(usize, Config)> = searches
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.racing().into_iter().map(move |c| (i, c)))
            .collect();
        // A round starts only when the verification still fits after it.
        let after = left(&start) - REPORT_SECS - round_secs - overhead;
        if racing.is_empty() || after < verify_min.max(0.5 * z.verify_secs) {
            break;
        }
        errln!(
            "tune: race round {round}: {} candidates × {RACE_REPEATS} repeats",
            racing.len()
        );
        let dir = out.join(format!("03-race-{round}"));
        run_phase(
            args,
            objective,
            searches,
            &racing,
            Repeats::Fixed(RACE_REPEATS),
            &dir,
        )?;
        let rounds_left = z.rounds - round;
        for s in searches.iter_mut() {
            let was_over = s.race_over;
            s.judge(args.alpha, rounds_left, RACE_REPEATS as usize);
            if s.race_over && !was_over {
                errln!(
                    "tune: race: {}: no further round can change the race (futility); it ends",
                    s.target
                );
            }
        }
    }

    let verified = verify(
        args,
        objective,
        searches,
        cost,
        left(&start) - REPORT_SECS,
        out,
    )?;
    // What the verification left goes to the options still open; the recommendation stays
    // the one verified, only the verdicts are updated.
    follow.run(
        args,
        objective,
        searches,
        cost,
        overhead,
        &|| left(&start) - REPORT_SECS,
        out,
    )?;
    for s in searches.iter_mut() {
        s.estimate(args.alpha, args.margin);
    }
    let ranking = super::answer::rank(searches, &verified, args.alpha, args.margin);
    report(out);
    let open: usize = searches.iter().map(|s| s.unresolved().len()).sum();
    let ended = if open == 0 {
        "every option was resolved".to_string()
    } else {
        format!("the budget ended with {open} option(s) not resolved")
    };
    Ok(Answer {
        verified,
        ranking,
        refused,
        secs: start.elapsed().as_secs_f64(),
        budget,
        ended,
    })
}

/// The follow-up rounds after the screen: each measures, per filesystem with options still
/// unresolved, a design varying only those, until every option is resolved or the next round
/// would not fit in the time `left` reports. Rounds are numbered across calls, so a resume
/// reads back the same directories.
#[derive(Default)]
struct FollowUps {
    round: usize,
}

/// Most follow-up rounds in one tune (each is at least one phase's start-up).
const MAX_FOLLOW_UPS: usize = 40;

impl FollowUps {
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        args: &TuneArgs,
        objective: &Objective,
        searches: &mut [FsSearch],
        cost: Cost,
        overhead: f64,
        left: &dyn Fn() -> f64,
        out: &Path,
    ) -> anyhow::Result<()> {
        while self.round < MAX_FOLLOW_UPS {
            let mut configs: Vec<(usize, Config)> = Vec::new();
            for (i, s) in searches.iter().enumerate() {
                let runs = s.design.len().max(4);
                let seed = args.seed.wrapping_add(1000 * (self.round as u64 + 1));
                configs.extend(s.follow_up(runs, seed).into_iter().map(|c| (i, c)));
            }
            if configs.is_empty() {
                return Ok(());
            }
            let most = searches.iter().map(|s| s.design.len()).max().unwrap_or(4);
            let repeats = ((2 * most * searches.len()) / configs.len()).clamp(2, 8) as u32;
            let secs = cost.phase(configs.len(), repeats) + overhead;
            if secs > left() {
                return Ok(());
            }
            self.round += 1;
            let open: Vec<String> = searches
                .iter()
                .flat_map(|s| {
                    s.unresolved()
                        .into_iter()
                        .map(|j| s.space.options[j].name.clone())
                })
                .collect();
            errln!(
                "tune: follow-up {}: {} configurations × {repeats} repeats for what is not resolved ({})",
                self.round,
                configs.len(),
                open.join(", ")
            );
            let dir = out.join(format!("02-follow-{:02}", self.round));
            run_phase(
                args,
                objective,
                searches,
                &configs,
                Repeats::Fixed(repeats),
                &dir,
            )?;
            for s in searches.iter_mut() {
                s.estimate(args.alpha, args.margin);
            }
        }
        Ok(())
    }
}

/// The options the probes' targets are made with: the run's default image size (1 GiB at
/// quick scale) unless the target gives `size=`.
fn target_options(args: &TuneArgs) -> TargetOptions {
    TargetOptions {
        workdir: args.workdir.clone(),
        image_size: Some(1 << 30),
        ..TargetOptions::default()
    }
}

/// The screen's and race's sizes: the saved plan on `--resume`, else from the pilot's cost
/// within what is left of the budget after `spent` seconds (then saved).
fn plan_sizes(
    args: &TuneArgs,
    searches: &[FsSearch],
    pilot: &Measured,
    spent: f64,
    out: &Path,
) -> anyhow::Result<(super::budget::Sizes, Cost, f64)> {
    if let Some(saved) = super::resume::load(out).filter(|_| args.resume) {
        return Ok(saved.parts());
    }
    let budget = args.budget.as_secs_f64();
    let (cost, overhead) = cost_of(pilot, searches.len());
    let columns: Vec<usize> = searches.iter().map(FsSearch::columns).collect();
    let max: Vec<usize> = searches.iter().map(|s| s.valid_configs(10_000)).collect();
    // Screen, verification and a race round each start a phase (later rounds check the clock).
    let startups = overhead * 3.0;
    let z = sizes(&columns, &max, cost, budget - spent - REPORT_SECS - startups).map_err(|need| {
        UsageError::Invalid(format!(
            "--budget {budget:.0}s is too small for this option space: its smallest screen needs a budget of \
             about {:.0} s at the {:.1} s a configuration took here; give a larger --budget or fewer --option",
            need + spent + REPORT_SECS + startups,
            cost.repeat
        ))
    })?;
    super::resume::save(out, &super::resume::SavedPlan::new(&z, cost, overhead))?;
    Ok((z, cost, overhead))
}

/// Probe every search's space once; the lines of what was left out.
fn probe(args: &TuneArgs, searches: &mut [FsSearch]) -> anyhow::Result<Vec<String>> {
    let opts = target_options(args);
    let mut lines = Vec::new();
    for s in searches.iter_mut() {
        errln!(
            "tune: probing {}'s {} options once",
            s.target,
            s.space.options.len()
        );
        let refused = fsbattery_core::tune::probe(
            &mut s.space,
            &s.extra,
            &opts,
            &fsbattery_core::interrupt::requested,
        );
        if fsbattery_core::interrupt::requested() {
            return Err(super::phase::Interrupted.into());
        }
        for r in refused {
            let line = format!("{}: {}", s.target, r.line());
            errln!("tune: {line}");
            lines.push(line);
        }
    }
    Ok(lines)
}

/// Measure `configs` (search index, configuration) into `dir` and book the samples; a
/// configuration the trial mount refuses is left out and the phase measured again.
fn run_phase(
    args: &TuneArgs,
    objective: &Objective,
    searches: &mut [FsSearch],
    configs: &[(usize, Config)],
    repeats: Repeats,
    dir: &Path,
) -> anyhow::Result<Measured> {
    let mut configs = configs.to_vec();
    let mut attempt = 0;
    let measured = loop {
        let specs: Vec<String> = configs.iter().map(|(i, c)| searches[*i].spec(c)).collect();
        if args.resume {
            if let Some(m) = super::resume::finished(dir, &specs) {
                errln!(
                    "tune: read back {} (finished before the resume)",
                    dir.display()
                );
                break m;
            }
        }
        let d = super::resume::fresh(&if attempt == 0 {
            dir.to_path_buf()
        } else {
            dir.with_extension(attempt.to_string())
        });
        let reps = match &repeats {
            Repeats::Fixed(n) => Repeats::Fixed(*n),
            Repeats::Auto(s) => Repeats::Auto(*s),
        };
        match measure(args, &specs, reps, &d) {
            Ok(m) => break m,
            Err(e) if attempt < 3 && e.is::<Refused>() => {
                let r = e.downcast::<Refused>().expect("checked");
                errln!("tune: left out: {}", r.line);
                configs.retain(|(i, c)| searches[*i].spec(c) != r.spec);
                for s in searches.iter_mut() {
                    s.design.retain(|c| s.space.spec(c, &s.extra) != r.spec);
                }
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    };
    let by_spec = objective.by_repeat(&measured.record);
    let phase = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    for (i, s) in searches.iter_mut().enumerate() {
        let mine: Vec<Config> = configs
            .iter()
            .filter(|(j, _)| *j == i)
            .map(|(_, c)| c.clone())
            .collect();
        s.take(&phase, &by_spec, &mine);
    }
    Ok(measured)
}

/// What a configuration costs, from the pilot: per repeat, its mkfs, mount and unmount and
/// its measured phases (×1.2 for the untimed syncs and cache drops between them); the trial
/// mount a configuration with options gets; and what is left of the pilot's wall time, the
/// start-up every phase pays once (its second value).
fn cost_of(pilot: &Measured, filesystems: usize) -> (Cost, f64) {
    let lifecycles: Vec<f64> = pilot
        .record
        .targets
        .iter()
        .flat_map(|t| {
            t.lifecycles
                .iter()
                .map(|l| l.mkfs_secs + l.mount_secs + l.umount_secs.unwrap_or(0.0))
        })
        .collect();
    let made = if lifecycles.is_empty() {
        0.0
    } else {
        mean(&lifecycles)
    };
    let runs = (2 * filesystems) as f64;
    let timed: f64 = pilot
        .record
        .cells
        .iter()
        .filter(|c| c.workload != "filesystem")
        .flat_map(|c| c.samples.iter().map(|s| s.elapsed_s))
        .sum::<f64>()
        / runs;
    let repeat = (made + 1.2 * timed).min(pilot.secs / runs);
    let overhead = (pilot.secs - runs * repeat).max(0.0);
    (
        Cost {
            repeat,
            trial: made + 0.2,
        },
        overhead,
    )
}

/// Each filesystem's candidate — its defaults changed only where an effect is significant —
/// against those defaults, in one run with adaptive repeats: the gain printed is measured on
/// exactly the configuration recommended.
fn verify(
    args: &TuneArgs,
    objective: &Objective,
    searches: &mut [FsSearch],
    cost: Cost,
    secs: f64,
    out: &Path,
) -> anyhow::Result<Vec<Option<Verified>>> {
    let mut configs: Vec<(usize, Config)> = Vec::new();
    for (i, s) in searches.iter().enumerate() {
        configs.push((i, s.candidate()));
        if s.candidate() != s.space.defaults() {
            configs.push((i, s.space.defaults()));
        }
    }
    if secs < cost.phase(configs.len(), 3) {
        errln!("tune: no time left to verify ({secs:.0} s); the answer is the screen's");
        return Ok(vec![None; searches.len()]);
    }
    errln!(
        "tune: verify: {} configurations, adaptive repeats within {secs:.0} s",
        configs.len()
    );
    let m = measure_specs(
        args,
        searches,
        &configs,
        Repeats::Auto(secs as u64),
        &out.join("04-verify"),
    )?;
    let by_spec = objective.samples(&m.record);
    Ok(searches
        .iter_mut()
        .map(|s| {
            let get = |c: &Config| by_spec.get(&s.spec(c)).cloned().unwrap_or_default();
            let candidate = get(&s.candidate());
            let base = if s.candidate() == s.space.defaults() {
                Vec::new()
            } else {
                get(&s.space.defaults())
            };
            s.verified = candidate.clone();
            s.verified_defaults = base.clone();
            verified(&candidate, &base, args.alpha)
        })
        .collect())
}

/// The candidate's samples against the defaults' (logs): gain, its CI and p, by the pairwise
/// decision every table uses.
fn verified(best: &[f64], base: &[f64], alpha: f64) -> Option<Verified> {
    let e = |v: &[f64]| v.iter().map(|x| x.exp()).collect::<Vec<f64>>();
    if base.is_empty() {
        return (!best.is_empty()).then_some(Verified::same(best.len()));
    }
    let p = pair(&e(best), &e(base), Better::Higher, alpha, 5.0);
    Some(Verified {
        gain: p.ratio? - 1.0,
        ci: p.ratio_ci.map(|(a, b)| (a - 1.0, b - 1.0))?,
        p: p.p_diff,
        outcome: p.outcome,
        n: (best.len(), base.len()),
    })
}

fn measure_specs(
    args: &TuneArgs,
    searches: &mut [FsSearch],
    configs: &[(usize, Config)],
    repeats: Repeats,
    dir: &Path,
) -> anyhow::Result<Measured> {
    let specs: Vec<String> = configs.iter().map(|(i, c)| searches[*i].spec(c)).collect();
    measure(args, &specs, repeats, dir)
}

/// Every phase in one HTML report (`fsbattery report DIR... --html`), best effort.
fn report(out: &Path) {
    let mut dirs: Vec<_> = std::fs::read_dir(out)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("results.json").is_file())
        .collect();
    dirs.sort();
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let status = std::process::Command::new(exe)
        .arg("report")
        .args(&dirs)
        .arg("--html")
        .arg(out.join("report.html"))
        .stdout(std::process::Stdio::null())
        .status();
    if !status.is_ok_and(|s| s.success()) {
        errln!(
            "tune: the HTML report of {} could not be written; `fsbattery report` reads each phase",
            out.display()
        );
    }
}

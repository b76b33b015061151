//! What every renderer says of the run's conditions beyond the numbers: `--repeat auto`
//! (how many repeats a cell took and why it stopped, and a `~` on a cell that stopped at the
//! maximum or the budget still undecided) and `--age` (the churn each filesystem went through, and its free-space
//! fragmentation), and the cells whose repeats have an outlier or a trend
//! ([`crate::repeat_flags`]). One place, so the table, the Markdown and the HTML say the same
//! thing.

use fsbattery_record::{format_bytes, RunRecord};

/// The text mark of a cell whose `--repeat auto` stopped undecided (or short of the precision).
pub const UNCONVERGED: &str = "~";

/// True when `workload` on `target` stopped at the maximum repeats or the budget, undecided
/// (or, alone, short of the precision).
pub fn unconverged(rec: &RunRecord, target: &str, workload: &str) -> bool {
    rec.convergence(target, workload)
        .is_some_and(|c| !c.reached)
}

/// The equivalence margin the run's verdicts use: its `--repeat auto` margin (what its
/// repeats were decided by), else the default.
pub fn margin_pct(rec: &RunRecord) -> f64 {
    rec.plan
        .repeat_auto
        .map_or(fsbattery_stats::DEFAULT_MARGIN_PCT, |a| a.margin_pct)
}

/// "3 run(s)" or "3..15 runs (auto, 3 %)", then ", aged 70 %" for an aged run: the line
/// above a table.
pub fn runs_and_age(rec: &RunRecord) -> String {
    let runs = match &rec.plan.repeat_auto {
        Some(a) if compared(rec) => {
            format!(
                "{}..{} runs (auto, ±{} % margin)",
                a.min, a.max, a.margin_pct
            )
        }
        Some(a) => format!("{}..{} runs (auto, {} %)", a.min, a.max, a.precision_pct),
        None => format!("{} run(s)", rec.plan.repeat),
    };
    match &rec.plan.age {
        Some(age) => format!("{runs}, {}", age.describe()),
        None => runs,
    }
}

/// The legend of [`UNCONVERGED`], when some cell of an automatically repeated run carries it.
pub fn legend(rec: &RunRecord) -> Option<String> {
    let any = rec.targets.iter().flat_map(|t| &t.convergence);
    if !any.into_iter().any(|c| !c.reached) {
        return None;
    }
    rec.plan.repeat_auto.map(|a| {
        if compared(rec) {
            let budget = a
                .budget_secs
                .map_or(String::new(), |_| " or the budget".into());
            format!(
                "{UNCONVERGED} undecided: {} repeats{budget} neither separated it from the best \
                 nor showed it equivalent within ±{} %{}",
                a.max,
                a.margin_pct,
                given_up(rec)
            )
        } else {
            format!(
                "{UNCONVERGED} not converged: {} repeats left the CI95 wider than {} % of the mean",
                a.max, a.precision_pct
            )
        }
    })
}

/// The legend's addition when some cell stopped for futility (its repeat note says so).
fn given_up(rec: &RunRecord) -> &'static str {
    use fsbattery_record::repeats::StopReason;
    let any = rec.targets.iter().flat_map(|t| &t.convergence);
    if any
        .into_iter()
        .any(|c| c.stop == Some(StopReason::Hopeless))
    {
        ", or was given up early: its noise asked for far more repeats than were left"
    } else {
        ""
    }
}

/// Whether some cell was decided by the compared rule (separated or equivalent), or stopped
/// undecided under it: then the legend speaks of verdicts, not of precision.
fn compared(rec: &RunRecord) -> bool {
    use fsbattery_record::repeats::StopReason;
    rec.targets.iter().flat_map(|t| &t.convergence).any(|c| {
        matches!(
            c.stop,
            Some(StopReason::Decided | StopReason::Budget | StopReason::Hopeless)
        )
    })
}

/// One line per auto-repeat decision and per aged filesystem, in target order, then the
/// cells whose repeats look wrong ([`crate::repeat_flags`]).
pub fn notes(rec: &RunRecord) -> Vec<String> {
    let mut out = Vec::new();
    for t in &rec.targets {
        for c in &t.convergence {
            out.push(format!(
                "repeats: {} on {}: {}",
                c.workload,
                t.label,
                c.describe()
            ));
        }
        out.extend(aged_lines(t));
    }
    out.extend(crate::repeat_flags::lines(rec));
    out
}

/// The run-wide notes alone: one line per aged filesystem (what `run` prints without
/// `--verbose`; the per-cell repeat notes stay in the report files).
pub fn aging_notes(rec: &RunRecord) -> Vec<String> {
    rec.targets.iter().flat_map(aged_lines).collect()
}

/// One line per aged lifecycle of `t`.
fn aged_lines(t: &fsbattery_record::TargetRecord) -> Vec<String> {
    let aged = t.lifecycles.iter().filter_map(|l| l.aging.as_ref());
    aged.enumerate()
        .map(|(i, a)| {
            let free = a.free_space.as_ref().map_or(String::new(), |f| {
                format!(
                    "; free space {} in {} extents, {:.1} % of it in extents < 1 MiB",
                    format_bytes(f.free_bytes),
                    f.extents,
                    f.small_extent_pct
                )
            });
            format!(
                "aged: {} (cycle {}) to {} % (seed {}): {} rounds, {} files created, {} deleted, \
                 {} left ({}), {:.1} % used{free}",
                t.label,
                i + 1,
                a.pct,
                a.seed,
                a.rounds,
                a.files_created,
                a.files_deleted,
                a.files_left,
                format_bytes(a.bytes_left),
                a.used_pct
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::aging::{Aging, FreeSpace};
    use fsbattery_record::repeats::{AutoRepeat, Convergence};

    /// `record(values)` run with `--repeat auto:3..max`, metadata on ext4 stopped unconverged
    /// at `max` with `widest` as its widest metric.
    fn unconverged_run(values: &[f64], max: u32, widest: &str, pct: f64) -> RunRecord {
        let mut rec = crate::compare::tests::record(values);
        rec.plan.repeat_auto = Some(AutoRepeat::new(3, max));
        let mut t = fsbattery_record::TargetRecord {
            label: "ext4".into(),
            ..Default::default()
        };
        t.convergence.push(Convergence {
            workload: "metadata".into(),
            repeats: max,
            reached: false,
            stop: None,
            widest_metric: widest.into(),
            widest_half_width_pct: Some(pct),
        });
        rec.targets.push(t);
        rec
    }

    #[test]
    fn every_renderer_marks_the_unconverged_cell_and_lists_the_notes() {
        let rec = unconverged_run(&[1.0, 1.5, 2.0], 3, "touch_files", 62.1);
        let report = crate::Report {
            record: &rec,
            aggregate: fsbattery_stats::Aggregate::Mean,
            rank_reference: false,
        };
        use crate::Renderer;
        let text = |r: &dyn Renderer| String::from_utf8(r.render(&report).unwrap()).unwrap();
        let table = text(&crate::table::TerminalTable { styled: false });
        assert!(table.contains("1.50 ±1.24 ~"), "{table}");
        assert!(table.contains("mean of 3..3 runs (auto, 3 %)"), "{table}");
        assert!(table.contains("repeats: metadata on ext4: 3 repeats, not converged"));
        let md = text(&crate::markdown::Markdown);
        assert!(
            md.contains("1.50 ±1.24 ~") && md.contains("## Repeats and aging"),
            "{md}"
        );
        let html = text(&crate::html::Html);
        assert!(
            html.contains("class=\"mark unconverged\""),
            "no mark in the HTML"
        );
        assert!(html.contains("<h3>Repeats and aging</h3>"));
    }

    #[test]
    fn notes_and_marks_come_from_the_record() {
        let fixed = crate::compare::tests::record(&[1.0, 1.0, 1.0]);
        assert_eq!(
            (runs_and_age(&fixed), legend(&fixed), notes(&fixed)),
            ("3 run(s)".into(), None, vec![])
        );
        let mut rec = unconverged_run(&[1.0, 1.0, 1.0], 15, "touch", 8.31);
        rec.targets[0].lifecycles.push(fsbattery_record::Lifecycle {
            aging: Some(Aging {
                pct: 70,
                seed: 1,
                rounds: 4,
                files_created: 10,
                files_deleted: 3,
                files_left: 7,
                bytes_left: 7 << 20,
                used_pct: 70.21,
                free_space: Some(FreeSpace {
                    extents: 12,
                    free_bytes: 3 << 20,
                    small_extent_pct: 40.0,
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        });
        assert!(unconverged(&rec, "ext4", "metadata") && !unconverged(&rec, "ext4", "tree"));
        assert_eq!(runs_and_age(&rec), "3..15 runs (auto, 3 %)");
        rec.plan.age = Some(fsbattery_record::aging::AgeSpec { pct: 70, seed: 1 });
        assert_eq!(runs_and_age(&rec), "3..15 runs (auto, 3 %), aged 70 %");
        assert!(legend(&rec).unwrap().contains("15 repeats"));
        assert_eq!(
            notes(&rec),
            [
                "repeats: metadata on ext4: 15 repeats, not converged: ±8.3 % (metadata.touch)",
                "aged: ext4 (cycle 1) to 70 % (seed 1): 4 rounds, 10 files created, 3 deleted, \
                 7 left (7MiB), 70.2 % used; free space 3MiB in 12 extents, 40.0 % of it in \
                 extents < 1 MiB"
            ]
        );
    }

    #[test]
    fn a_compared_run_speaks_of_verdicts() {
        use fsbattery_record::repeats::StopReason;
        let mut rec = unconverged_run(&[1.0, 1.0, 1.0], 15, "touch", 8.31);
        rec.plan.repeat_auto.as_mut().unwrap().budget_secs = Some(600.0);
        rec.targets[0].convergence[0].stop = Some(StopReason::Budget);
        assert_eq!(runs_and_age(&rec), "3..15 runs (auto, ±5 % margin)");
        let legend = legend(&rec).unwrap();
        assert!(
            legend.contains("undecided") && legend.contains("or the budget"),
            "{legend}"
        );
        assert!(notes(&rec)[0].contains("undecided when the budget ran out"));
    }
}

//! Time to answer: how many ranked rows a run decided, in how much wall time, and what share
//! of that time was spent inside timed phases (the rest is making filesystems, datasets,
//! cache drops, pauses, tearing down).
//!
//! Role: the figure a user feels most, printed at the end of every run and kept in the
//! record's composite. Derived from the record alone: the wall time is the record's start to
//! its end; the measured time is the sum of every timed phase's elapsed seconds, each phase
//! counted once (a phase that gave several metrics — fio's bandwidth, IOPS and latencies —
//! repeats its elapsed time on each of them: they are one phase when target, workload, repeat
//! and elapsed time agree to the bit).
//!
//! Invariants: `None` for an imported record (its times are not this tool's), a record
//! without an end (still running, or killed), or one whose timestamps do not parse; the
//! efficiency never exceeds 100 % (MPI ranks' phases overlap in wall time).

use fsbattery_record::composite::TimeToAnswer;
use fsbattery_record::RunRecord;
use std::collections::HashSet;

/// The record's time to answer with `decided` of `rows` ranked rows decided.
pub fn of(rec: &RunRecord, decided: usize, rows: usize) -> Option<TimeToAnswer> {
    if rec.source.is_some() {
        return None;
    }
    let parse = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    let (start, end) = (parse(&rec.started)?, parse(rec.finished.as_deref()?)?);
    let wall_secs = (end - start).num_milliseconds() as f64 / 1000.0;
    Some(TimeToAnswer {
        decided,
        rows,
        wall_secs,
        measured_secs: measured_secs(rec),
    })
}

/// Seconds inside timed phases, each phase once (see the module header).
pub fn measured_secs(rec: &RunRecord) -> f64 {
    let mut seen = HashSet::new();
    let mut total = 0.0;
    for c in &rec.cells {
        for s in &c.samples {
            let phase = (&c.target, &c.workload, s.repeat, s.elapsed_s.to_bits());
            if s.elapsed_s.is_finite() && s.elapsed_s > 0.0 && seen.insert(phase) {
                total += s.elapsed_s;
            }
        }
    }
    total
}

/// "19 of 27 rows decided in 3 min 10 s; efficiency: 41 % of wall time measured".
pub fn line(t: &TimeToAnswer) -> String {
    format!(
        "{} of {} rows decided in {}; efficiency: {:.0} % of wall time measured.",
        t.decided,
        t.rows,
        duration(t.wall_secs),
        t.efficiency_pct()
    )
}

/// "3 min 10 s", "45 s", "1 h 2 min".
fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::{Cell, CellStatus, Sample};

    fn cell(target: &str, workload: &str, metric: &str, elapsed: &[f64]) -> Cell {
        let samples = elapsed
            .iter()
            .enumerate()
            .map(|(r, e)| Sample {
                repeat: r as u32,
                value: 1.0,
                elapsed_s: *e,
                ..Default::default()
            })
            .collect();
        Cell {
            target: target.into(),
            workload: workload.into(),
            metric: metric.into(),
            unit: "s".into(),
            better: fsbattery_stats::Better::Lower,
            comparable: true,
            method: "native".into(),
            status: CellStatus::Ok,
            samples,
            stats: None,
        }
    }

    #[test]
    fn each_phase_counts_once_and_the_line_says_it() {
        let mut rec: RunRecord =
            serde_json::from_str(include_str!("../tests/fixtures/run.json")).unwrap();
        rec.started = "2026-11-28T20:00:00.000+00:00".into();
        rec.finished = Some("2026-11-28T20:03:10.000+00:00".into());
        rec.cells = vec![
            // Two metrics of one phase (same elapsed): counted once.
            cell("ext4", "fio", "bw", &[10.0, 12.0]),
            cell("ext4", "fio", "iops", &[10.0, 12.0]),
            cell("xfs", "fio", "bw", &[20.0, 24.0]),
        ];
        assert_eq!(measured_secs(&rec), 66.0);
        let t = of(&rec, 19, 27).unwrap();
        assert_eq!(t.wall_secs, 190.0);
        assert_eq!(
            line(&t),
            "19 of 27 rows decided in 3 min 10 s; efficiency: 35 % of wall time measured."
        );
        rec.finished = None;
        assert!(of(&rec, 19, 27).is_none(), "no end, no time to answer");
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(duration(45.4), "45 s");
        assert_eq!(duration(190.0), "3 min 10 s");
        assert_eq!(duration(3720.0), "1 h 2 min");
    }
}

//! Assembling a run made in several parts (`run --resume`): a repeat measured again replaces the
//! earlier part's samples, a filesystem made again for a cycle cut short replaces that
//! cycle's lifecycle samples (one per repeat, as an uninterrupted run has), a failed step is
//! measured again, and each part lists the steps whose samples the record keeps.

use fsbattery_record::journal::{assemble, Event};
use fsbattery_record::*;
use std::collections::BTreeMap;

const W: &str = "work";

fn plan() -> PlanInfo {
    let metric = |name: &str| MetricSpec::seconds(name, "a time");
    PlanInfo {
        suite: "s".into(),
        scale: "quick".into(),
        repeat: 2,
        aggregate: fsbattery_stats::Aggregate::Mean,
        pause_secs: 0.0,
        method: "native".into(),
        workloads: vec![WorkloadPlan {
            name: W.into(),
            params: BTreeMap::new(),
            param_units: BTreeMap::new(),
            metrics: vec![metric("a"), metric("b")],
        }],
        rows: Vec::new(),
        datasets: Vec::new(),
        skipped_targets: Vec::new(),
        label: None,
        repeat_auto: None,
        age: None,
        cache: None,
        settings: None,
        weights: Default::default(),
    }
}

fn sample(workload: &str, metric: &str, repeat: u32, value: f64) -> Event {
    Event::Sample {
        target: "t".into(),
        workload: workload.into(),
        metric: metric.into(),
        unit: "s".into(),
        better: fsbattery_stats::Better::Lower,
        comparable: true,
        method: "native".into(),
        sample: Sample {
            repeat,
            value,
            ..Default::default()
        },
    }
}

fn mkfs(repeat: u32, value: f64) -> Event {
    sample(lifecycle::WORKLOAD, "mkfs", repeat, value)
}

fn torn_down() -> Event {
    Event::Lifecycle {
        target: "t".into(),
        lifecycle: Lifecycle::default(),
    }
}

fn end(interrupted: bool) -> Event {
    Event::End {
        finished: "2026-01-01T01:00:00Z".into(),
        interrupted,
    }
}

/// Part one: repeat 0 whole (its filesystem torn down), repeat 1's filesystem made and one of
/// its two metrics measured when the run was killed (no end).
fn first_part() -> Vec<Event> {
    vec![
        Event::Start {
            schema_version: SCHEMA_VERSION,
            tool: ToolInfo {
                name: "fsbattery".into(),
                version: "0".into(),
            },
            started: "2026-01-01T00:00:00Z".into(),
            host: HostInfo {
                kernel: "k1".into(),
                ..Default::default()
            },
            plan: plan(),
            boot_id: Some("boot-1".into()),
        },
        Event::Target {
            target: TargetRecord {
                label: "t".into(),
                ..Default::default()
            },
        },
        mkfs(0, 1.0),
        sample(W, "a", 0, 10.0),
        sample(W, "b", 0, 20.0),
        torn_down(),
        mkfs(1, 1.1),
        sample(W, "a", 1, 99.0),
    ]
}

fn resumed(kernel: &str, boot: &str) -> Event {
    Event::Resumed {
        started: "2026-01-01T00:30:00Z".into(),
        host: HostInfo {
            kernel: kernel.into(),
            ..Default::default()
        },
        boot_id: Some(boot.into()),
    }
}

fn repeats(rec: &RunRecord, workload: &str, metric: &str) -> Vec<(u32, f64)> {
    let c = rec.cell("t", workload, metric).unwrap();
    c.samples.iter().map(|s| (s.repeat, s.value)).collect()
}

#[test]
fn a_killed_run_continued_holds_each_repeat_once() {
    let mut events = first_part();
    let killed = assemble(&events).unwrap();
    assert!(killed.unfinished() && !killed.resumed() && killed.parts.is_empty());
    events.extend([
        resumed("k2", "boot-2"),
        mkfs(1, 1.2),
        sample(W, "a", 1, 11.0),
        sample(W, "b", 1, 21.0),
        torn_down(),
        end(false),
    ]);
    let rec = assemble(&events).unwrap();
    assert!(!rec.unfinished() && rec.resumed());
    assert_eq!(
        repeats(&rec, W, "a"),
        [(0, 10.0), (1, 11.0)],
        "99 was replaced"
    );
    assert_eq!(repeats(&rec, W, "b"), [(0, 20.0), (1, 21.0)]);
    assert_eq!(
        repeats(&rec, lifecycle::WORKLOAD, "mkfs"),
        [(0, 1.0), (1, 1.2)],
        "the filesystem of the cut cycle is replaced by the one made again"
    );
    assert!(rec.cells.iter().all(|c| c.status == CellStatus::Ok));
    assert_eq!(rec.parts.len(), 2);
    let steps = |p: usize| -> Vec<u32> { rec.parts[p].steps.iter().map(|s| s.repeat).collect() };
    assert_eq!(steps(0), [0], "repeat 1's sample of part one is gone");
    assert_eq!(steps(1), [1]);
    assert!(rec.parts[0].interrupted && rec.parts[0].finished.is_none());
    assert_eq!(rec.parts[1].kernel, "k2");
    let line = rec.parts_line().unwrap();
    assert!(line.contains("made in 2 parts"), "{line}");
    assert!(
        line.contains("across a reboot and on different kernels"),
        "{line}"
    );
}

#[test]
fn a_failed_step_is_measured_again_and_a_second_interruption_shows() {
    let mut events = first_part();
    events.truncate(5); // repeat 0: mkfs, a, b
    events.extend([
        Event::Failed {
            target: "t".into(),
            workload: W.into(),
            repeat: 0,
            reason: "disk full".into(),
        },
        torn_down(),
        end(true),
    ]);
    let rec = assemble(&events).unwrap();
    assert!(matches!(
        rec.cell("t", W, "a").unwrap().status,
        CellStatus::Failed { .. }
    ));
    events.extend([resumed("k1", "boot-1"), end(true)]);
    let rec = assemble(&events).unwrap();
    assert_eq!(
        rec.cell("t", W, "a").unwrap().status,
        CellStatus::Incomplete,
        "to be measured again, not failed for good"
    );
    assert!(rec.unfinished());
    assert!(rec.parts_line().unwrap().contains("interrupted again"));
    // A lifecycle sample of a finished cycle is never replaced: each setup is one.
    events.extend([resumed("k1", "boot-1"), mkfs(0, 5.0)]);
    let rec = assemble(&events).unwrap();
    assert_eq!(
        repeats(&rec, lifecycle::WORKLOAD, "mkfs"),
        [(0, 1.0), (0, 5.0)]
    );
}

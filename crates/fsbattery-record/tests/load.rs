//! Loading a run directory through the record crate alone: which file wins, what the caller
//! is told when the journal stood in, and each refusal as one typed, one-line error.

use fsbattery_record::journal::Event;
use fsbattery_record::*;
use std::collections::BTreeMap;
use std::path::Path;

fn plan() -> PlanInfo {
    PlanInfo {
        suite: "s".into(),
        scale: "quick".into(),
        repeat: 1,
        aggregate: fsbattery_stats::Aggregate::Mean,
        pause_secs: 0.0,
        method: "native".into(),
        workloads: vec![WorkloadPlan {
            name: lifecycle::WORKLOAD.into(),
            params: BTreeMap::new(),
            param_units: BTreeMap::new(),
            metrics: lifecycle::metrics(),
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

fn sample(value: f64) -> Sample {
    Sample {
        repeat: 0,
        value,
        elapsed_s: 0.0,
        user_s: 0.0,
        sys_s: 0.0,
        cpu_pct: 0.0,
        device_io: None,
        cache: None,
        ranks: Vec::new(),
    }
}

/// A one-target journal whose space-available cell claims to be comparable, as a record
/// written before the flag existed would read.
fn journal() -> Vec<Event> {
    let target = TargetRecord {
        label: "t".into(),
        ..Default::default()
    };
    let avail = |comparable| Event::Sample {
        target: "t".into(),
        workload: lifecycle::WORKLOAD.into(),
        metric: "avail_mib".into(),
        unit: "MiB".into(),
        better: fsbattery_stats::Better::Higher,
        comparable,
        method: "native".into(),
        sample: sample(3.0),
    };
    vec![
        Event::Start {
            schema_version: SCHEMA_VERSION,
            tool: ToolInfo {
                name: "fsbattery".into(),
                version: "0".into(),
            },
            started: "2026-01-01T00:00:00Z".into(),
            host: HostInfo::default(),
            plan: plan(),
            boot_id: None,
        },
        Event::Target { target },
        avail(true),
        Event::End {
            finished: "2026-01-01T00:00:01Z".into(),
            interrupted: false,
        },
    ]
}

fn write_journal(dir: &Path, events: &[Event]) {
    let text: String = events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap() + "\n")
        .collect();
    std::fs::write(dir.join(JOURNAL_FILE), text).unwrap();
}

#[test]
fn results_json_is_read_as_written_and_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let rec = journal::assemble(&journal()).unwrap();
    assert!(
        rec.cell("t", lifecycle::WORKLOAD, "avail_mib")
            .unwrap()
            .comparable
    );
    std::fs::write(
        dir.path().join(RESULTS_FILE),
        serde_json::to_vec(&rec).unwrap(),
    )
    .unwrap();
    let loaded = load(dir.path()).unwrap();
    assert_eq!(loaded.note, None);
    let cell = loaded
        .record
        .cell("t", lifecycle::WORKLOAD, "avail_mib")
        .unwrap();
    assert!(
        !cell.comparable,
        "the lifecycle declaration fills the flag in"
    );
    assert_eq!(cell.values(), vec![3.0]);
}

#[test]
fn a_missing_results_json_is_rebuilt_from_the_journal_without_a_note() {
    let dir = tempfile::tempdir().unwrap();
    write_journal(dir.path(), &journal());
    let loaded = load(dir.path()).unwrap();
    assert_eq!(loaded.note, None);
    assert_eq!(loaded.record.cells.len(), lifecycle::metrics().len());
}

#[test]
fn a_damaged_results_json_is_rebuilt_with_a_note_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    write_journal(dir.path(), &journal());
    std::fs::write(dir.path().join(RESULTS_FILE), "{\"schema_ver").unwrap();
    let loaded = load(dir.path()).unwrap();
    let note = loaded
        .note
        .expect("the caller is told the journal stood in");
    assert!(
        note.contains("rebuilt from") && note.contains(JOURNAL_FILE),
        "{note}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(RESULTS_FILE)).unwrap(),
        "{\"schema_ver"
    );
}

#[test]
fn each_refusal_is_a_typed_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = load(dir.path()).unwrap_err();
    assert!(matches!(e, LoadError::Empty { .. }), "{e:?}");

    std::fs::write(dir.path().join(JOURNAL_FILE), "not json\nnot json\n").unwrap();
    let e = load(dir.path()).unwrap_err();
    assert!(matches!(e, LoadError::JournalUnusable { .. }), "{e:?}");

    std::fs::write(dir.path().join(RESULTS_FILE), "{").unwrap();
    let e = load(dir.path()).unwrap_err();
    assert!(matches!(e, LoadError::BothUnusable { .. }), "{e:?}");

    let mut rec = serde_json::to_value(journal::assemble(&journal()).unwrap()).unwrap();
    rec["schema_version"] = serde_json::json!(99);
    std::fs::write(dir.path().join(RESULTS_FILE), rec.to_string()).unwrap();
    let e = load(dir.path()).unwrap_err();
    assert!(matches!(e, LoadError::Refused { .. }), "{e:?}");
    for e in [e, LoadError::Empty { dir: "d".into() }] {
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}

/// A built-in participant declared one sample per filesystem made (the lifecycle) stays `ok`
/// with fewer samples than repeats; a workload's cell short of its repeats is incomplete.
#[test]
fn only_per_repeat_participants_are_incomplete_short_of_their_repeats() {
    let mut events = journal();
    if let Event::Start { plan, .. } = &mut events[0] {
        plan.repeat = 3;
    }
    let Event::Sample { sample, .. } = events[2].clone() else {
        panic!("the fixture's third event is a sample")
    };
    events.insert(
        3,
        Event::Sample {
            target: "t".into(),
            workload: "dd".into(),
            metric: "write".into(),
            unit: "MB/s".into(),
            better: fsbattery_stats::Better::Higher,
            comparable: true,
            method: "native".into(),
            sample,
        },
    );
    let rec = journal::assemble(&events).unwrap();
    let state = |w: &str, m: &str| rec.cell("t", w, m).map(|c| c.status.clone());
    assert_eq!(
        state(lifecycle::WORKLOAD, "avail_mib"),
        Some(CellStatus::Ok)
    );
    assert_eq!(state("dd", "write"), Some(CellStatus::Incomplete));
}

//! The runner under `--repeat auto` on a directory target, with two fake workloads whose values
//! are fixed by the repeat index: one quiet (stops at the minimum), one noisy (goes on to the
//! maximum). Deterministic: no value depends on the machine's speed.

use super::*;
use crate::measure::Timing;
use crate::params::ParamSpec;
use crate::settings::Resolved;
use crate::targets::DirTarget;

/// Records `metric` = `values[repeat % len]` (and `undeclared`, when set, which its
/// declaration lacks).
struct Fake {
    name: &'static str,
    values: &'static [f64],
    undeclared: Option<&'static str>,
}

impl Workload for Fake {
    fn tool_cache(&self) -> crate::cache::ToolCache {
        crate::cache::ToolCache::Nothing
    }
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        "test workload"
    }
    fn params(&self) -> &'static [ParamSpec] {
        &[]
    }
    fn needs(&self, _: &Resolved) -> crate::workload::needs::Needs {
        crate::workload::needs::Needs::default()
    }
    fn metrics(&self, _: &Resolved) -> Vec<MetricSpec> {
        vec![
            MetricSpec::rate("rate", "ops/s", "the value"),
            // Not comparable: its spread must never hold a workload back.
            MetricSpec::rate("size", "MiB", "wild").not_comparable(),
        ]
    }
    fn run(&self, ctx: &mut WorkloadCtx<'_>, _: &Resolved) -> Result<(), WorkloadError> {
        let t = Timing {
            elapsed_s: 0.001,
            user_s: 0.0,
            sys_s: 0.0,
            io: None,
        };
        let v = self.values[ctx.repeat() as usize % self.values.len()];
        ctx.record("rate", &t, v);
        ctx.record("size", &t, f64::from(ctx.repeat()) * 1000.0 + 1.0);
        if let Some(metric) = self.undeclared {
            ctx.record(metric, &t, 2.0);
        }
        Ok(())
    }
}

static QUIET: Fake = Fake {
    name: "quiet",
    values: &[100.0, 100.4, 99.8],
    undeclared: None,
};
static NOISY: Fake = Fake {
    name: "noisy",
    values: &[50.0, 150.0, 90.0, 120.0],
    undeclared: None,
};

/// [`plan`] on `targets` directory targets.
fn plan_on(work: &Path, auto: Option<AutoRepeat>, fresh: Fresh, targets: usize) -> Plan {
    // Any suite: the runner reads only its name; the workloads are the plan's.
    let suite = crate::suite::load("classic").unwrap();
    let planned = |w: &'static Fake| PlannedWorkload {
        workload: w,
        params: Params::default(),
        method: Method::Native,
        cache: Default::default(),
    };
    Plan {
        suite,
        scale: Scale::Quick,
        repeat: auto.map_or(5, |a| a.max),
        aggregate: Aggregate::Mean,
        pause: Duration::ZERO,
        method: Method::Native,
        settings: Default::default(),
        notes: Vec::new(),
        workloads: vec![planned(&QUIET), planned(&NOISY)],
        rows: Vec::new(),
        targets: (0..targets)
            .map(|_| Box::new(DirTarget::owned_under(work).unwrap()) as Box<dyn Target>)
            .collect(),
        fresh,
        datasets: None,
        skipped: Vec::new(),
        label: None,
        auto,
        age: None,
        cache: Default::default(),
        memory: None,
        rank_reference: false,
        weights: Default::default(),
    }
}

fn run(auto: Option<AutoRepeat>, fresh: Fresh) -> RunRecord {
    run_on(auto, fresh, 1)
}

fn run_on(auto: Option<AutoRepeat>, fresh: Fresh, targets: usize) -> RunRecord {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let p = plan_on(&tmp.path().join("work"), auto, fresh, targets);
    let outcome = execute(&mut checked(p), &out, HostInfo::default(), &mut Silent).unwrap();
    // The journal alone assembles to the same record (what `report` reads after a crash).
    let events = crate::journal::read(&out.join(crate::journal::JOURNAL_FILE)).unwrap();
    assert_eq!(assemble(&events).unwrap(), outcome.record);
    outcome.record
}

const AUTO: AutoRepeat = AutoRepeat {
    min: 3,
    max: 6,
    precision_pct: 3.0,
    margin_pct: 5.0,
    budget_secs: None,
    equal_counts: false,
    precision_stated: false,
};

#[test]
fn auto_stops_a_quiet_workload_early_and_a_noisy_one_at_the_maximum() {
    for fresh in [Fresh::PerRepeat, Fresh::PerWorkload, Fresh::Once] {
        let rec = run(Some(AUTO), fresh);
        assert_eq!(rec.plan.repeat_auto, Some(AUTO));
        let samples = |w: &str, m: &str| rec.cell("dir", w, m).unwrap().samples.len();
        assert_eq!((samples("quiet", "rate"), samples("quiet", "size")), (3, 3));
        assert_eq!((samples("noisy", "rate"), samples("noisy", "size")), (6, 6));
        assert!(
            rec.cells.iter().all(|c| c.status == CellStatus::Ok),
            "{fresh:?}"
        );
        let quiet = rec.convergence("dir", "quiet").unwrap();
        assert_eq!((quiet.repeats, quiet.reached), (3, true));
        assert_eq!(
            quiet.widest_metric, "rate",
            "the non-comparable size is ignored"
        );
        assert!(quiet.widest_half_width_pct.unwrap() <= 3.0);
        let noisy = rec.convergence("dir", "noisy").unwrap();
        assert_eq!((noisy.repeats, noisy.reached), (6, false));
        assert!(noisy.widest_half_width_pct.unwrap() > 3.0, "{noisy:?}");
    }
}

#[test]
fn fixed_repeats_record_no_decision() {
    let rec = run(None, Fresh::PerRepeat);
    assert!(rec
        .cells
        .iter()
        .all(|c| c.samples.len() == 5 && c.status == CellStatus::Ok));
    assert!(rec.targets[0].convergence.is_empty() && rec.plan.repeat_auto.is_none());
}

#[test]
fn an_auto_cell_without_a_decision_is_incomplete() {
    let rec = run(Some(AUTO), Fresh::PerRepeat);
    let mut events = Vec::new();
    // The same record as if the run had stopped before deciding the noisy workload.
    events.push(Event::Start {
        schema_version: rec.schema_version,
        tool: rec.tool.clone(),
        started: rec.started.clone(),
        host: rec.host.clone(),
        plan: rec.plan.clone(),
        boot_id: None,
    });
    let mut target = rec.targets[0].clone();
    let decided = target.convergence.remove(0);
    target.convergence.clear();
    events.push(Event::Target { target });
    events.push(Event::Converged {
        target: "dir".into(),
        convergence: decided,
    });
    for c in &rec.cells {
        for s in &c.samples {
            events.push(Event::Sample {
                target: c.target.clone(),
                workload: c.workload.clone(),
                metric: c.metric.clone(),
                unit: c.unit.clone(),
                better: c.better,
                comparable: c.comparable,
                method: c.method.clone(),
                sample: s.clone(),
            });
        }
    }
    let cut = assemble(&events).unwrap();
    let status = |w: &str| cut.cell("dir", w, "rate").unwrap().status.clone();
    assert_eq!(
        (status("quiet"), status("noisy")),
        (CellStatus::Ok, CellStatus::Incomplete)
    );
}

#[test]
fn compared_targets_run_in_interleaved_rounds_and_stop_when_decided() {
    for fresh in [Fresh::PerRepeat, Fresh::PerWorkload] {
        let rec = run_on(Some(AUTO), fresh, 2);
        let labels: Vec<&str> = rec.targets.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels.len(), 2);
        for t in &labels {
            // Both targets measure the same values in each round. The quiet workload is
            // shown equivalent at the minimum; so is the noisy one, its noise being the
            // round's (the rounds are blocks: every per-round ratio is exactly 1), where
            // independent samples would have left it undecided to the maximum.
            let quiet = rec.convergence(t, "quiet").unwrap();
            assert_eq!((quiet.repeats, quiet.stop), (3, Some(StopReason::Decided)));
            let noisy = rec.convergence(t, "noisy").unwrap();
            assert_eq!((noisy.repeats, noisy.stop), (3, Some(StopReason::Decided)));
            assert_eq!(rec.cell(t, "quiet", "rate").unwrap().samples.len(), 3);
            assert_eq!(rec.cell(t, "noisy", "rate").unwrap().samples.len(), 3);
        }
        assert!(rec.interleaved(), "the record says the rounds were blocks");
        assert!(rec.cells.iter().all(|c| c.status == CellStatus::Ok));
    }
}

#[test]
fn rounds_interleave_the_targets() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut p = plan_on(&tmp.path().join("work"), None, Fresh::PerRepeat, 2);
    p.repeat = 2;
    execute(&mut checked(p), &out, HostInfo::default(), &mut Silent).unwrap();
    let events = crate::journal::read(&out.join(crate::journal::JOURNAL_FILE)).unwrap();
    let order: Vec<(String, u32)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Sample {
                target,
                workload,
                metric,
                sample,
                ..
            } if workload == "quiet" && metric == "rate" => Some((target.clone(), sample.repeat)),
            _ => None,
        })
        .collect();
    // Repeat 0 on both targets before repeat 1 on either.
    assert_eq!(order.len(), 4, "{order:?}");
    assert_eq!(
        (order[0].1, order[1].1, order[2].1, order[3].1),
        (0, 0, 1, 1)
    );
    assert_ne!(order[0].0, order[1].0);
}

/// Records `mystery` too, which it does not declare.
static SLOPPY: Fake = Fake {
    name: "sloppy",
    values: &[1.0],
    undeclared: Some("mystery"),
};

#[test]
fn a_metric_the_workload_does_not_declare_fails_its_cell() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut p = plan_on(&tmp.path().join("work"), None, Fresh::PerRepeat, 1);
    p.repeat = 1;
    p.workloads = vec![PlannedWorkload {
        workload: &SLOPPY,
        params: Params::default(),
        method: Method::Native,
        cache: Default::default(),
    }];
    let outcome = execute(&mut checked(p), &out, HostInfo::default(), &mut Silent).unwrap();
    assert_eq!(
        outcome.failed_cells, 2,
        "the cells of both declared metrics"
    );
    let cells = &outcome.record.cells;
    assert!(
        cells.iter().all(|c| c.metric != "mystery"),
        "an undeclared metric is never recorded with a guessed unit"
    );
    let failed = format!("{cells:?}");
    assert!(
        failed.contains("'mystery', which it does not declare"),
        "{failed}"
    );
}

/// The plan as the runner takes it: these fake workloads need nothing a directory lacks.
fn checked(p: Plan) -> CheckedPlan {
    CheckedPlan::check(p, true, Space::Checked).expect("the fake workloads fit a directory")
}

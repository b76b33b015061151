//! The assembly of a [`Plan`] from a [`Request`], before any I/O: suite, workloads,
//! parameters, targets, repeats. Every mistake here is a `UsageError` (exit 2) and nothing
//! has been written; the plan leaves only through [`CheckedPlan::check`].

use super::request::{Repeat, Request};
use crate::dataset::DatasetSpecExt;
use crate::error::UsageError;
use crate::label::{self, render_label, LabelValue};
use crate::model::RowInfo;
use crate::params::{self, Params, Scale};
use crate::runner::{CheckedPlan, MemoryRequest, Plan, PlannedWorkload, Space};
use crate::suite::{self, Suite};
use crate::suite_native;
use crate::targets::{self, Target, TargetOptions};
use crate::units;
use crate::workload::{self, Method};
use fsbattery_record::settings::{Chosen, WorkloadSetting};

use super::settings as plan_settings;

/// Validate everything and build the plan, checked once (`CheckedPlan::check`; `space`:
/// [`Space::Shown`] for a dry run, which shows a target too small for the data); targets
/// are parsed but not set up. With no `--target` and no default filesystem possible, the
/// plan has no targets and the reason.
pub(super) fn checked(
    args: &Request,
    space: Space,
) -> Result<(CheckedPlan, Option<String>), UsageError> {
    // Before any job file is read: `--set fio.OPTION=VALUE` applies to every one.
    let fio_sets = params::parse_sets(&args.set)?
        .remove("fio")
        .map(|m| m.into_iter().collect())
        .unwrap_or_default();
    workload::fio::set_overrides(fio_sets);
    // A database server a workload starts is recorded in a state file there (cleanup).
    workload::set_workdir(&args.workdir);
    let suite = suite_of(args.suite.as_deref(), &args.workloads)?;
    let scale: Scale = args.scale;
    let (mut workloads, mut methods) = planned_workloads(args, &suite, scale)?;
    let left_out = drop_unavailable(args, &mut workloads, &mut methods)?;
    check_sources(args, &workloads)?;
    let (memory_text, mut memory_setting, memory_note) = plan_settings::memory(args, &suite, scale);
    let (mut targets, mut skipped, no_default_why) =
        targets(args, &suite, &workloads, memory_text.is_some())?;
    let memory = memory_within(
        args,
        memory_text.as_deref(),
        &suite,
        &workloads,
        &mut targets,
        &mut skipped,
    )?;
    if let Some(m) = &memory {
        memory_setting = Some(Chosen::new(
            units::format_bytes(m.limit_bytes),
            m.source.clone(),
        ));
    }
    let ranked = match args.rank_reference {
        true => targets.len(),
        false => ranked_targets(&targets),
    };
    let (repeat, auto) = repeats(args, &suite, scale, ranked)?;
    check_age(args, &targets)?;
    let (cache, cache_setting) = plan_settings::cache(args, &suite);
    let (pause, pause_setting) = plan_settings::pause(args, &suite, scale)?;
    if let Some(l) = &args.label {
        run_label(l)?;
    }
    check_programs(&workloads, &methods)?;
    let mut notes: Vec<String> = pause_setting
        .note
        .iter()
        .map(|n| {
            format!(
                "pause: {} before each timed phase ({n})",
                pause_setting.value
            )
        })
        .collect();
    notes.extend(memory_note);
    notes.extend(
        left_out
            .iter()
            .map(|(w, why)| format!("{w} skipped: {why}")),
    );
    notes.extend(
        workloads
            .iter()
            .filter_map(|w| w.cache.note(w.workload.name(), cache, &suite.name)),
    );
    let mut settings = plan_settings::record(cache_setting, pause_setting, methods, memory_setting);
    settings.fs_options = plan_settings::fs_options(&suite, &targets);
    settings.software = plan_settings::software(&workloads, &left_out);
    let weights = plan_settings::weights(&args.weights, &workloads)?;
    let plan = Plan {
        repeat,
        auto,
        age: args.age,
        aggregate: args.aggregate.unwrap_or(suite.aggregate),
        scale,
        pause,
        method: args.method.unwrap_or(Method::Native),
        settings,
        notes,
        workloads,
        rows: Vec::new(),
        targets,
        suite,
        fresh: args.fresh,
        datasets: None,
        skipped,
        label: args.label.clone(),
        cache,
        memory,
        rank_reference: args.rank_reference,
        weights,
    };
    let mut plan = CheckedPlan::check(plan, !args.targets.is_empty(), space)?;
    // Labels name the filesystems of the targets that stayed in the checked plan.
    let rows = rows(
        &plan.suite,
        &plan.workloads,
        &plan.targets,
        args.tree_tarball.as_deref(),
    );
    plan.set_rows(rows);
    Ok((plan, no_default_why))
}

/// The checks of [`checked`] that need no target and no program of this machine: suite,
/// workloads and their parameters, repeats with `ranked` targets, pause, label and weights.
/// A `vm:` run makes them on the host, so a mistake is refused before a guest boots.
pub(super) fn target_free(args: &Request, ranked: usize) -> Result<(), UsageError> {
    let suite = suite_of(args.suite.as_deref(), &args.workloads)?;
    let (workloads, _) = planned_workloads(args, &suite, args.scale)?;
    repeats(args, &suite, args.scale, ranked)?;
    plan_settings::pause(args, &suite, args.scale)?;
    if let Some(l) = &args.label {
        run_label(l)?;
    }
    plan_settings::weights(&args.weights, &workloads)?;
    Ok(())
}

/// The suite's workloads this machine cannot run (a database server not installed, see
/// `Workload::unavailable`) left out with the reason; one the user named with `--workload`
/// is refused instead, and so is a run left with nothing to do.
fn drop_unavailable(
    args: &Request,
    workloads: &mut Vec<PlannedWorkload>,
    methods: &mut Vec<WorkloadSetting>,
) -> Result<Vec<(String, String)>, UsageError> {
    let mut left_out = Vec::new();
    let mut i = 0;
    while i < workloads.len() {
        let w = workloads[i].workload;
        let Some(why) = w.unavailable() else {
            i += 1;
            continue;
        };
        if !args.workloads.is_empty() {
            return Err(UsageError::Invalid(format!(
                "--workload {}: {why}",
                w.name()
            )));
        }
        left_out.push((w.name().to_string(), why));
        workloads.remove(i);
        methods.remove(i);
    }
    if workloads.is_empty() {
        let why: Vec<String> = left_out.iter().map(|(w, y)| format!("{w}: {y}")).collect();
        return Err(UsageError::Invalid(format!(
            "no workload of this run can run here ({})",
            why.join("; ")
        )));
    }
    Ok(left_out)
}

/// The source datasets the workloads read are valid, and a given `--tree-tarball` exists.
fn check_sources(args: &Request, workloads: &[PlannedWorkload]) -> Result<(), UsageError> {
    for w in workloads {
        if let Some(spec) = w.workload.dataset(&w.params) {
            spec.validate(w.workload.name())?;
        }
    }
    if let Some(t) = &args.tree_tarball {
        if !t.is_file() {
            return Err(UsageError::Invalid(format!(
                "--tree-tarball {}: not a readable file",
                t.display()
            )));
        }
    }
    Ok(())
}

/// `--memory` (or the seed's memory the plan chose to apply, `text`): the limit, and the
/// tmpfs targets whose files would not fit under it refused (named) or skipped (defaults).
fn memory_within(
    args: &Request,
    text: Option<&str>,
    suite: &Suite,
    workloads: &[PlannedWorkload],
    targets: &mut Targets,
    skipped: &mut Skipped,
) -> Result<Option<MemoryRequest>, UsageError> {
    let Some(m) = text else {
        return Ok(None);
    };
    let mut m = memory(m, suite, args)?;
    if args.memory.is_none() {
        m.source = format!("seed_memory of {} at standard scale", suite.name);
    }
    let data = data_bytes(workloads)?;
    tmpfs_within_memory(&m, data, !args.targets.is_empty(), targets, skipped)?;
    Ok(Some(m))
}

/// The workloads to run with their parameters: suite values, `--jobs`, then `--set`, each
/// checked against its range and, for relations between parameters, by the workload.
fn planned_workloads(
    args: &Request,
    suite: &Suite,
    scale: Scale,
) -> Result<(Vec<PlannedWorkload>, Vec<WorkloadSetting>), UsageError> {
    let mut overrides = params::parse_sets(&args.set)?;
    let names = workload_names(args, suite)?;
    // `fio.OPTION` went to the job files (see `build`); it needs one in the run.
    let is_job_file = |n: &String| n.starts_with(workload::fio::PREFIX);
    if overrides.remove("fio").is_some() && !names.iter().any(is_job_file) {
        return Err(UsageError::Invalid(format!(
            "--set fio.…: no fio job file in this run (running: {}): add --workload fio:FILE",
            names.join(", ")
        )));
    }
    for w in overrides.keys() {
        workload::find_or_refuse(w)?;
    }
    if let Some(w) = overrides.keys().find(|w| !names.iter().any(|n| n == *w)) {
        return Err(UsageError::Invalid(format!(
            "--set {w}.…: workload '{w}' is not in this run (running: {})",
            names.join(", ")
        )));
    }
    let ram = crate::host::ram_bytes();
    let mut workloads = Vec::new();
    let mut methods = Vec::new();
    for name in &names {
        let w = workload::find(name).expect("validated by workload_names");
        let mut given = suite
            .workloads
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.clone())
            .unwrap_or_default();
        if let (Some(n), true) = (args.jobs, w.params().iter().any(|p| p.name == "threads")) {
            given.insert("threads".into(), n.to_string());
        }
        if let Some(o) = overrides.get(name.as_str()) {
            given.extend(o.clone());
        }
        let (specs, seed) = (w.params(), suite.seed_memory);
        crate::seed_sized::apply(name, &mut given, specs, seed, scale, ram)?;
        let params = Params::resolve(name, specs, scale, ram, &given)?;
        // Relations between parameters, before any target exists: a cell that would fail
        // after mkfs for its parameters alone is a plan error.
        w.check(&params)
            .map_err(|e| UsageError::Invalid(e.to_string()))?;
        let (method, mut setting) = plan_settings::method(args, suite, name);
        if let Some(r) = w.recorded(&params) {
            setting.note = Some(
                setting
                    .note
                    .take()
                    .map_or(r.clone(), |n| format!("{n}; {r}")),
            );
        }
        if let (Some(n), Some(note)) = (args.jobs, setting.note.as_mut()) {
            // The suite's note may explain a thread count --jobs has just replaced.
            if w.params().iter().any(|p| p.name == "threads") {
                note.push_str(&format!(" (this run: --jobs {n})"));
            }
        }
        methods.push(setting);
        let own = suite.workload_settings.get(name.as_str());
        let cache = crate::cache_plan::WorkloadCache::planned(
            args.cache.is_some(),
            plan_settings::cache(args, suite).0,
            own.and_then(|s| s.cache),
            &own.map(|s| s.phase_cache.clone()).unwrap_or_default(),
        );
        workloads.push(PlannedWorkload {
            workload: w,
            params,
            method,
            cache,
        });
    }
    Ok((workloads, methods))
}

/// `--memory SIZE|seed`: the limit (at least 32 MiB, below which the run itself would be
/// killed), from the suite's `seed_memory` for `seed`; root only (it makes a cgroup).
fn memory(text: &str, suite: &Suite, args: &Request) -> Result<MemoryRequest, UsageError> {
    let (limit, source) = if text.trim() == "seed" {
        let limit = suite.seed_memory.ok_or_else(|| {
            UsageError::Invalid(format!(
                "--memory seed: suite {} names no seed_memory: give a size, e.g. --memory 768MiB",
                suite.name
            ))
        })?;
        (limit, format!("seed_memory of {}", suite.name))
    } else {
        let limit = units::parse_bytes(text).ok_or_else(|| {
            UsageError::Invalid(format!("--memory {text}: not a size, e.g. --memory 768MiB"))
        })?;
        (limit, "--memory".to_string())
    };
    if limit < 32 << 20 {
        return Err(UsageError::Invalid(format!(
            "--memory {text}: at least 32MiB, or the run itself runs out of memory"
        )));
    }
    targets::MemoryCgroup::check().map_err(UsageError::Invalid)?;
    Ok(MemoryRequest {
        limit_bytes: limit,
        source,
        workdir: args.workdir.clone(),
    })
}

/// Under `--memory` a tmpfs target's files are memory charged to the cgroup: one whose
/// workloads would hold more than half the limit is refused when given with `--target`, and
/// left out (recorded as skipped) when it is a default.
fn tmpfs_within_memory(
    m: &MemoryRequest,
    data: u64,
    explicit: bool,
    targets: &mut Targets,
    skipped: &mut Skipped,
) -> Result<(), UsageError> {
    if data <= m.limit_bytes / 2 {
        return Ok(());
    }
    let reason = format!(
        "tmpfs keeps its files in memory, which the {} cgroup of --memory would count \
         (the workloads hold up to {})",
        units::format_bytes(m.limit_bytes),
        units::format_bytes(data)
    );
    let is_tmpfs = |t: &dyn Target| targets::fsinfo::in_memory(t);
    if explicit {
        if let Some(t) = targets.iter().find(|t| is_tmpfs(t.as_ref())) {
            return Err(UsageError::Invalid(format!(
                "--target {}: {reason}: drop it, or raise --memory",
                t.spec()
            )));
        }
    }
    for t in targets.iter().filter(|t| is_tmpfs(t.as_ref())) {
        skipped.push(crate::model::SkippedTarget {
            spec: t.spec().into(),
            reason: reason.clone(),
            fix: None,
        });
    }
    targets.retain(|t| !is_tmpfs(t.as_ref()));
    Ok(())
}

/// `--label`: a name that fits one table heading: 1 to 80 printable characters.
fn run_label(l: &str) -> Result<(), UsageError> {
    let ok = !l.trim().is_empty() && l.chars().count() <= 80 && !l.chars().any(char::is_control);
    ok.then_some(()).ok_or_else(|| {
        UsageError::Invalid(format!(
            "--label {l:?}: give 1 to 80 printable characters, e.g. --label 'kernel 6.18'"
        ))
    })
}

/// Refused up front when command mode would miss a program one of the workloads that run
/// as commands (by `--method` or their suite entry's `method`) needs; the package comes from
/// the package table, and the message names who asked for command mode.
fn check_programs(
    workloads: &[PlannedWorkload],
    methods: &[WorkloadSetting],
) -> Result<(), UsageError> {
    for (w, m) in workloads.iter().zip(methods) {
        if w.method != Method::Commands && !w.workload.always_commands() {
            continue;
        }
        let Some(p) = workload::command::missing_program(w.workload.commands()) else {
            continue;
        };
        let need = crate::packages::Need::program(&p);
        if w.workload.always_commands() {
            return Err(UsageError::Invalid(format!(
                "workload {} runs `{p}`, which is not on PATH: {}, or run `fsbattery setup \
                 --workload {}`, or leave {} out",
                w.workload.name(),
                crate::packages::hint_here(&need),
                w.workload.name(),
                w.workload.name()
            )));
        }
        let who = match m.source.as_str() {
            "--method" => "--method commands".to_string(),
            suite => format!("{} runs as commands ({suite}) and", w.workload.name()),
        };
        return Err(UsageError::Invalid(format!(
            "{who} needs `{p}`, which is not on PATH: {}, or run \
             `fsbattery setup --method commands`, or use --method native",
            crate::packages::hint_here(&need)
        )));
    }
    Ok(())
}

/// `--suite`, else the suite of a run without one ([`suite_native`]): the named workloads
/// (or classic's list) at their defaults, native, under neutral settings.
pub fn suite_of(given: Option<&str>, workloads: &[String]) -> Result<Suite, UsageError> {
    match given {
        Some(s) => suite_native::with_own_rows(suite::load(s)?),
        None => suite_native::without_suite(&named_workloads(workloads)?),
    }
}

/// `--workload` names (validated), or the suite's workloads.
fn workload_names(args: &Request, suite: &Suite) -> Result<Vec<String>, UsageError> {
    let names = named_workloads(&args.workloads)?;
    if names.is_empty() {
        return Ok(suite.workloads.iter().map(|(n, _)| n.clone()).collect());
    }
    Ok(names)
}

/// `--workload` names, validated, in order without repeats; none given: empty.
pub fn named_workloads(given: &[String]) -> Result<Vec<String>, UsageError> {
    if given.is_empty() {
        return Ok(Vec::new());
    }
    let mut names = Vec::new();
    for n in given.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        workload::find_or_refuse(n)?;
        if !names.iter().any(|x| x == n) {
            names.push(n.to_string());
        }
    }
    if names.is_empty() {
        return Err(UsageError::Invalid("--workload: no workload named".into()));
    }
    Ok(names)
}

/// The suite's rows for the workloads that run (and its pending rows), labels filled in with
/// what this run uses: parameters, the kernel tree, the size of the filesystems made.
fn rows(
    suite: &Suite,
    workloads: &[PlannedWorkload],
    targets: &Targets,
    tree_tarball: Option<&std::path::Path>,
) -> Vec<RowInfo> {
    let lookup = |w: &str, p: &str| label_value(w, p, workloads, targets, tree_tarball);
    // A built-in participant (the lifecycle) runs whenever a target makes a filesystem.
    let running = |w: &str| {
        workload::participant(w)
            .is_some_and(|p| p.runs_with(workloads.iter().map(|x| x.workload.name())))
    };
    suite
        .rows
        .iter()
        .filter(|r| r.pending.is_some() || running(&r.workload))
        .map(|r| RowInfo {
            label: render_label(&r.label, &lookup),
            workload: r.workload.clone(),
            metric: r.metric.clone(),
            pending: r.pending.clone(),
            aggregate: r.aggregate,
            seed: r.seed.clone(),
        })
        .collect()
}

/// What `{w.p}` in a row label stands for in this run: `{target.size}` the size of the
/// filesystems the targets make, `{W.kernel}` the kernel tree a workload reads (the user's
/// tarball by name), any other a workload's resolved parameter.
fn label_value(
    w: &str,
    p: &str,
    workloads: &[PlannedWorkload],
    targets: &Targets,
    tree_tarball: Option<&std::path::Path>,
) -> Option<LabelValue> {
    if (w, p) == ("target", "size") {
        return label::distinct(targets.iter().filter_map(|t| made_size(t.as_ref())))
            .map(LabelValue::Text);
    }
    let pw = workloads.iter().find(|x| x.workload.name() == w)?;
    if let (Some(spec), "kernel") = (pw.workload.dataset(&pw.params), p) {
        return match tree_tarball {
            Some(t) => Some(LabelValue::Text(t.file_name()?.to_string_lossy().into())),
            None => label::kernel_tree(spec.kernel, spec.scale_div).map(LabelValue::Text),
        };
    }
    let spec = pw.workload.params().iter().find(|s| s.name == p)?;
    let v = pw.params.get(p);
    Some(match spec.kind {
        params::ParamKind::Bytes => LabelValue::Bytes(v),
        _ => LabelValue::Count(v),
    })
}

/// The size of the filesystem a target makes, as the spec gives it ("1GiB", "6 x 1GiB" for
/// six images); `None` for a target that makes none (a directory).
fn made_size(t: &dyn Target) -> Option<String> {
    let o = t.options();
    if o.is_empty() {
        return None;
    }
    let devices: u64 = o.get("devices").and_then(|d| d.parse().ok()).unwrap_or(1);
    let each = o.get("size").and_then(|s| s.parse::<u64>().ok());
    match (devices, each) {
        (2.., Some(each)) => Some(format!("{devices} x {}", units::format_bytes(each))),
        _ => t.capabilities().space_bytes.map(units::format_bytes),
    }
}

type Targets = Vec<Box<dyn Target>>;

/// Loop image size for specs without `size=`: [`data_bytes`] and half as much again up to
/// 2 GiB (the declared needs are estimates; metadata, journals and reserved blocks take their
/// share) plus 512 MiB, never under 1 GiB. Images are sparse, so only what is written uses
/// disk, but the work directory's free-space check counts them whole: hence the cap.
pub fn image_size(workloads: &[PlannedWorkload]) -> Result<u64, UsageError> {
    let data = data_bytes(workloads)?;
    Ok(data
        .saturating_add((data / 2).min(2 << 30))
        .saturating_add(512 << 20)
        .max(1 << 30))
}

/// The most any one workload holds on a target at once, as each declares it from its
/// parameters (workloads run one after another and clean up). A need past [`params::MAX_SIZE`] is
/// refused as too large for any target rather than wrapped into a small figure.
pub fn data_bytes(workloads: &[PlannedWorkload]) -> Result<u64, UsageError> {
    let mut most = 0;
    for w in workloads {
        let n = w.workload.needs(&w.params);
        if n.bytes > params::MAX_SIZE {
            return Err(UsageError::Invalid(format!(
                "{}: its {} are too large for any target: lower them with --set",
                w.workload.name(),
                n.set_by
            )));
        }
        most = most.max(n.bytes);
    }
    Ok(most)
}

type Skipped = Vec<crate::model::SkippedTarget>;

/// Parse every `--target`. With none: every default filesystem this machine can make on loop
/// images (root with loop devices) and the defaults it cannot, with why; with no default
/// possible, an empty list and the reason, and the caller falls back to a fresh directory.
fn targets(
    args: &Request,
    suite: &Suite,
    workloads: &[PlannedWorkload],
    memory: bool,
) -> Result<(Targets, Skipped, Option<String>), UsageError> {
    // A suite's volume (S2's 100 GB) is made as large, sparse: the space check counts what
    // the workloads write into it, not its size.
    let needed = aged_image_size(args, workloads)?;
    let opts = TargetOptions {
        workdir: args.workdir.clone(),
        destroy_data: args.destroy_data,
        image_size: Some(suite.volume.map_or(needed, |v| v.max(needed))),
        image_written: suite.volume.map(|_| needed),
        loop_dio: memory,
        fs_defaults: suite.fs_defaults.clone(),
        fuse_timeout: Some(std::time::Duration::from_secs(args.fuse_timeout)),
    };
    if args.targets.is_empty() {
        return Ok(match targets::default_targets(&opts) {
            Ok(d) if !d.targets.is_empty() => (d.targets, d.skipped, None),
            Ok(d) => (
                Vec::new(),
                d.skipped,
                Some("no default filesystem can be made here".into()),
            ),
            Err(why) => (Vec::new(), Vec::new(), Some(why)),
        });
    }
    let mut out: Vec<Box<dyn Target>> = Vec::new();
    for spec in &args.targets {
        out.push(targets::parse(spec, &opts)?);
    }
    Ok((out, Vec::new(), None))
}

/// `--repeat` (else the default: auto from the suite's count when two or more targets are
/// ranked against each other in a run without `--suite` or with an `adapt = true` preset; the
/// suite's count otherwise, so a study's preset repeats exactly as its study did) with `--precision`, `--margin` and `--budget`:
/// the count the schedule runs to (auto's maximum) and auto's rules. Auto's conditions without
/// auto would be silently ignored: refused. Auto under a best, min or max aggregate gets equal
/// counts per workload ([`AutoRepeat::equal_counts`](fsbattery_record::repeats::AutoRepeat)).
fn repeats(
    args: &Request,
    suite: &Suite,
    scale: Scale,
    ranked: usize,
) -> Result<(u32, Option<fsbattery_record::repeats::AutoRepeat>), UsageError> {
    use fsbattery_record::repeats::AutoRepeat;
    let auto = |min: u32, max: u32| -> Result<_, UsageError> {
        let budget = args.budget.or(match scale {
            Scale::Quick => Some(DEFAULT_QUICK_BUDGET),
            _ => None,
        });
        let mut a = AutoRepeat::new(min, max);
        a.precision_pct = args.precision.unwrap_or(a.precision_pct);
        a.precision_stated = args.precision.is_some();
        a.margin_pct = args.margin.unwrap_or(a.margin_pct);
        a.budget_secs = budget.map(|b| b.as_secs_f64());
        a.equal_counts = order_statistic(args, suite).is_some();
        check_equal_counts(args, suite, ranked)?;
        Ok((max, Some(a)))
    };
    let conditions = [
        ("--precision", args.precision.is_some()),
        ("--margin", args.margin.is_some()),
        ("--budget", args.budget.is_some()),
    ];
    let given = conditions.iter().find(|(_, set)| *set).map(|(f, _)| *f);
    // A study's preset repeats as the study did; a question's preset (`adapt = true`) and a
    // run without --suite adapt.
    let adapts_by_default =
        (args.suite.is_none() || suite.adapt) && ranked >= 2 && suite.repeat >= 2;
    match (args.repeat, given) {
        (Some(Repeat::Auto { min, max }), _) => auto(min, max),
        (Some(Repeat::Fixed(_)), Some(flag)) => Err(UsageError::Invalid(format!(
            "{flag} applies to --repeat auto: drop the fixed --repeat N, or drop {flag}"
        ))),
        (Some(Repeat::Fixed(n)), None) => Ok((n, None)),
        (None, _) if adapts_by_default => {
            auto(suite.repeat, suite.repeat.max(AutoRepeat::DEFAULT_MAX))
        }
        (None, Some(flag)) => Err(UsageError::Invalid(format!(
            "{flag} applies to --repeat auto, which a study's --suite run or one target does not \
             get by default: add --repeat auto, or drop {flag}"
        ))),
        (None, None) => Ok((suite.repeat, None)),
    }
}

/// The first best, min or max aggregate of the plan (`--aggregate`, else the suite's) or of a
/// suite row: a value that grows with the number of samples, so its cells need equal counts.
fn order_statistic(args: &Request, suite: &Suite) -> Option<fsbattery_stats::Aggregate> {
    use fsbattery_stats::Aggregate;
    let plan = args.aggregate.unwrap_or(suite.aggregate);
    std::iter::once(plan)
        .chain(suite.rows.iter().filter_map(|r| r.aggregate))
        .find(|a| matches!(a, Aggregate::Best | Aggregate::Min | Aggregate::Max))
}

/// Equal counts need rounds: with `--fresh once` each target repeats alone, one after the
/// other, and stops when its own cells are precise, so two ranked targets would get
/// different counts of a best, min or max: refused.
fn check_equal_counts(args: &Request, suite: &Suite, ranked: usize) -> Result<(), UsageError> {
    let once = matches!(args.fresh, crate::runner::Fresh::Once);
    match order_statistic(args, suite) {
        Some(a) if once && ranked >= 2 => Err(UsageError::Invalid(format!(
            "--repeat auto with --fresh once repeats each target alone, to different counts, and \
             the {a} of unequal counts favours the target repeated most: use --repeat N, or \
             --fresh per-repeat"
        ))),
        _ => Ok(()),
    }
}

/// How many targets `--repeat auto` would rank against each other: the disks, or every target
/// when all live in RAM (a RAM reference beside disks is shown, not ranked).
fn ranked_targets(targets: &[Box<dyn Target>]) -> usize {
    let disks = targets
        .iter()
        .filter(|t| !crate::targets::fsinfo::in_memory(t.as_ref()))
        .count();
    match disks {
        0 => targets.len(),
        n => n,
    }
}

/// The default `--budget` at quick scale: rounds of the default comparison take about a
/// minute here, so 10 minutes leave room for a few rounds past the minimum.
const DEFAULT_QUICK_BUDGET: std::time::Duration = std::time::Duration::from_secs(600);

/// [`image_size`], grown under `--age PCT` so the workloads' data (and 64 MiB of slack) still
/// fits in the (100 − PCT) % the churn leaves free.
fn aged_image_size(args: &Request, workloads: &[PlannedWorkload]) -> Result<u64, UsageError> {
    let size = image_size(workloads)?;
    let Some(age) = args.age else {
        return Ok(size);
    };
    let need = data_bytes(workloads)?.saturating_add(64 << 20);
    let free = u64::from(100 - age.pct);
    Ok(size.max(need.saturating_mul(100) / free))
}

/// `--age` churns filesystems fsbattery makes; a directory it does not own (or the default
/// directory when no filesystem can be made) would have the user's own filesystem filled.
fn check_age(args: &Request, targets: &[Box<dyn Target>]) -> Result<(), UsageError> {
    if args.age.is_none() {
        return Ok(());
    }
    let unmade = targets.iter().find(|t| t.options().is_empty());
    match (targets.is_empty(), unmade) {
        (false, None) => Ok(()),
        (_, t) => {
            Err(UsageError::Invalid(format!(
            "--age fills a filesystem fsbattery makes, and {} is not one: use loop:, tmpfs: or \
             dev: targets (e.g. --target loop:ext4), or drop --age",
            t.map_or("the default directory".to_string(), |t| t.spec().to_string())
        )))
        }
    }
}

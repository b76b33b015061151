//! From `run` arguments to a validated plan, before any I/O: suite, workloads, parameters,
//! targets. Every mistake here is a `UsageError` (exit 2) and nothing has been written.

use crate::cli::RunArgs;
use fsbattery_core::dataset::DatasetSpecExt;
use fsbattery_core::error::UsageError;
use fsbattery_core::model::RowInfo;
use fsbattery_core::params::{self, ParamKind, Params, Scale};
use fsbattery_core::runner::{MemoryRequest, Plan, PlannedWorkload};
use fsbattery_core::suite::{self, render_label};
use fsbattery_core::target::{self, Target, TargetOptions};
use fsbattery_core::workload::{self, Method};

/// Validate everything and build the plan; targets are parsed but not set up. With no
/// `--target` and no default filesystem possible, the plan has no targets and the reason.
pub fn build(args: &RunArgs) -> Result<(Plan, Option<String>), UsageError> {
    let suite = suite::load(&args.suite)?;
    let scale: Scale = args.scale.into();
    let overrides = params::parse_sets(&args.set)?;
    let names = workload_names(args, &suite)?;
    let ram = fsbattery_core::host::ram_bytes();
    let mut workloads = Vec::new();
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
        let params = Params::resolve(name, w.params(), scale, ram, &given)?;
        // Relations between parameters, before any target exists: a cell that would fail
        // after mkfs for its parameters alone is a plan error.
        w.check(&params)
            .map_err(|e| UsageError::Invalid(e.to_string()))?;
        workloads.push(PlannedWorkload {
            workload: w,
            params,
        });
    }
    if let Some(w) = overrides.keys().find(|w| !names.iter().any(|n| n == *w)) {
        return Err(UsageError::Invalid(format!(
            "--set {w}.…: workload '{w}' is not in this run (running: {})",
            names.join(", ")
        )));
    }
    for w in &workloads {
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
    let memory = match &args.memory {
        Some(m) => Some(memory(m, &suite, args)?),
        None => None,
    };
    let rows = rows(&suite, &workloads);
    let (mut targets, mut skipped, no_default_why) = targets(args, &workloads)?;
    if let Some(m) = &memory {
        let data = data_bytes(scale, &workloads)?;
        tmpfs_within_memory(
            m,
            data,
            !args.targets.is_empty(),
            &mut targets,
            &mut skipped,
        )?;
    }
    // --pause is checked by clap and pause_full by the suite parser; checked again here so
    // no path reaches Duration's panicking conversions with an unchecked number.
    let (pause, what) = match args.pause {
        Some(p) => (p, "--pause"),
        None if scale == Scale::Full => (suite.pause_full, "pause_full"),
        None => (0.0, "--pause"),
    };
    let pause =
        params::pause(pause).map_err(|m| UsageError::Invalid(format!("{what} {pause}: {m}")))?;
    if let Some(l) = &args.label {
        run_label(l)?;
    }
    let plan = Plan {
        repeat: args.repeat.unwrap_or(suite.repeat),
        aggregate: args.aggregate.map(Into::into).unwrap_or(suite.aggregate),
        scale,
        pause,
        method: method(args, &workloads)?,
        workloads,
        rows,
        targets,
        suite,
        fresh: args.fresh.into(),
        datasets: None,
        skipped,
        label: args.label.clone(),
        cache: args.cache.into(),
        memory,
    };
    Ok((plan, no_default_why))
}

/// `--memory SIZE|seed`: the limit (at least 32 MiB, below which the run itself would be
/// killed), from the suite's `seed_memory` for `seed`; root only (it makes a cgroup).
fn memory(text: &str, suite: &suite::Suite, args: &RunArgs) -> Result<MemoryRequest, UsageError> {
    let (limit, source) = if text.trim() == "seed" {
        let limit = suite.seed_memory.ok_or_else(|| {
            UsageError::Invalid(format!(
                "--memory seed: suite {} names no seed_memory: give a size, e.g. --memory 768MiB",
                suite.name
            ))
        })?;
        (limit, format!("seed_memory of {}", suite.name))
    } else {
        let limit = params::parse_bytes(text).ok_or_else(|| {
            UsageError::Invalid(format!("--memory {text}: not a size, e.g. --memory 768MiB"))
        })?;
        (limit, "--memory".to_string())
    };
    if limit < 32 << 20 {
        return Err(UsageError::Invalid(format!(
            "--memory {text}: at least 32MiB, or the run itself runs out of memory"
        )));
    }
    target::MemoryCgroup::check().map_err(UsageError::Invalid)?;
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
        params::format_bytes(m.limit_bytes),
        params::format_bytes(data)
    );
    let is_tmpfs = |t: &dyn Target| t.spec().starts_with("tmpfs");
    if explicit {
        if let Some(t) = targets.iter().find(|t| is_tmpfs(t.as_ref())) {
            return Err(UsageError::Invalid(format!(
                "--target {}: {reason}: drop it, or raise --memory",
                t.spec()
            )));
        }
    }
    for t in targets.iter().filter(|t| is_tmpfs(t.as_ref())) {
        skipped.push(fsbattery_core::model::SkippedTarget {
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

/// The method, refused up front when command mode would miss a program one of the planned
/// workloads runs (the package to install comes from the package table).
fn method(args: &RunArgs, workloads: &[PlannedWorkload]) -> Result<Method, UsageError> {
    let m: Method = args.method.into();
    if m == Method::Commands {
        let programs: Vec<&str> = workloads
            .iter()
            .flat_map(|w| w.workload.commands().iter().copied())
            .collect();
        if let Some(p) = workload::command::missing_program(&programs) {
            let need = fsbattery_core::packages::Need::program(&p);
            return Err(UsageError::Invalid(format!(
                "--method commands needs `{p}`, which is not on PATH: {}, or run \
                 `fsbattery setup --method commands`, or use --method native",
                fsbattery_core::packages::hint_here(&need)
            )));
        }
    }
    Ok(m)
}

/// `--workload` names (validated), or the suite's workloads.
fn workload_names(args: &RunArgs, suite: &suite::Suite) -> Result<Vec<String>, UsageError> {
    if args.workloads.is_empty() {
        return Ok(suite.workloads.iter().map(|(n, _)| n.clone()).collect());
    }
    let mut names = Vec::new();
    for n in args
        .workloads
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
    {
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

/// The suite's rows for the workloads that run (and its pending rows), labels filled in.
fn rows(suite: &suite::Suite, workloads: &[PlannedWorkload]) -> Vec<RowInfo> {
    let lookup = |w: &str, p: &str| {
        let pw = workloads.iter().find(|x| x.workload.name() == w)?;
        let spec = pw.workload.params().iter().find(|s| s.name == p)?;
        Some((
            pw.params.get(p),
            spec.kind == fsbattery_core::params::ParamKind::Bytes,
        ))
    };
    // Lifecycle rows exist whenever a target makes a filesystem; renderers hide them otherwise.
    let running = |w: &str| {
        w == fsbattery_core::runner::lifecycle::WORKLOAD
            || workloads.iter().any(|x| x.workload.name() == w)
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
        })
        .collect()
}

type Targets = Vec<Box<dyn Target>>;

/// Loop image size for specs without `size=`: [`data_bytes`] plus 512 MiB of slack, never
/// under 1 GiB. Images are sparse, so only what is written uses disk.
pub(super) fn image_size(scale: Scale, workloads: &[PlannedWorkload]) -> Result<u64, UsageError> {
    let total = data_bytes(scale, workloads)?
        .checked_add(512 << 20)
        .ok_or_else(too_large_total)?;
    Ok(total.max(1 << 30))
}

fn too_large_total() -> UsageError {
    UsageError::Invalid(
        "the workloads' files are too large for any target: lower the sizes given with --set"
            .into(),
    )
}

/// The most the workloads hold on a target at once: room for the biggest file they write
/// twice over (stream copies its file), for file pools (`files` × `file_size`/`mean_size`,
/// with a quarter for appends) and for the kernel trees. Sums of user sizes that overflow a
/// u64 are refused as too large rather than wrapped into a small figure.
pub(super) fn data_bytes(scale: Scale, workloads: &[PlannedWorkload]) -> Result<u64, UsageError> {
    let trees: u64 = match scale {
        Scale::Quick => 0,
        // S1's tarball and its 10 copies (2.5 GB) or S2's four trees plus archives (3.4 GB).
        Scale::Standard | Scale::Full => 6 << 30,
    };
    let mut need = 0u64;
    for w in workloads {
        let name = w.workload.name();
        let has = |n: &str| w.workload.params().iter().any(|p| p.name == n);
        let get = |n: &str| if has(n) { w.params.get(n) } else { 0 };
        let biggest = w
            .workload
            .params()
            .iter()
            .filter(|p| p.kind == ParamKind::Bytes && p.name.ends_with("size"))
            .map(|p| w.params.get(p.name))
            .max()
            .unwrap_or(0);
        let too_large = |what: String| {
            UsageError::Invalid(format!(
                "{name}: {what} is too large for any target: lower the sizes given with --set"
            ))
        };
        let twice = biggest
            .checked_mul(2)
            .ok_or_else(|| too_large(format!("twice {}", params::format_bytes(biggest))))?;
        let pool = get("files")
            .checked_mul(get("file_size").max(get("mean_size")))
            .and_then(|p| p.checked_add(p / 4))
            .ok_or_else(|| too_large("files × file size".into()))?;
        need = need.max(twice).max(pool);
    }
    need.checked_add(trees).ok_or_else(too_large_total)
}

type Skipped = Vec<fsbattery_core::model::SkippedTarget>;

/// Parse every `--target`. With none: every default filesystem this machine can make on loop
/// images (root with loop devices) and the defaults it cannot, with why; with no default
/// possible, an empty list and the reason, and the caller falls back to a fresh directory.
fn targets(
    args: &RunArgs,
    workloads: &[PlannedWorkload],
) -> Result<(Targets, Skipped, Option<String>), UsageError> {
    let opts = TargetOptions {
        workdir: args.workdir.clone(),
        destroy_data: args.destroy_data,
        image_size: Some(image_size(args.scale.into(), workloads)?),
        loop_dio: args.memory.is_some(),
    };
    if args.targets.is_empty() {
        return Ok(match target::default_targets(&opts) {
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
        out.push(target::parse(spec, &opts)?);
    }
    Ok((out, Vec::new(), None))
}

//! `fsbattery run`: validate, create the output directory, execute, print and save results.

use super::outputs;
use crate::cli::RunArgs;
use crate::progress;
use crate::stderr::errln;
use anyhow::Context;
use fsbattery_core::error::{EXIT_CELL_FAILED, EXIT_INTERRUPTED};
use fsbattery_core::plan::{self, Planned, Runnable};
use fsbattery_core::runner::{self, RunObserver, Silent};
use fsbattery_core::targets::{DirTarget, Target};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A run's first part, or (`resume`) the next part of the interrupted run in `args.out`.
pub(super) fn run_part(args: RunArgs, resume: bool) -> anyhow::Result<ExitCode> {
    // Noted before anything may make it: a work directory this run makes is removed again
    // (once empty) however the run ends, after the plan's targets are torn down (declared
    // first, it drops last).
    let made_workdir = super::made_workdir::MadeWorkdir::note(&args.workdir);
    // The plan first: building it creates nothing, and a mistake in the arguments is the
    // first thing to tell; a dry run is shown and ends here. Under mpirun every rank must
    // have built the same, runnable plan.
    let built = match plan::build(&args.request()) {
        Ok(Planned::DryRun(dry)) => return super::dry_run::dry_run(&args, &dry),
        Ok(Planned::Run(r)) => Ok(r),
        Err(e) => Err(e),
    };
    let ranks = super::ranks::start()?;
    if let Some(comm) = ranks.as_deref() {
        super::ranks::check_all(comm, &built).map_err(|e| super::ranks::silence(comm, e))?;
    }
    let Runnable {
        mut plan,
        no_default_why,
    } = built?;
    let rank = ranks.as_ref().map_or(0, |c| c.rank());
    // Refused before anything is created there: state files and sessions in a directory
    // another user can rewrite would let them steer what fsbattery (often root) removes.
    fsbattery_core::targets::check_workdir(&args.workdir)?;
    if let Some(src) = &args.source_dir {
        fsbattery_core::targets::check_workdir(src)?;
    }
    // Every refusal before any notice, so a refusal is the first and only line: an output
    // directory that already holds a run too. Only rank 0's journal is the run's; the others
    // keep theirs in memory (nothing on disk that a killed rank would leave behind), so they
    // make no output directory.
    if resume && ranks.is_some() {
        return Err(fsbattery_core::error::UsageError::Invalid(
            "--resume is not supported under mpirun: continue the run without it, or start a new one".into(),
        )
        .into());
    }
    let out_dir = match (rank, resume) {
        (0, false) => Some(out_dir(&args)?),
        (0, true) => args.out.clone(),
        _ => None,
    };
    // A bad mkfs=/mount= option fails here once, not in every cell of its target. Under MPI
    // every rank would make the same trial at once: the ranks' targets are left to the run.
    if ranks.is_none() {
        super::trial_mount::check(&mut plan)?;
    }
    attach_datasets(&mut plan, &args)?;
    let source = args.source_dir.as_deref().unwrap_or(&args.workdir);
    let source_note = super::source_disk::same_device_note(&plan, source, &args.workdir);
    plan.add_notes(source_note);
    let default_dir_note = match plan.targets.is_empty() {
        true => Some(add_default_dir(
            &mut plan,
            &args,
            no_default_why.as_deref(),
        )?),
        false => None,
    };
    // Claimed by creating its journal, still before any notice: of two runs given one
    // `--out` at once, the second is refused here in one line.
    let (journal, prior) = match &out_dir {
        Some(dir) if resume => {
            let host = fsbattery_core::host::probe();
            let (journal, prior) = super::resume::claim(dir, &plan, &host)?;
            (Some(journal), Some(prior))
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating output directory {}", dir.display()))?;
            let journal = claim(dir)?;
            if let Err(e) = super::resume::keep_command(dir) {
                errln!("fsbattery: warning: the command line was not kept ({e}): this run cannot be resumed with --resume");
            }
            (Some(journal), None)
        }
        None => (None, None),
    };
    // Nothing is refused any more: which defaults this run leaves out (why, and the fix), a
    // shortened pause, the seed's memory applied or why not — said before the run as the
    // record keeps them.
    for s in &plan.skipped {
        errln!("fsbattery: {}", s.line());
    }
    if rank == 0 {
        // A preset's method and conditions, before anything is timed under them.
        if args.suite.is_some() {
            errln!("fsbattery: {}", super::preset_line::line(&plan));
        }
        for n in plan.notes.iter().chain(&default_dir_note) {
            errln!("fsbattery: {n}");
        }
    }
    let out_dir = out_dir.unwrap_or_default();

    let host = host(&args, ranks.is_some());
    let total = (plan.targets.len() * plan.repeat as usize * plan.workloads.len()) as u64;
    let mut observer = observer(&args, rank, total);
    let obs = observer.as_mut();
    if resume && rank == 0 {
        errln!("fsbattery: resuming the run in {}", out_dir.display());
    }
    let outcome = match (journal, ranks.as_deref()) {
        (Some(j), comm) if prior.is_some() => {
            let comm = comm.unwrap_or(&fsbattery_core::collective::Solo);
            let prior = prior.as_ref().expect("checked");
            runner::resume_in(&mut plan, j, prior, &out_dir, host, obs, comm)
        }
        (Some(j), comm) => {
            let comm = comm.unwrap_or(&fsbattery_core::collective::Solo);
            runner::execute_in(&mut plan, j, &out_dir, host, obs, comm)
        }
        (None, Some(comm)) => runner::execute_with(&mut plan, &out_dir, host, obs, comm),
        (None, None) => runner::execute(&mut plan, &out_dir, host, obs),
    };
    drop(plan); // tears down targets (removes the default directory) before reporting
    drop(made_workdir);
    // The results directory filled up or turned read-only under the run: the journal took
    // no more events from the failed one on, so the run stopped there and tore down.
    let outcome = outcome.map_err(|e| {
        anyhow::anyhow!(
            "{e}: the run stopped and tore down; {} keeps every result journaled before, and `fsbattery run --resume {}` continues it once there is room",
            out_dir
                .join(fsbattery_core::journal::JOURNAL_FILE)
                .display(),
            out_dir.display()
        )
    })?;
    if rank != 0 {
        return Ok(super::ranks::exit_code(&outcome));
    }
    finish(&args, &outcome, &out_dir)
}

/// The machine as the record describes it, with fsbattery's own ceiling measured on it
/// (skipped with `--no-ceiling`, and under MPI, where a cell is every rank's work combined
/// and one process's ceiling says nothing of it).
fn host(args: &RunArgs, parallel: bool) -> fsbattery_core::model::HostInfo {
    let mut host = fsbattery_core::host::probe();
    if !args.no_ceiling && !parallel {
        match fsbattery_core::ceiling::measure() {
            Ok(c) => host.tool_ceiling = Some(c),
            Err(e) => errln!("fsbattery: the tool's own ceiling was not measured: {e}"),
        }
    }
    host
}

/// What the user sees while the run goes on: nothing from MPI ranks other than 0; a bar on
/// a terminal; with `--verbose` off a terminal, a line per step and one per phase; otherwise
/// (piped, or `--quiet`) one line per target and repeat, with each workload's headline.
fn observer(args: &RunArgs, rank: usize, total: u64) -> Box<dyn RunObserver> {
    let tty = std::io::stdout().is_terminal();
    if rank != 0 {
        Box::new(Silent)
    } else if args.quiet || (!tty && !args.verbose) {
        Box::new(progress::Cells::new(crate::width::columns(
            std::io::stderr().is_terminal(),
        )))
    } else if tty {
        Box::new(progress::Bar::new(total))
    } else {
        Box::new(progress::Log)
    }
}

/// Write the outputs, print the results, and turn the outcome into the exit status.
pub(super) fn finish(
    args: &RunArgs,
    outcome: &runner::Outcome,
    out_dir: &Path,
) -> anyhow::Result<ExitCode> {
    let mut record = outcome.record.clone();
    super::record::with_published(&mut record);
    let written = outputs::write_all(&record, out_dir, args.rank_reference)?;
    let stored = super::store::add_after_run(args, &record, out_dir);
    let (files, to_stdout) = outputs::asked_by(args);
    outputs::write_exports(&record, &files, args.rank_reference)?;
    print_results(args, &record, out_dir, &written, stored.as_deref())?;
    if let Some(line) = record.parts_line().filter(|_| record.resumed()) {
        errln!("fsbattery: {line}");
    }
    outputs::write_exports(&record, &to_stdout, args.rank_reference)?;
    if outcome.interrupted {
        let by = fsbattery_core::interrupt::cause()
            .map(|c| format!(" by {c}"))
            .unwrap_or_default();
        errln!(
            "fsbattery: interrupted{by}: torn down; finished cells are kept in {}",
            out_dir.display()
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    if outcome.failed_cells > 0 {
        errln!(
            "fsbattery: {} cell(s) failed (see the table)",
            outcome.failed_cells
        );
        return Ok(ExitCode::from(EXIT_CELL_FAILED));
    }
    Ok(ExitCode::SUCCESS)
}

/// With no target: a fresh directory under the work directory, checked like any target (it
/// exists only now); refused, it is removed again. Returns the line that says so.
fn add_default_dir(
    plan: &mut runner::CheckedPlan,
    args: &RunArgs,
    why: Option<&str>,
) -> anyhow::Result<String> {
    let t = DirTarget::owned_under(&args.workdir).with_context(|| {
        format!(
            "creating the default target under {}",
            args.workdir.display()
        )
    })?;
    let note = format!(
        "no --target given and {}: using a fresh directory {}",
        why.unwrap_or("no default filesystem"),
        t.root().display()
    );
    plan.add_target(Box::new(t))?;
    Ok(note)
}

/// The table and where the files are (the run directory, its report, and the store and run
/// id it was stored as): on stdout, or, when `--format` gives stdout to a machine-readable
/// rendering, on stderr (and not at all with `--quiet`) so that stdout holds that rendering
/// alone. Everything is torn down and saved by now: a closed stdout changes nothing of the
/// status.
fn print_results(
    args: &RunArgs,
    record: &fsbattery_core::model::RunRecord,
    out_dir: &Path,
    written: &Path,
    stored: Option<&str>,
) -> anyhow::Result<()> {
    let mut paths = format!(
        "results: {}\nreport:  {}\n",
        out_dir.display(),
        written.display()
    );
    if let Some(line) = stored {
        paths.push_str(line);
        paths.push('\n');
    }
    if args.format.0.terminal {
        let styled = std::io::stdout().is_terminal();
        let table = outputs::run_output(record, styled, args.verbose, args.rank_reference)?;
        return crate::stdout::write_unless_closed(format!("{table}\n{paths}"));
    }
    if !args.quiet {
        let table = outputs::run_output(
            record,
            std::io::stderr().is_terminal(),
            args.verbose,
            args.rank_reference,
        )?;
        errln!("{table}\n{}", paths.trim_end());
    }
    let bytes = outputs::render(record, args.format.0, args.rank_reference)?;
    crate::stdout::write_unless_closed(bytes)
}

/// Make the run's dataset store (kernel trees) when a planned workload reads one, in the source
/// directory: `--source-dir`, else the work directory. A bad `--tree-tarball` fails here,
/// before any target is set up.
fn attach_datasets(plan: &mut runner::CheckedPlan, args: &RunArgs) -> anyhow::Result<()> {
    let needed = plan.workloads.iter().any(|w| {
        w.workload.dataset(&w.params).is_some() || w.workload.generated(&w.params).is_some()
    });
    if !needed {
        return Ok(());
    }
    let dir = args
        .source_dir
        .clone()
        .unwrap_or_else(|| args.workdir.clone());
    let store = runner::dataset_store(&dir, args.tree_tarball.as_deref()).map_err(|e| {
        fsbattery_core::error::UsageError::Invalid(format!(
            "source dataset in {}: {e}",
            dir.display()
        ))
    })?;
    plan.set_datasets(store);
    Ok(())
}

/// Create the run's journal in `dir`, refusing a directory another run claimed since
/// [`out_dir`] looked.
fn claim(dir: &Path) -> anyhow::Result<fsbattery_core::journal::Journal> {
    use fsbattery_core::journal::Journal;
    Journal::create(dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => fsbattery_core::error::UsageError::Invalid(format!(
            "--out {}: already holds a run (another run started there first); choose another directory",
            dir.display()
        ))
        .into(),
        _ => anyhow::Error::new(e).context(format!("creating the journal in {}", dir.display())),
    })
}

pub(super) fn out_dir(args: &RunArgs) -> anyhow::Result<PathBuf> {
    let dir = match &args.out {
        Some(d) => d.clone(),
        None => Path::new("fsbattery-results")
            .join(chrono::Local::now().format("%Y%m%d-%H%M%S").to_string()),
    };
    if dir.join(fsbattery_core::journal::JOURNAL_FILE).exists() && super::resume::resumable(&dir) {
        return Err(fsbattery_core::error::UsageError::Invalid(format!(
            "--out {}: holds an interrupted run; `fsbattery run --resume {}` continues it, or choose another directory",
            dir.display(),
            dir.display()
        ))
        .into());
    }
    if dir.join(fsbattery_core::journal::JOURNAL_FILE).exists() {
        return Err(fsbattery_core::error::UsageError::Invalid(format!(
            "--out {}: already holds a run; choose another directory",
            dir.display()
        ))
        .into());
    }
    Ok(dir)
}

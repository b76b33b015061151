//! `fsbattery store`, and the store add at the end of `run`: the results store is a derived
//! index over run directories, so adding to it comes after the directory is written and a
//! store that cannot take the run costs one line on stderr, never the run.

use crate::cli::{RunArgs, StoreAction, StoreArgs};
use crate::stderr::errln;
use fsbattery_core::error::UsageError;
use fsbattery_record::RunRecord;
use fsbattery_store::{Store, StoreError};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit status when the results store is damaged, locked or unreachable.
pub const EXIT_STORE: u8 = 8;

/// `--store PATH`, else the default store; an error when there is no home to put it in.
pub fn resolve(path: Option<&Path>) -> anyhow::Result<PathBuf> {
    match path {
        Some(p) => Ok(p.to_path_buf()),
        None => fsbattery_store::default_path().ok_or_else(|| {
            UsageError::Invalid(
                "no default results store: neither XDG_DATA_HOME nor HOME is set; give --store PATH"
                    .into(),
            )
            .into()
        }),
    }
}

/// The store `history` and `site` read: `--store PATH`, else the default; one that does not
/// exist is a usage error (exit 2), not a new empty store.
pub fn existing(path: Option<&Path>) -> anyhow::Result<Store> {
    let path = resolve(path)?;
    if !path.exists() {
        return Err(UsageError::Invalid(format!(
            "no results store at {}: add runs with `fsbattery run` or `fsbattery store add DIR...`, or name one with --store",
            path.display()
        ))
        .into());
    }
    Ok(Store::open(&path)?)
}

/// After a run's directory is written: add it to the store unless `--no-store`. Returns the
/// line that says where it went (`stored as run 42 in the results store at PATH: fsbattery
/// history`), printed at the very end of the run; a failure is one line on stderr at once, and
/// the run's exit status does not change.
pub fn add_after_run(args: &RunArgs, record: &RunRecord, dir: &Path) -> Option<String> {
    if args.no_store {
        return None;
    }
    let added = resolve(args.store.as_deref()).and_then(|path| {
        let mut store = Store::open(&path)?;
        let id = store.add(dir, record)?;
        Ok((id, path))
    });
    match added {
        Ok((id, path)) => Some(stored_line(id, &path, args.store.is_some())),
        Err(e) => {
            errln!(
                "fsbattery: the run was not added to the results store ({e:#}); it is complete in {} — add it later with `fsbattery store add {}`",
                dir.display(),
                dir.display()
            );
            None
        }
    }
}

/// "stored as run ID in the results store at PATH: fsbattery history", with `--store PATH`
/// in the command when the store is not the default one.
fn stored_line(id: i64, path: &Path, named: bool) -> String {
    let history = match named {
        true => format!("fsbattery history --store {}", path.display()),
        false => "fsbattery history".to_string(),
    };
    format!(
        "stored as run {id} in the results store at {}: {history}",
        path.display()
    )
}

/// `fsbattery store add|rebuild`.
pub fn store(args: StoreArgs) -> anyhow::Result<ExitCode> {
    let path = resolve(args.store.as_deref())?;
    match args.action {
        StoreAction::Add { dirs } => {
            let mut store = Store::open(&path)?;
            add_dirs(&mut store, &dirs)
        }
        StoreAction::Rebuild { dirs } => rebuild(&path, &dirs),
        StoreAction::Check => check(args.store.as_deref()),
    }
}

/// `store check`: integrity, the runs held, and those whose directory is gone (the store is
/// an index of run directories: one whose directory went can no longer be rebuilt).
fn check(path: Option<&Path>) -> anyhow::Result<ExitCode> {
    let store = existing(path)?;
    let integrity = store.integrity_check()?;
    let runs = store.runs()?;
    let unfinished = runs
        .iter()
        .filter(|r| r.facts.flag() == Some("interrupted"));
    let resumed = runs.iter().filter(|r| r.facts.flag() == Some("resumed"));
    let gone: Vec<&str> = runs
        .iter()
        .filter(|r| !Path::new(&r.dir).exists())
        .map(|r| r.dir.as_str())
        .collect();
    let mut out = format!(
        "{}: integrity {integrity}
{} run(s): {} interrupted, {} resumed
",
        store.path().display(),
        runs.len(),
        unfinished.count(),
        resumed.count()
    );
    if !gone.is_empty() {
        out.push_str(&format!(
            "{} run(s) whose results directory is gone (`fsbattery store rebuild` leaves them out):
",
            gone.len()
        ));
        for d in &gone {
            out.push_str(&format!("  {d}\n"));
        }
    }
    crate::stdout::write_unless_closed(out)?;
    if integrity != "ok" {
        errln!(
            "fsbattery: {} is damaged (integrity check: {integrity}): recreate it with `fsbattery store rebuild`",
            store.path().display()
        );
        return Ok(ExitCode::from(EXIT_STORE));
    }
    Ok(ExitCode::SUCCESS)
}

/// Add each directory; one that holds no readable run is named and skipped (exit 2 at the
/// end), a store error stops at once (exit 8).
fn add_dirs(store: &mut Store, dirs: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut added = 0;
    let mut refused = 0;
    for dir in dirs {
        match fsbattery_record::load(dir) {
            Ok(loaded) => {
                if let Some(note) = &loaded.note {
                    errln!("fsbattery: {note}");
                }
                store.add(dir, &loaded.record)?;
                added += 1;
            }
            Err(e) => {
                errln!("fsbattery: {}: {e}: not added", dir.display());
                refused += 1;
            }
        }
    }
    crate::stdout::write_unless_closed(format!(
        "{added} run(s) added to {}{}\n",
        store.path().display(),
        if refused > 0 {
            format!("; {refused} directory(ies) refused")
        } else {
            String::new()
        }
    ))?;
    Ok(if refused > 0 {
        ExitCode::from(fsbattery_core::error::EXIT_USAGE)
    } else {
        ExitCode::SUCCESS
    })
}

/// Recreate the store: read the directories it names (when it can still be read), move the
/// old file aside (kept as `PATH.old`, never deleted), and add every directory afresh.
fn rebuild(path: &Path, extra: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut dirs = match path.exists().then(|| Store::open(path).and_then(|s| s.dirs())) {
        Some(Ok(dirs)) => dirs,
        Some(Err(e)) if extra.is_empty() => {
            return Err(UsageError::Invalid(format!(
                "{e:#}; it cannot name its run directories: give them, `fsbattery store rebuild DIR...`"
            ))
            .into())
        }
        _ => Vec::new(),
    };
    dirs.extend(extra.iter().cloned());
    let (mut kept, mut gone) = (Vec::new(), 0);
    for d in dirs {
        if d.exists() {
            if !kept.contains(&d) {
                kept.push(d);
            }
        } else {
            errln!("fsbattery: {}: no longer exists: left out", d.display());
            gone += 1;
        }
    }
    if path.exists() {
        move_aside(path)?;
    }
    let mut store = Store::open(path)?;
    let code = add_dirs(&mut store, &kept)?;
    if gone > 0 {
        errln!("fsbattery: {gone} run directory(ies) named by the old store no longer exist");
    }
    Ok(code)
}

/// Rename the database and its WAL and shared-memory files to `*.old`.
fn move_aside(path: &Path) -> anyhow::Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let from = PathBuf::from(format!("{}{suffix}", path.display()));
        if from.exists() {
            let to = PathBuf::from(format!("{}.old{suffix}", path.display()));
            std::fs::rename(&from, &to).map_err(|e| StoreError::Other {
                path: path.to_path_buf(),
                detail: format!("moving {} aside: {e}", from.display()),
            })?;
        }
    }
    Ok(())
}

//! Every file and stdout rendering of a run or a report goes down one path, after hyperfine's
//! `ExportManager`: an [`Export`] is a format of the report crate's table
//! ([`fsbattery_report::formats::FORMATS`]) and where it goes, a file or stdout. `--format`,
//! `--export`, `--html`, `--xlsx`, `--json` and the files of a run directory
//! ([`run_directory`]) are each such an export; no command matches on a format.
//!
//! Besides the formats, a run directory holds the io500 app's `result_summary.txt` for io500
//! runs (the app's own file, named per run) and the journal, which the runner writes as it
//! goes.

use crate::cli::{ExportArg, RunArgs};
use anyhow::Context;
use fsbattery_core::model::RunRecord;
use fsbattery_report::formats::{Format, Options, FORMATS};
use fsbattery_report::{table::TerminalTable, Renderer, Report, Runs};
use fsbattery_stats::Aggregate;
use std::path::{Path, PathBuf};

/// Where an export goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// stdout (`--format`, `--export FORMAT:-`).
    Stdout,
    /// A file, written whole or not at all.
    File(PathBuf),
}

/// One output: a format and where it goes.
#[derive(Debug, Clone)]
pub struct Export {
    /// The format, an entry of the table.
    pub format: &'static Format,
    /// Where its bytes go.
    pub target: Target,
}

impl Export {
    /// `format` to the file `path`.
    pub fn file(format: &'static Format, path: &Path) -> Export {
        Export {
            format,
            target: Target::File(path.to_path_buf()),
        }
    }

    /// `format` to stdout.
    pub fn stdout(format: &'static Format) -> Export {
        Export {
            format,
            target: Target::Stdout,
        }
    }

    /// `runs` in this export's format; `styled` (colour, bold) is read only by the
    /// terminal table.
    pub fn render(&self, runs: &Runs<'_>, styled: bool) -> anyhow::Result<Vec<u8>> {
        let name = self.format.name;
        (self.format.render(runs, &Options { styled })).with_context(|| format!("rendering {name}"))
    }

    /// Render `runs` and write them: a file atomically, stdout through
    /// [`crate::stdout::write`] (a closed stdout is its `Closed` error), styled there when
    /// stdout is a terminal.
    pub fn write(&self, runs: &Runs<'_>) -> anyhow::Result<()> {
        match &self.target {
            Target::File(path) => {
                let bytes = self.render(runs, false)?;
                fsbattery_core::atomic::write(path, &bytes)
                    .with_context(|| format!("writing {}", path.display()))
            }
            Target::Stdout => {
                let styled = std::io::IsTerminal::is_terminal(&std::io::stdout());
                crate::stdout::write(self.render(runs, styled)?)
            }
        }
    }
}

impl From<&ExportArg> for Export {
    fn from(a: &ExportArg) -> Export {
        match &a.file {
            Some(path) => Export::file(a.format, path),
            None => Export::stdout(a.format),
        }
    }
}

/// The files every run directory holds: each format of the table that names a run file.
pub fn run_directory(dir: &Path) -> Vec<Export> {
    FORMATS
        .iter()
        .filter_map(|f| Some(Export::file(f, &dir.join(f.run_file?))))
        .collect()
}

/// `f` of `record` as the one run of an output, by the run's aggregate, labelled by its
/// `--label` or its host.
fn as_runs<T>(record: &RunRecord, rank_reference: bool, f: impl FnOnce(&Runs<'_>) -> T) -> T {
    let label = (record.plan.label.clone()).unwrap_or_else(|| record.host.hostname.clone());
    f(&Runs {
        runs: &[(label, record)],
        aggregate: record.plan.aggregate,
        rank_reference,
    })
}

/// Write the files of a run directory ([`run_directory`]: results.json again, now with each
/// cell's statistics, results.md, results.csv, report.html) and the io500 summaries; returns
/// the HTML report's path.
pub fn write_all(record: &RunRecord, dir: &Path, rank_reference: bool) -> anyhow::Result<PathBuf> {
    // The runner wrote the samples as it went; the verdicts need every target, so they are
    // added once the run is whole.
    let exports = run_directory(dir);
    as_runs(record, rank_reference, |runs| {
        exports.iter().try_for_each(|e| e.write(runs))
    })?;
    write_io500_summaries(record, dir)?;
    // The path `run` prints; the report crate's tests pin report.html as a run file.
    let html = exports.iter().find_map(|e| match &e.target {
        Target::File(p) if *e.format == fsbattery_report::html::FORMAT => Some(p.clone()),
        _ => None,
    });
    html.context("the HTML format names no run-directory file")
}

/// What `run` writes besides its run directory, as (files, stdout): `--json FILE` (an alias
/// of `--export json:FILE`) and each `--export`. `--format` is not here: `run` prints it with
/// its table and paths.
pub fn asked_by(args: &RunArgs) -> (Vec<Export>, Vec<Export>) {
    let json = (args.json.iter()).map(|p| Export::file(fsbattery_report::formats::JSON, p));
    let asked = args.export.iter().map(Export::from);
    json.chain(asked).partition(|e| e.target != Target::Stdout)
}

/// Write `exports` of one finished run (`run --json`, `--export`): a file whole, stdout
/// unless its reader went away, since the run's status must not depend on that.
pub fn write_exports(
    record: &RunRecord,
    exports: &[Export],
    rank_reference: bool,
) -> anyhow::Result<()> {
    as_runs(record, rank_reference, |runs| {
        for e in exports {
            match e.write(runs) {
                Err(err) if err.is::<crate::stdout::Closed>() => {}
                other => other?,
            }
        }
        Ok(())
    })
}

/// The io500 app's result summary of every io500 run of `record` beside it:
/// `result_summary.txt` for one run, `result_summary.<target>.<repeat>.txt` for several.
fn write_io500_summaries(record: &RunRecord, dir: &Path) -> anyhow::Result<()> {
    let runs = fsbattery_report::io500::runs(record);
    let version = match &record.source {
        Some(s) => s.version.clone(),
        None => format!("{}-{}", record.tool.name, record.tool.version),
    };
    for r in &runs {
        let name = match runs.len() {
            1 => "result_summary.txt".to_string(),
            _ => format!("result_summary.{}.{}.txt", r.target, r.repeat + 1),
        };
        let path = dir.join(name);
        let text = fsbattery_report::io500::result_summary(r, &version);
        fsbattery_core::atomic::write(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The terminal matrix.
pub fn terminal_table(
    record: &RunRecord,
    agg: Option<Aggregate>,
    styled: bool,
    rank_reference: bool,
) -> anyhow::Result<String> {
    let report = Report {
        record,
        aggregate: agg.unwrap_or(record.plan.aggregate),
        rank_reference,
    };
    let bytes = TerminalTable { styled }.render(&report)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// What `run` prints of the record: the results and their verdicts; the seed comparisons and
/// the device paragraph only when `verbose`; one line per cell instead of tables when the
/// output is not a terminal (`styled` false) and `COLUMNS` asks for no table width.
pub fn run_output(
    record: &RunRecord,
    styled: bool,
    verbose: bool,
    rank_reference: bool,
) -> anyhow::Result<String> {
    let report = Report {
        record,
        aggregate: record.plan.aggregate,
        rank_reference,
    };
    let detail = fsbattery_report::table::Detail {
        verbose,
        lines: false,
        width: Some(crate::width::columns(styled)),
    };
    let bytes = TerminalTable { styled }.render_with(&report, detail)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `record` in `format`, unstyled, as `run --format` writes it to stdout.
pub fn render(
    record: &RunRecord,
    format: &'static Format,
    rank_reference: bool,
) -> anyhow::Result<Vec<u8>> {
    as_runs(record, rank_reference, |runs| {
        Export::stdout(format).render(runs, false)
    })
}

//! The spreadsheet: one workbook, one sheet per table, every sample on its own row.
//!
//! Role: give analysts the numbers in a form they can sort, chart and re-aggregate — S3
//! published iozone's "Excel" output (one table per test, record size × filesystem), and
//! this workbook carries the same tables beside the matrices of the page. Sheets, in order:
//! `runs`, `values` (tests × columns), `cpu` (CPU %), `latency`, one `iozone <test>` per iozone
//! test, `stats` (one row per test × column: n, mean, median, min, max, best, stddev, CI95),
//! `targets` (every mkfs/mount cycle), `samples` (every sample of every cell, failed cells
//! included with their reason).
//!
//! Invariants: numbers are written as numbers, never as text; a cell without a number says
//! why in words ("failed", "pending", "-"); columns are the same as the HTML page's (built
//! from the same merged data), so the two never disagree; the workbook's creation time is
//! the first run's start, so the same records give the same bytes.

use crate::html::data::{Data, IozoneTest, Kind, Line};
use crate::html::iozone_record_label;
use crate::matrix::Entry;
use crate::{RenderError, Renderer, Report};
use fsbattery_record::{CellStatus, RunRecord};
use fsbattery_stats::{Aggregate, Better, Mark, RowVerdict};
use rust_xlsxwriter::{
    Color, DocProperties, ExcelDateTime, Format, Note, Workbook, Worksheet, XlsxError,
};

/// The spreadsheet's entry in [`crate::formats::FORMATS`].
pub const FORMAT: crate::Format = crate::Format {
    name: "xlsx",
    about: "A spreadsheet, one sheet per table, numbers as numbers; several runs side by side",
    noun: "spreadsheet",
    run_file: None,
    stdout: false,
    terminal: false,
    renderer: |_: &crate::Options| Box::new(Xlsx),
};

/// Renders one run as a workbook (see [`xlsx`] for several).
pub struct Xlsx;

impl Renderer for Xlsx {
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError> {
        let label = report.record.plan.suite.clone();
        xlsx_ranked(
            &[(label, report.record)],
            report.aggregate,
            report.rank_reference,
        )
    }

    fn render_runs(&self, runs: &crate::Runs<'_>) -> Result<Vec<u8>, RenderError> {
        xlsx_ranked(runs.runs, runs.aggregate, runs.rank_reference)
    }
}

/// Render labelled runs as one workbook; columns are "label: target" when there are several.
pub fn xlsx(runs: &[(String, &RunRecord)], aggregate: Aggregate) -> Result<Vec<u8>, RenderError> {
    xlsx_ranked(runs, aggregate, false)
}

/// [`xlsx`], ranking targets in RAM against disks when `rank_reference`.
pub fn xlsx_ranked(
    runs: &[(String, &RunRecord)],
    aggregate: Aggregate,
    rank_reference: bool,
) -> Result<Vec<u8>, RenderError> {
    let d = Data::build(runs, aggregate, rank_reference)?;
    write(&d).map_err(|e| RenderError(format!("cannot write the spreadsheet: {e}")))
}

/// Formats shared by every sheet.
struct Styles {
    header: Format,
    best: Format,
    tied: Format,
    undecided: Format,
    word: Format,
}

fn write(d: &Data<'_>) -> Result<Vec<u8>, XlsxError> {
    let mut wb = Workbook::new();
    let started = &d.runs[0].record.started;
    let created = ExcelDateTime::parse_from_str(started.get(..19).unwrap_or(""))
        .or_else(|_| ExcelDateTime::from_ymd(2000, 1, 1))?;
    wb.set_properties(
        &DocProperties::new()
            .set_title("fsbattery results")
            .set_creation_datetime(&created),
    );
    let st = Styles {
        header: Format::new()
            .set_bold()
            .set_background_color(Color::RGB(0xF3F4F6)),
        // The HTML report's colours: green reads as best (not red, which reads as failure).
        best: Format::new()
            .set_bold()
            .set_font_color(Color::RGB(0x047857))
            .set_background_color(Color::RGB(0xD1FAE5)),
        tied: Format::new().set_background_color(Color::RGB(0xF0FDF4)),
        // Undecided is no colour of the scale: grey italic reads as "not known".
        undecided: Format::new()
            .set_italic()
            .set_font_color(Color::RGB(0x6B7280)),
        word: Format::new()
            .set_italic()
            .set_font_color(Color::RGB(0x6B7280)),
    };
    runs_sheet(wb.add_worksheet().set_name("runs")?, d, &st)?;
    let tests: Vec<&Line> = d.tests().collect();
    matrix_sheet(
        wb.add_worksheet().set_name("values")?,
        d,
        &st,
        &tests,
        false,
    )?;
    // Sizes and rates have no timed phase, hence no CPU row (the matrix leaves them out).
    let timed: Vec<&Line> = tests
        .iter()
        .copied()
        .filter(|l| {
            l.cpu
                .iter()
                .any(|e| !matches!(e, Entry::Missing | Entry::NotApplicable))
        })
        .collect();
    matrix_sheet(wb.add_worksheet().set_name("cpu")?, d, &st, &timed, true)?;
    let latency: Vec<&Line> = d
        .lines
        .iter()
        .filter(|l| matches!(l.kind, Kind::Latency { .. }))
        .collect();
    if !latency.is_empty() {
        matrix_sheet(
            wb.add_worksheet().set_name("latency")?,
            d,
            &st,
            &latency,
            false,
        )?;
    }
    let mut names: Vec<String> = Vec::new();
    for t in d.iozone() {
        let name = sheet_name(&format!("{} {}", t.workload, t.test), &names);
        names.push(name.clone());
        iozone_sheet(wb.add_worksheet().set_name(name)?, d, &st, &t)?;
    }
    stats_sheet(wb.add_worksheet().set_name("stats")?, d, &st)?;
    targets_sheet(wb.add_worksheet().set_name("targets")?, d, &st)?;
    samples_sheet(wb.add_worksheet().set_name("samples")?, d, &st)?;
    wb.save_to_buffer()
}

/// A valid, unique sheet name: at most 31 characters, none of `[]:*?/\`.
fn sheet_name(want: &str, taken: &[String]) -> String {
    let clean: String = want
        .chars()
        .map(|c| if "[]:*?/\\".contains(c) { '_' } else { c })
        .take(31)
        .collect();
    let mut name = clean.clone();
    let mut i = 2;
    while taken.contains(&name) {
        let suffix = format!(" {i}");
        name = clean.chars().take(31 - suffix.len()).collect::<String>() + &suffix;
        i += 1;
    }
    name
}

fn header(ws: &mut Worksheet, st: &Styles, titles: &[String]) -> Result<(), XlsxError> {
    for (c, t) in titles.iter().enumerate() {
        ws.write_string_with_format(0, c as u16, t, &st.header)?;
    }
    ws.set_freeze_panes(1, 0)?;
    Ok(())
}

fn owned(titles: &[&str]) -> Vec<String> {
    titles.iter().map(|s| s.to_string()).collect()
}

fn runs_sheet(ws: &mut Worksheet, d: &Data<'_>, st: &Styles) -> Result<(), XlsxError> {
    header(
        ws,
        st,
        &owned(&[
            "Run",
            "Suite",
            "Scale",
            "Repeats",
            "Aggregate shown",
            "Method",
            "Host",
            "Kernel",
            "OS",
            "CPU",
            "Cores",
            "RAM bytes",
            "Started",
            "Finished",
            "Interrupted",
            "Tool version",
        ]),
    )?;
    for (i, run) in d.runs.iter().enumerate() {
        let (r, p, h) = (run.record, &run.record.plan, &run.record.host);
        let row = i as u32 + 1;
        let texts = [&run.label, &p.suite, &p.scale];
        for (c, t) in texts.iter().enumerate() {
            ws.write_string(row, c as u16, *t)?;
        }
        ws.write_number(row, 3, p.repeat)?;
        ws.write_string(row, 4, d.aggregate.as_str())?;
        let more = [&p.method, &h.hostname, &h.kernel, &h.os, &h.cpu_model];
        for (c, t) in more.iter().enumerate() {
            ws.write_string(row, 5 + c as u16, *t)?;
        }
        ws.write_number(row, 10, h.cores)?;
        ws.write_number(row, 11, h.ram_bytes as f64)?;
        ws.write_string(row, 12, &r.started)?;
        ws.write_string(row, 13, r.finished.as_deref().unwrap_or(""))?;
        ws.write_boolean(row, 14, r.interrupted)?;
        ws.write_string(row, 15, &r.tool.version)?;
    }
    ws.autofit();
    Ok(())
}

/// Write one matrix entry at (row, col): a number, or the word for a cell without one.
fn entry(
    ws: &mut Worksheet,
    st: &Styles,
    row: u32,
    col: u16,
    e: &Entry,
    agg: Aggregate,
    mark: Mark,
) -> Result<(), XlsxError> {
    match e {
        Entry::Measured(s) if mark == Mark::Winner => ws
            .write_number_with_format(row, col, s.aggregate(agg), &st.best)
            .map(|_| ()),
        Entry::Measured(s) if mark == Mark::Equivalent => ws
            .write_number_with_format(row, col, s.aggregate(agg), &st.tied)
            .map(|_| ()),
        Entry::Measured(s) if mark == Mark::Undecided => ws
            .write_number_with_format(row, col, s.aggregate(agg), &st.undecided)
            .map(|_| ()),
        Entry::Measured(s) | Entry::Incomplete(Some(s)) => {
            ws.write_number(row, col, s.aggregate(agg)).map(|_| ())
        }
        other => ws
            .write_string_with_format(row, col, crate::format::entry(other, agg), &st.word)
            .map(|_| ()),
    }
}

fn matrix_sheet(
    ws: &mut Worksheet,
    d: &Data<'_>,
    st: &Styles,
    lines: &[&Line],
    cpu: bool,
) -> Result<(), XlsxError> {
    let mut titles = owned(&["Test", "Workload", "Metric", "Unit", "Better"]);
    titles.extend(d.columns.iter().map(|c| c.name.clone()));
    header(ws, st, &titles)?;
    for (i, l) in lines.iter().enumerate() {
        let row = i as u32 + 1;
        let unit = if cpu { "%" } else { l.unit.as_str() };
        let better = if cpu || l.better == Better::Lower {
            "lower"
        } else {
            "higher"
        };
        for (c, t) in [l.label.as_str(), &l.workload, &l.metric, unit, better]
            .iter()
            .enumerate()
        {
            ws.write_string(row, c as u16, *t)?;
        }
        let none = RowVerdict::none(d.columns.len());
        let (entries, verdict) = if cpu {
            (&l.cpu, &none)
        } else {
            (&l.value, &l.verdict)
        };
        for (c, e) in entries.iter().enumerate() {
            entry(ws, st, row, 5 + c as u16, e, l.aggregate, verdict.mark(c))?;
        }
    }
    let legend = if cpu {
        "CPU % is shown, not ranked.".to_string()
    } else {
        format!(
            "Green bold: *; pale green: ≈; grey italic: ?. {}",
            crate::format::legend()
        )
    };
    ws.autofit();
    // A note on the header, not a row: the sheet stays one row per test for whoever reads it.
    ws.insert_note(0, 0, &Note::new(legend).set_author("fsbattery"))?;
    Ok(())
}

/// Like iozone's Excel output: record size down, one column per target.
fn iozone_sheet(
    ws: &mut Worksheet,
    d: &Data<'_>,
    st: &Styles,
    t: &IozoneTest<'_>,
) -> Result<(), XlsxError> {
    let mut titles = owned(&["Record size (KiB)", "Record"]);
    titles.extend(d.columns.iter().map(|c| format!("{} ({})", c.name, t.unit)));
    header(ws, st, &titles)?;
    for (i, (record, l)) in t.points.iter().enumerate() {
        let row = i as u32 + 1;
        ws.write_number(row, 0, *record as f64 / 1024.0)?;
        ws.write_string(row, 1, iozone_record_label(*record))?;
        for (c, e) in l.value.iter().enumerate() {
            entry(ws, st, row, 2 + c as u16, e, l.aggregate, l.verdict.mark(c))?;
        }
    }
    ws.autofit();
    Ok(())
}

fn stats_sheet(ws: &mut Worksheet, d: &Data<'_>, st: &Styles) -> Result<(), XlsxError> {
    header(
        ws,
        st,
        &owned(&[
            "Test",
            "Workload",
            "Metric",
            "Column",
            "Unit",
            "State",
            "n",
            "Mean",
            "Median",
            "Min",
            "Max",
            "Best",
            "Stddev",
            "CI95 half width",
            "CoV",
        ]),
    )?;
    let mut row = 1;
    for l in &d.lines {
        for (c, e) in l.value.iter().enumerate() {
            let texts = [
                l.label.as_str(),
                &l.workload,
                &l.metric,
                &d.columns[c].name,
                &l.unit,
            ];
            for (i, t) in texts.iter().enumerate() {
                ws.write_string(row, i as u16, *t)?;
            }
            let state = match e {
                Entry::Measured(_) => "ok",
                Entry::Incomplete(_) => "incomplete",
                Entry::Failed(_) => "failed",
                Entry::Pending(_) => "pending",
                Entry::Missing => "missing",
                Entry::NotApplicable => "n/a",
            };
            ws.write_string(row, 5, state)?;
            if let Entry::Measured(s) | Entry::Incomplete(Some(s)) = e {
                let nums = [s.n as f64, s.mean, s.median, s.min, s.max, s.best, s.stddev];
                for (i, v) in nums.iter().enumerate() {
                    ws.write_number(row, 6 + i as u16, *v)?;
                }
                if let Some(h) = s.ci95_half_width {
                    ws.write_number(row, 13, h)?;
                }
                if let Some(v) = s.cov {
                    ws.write_number(row, 14, v)?;
                }
            }
            row += 1;
        }
    }
    ws.autofit();
    Ok(())
}

fn targets_sheet(ws: &mut Worksheet, d: &Data<'_>, st: &Styles) -> Result<(), XlsxError> {
    header(
        ws,
        st,
        &owned(&[
            "Run",
            "Target",
            "Spec",
            "Type",
            "Device",
            "Mount options",
            "Cycle",
            "mkfs s",
            "mount s",
            "umount s",
            "Total bytes",
            "Available bytes",
            "mkfs command",
            "Error",
        ]),
    )?;
    let mut row = 1;
    for run in &d.runs {
        for t in &run.record.targets {
            let texts = [
                &run.label,
                &t.label,
                &t.spec,
                &t.fs_type,
                &t.device,
                &t.mount_options,
            ];
            let cycles: Vec<Option<&fsbattery_record::Lifecycle>> = if t.lifecycles.is_empty() {
                vec![None]
            } else {
                t.lifecycles.iter().map(Some).collect()
            };
            for lc in cycles {
                for (c, s) in texts.iter().enumerate() {
                    ws.write_string(row, c as u16, *s)?;
                }
                if let Some(l) = lc {
                    ws.write_number(row, 6, l.repeat)?;
                    ws.write_number(row, 7, l.mkfs_secs)?;
                    ws.write_number(row, 8, l.mount_secs)?;
                    if let Some(u) = l.umount_secs {
                        ws.write_number(row, 9, u)?;
                    }
                    ws.write_number(row, 10, l.total_bytes as f64)?;
                    ws.write_number(row, 11, l.avail_bytes as f64)?;
                    ws.write_string(row, 12, &l.mkfs_command)?;
                }
                ws.write_string(row, 13, t.error.as_deref().unwrap_or(""))?;
                row += 1;
            }
        }
    }
    ws.autofit();
    Ok(())
}

fn samples_sheet(ws: &mut Worksheet, d: &Data<'_>, st: &Styles) -> Result<(), XlsxError> {
    header(
        ws,
        st,
        &owned(&[
            "Run",
            "Target",
            "Workload",
            "Metric",
            "Unit",
            "Better",
            "Method",
            "Status",
            "Reason",
            "Repeat",
            "Value",
            "Elapsed s",
            "User s",
            "Sys s",
            "CPU %",
        ]),
    )?;
    let mut row = 1;
    for run in &d.runs {
        for cell in &run.record.cells {
            let (status, reason) = match &cell.status {
                CellStatus::Ok => ("ok", ""),
                CellStatus::Failed { reason } => ("failed", reason.as_str()),
                CellStatus::Pending { reason } => ("pending", reason.as_str()),
                CellStatus::Incomplete => ("incomplete", ""),
                CellStatus::Missing { reason } => ("missing", reason.as_str()),
            };
            let better = if cell.better == Better::Lower {
                "lower"
            } else {
                "higher"
            };
            let texts = [
                &run.label,
                &cell.target,
                &cell.workload,
                &cell.metric,
                &cell.unit,
                better,
                &cell.method,
                status,
                reason,
            ];
            // A failed cell has no sample but still gets a row, so its reason is not lost.
            let samples: Vec<Option<&fsbattery_record::Sample>> = if cell.samples.is_empty() {
                vec![None]
            } else {
                cell.samples.iter().map(Some).collect()
            };
            for s in samples {
                for (c, t) in texts.iter().enumerate() {
                    ws.write_string(row, c as u16, *t)?;
                }
                if let Some(s) = s {
                    let nums = [
                        s.repeat as f64,
                        s.value,
                        s.elapsed_s,
                        s.user_s,
                        s.sys_s,
                        s.cpu_pct,
                    ];
                    for (i, v) in nums.iter().enumerate() {
                        ws.write_number(row, 9 + i as u16, *v)?;
                    }
                }
                row += 1;
            }
        }
    }
    ws.autofit();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheet_names_are_valid_and_unique() {
        assert_eq!(sheet_name("iozone a/b", &[]), "iozone a_b");
        let long = "iozone a_very_long_test_name_indeed_yes";
        let first = sheet_name(long, &[]);
        assert_eq!(first.chars().count(), 31);
        let second = sheet_name(long, std::slice::from_ref(&first));
        assert!(second.ends_with(" 2") && second.chars().count() <= 31 && second != first);
    }
}

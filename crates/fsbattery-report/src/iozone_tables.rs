//! iozone's "Excel" output for the text renderers: one table per iozone test, record size down,
//! one column per target, as S3 published it ("Writer report", "Re-writer report", ...), then
//! the same tables of CPU % (iozone `-+u`: "Writer CPU utilization report").
//!
//! Role: regroup the points of every sweep — metrics whose metadata gives dimensions
//! ([`fsbattery_record::MetricMeta::dims`]), such as iozone's tests by record size; the HTML
//! report reads the same metadata — so the terminal table and the Markdown do not list
//! hundreds of `iozone write@8192` rows; [`Matrix::build_main`] drops those rows from the main
//! matrix, and these tables show them instead. No workload is recognised by its name.
//!
//! Invariants: values and row verdicts (`*` winner, `≈` equivalent, `?` undecided) are the main matrix's own ([`Matrix::build`]), so
//! every renderer ranks a point the same way; a table's title is the suite row's label for
//! `<workload>`/`<quantity>`, else iozone's own name for a quantity named like its tests, else
//! the quantity; tests appear in iozone's order, others after them in record order; rows are
//! sorted by the swept dimension; a failed cell shows "failed" and its reason is listed once
//! per workload, target and reason below the tables.

use crate::format;
use crate::matrix::{self, Entry, Matrix, Quantity};
use crate::sweep::point;
use crate::Report;
use fsbattery_record::{CellStatus, RunRecord, BYTES};
use fsbattery_stats::{Aggregate, Mark, RowVerdict};

/// iozone's tests in its own order, with the titles of its Excel tables: the labels of the
/// swept quantities of that name when no suite row names them.
pub const REPORTS: [(&str, &str); 13] = [
    ("write", "Writer report"),
    ("rewrite", "Re-writer report"),
    ("read", "Reader report"),
    ("reread", "Re-Reader report"),
    ("random_read", "Random read report"),
    ("random_write", "Random write report"),
    ("backward_read", "Backward read report"),
    ("record_rewrite", "Record rewrite report"),
    ("stride_read", "Stride read report"),
    ("fwrite", "Fwrite report"),
    ("frewrite", "Re-Fwrite report"),
    ("fread", "Fread report"),
    ("freread", "Re-Fread report"),
];

/// One swept quantity (an iozone test) as a table.
#[derive(Debug, Clone)]
pub struct Table {
    /// Workload that measured it.
    pub workload: String,
    /// Test name, e.g. "write".
    pub test: String,
    /// Unit of the swept dimension ([`BYTES`]: rows show KiB, as iozone's).
    pub dim_unit: String,
    /// Title, e.g. "Writer report" or "Writer CPU utilization report".
    pub title: String,
    /// Unit of the entries ("KB/s" or "%").
    pub unit: String,
    /// Column labels (targets), as the main matrix's.
    pub columns: Vec<String>,
    /// One row per record size, ascending.
    pub rows: Vec<Row>,
}

/// One record size of a [`Table`].
#[derive(Debug, Clone)]
pub struct Row {
    /// Record size in bytes.
    pub record: u64,
    /// One entry per column.
    pub entries: Vec<Entry>,
    /// The row's verdict (values only; CPU rows mark none, as iozone).
    pub verdict: RowVerdict,
}

/// The tables of `quantity` (KB/s or CPU %), in iozone's order; empty without iozone cells.
pub fn tables(report: &Report<'_>, quantity: Quantity) -> Vec<Table> {
    let rec = report.record;
    let m = Matrix::build(report, Quantity::Value);
    let mut out: Vec<Table> = Vec::new();
    for row in &m.rows {
        let Some(p) = point(rec, &row.workload, &row.metric, &row.unit, row.better) else {
            continue;
        };
        let (test, record) = (p.quantity.as_str(), p.at);
        let (entries, best) = match quantity {
            Quantity::Value => (row.entries.clone(), row.verdict.clone()),
            // The CPU matrix keeps timed ("s") rows only, so read the cells themselves.
            Quantity::CpuPct => (
                m.columns
                    .iter()
                    .map(|t| matrix::entry(rec.cell(t, &row.workload, &row.metric), quantity))
                    .collect(),
                RowVerdict::none(m.columns.len()),
            ),
        };
        let at = match out
            .iter()
            .position(|t| t.test == test && t.workload == row.workload)
        {
            Some(i) => i,
            None => {
                out.push(Table {
                    workload: row.workload.clone(),
                    test: test.to_string(),
                    dim_unit: p.unit.clone(),
                    title: title(rec, &row.workload, test, quantity),
                    unit: match quantity {
                        Quantity::Value => row.unit.clone(),
                        Quantity::CpuPct => "%".into(),
                    },
                    columns: m.columns.clone(),
                    rows: Vec::new(),
                });
                out.len() - 1
            }
        };
        out[at].rows.push(Row {
            record,
            entries,
            verdict: best,
        });
    }
    let rank = |t: &Table| {
        REPORTS
            .iter()
            .position(|(n, _)| *n == t.test)
            .unwrap_or(REPORTS.len())
    };
    // Stable: unknown tests keep the order they were recorded in.
    out.sort_by_key(rank);
    for t in &mut out {
        t.rows.sort_by_key(|r| r.record);
    }
    out
}

/// The suite row's label for `workload`/`test`, else iozone's name, else the test name.
fn title(rec: &RunRecord, workload: &str, test: &str, quantity: Quantity) -> String {
    let base = rec
        .plan
        .rows
        .iter()
        .find(|r| r.workload == workload && r.metric == test)
        .map(|r| r.label.clone())
        .or_else(|| {
            REPORTS
                .iter()
                .find(|(n, _)| *n == test)
                .map(|(_, l)| l.to_string())
        })
        .unwrap_or_else(|| test.replace('_', " "));
    match quantity {
        Quantity::Value => base,
        // "Writer report (S3)" → "Writer CPU utilization report (S3)", as iozone names them.
        Quantity::CpuPct => match base.find(" report") {
            Some(i) => format!("{} CPU utilization{}", &base[..i], &base[i..]),
            None => format!("{base} CPU utilization"),
        },
    }
}

/// A row's swept value as the table prints it: sizes in KiB, as iozone's Excel rows.
fn kib(record: u64, unit: &str) -> String {
    if unit != BYTES {
        record.to_string()
    } else if record.is_multiple_of(1024) {
        (record / 1024).to_string()
    } else {
        format!("{:.1}", record as f64 / 1024.0)
    }
}

/// The heading of a table's first column: the unit its rows are printed in.
fn dim_heading(t: &Table) -> &str {
    if t.dim_unit == BYTES {
        "KiB"
    } else {
        &t.dim_unit
    }
}

/// The workloads the tables come from, for the headings ("iozone").
fn workloads(tables: &[Table]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for t in tables {
        if !names.contains(&t.workload.as_str()) {
            names.push(&t.workload);
        }
    }
    names.join(", ")
}

/// What iozone's unit means, when a table is in it.
fn kb_note(tables: &[Table]) -> &'static str {
    if tables.iter().any(|t| t.unit == "KB/s") {
        "KB/s = kBytes/sec (1 KB = 1024 B); "
    } else {
        ""
    }
}

/// One line per (workload, target, reason) of the failed points: a failed workload fails
/// every cell with the same reason, which is worth saying once, not 156 times.
fn failures(rec: &RunRecord) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in &rec.cells {
        let p = point(rec, &c.workload, &c.metric, &c.unit, c.better);
        if let (Some(_), CellStatus::Failed { reason }) = (p, &c.status) {
            let line = format!("failed: {} on {}: {reason}", c.workload, c.target);
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}

/// The iozone tables as plain text (KB/s tables, then CPU % tables), or `None` when the run
/// has no iozone cell.
pub fn render(report: &Report<'_>) -> Option<String> {
    let values = tables(report, Quantity::Value);
    if values.is_empty() {
        return None;
    }
    let rec = report.record;
    let mut out = format!(
        "{} — {} of {} run(s); {}rows: record size in KiB\n{}\n",
        workloads(&values),
        report.aggregate,
        rec.plan.repeat,
        kb_note(&values),
        format::legend()
    );
    for t in &values {
        out.push('\n');
        out.push_str(&text_table(t, report.aggregate));
    }
    for t in &tables(report, Quantity::CpuPct) {
        out.push('\n');
        out.push_str(&text_table(t, report.aggregate));
    }
    for l in failures(rec) {
        out.push_str(&l);
        out.push('\n');
    }
    Some(out)
}

/// One table as aligned text: title line, header, one line per record size.
fn text_table(t: &Table, agg: Aggregate) -> String {
    let mut grid: Vec<Vec<String>> = vec![std::iter::once(dim_heading(t).to_string())
        .chain(t.columns.iter().cloned())
        .collect()];
    // The mark column is kept only where something is marked (not in CPU tables).
    let marks = t
        .rows
        .iter()
        .any(|r| r.verdict.marks.iter().any(|m| *m != Mark::None));
    for r in &t.rows {
        let mut line = vec![kib(r.record, &t.dim_unit)];
        for (i, e) in r.entries.iter().enumerate() {
            let mark = match (marks, r.verdict.mark(i)) {
                (false, _) => "",
                (true, Mark::None) => "  ",
                (true, m) => &format!(" {}", format::mark(m)),
            };
            line.push(format!("{}{mark}", format::entry(e, agg)));
        }
        grid.push(line);
    }
    let width = |c: usize| grid.iter().map(|l| l[c].chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..grid[0].len()).map(width).collect();
    let mut out = format!("{} ({})\n", t.title, t.unit);
    for (n, line) in grid.iter().enumerate() {
        let mut text = String::new();
        for (c, cell) in line.iter().enumerate() {
            // Header labels of value columns sit over the numbers, not over the marks.
            let cell = if n == 0 && c > 0 && marks {
                format!("{cell}  ")
            } else {
                cell.clone()
            };
            let pad = widths[c].max(cell.chars().count());
            text.push_str(&format!("{cell:>pad$}  "));
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

/// The iozone tables as Markdown sections (marks as the main table's), or `None` when
/// the run has no iozone cell.
pub fn markdown(report: &Report<'_>) -> Option<String> {
    let values = tables(report, Quantity::Value);
    if values.is_empty() {
        return None;
    }
    let mut out = format!(
        "## {}\n\n{}rows: record size in KiB. Marks as in the results above.\n",
        workloads(&values),
        kb_note(&values)
    );
    for t in values.iter().chain(tables(report, Quantity::CpuPct).iter()) {
        out.push_str(&format!("\n### {} ({})\n\n", esc(&t.title), t.unit));
        out.push_str(&format!("| {} |", dim_heading(t)));
        for c in &t.columns {
            out.push_str(&format!(" {} |", esc(c)));
        }
        out.push_str(&format!("\n|---:|{}\n", "---:|".repeat(t.columns.len())));
        for r in &t.rows {
            out.push_str(&format!("| {} |", kib(r.record, &t.dim_unit)));
            for (i, e) in r.entries.iter().enumerate() {
                let text = format::entry(e, report.aggregate);
                match r.verdict.mark(i) {
                    Mark::Winner => out.push_str(&format!(" **{text}** \\* |")),
                    Mark::Equivalent => out.push_str(&format!(" {text} ≈ |")),
                    Mark::Undecided => out.push_str(&format!(" {text} ? |")),
                    Mark::None => out.push_str(&format!(" {text} |")),
                }
            }
            out.push('\n');
        }
    }
    let failed = failures(report.record);
    if !failed.is_empty() {
        out.push('\n');
        for l in failed {
            out.push_str(&format!("- {}\n", esc(&l)));
        }
    }
    Some(out)
}

fn esc(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
#[path = "iozone_tables_tests.rs"]
mod tests;

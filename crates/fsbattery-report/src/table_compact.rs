//! The terminal table when the full one does not fit its width one line per row (six targets
//! with their ± CI95 need about 140 columns; a pipe gets 100): the unit moves into the label,
//! values lose their ±, the outer border goes, and the legend shrinks to one line that says
//! where the ± and the legend in words are (`report.html`, `fsbattery report DIR`). The marks
//! stay: they are the verdicts. Also the rows a suite did not ask for ([`unlisted`]): out of
//! `run`'s table (fio's every percentile), one line says where they are.

use crate::matrix::{Entry, Matrix, Row};
use crate::{conditions, format, Report};
use comfy_table::{ColumnConstraint, Table, Width};
use fsbattery_record::RunRecord;
use fsbattery_stats::{Aggregate, Mark, DEFAULT_MARGIN_PCT};

/// Inner column lines and the header's line only (comfy-table's UTF8_NO_BORDERS without its
/// line between rows).
pub const PRESET: &str = "     ═╪ ┆          ";

/// The widest line of a rendered table, in characters.
pub fn widest(table: &str) -> usize {
    table.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// Give the label column what the value columns leave of `width`: comfy-table's dynamic
/// arrangement left it 26 of 100 columns with 14 unused, so most labels took two or three
/// lines.
pub fn widen_labels(t: &mut Table, width: usize) {
    let widths = t.column_max_content_widths();
    // Each column is padded by one space a side; one separator between columns.
    let others: usize = widths.iter().skip(1).map(|w| usize::from(*w) + 2).sum();
    let separators = widths.len().saturating_sub(1);
    let room = width.saturating_sub(others + separators + 1);
    let longest = widths.first().map_or(0, |w| usize::from(*w));
    let label = u16::try_from(room.min(longest)).unwrap_or(u16::MAX);
    if let Some(c) = t.column_mut(0) {
        // No space before the label: one more character for it (38 holds the split rows).
        c.set_padding((0, 1));
        c.set_constraint(ColumnConstraint::Absolute(Width::Fixed(label)));
    }
}

/// The heading of the compact table: what the values are and a one-line legend.
pub fn heading(rec: &RunRecord, agg: Aggregate) -> String {
    let unconverged = match conditions::legend(rec) {
        Some(_) => " · ~ repeats ran out (where not ?)",
        None => "",
    };
    format!(
        "{} — {} of {}; * best · ≈ equivalent within ±{DEFAULT_MARGIN_PCT} % · ? undecided{} · \
         unmarked: worse, or not ranked (± CI95 and the legend in words: report.html, \
         fsbattery report DIR)\n",
        rec.plan.suite,
        agg,
        conditions::runs_and_age(rec),
        unconverged
    )
}

/// The unit most rows of `m` share (said once, in the header).
pub fn common_unit(m: &Matrix) -> String {
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for r in &m.rows {
        *counts.entry(r.unit.as_str()).or_default() += 1;
    }
    let most = counts.into_iter().max_by_key(|(_, n)| *n);
    most.map(|(u, _)| u.to_string()).unwrap_or_default()
}

/// `label` with its `unit` unless it is the `common` one said in the header:
/// "The amount of space … (MiB)", "Touch 2,000 Files".
pub fn label_of(label: &str, unit: &str, common: &str) -> String {
    match unit.is_empty() || unit == common {
        true => label.to_string(),
        false => format!("{label} ({unit})"),
    }
}

/// A cell without its ±: the value and `marks` (what the full table puts after the ±), less
/// the `~` of a cell already marked `?` (undecided says it: two characters a column, which
/// gave the labels eight columns more at 100).
pub fn cell(row: &Row, i: usize, report: &Report<'_>, marks: &str) -> String {
    let e = &row.entries[i];
    let marks = match row.verdict.mark(i) == Mark::Undecided {
        true => marks.replace(&format!(" {}", conditions::UNCONVERGED), ""),
        false => marks.to_string(),
    };
    let value = match e {
        Entry::Measured(s) | Entry::Incomplete(Some(s)) => {
            format::num(s.aggregate(row.aggregate_or(report.aggregate)))
        }
        other => format::entry(other, report.aggregate),
    };
    match e {
        Entry::Incomplete(Some(_)) => format!("{value} (incomplete){marks}"),
        _ => format!("{value}{marks}"),
    }
}

/// Take the rows the suite did not ask for out of `m` (see [`crate::matrix::Row::listed`]);
/// the line that says how many and where they are, `None` when there were none.
pub fn unlisted(m: &mut Matrix) -> Option<String> {
    let mut workloads: Vec<String> = Vec::new();
    let mut n = 0;
    for r in m.rows.iter().filter(|r| !r.listed) {
        n += 1;
        if !workloads.contains(&r.workload) {
            workloads.push(r.workload.clone());
        }
    }
    m.rows.retain(|r| r.listed);
    (n > 0).then(|| {
        format!(
            "{n} more metric(s) of {} beside the suite's rows: in report.html, fsbattery report \
             DIR and with --verbose\n",
            workloads.join(", ")
        )
    })
}

//! The terminal table: the seeds' matrix with the aggregate ± CI95; a row's best is marked `*`
//! only when it is significantly better than every other target, cells shown equivalent to
//! the best `≈`, undecided ones `?` (the verdict is [`crate::matrix::Row::verdict`], shared
//! with every renderer); the output ends with the verdicts in words ([`crate::closing`]).

use crate::matrix::{Entry, Matrix, Quantity};
use crate::{conditions, format};
use crate::{Format, Options, RenderError, Renderer, Report};
use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Attribute, Cell, CellAlignment, ColumnConstraint, Table, Width,
};
use fsbattery_stats::Mark;

/// The terminal table's entry in [`crate::formats::FORMATS`].
pub const FORMAT: Format = Format {
    name: "table",
    about: "The terminal matrix",
    noun: "table",
    run_file: None,
    stdout: true,
    terminal: true,
    renderer: |o: &Options| Box::new(TerminalTable { styled: o.styled }),
};

/// Renders the elapsed/value matrix and the CPU % matrix as terminal tables.
pub struct TerminalTable {
    /// Use colour and bold (only on a terminal).
    pub styled: bool,
}

/// What the terminal output holds beyond the results: [`Detail::FULL`] for `report` and every
/// [`Renderer`] use; `run` shows the CPU % table, the device paragraph, the per-cell repeat
/// notes and the seed comparisons only with `--verbose` (the report files hold them always),
/// and writes one line per cell instead of tables when asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    /// The CPU % table, the per-cell repeat notes, the "Then and now" lists and the device
    /// I/O table and sentences.
    pub verbose: bool,
    /// One line per cell ([`crate::cell_lines`]) instead of the matrix tables.
    pub lines: bool,
    /// Wrap prose lines (legend, notes, the answer) at this many characters
    /// ([`crate::wrap`]); `None` keeps each on one line.
    pub width: Option<usize>,
}

impl Detail {
    /// Everything, as tables, lines unwrapped.
    pub const FULL: Detail = Detail {
        verbose: true,
        lines: false,
        width: None,
    };
}

impl Renderer for TerminalTable {
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError> {
        self.render_with(report, Detail::FULL)
    }
}

impl TerminalTable {
    /// The terminal output with `detail`.
    pub fn render_with(&self, report: &Report<'_>, detail: Detail) -> Result<Vec<u8>, RenderError> {
        let mut out = String::new();
        let rec = report.record;
        let agg = report.aggregate;
        let mut main = Matrix::build_main(report, Quantity::Value);
        let unlisted = match detail.verbose {
            true => None,
            false => crate::table_compact::unlisted(&mut main),
        };
        // Too wide for one line per row at the width (six targets with ± at 100 columns took
        // three lines a row): the compact table, its ± and legend in words left to the report.
        let compact = detail.width.is_some_and(|w| {
            let full = self.table(&main, report, true, None, false);
            crate::table_compact::widest(&full) > w
        });
        if compact {
            out.push_str(&crate::table_compact::heading(rec, agg));
        } else {
            out.push_str(&format!(
                "{} — {} of {} ± CI95\n{}\n",
                rec.plan.suite,
                agg,
                conditions::runs_and_age(rec),
                format::legend()
            ));
            if let Some(l) = conditions::legend(rec) {
                out.push_str(&format!("{l}\n"));
            }
        }
        let iozone = crate::iozone_tables::render(report);
        // An iozone-only run has no other rows: its tables are the whole report.
        if !main.rows.is_empty() || iozone.is_none() {
            out.push_str(&self.matrix(&main, report, true, detail, compact));
            // CPU % belongs to timed rows; a run of rates alone (io500) has none to show.
            let cpu = Matrix::build_main(report, Quantity::CpuPct);
            if detail.verbose && !cpu.rows.is_empty() {
                out.push_str("\nCPU % ((user+sys)/elapsed)\n");
                out.push_str(&self.matrix(&cpu, report, false, detail, false));
            }
        }
        if let Some(note) = unlisted {
            out.push_str(&note);
        }
        if let Some(note) = format::tool_bound_note(&main, rec) {
            out.push_str(&format!("{note}\n"));
        }
        let excluded = crate::reference::excluded(rec, &main.columns, report.rank_reference);
        if let Some(note) = crate::reference::note(&main.columns, &excluded) {
            out.push_str(&format!("{note}\n"));
        }
        if ranked(rec) {
            out.push_str(crate::rank_spread::LEGEND);
            out.push('\n');
        }
        if detail.verbose {
            out.push_str(&self.device_io(rec));
        }
        out.push_str(&failures(&main));
        out.push_str(&skipped(rec));
        let notes = match detail.verbose {
            true => conditions::notes(rec),
            false => conditions::aging_notes(rec),
        };
        for l in notes {
            out.push_str(&format!("{l}\n"));
        }
        for l in crate::cache_notes::lines(rec) {
            out.push_str(&l);
            out.push('\n');
        }
        for l in crate::io500::notes(rec) {
            out.push_str(&l);
            out.push('\n');
        }
        if detail.verbose {
            out.push_str(&then_and_now(rec));
            out.push_str(&self.seed_numbers(crate::then_now::for_report(report).as_ref()));
        }
        if let Some(t) = iozone {
            out.push('\n');
            out.push_str(&t);
        }
        // The answer comes last, where the reader's eye ends (as hyperfine's closing lines):
        // each ranked row's verdict in words, then the composite ranking and the count.
        // Each row's verdict in words is indented four under its workload's count: with
        // `--verbose` (and in `report`, report.html); the counts and the answer always.
        let mut verdicts: Vec<String> = crate::closing::lines(&main)
            .into_iter()
            .filter(|l| detail.verbose || !l.starts_with("    "))
            .collect();
        verdicts.extend(crate::answer::lines(&crate::answer::for_report(report)));
        verdicts.extend(crate::then_now_closing::lines(report));
        if !verdicts.is_empty() {
            out.push('\n');
            for l in verdicts {
                out.push_str(&l);
                out.push('\n');
            }
        }
        if let Some(width) = detail.width {
            out = crate::wrap::wrap_text(&out, width);
        }
        Ok(out.into_bytes())
    }

    /// The seed's numbers beside this run's ([`crate::then_now`]): per published table its
    /// τ line, a table of value and rank then -> now per filesystem, the flips and notes.
    pub fn seed_numbers(&self, tn: Option<&fsbattery_record::then_now::ThenAndNow>) -> String {
        use crate::then_now_out as o;
        let Some(tn) = tn else {
            return String::new();
        };
        let mut out = format!("\nThen and now. {}.\n", o::legend(tn));
        if let Some(n) = &tn.scale_note {
            out.push_str(&format!("Note: {n}.\n"));
        }
        for table in &tn.tables {
            let mut t = self.new_table(None, false);
            let mut header = vec![Cell::new("test")];
            header.extend(table.columns.iter().map(|c| Cell::new(&c.target)));
            t.set_header(header);
            for r in &table.rows {
                let mut cells = vec![Cell::new(o::row_name(r))];
                cells.extend(r.cells.iter().map(|c| Cell::new(o::cell(c))));
                t.add_row(cells);
            }
            out.push_str(&format!("\n{}\n{t}\n", o::table_line(table)));
            for l in table.flips.iter().chain(&o::row_notes(table)) {
                out.push_str(&format!("  {l}\n"));
            }
        }
        out
    }

    /// The device I/O table and one sentence per target (nothing without block devices).
    fn device_io(&self, rec: &fsbattery_record::RunRecord) -> String {
        let Some(io) = crate::device_io::build(rec) else {
            return String::new();
        };
        let mut t = self.new_table(None, false);
        let mut header = vec![Cell::new("device writes")];
        header.extend(io.columns.iter().map(Cell::new));
        t.set_header(header);
        for (workload, entries) in &io.rows {
            let mut cells = vec![Cell::new(workload)];
            cells.extend(entries.iter().map(|e| {
                let text = e.map(|e| e.short()).unwrap_or_else(|| "n/a".into());
                Cell::new(text).set_alignment(CellAlignment::Right)
            }));
            t.add_row(cells);
        }
        let mut out = format!(
            "
{}
{t}
",
            crate::device_io::IoTable::legend()
        );
        for s in io.sentences() {
            out.push_str(&s);
            out.push('\n');
        }
        out
    }

    /// A table fitted to `width`, else to `COLUMNS` or the terminal ([`crate::term_width`]).
    fn new_table(&self, width: Option<usize>, compact: bool) -> Table {
        let mut t = Table::new();
        t.load_preset(match compact {
            true => crate::table_compact::PRESET,
            false => UTF8_FULL_CONDENSED,
        });
        if !self.styled {
            t.force_no_tty();
        } else {
            t.enforce_styling();
        }
        match width {
            Some(w) => crate::term_width::apply_width(
                &mut t,
                self.styled,
                Some(u16::try_from(w).unwrap_or(u16::MAX)),
            ),
            None => crate::term_width::apply(&mut t, self.styled),
        }
        t
    }

    /// `m` as a table, or as one line per cell under `detail.lines`.
    fn matrix(
        &self,
        m: &Matrix,
        report: &Report<'_>,
        with_unit: bool,
        detail: Detail,
        compact: bool,
    ) -> String {
        if detail.lines {
            return crate::cell_lines::render(m, with_unit, |r, i| {
                cell_text(m, r, i, report, with_unit)
            });
        }
        self.table(m, report, with_unit, detail.width, compact)
    }

    /// `m` as a table; `compact`: the unit in the label, values without ±, no outer border.
    fn table(
        &self,
        m: &Matrix,
        report: &Report<'_>,
        with_unit: bool,
        width: Option<usize>,
        compact: bool,
    ) -> String {
        let mut t = self.new_table(width, compact);
        let unit = crate::table_compact::common_unit(m);
        let mut header = match compact && with_unit {
            true => vec![Cell::new(crate::table_compact::label_of("test", &unit, ""))],
            false => vec![Cell::new("test")],
        };
        if with_unit && !compact {
            header.push(Cell::new("unit"));
        }
        header.extend(m.columns.iter().map(Cell::new));
        t.set_header(header);
        // Fitted to a width, the labels keep at least 28 columns: squeezed to the width of
        // the numbers, one label took eleven lines a row.
        if width.is_some() {
            let longest = m.rows.iter().map(|r| r.label.chars().count()).max();
            let keep = longest.unwrap_or(0).min(28) as u16;
            if let Some(c) = t.column_mut(0) {
                c.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(keep)));
            }
        }
        for row in &m.rows {
            let mut cells = match compact && with_unit {
                true => vec![Cell::new(crate::table_compact::label_of(
                    &row.label, &row.unit, &unit,
                ))],
                false => vec![Cell::new(&row.label)],
            };
            if with_unit && !compact {
                cells.push(Cell::new(&row.unit));
            }
            for i in 0..row.entries.len() {
                let (value, marks) = cell_text(m, row, i, report, with_unit);
                let text = match compact {
                    true => crate::table_compact::cell(row, i, report, &marks),
                    false => format!("{value}{marks}"),
                };
                let mark = row.verdict.mark(i);
                let mut c = Cell::new(text).set_alignment(CellAlignment::Right);
                if mark == Mark::Winner && self.styled {
                    c = c.add_attribute(Attribute::Bold);
                }
                cells.push(c);
            }
            t.add_row(cells);
        }
        if let (true, Some(w)) = (compact, width) {
            crate::table_compact::widen_labels(&mut t, w);
        }
        format!("{t}\n")
    }
}

/// The rows whose label differs from the seed's wording, this run's label first (nothing when
/// there are none).
pub fn then_and_now(rec: &fsbattery_record::RunRecord) -> String {
    let pairs = crate::seed_notes::pairs(rec);
    if pairs.is_empty() {
        return String::new();
    }
    let width = pairs
        .iter()
        .map(|p| p.now.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "\n{}. {}:\n",
        crate::seed_notes::TITLE,
        crate::seed_notes::legend(rec)
    );
    for p in pairs {
        let pad = width - p.now.chars().count();
        out.push_str(&format!(
            "  {}{}  seed: {}\n",
            p.now,
            " ".repeat(pad),
            p.then
        ));
    }
    out
}

/// Whether any cell has per-rank parts (an MPI run).
fn ranked(rec: &fsbattery_record::RunRecord) -> bool {
    rec.cells
        .iter()
        .any(|c| c.samples.iter().any(|s| !s.ranks.is_empty()))
}

/// One line per default target the run left out ("skipped: loop:xfs: why; fix: ..."): a
/// column that is missing says why, as a failed cell does.
pub fn skipped(rec: &fsbattery_record::RunRecord) -> String {
    rec.plan
        .skipped_targets
        .iter()
        .map(|s| match &s.fix {
            Some(fix) => format!("skipped: {}: {}; fix: {fix}\n", s.spec, s.reason),
            None => format!("skipped: {}: {}\n", s.spec, s.reason),
        })
        .collect()
}

/// One line per failed cell and per pending row, so a reason is never hidden behind a word.
pub fn failures(m: &Matrix) -> String {
    let mut out = String::new();
    for row in &m.rows {
        for (i, e) in row.entries.iter().enumerate() {
            if let Entry::Failed(reason) = e {
                out.push_str(&format!(
                    "failed: {} on {}: {reason}\n",
                    row.label, m.columns[i]
                ));
            }
        }
        // A pending row is the same on every column: say it once.
        if let Some(Entry::Pending(reason)) = row.entries.first() {
            out.push_str(&format!("pending: {}: {reason}\n", row.label));
        }
    }
    out
}

/// Cell `i` of `row` as the terminal shows it: the value (aggregate ± CI95) and what follows
/// it (tool-bound, the verdict's mark, `~` unconverged, the cache mark, the ranks' spread).
fn cell_text(
    m: &Matrix,
    row: &crate::matrix::Row,
    i: usize,
    report: &Report<'_>,
    with_unit: bool,
) -> (String, String) {
    let value = format::entry(&row.entries[i], row.aggregate_or(report.aggregate));
    let mut text = String::new();
    if row.tool_bound[i] {
        text.push_str(" (tool-bound)");
    }
    let mark = row.verdict.mark(i);
    if mark != Mark::None {
        text.push(' ');
        text.push_str(format::mark(mark));
    }
    // The precision was judged on the values, not on CPU %.
    let values = m.quantity == crate::matrix::Quantity::Value;
    if values && conditions::unconverged(report.record, &m.columns[i], &row.workload) {
        text.push(' ');
        text.push_str(conditions::UNCONVERGED);
    }
    let cell = report
        .record
        .cell(&m.columns[i], &row.workload, &row.metric);
    if with_unit && crate::cache_notes::flagged(report.record, cell) {
        text.push_str(crate::cache_notes::MARK);
    }
    // Under MPI: the ranks' own values beside the aggregate.
    if let Some(spread) = cell.filter(|_| values).and_then(crate::rank_spread::of) {
        text.push(' ');
        text.push_str(&spread.short());
    }
    (value, text)
}

//! Markdown: the matrix with a significant winner of each row in bold and `*`, cells shown
//! equivalent to the best `≈`, undecided ones `?` (the shared [`crate::matrix::Row::verdict`]),
//! the verdicts in words, the CPU % matrix (shown, never ranked), and the environment the
//! numbers came from.

use crate::matrix::{Matrix, Quantity};
use crate::{conditions, format};
use crate::{Format, Options, RenderError, Renderer, Report};
use fsbattery_stats::Mark;

/// The Markdown format's entry in [`crate::formats::FORMATS`].
pub const FORMAT: Format = Format {
    name: "markdown",
    about: "Markdown with the best value of each row in bold",
    noun: "markdown",
    run_file: Some("results.md"),
    stdout: true,
    terminal: false,
    renderer: |_: &Options| Box::new(Markdown),
};

/// Renders a run as a Markdown document.
pub struct Markdown;

impl Renderer for Markdown {
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError> {
        let rec = report.record;
        let mut out = format!("# fsbattery: {}\n\n", rec.plan.suite);
        out.push_str(&format!(
            "{} of {} ± CI95 half width; scale {}, method {}.\n\n{}; a significant winner is also in **bold**.\n\n",
            report.aggregate,
            conditions::runs_and_age(rec),
            rec.plan.scale,
            rec.plan.method,
            escape(&format::legend()).replace('*', "\\*")
        ));
        if let Some(l) = conditions::legend(rec) {
            out.push_str(&format!("{}.\n\n", escape(&l)));
        }
        let main = Matrix::build_main(report, Quantity::Value);
        let iozone = crate::iozone_tables::markdown(report);
        // An iozone-only run has no other rows: its tables are the whole report.
        if !main.rows.is_empty() || iozone.is_none() {
            out.push_str("## Results\n\n");
            out.push_str(&table(&main, report, true));
            let cpu = Matrix::build_main(report, Quantity::CpuPct);
            if !cpu.rows.is_empty() {
                out.push_str("\n## CPU utilisation (%)\n\n");
                out.push_str(&table(&cpu, report, false));
            }
        }
        if let Some(note) = format::tool_bound_note(&main, rec) {
            out.push_str(&format!("\n{}\n", escape(&note)));
        }
        let excluded = crate::reference::excluded(rec, &main.columns, report.rank_reference);
        if let Some(note) = crate::reference::note(&main.columns, &excluded) {
            out.push_str(&format!("\n{}\n", escape(&note)));
        }
        let verdicts = crate::closing::lines(&main);
        if let Some((head, rest)) = verdicts.split_first() {
            out.push_str(&format!("\n## Verdicts\n\n{}\n\n", escape(head)));
            for l in rest {
                // Workload lines are bullets, row lines nested under them.
                let depth = if l.starts_with("    ") { "  - " } else { "- " };
                out.push_str(&format!("{depth}{}\n", escape(l.trim_start())));
            }
        }
        let mut overall = crate::answer::lines(&crate::answer::for_report(report));
        overall.extend(crate::then_now_closing::lines(report));
        if !overall.is_empty() {
            out.push('\n');
            for l in overall {
                out.push_str(&format!("{}\n\n", escape(l.trim_start())));
            }
        }
        out.push_str(&device_io(rec));
        let failed = crate::table::failures(&main);
        let skipped = crate::table::skipped(rec);
        let lines = |t: &str| t.lines().map(String::from).collect::<Vec<_>>();
        bullets(&mut out, "Failed and pending", &lines(&failed));
        bullets(&mut out, "Repeats and aging", &conditions::notes(rec));
        bullets(&mut out, "Skipped targets", &lines(&skipped));
        bullets(&mut out, "Cache state", &crate::cache_notes::lines(rec));
        out.push_str(&then_and_now(rec));
        out.push_str(&crate::then_now_out::markdown(
            crate::then_now::for_report(report).as_ref(),
            escape,
        ));
        if let Some(t) = iozone {
            if !out.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str(&t);
        }
        out.push_str("\n## Environment\n\n");
        let h = &rec.host;
        out.push_str(&format!(
            "- host: {} — {} ({} cores, {:.1} GiB RAM)\n- kernel: {}\n- os: {}\n- started: {}, finished: {}\n",
            escape(&h.hostname), escape(&h.cpu_model), h.cores, h.ram_bytes as f64 / (1u64 << 30) as f64,
            escape(&h.kernel), escape(&h.os), rec.started, rec.finished.as_deref().unwrap_or("(interrupted)")
        ));
        if let Some(line) = rec.parts_line() {
            out.push_str(&format!("- {}\n", escape(&line)));
        }
        for t in &rec.targets {
            out.push_str(&format!(
                "- target **{}** `{}`: {} on {} ({}) at `{}`\n",
                escape(&t.label),
                t.spec,
                t.fs_type,
                escape(&t.device),
                escape(&t.mount_options),
                t.path
            ));
        }
        Ok(out.into_bytes())
    }
}

/// The seed's wording beside this run's labels, as a two-column table (nothing when no label
/// differs from its seed's).
fn then_and_now(rec: &fsbattery_record::RunRecord) -> String {
    let pairs = crate::seed_notes::pairs(rec);
    if pairs.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n## {}\n\n{}.\n\n| this run | the seed |\n|---|---|\n",
        crate::seed_notes::TITLE,
        escape(&crate::seed_notes::legend(rec))
    );
    for p in pairs {
        out.push_str(&format!("| {} | {} |\n", escape(&p.now), escape(&p.then)));
    }
    out
}

/// A `## title` section of escaped bullet lines; nothing when there are none.
fn bullets(out: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    out.push_str(&format!("\n## {title}\n\n"));
    for l in lines {
        out.push_str(&format!("- {}\n", escape(l)));
    }
}

fn table(m: &Matrix, report: &Report<'_>, with_unit: bool) -> String {
    let mut out = String::from("| test |");
    if with_unit {
        out.push_str(" unit |");
    }
    for c in &m.columns {
        out.push_str(&format!(" {} |", escape(c)));
    }
    out.push_str("\n|---|");
    if with_unit {
        out.push_str("---|");
    }
    out.push_str(&"---:|".repeat(m.columns.len()));
    out.push('\n');
    for row in &m.rows {
        out.push_str(&format!("| {} |", escape(&row.label)));
        if with_unit {
            out.push_str(&format!(" {} |", row.unit));
        }
        for (i, e) in row.entries.iter().enumerate() {
            let mut text = format::entry(e, row.aggregate_or(report.aggregate));
            if row.tool_bound[i] {
                text.push_str(" (tool-bound)");
            }
            let values = m.quantity == Quantity::Value;
            if values && conditions::unconverged(report.record, &m.columns[i], &row.workload) {
                text = format!("{text} {}", conditions::UNCONVERGED);
            }
            match row.verdict.mark(i) {
                Mark::Winner => out.push_str(&format!(" **{text}** \\* |")),
                Mark::Equivalent => out.push_str(&format!(" {text} ≈ |")),
                Mark::Undecided => out.push_str(&format!(" {text} ? |")),
                Mark::None => out.push_str(&format!(" {text} |")),
            }
        }
        out.push('\n');
    }
    out
}

/// The device I/O table and one sentence per target (nothing without block devices).
fn device_io(rec: &fsbattery_record::RunRecord) -> String {
    let Some(io) = crate::device_io::build(rec) else {
        return String::new();
    };
    let mut out = format!(
        "\n## Device I/O\n\n{}\n\n| workload |",
        crate::device_io::IoTable::legend()
    );
    for c in &io.columns {
        out.push_str(&format!(" {} |", escape(c)));
    }
    out.push_str(&format!("\n|---|{}\n", "---:|".repeat(io.columns.len())));
    for (workload, entries) in &io.rows {
        out.push_str(&format!("| {} |", escape(workload)));
        for e in entries {
            let text = e.map(|e| e.short()).unwrap_or_else(|| "n/a".into());
            out.push_str(&format!(" {text} |"));
        }
        out.push('\n');
    }
    out.push('\n');
    for s in io.sentences() {
        out.push_str(&format!("- {}\n", escape(&s)));
    }
    out
}

/// Escape characters that would break a Markdown table cell.
fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

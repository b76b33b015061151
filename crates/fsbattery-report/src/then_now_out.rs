//! Then and now as text: the terminal's tables and the Markdown section.
//!
//! Role: lays out [`crate::then_now`]'s numbers; decides nothing. Per published table: which
//! target stands beside which of the seed's columns, Kendall's τ-b and p, then per row each
//! filesystem's value and rank then → now and the ratio now/then (for information: twenty
//! years of hardware apart, only the ranks are compared), the rows at another scale marked,
//! and the rank flips one sentence each.

use crate::format::num;
use fsbattery_record::then_now::{CellThenNow, RowThenNow, TableThenNow, ThenAndNow};

/// The sentence under the heading.
pub fn legend(t: &ThenAndNow) -> String {
    format!(
        "{} ({}, \"{}\") beside this run: each filesystem's value and rank then -> now (1 = best, \
         among the filesystems both measured); now/then is for information only, the ranks are \
         what is compared",
        t.study, t.year, t.title
    )
}

/// "ext2 = EXT2, xfs = XFS; Kendall's tau-b 0.41, p 0.003 over 63 pairs".
pub fn table_line(t: &TableThenNow) -> String {
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| format!("{} = {}", c.target, c.column))
        .collect();
    let tau = match (t.tau, t.p) {
        (Some(tau), Some(p)) => format!(
            "Kendall's tau-b {tau:.2}, p {} over {} pairs within rows",
            pval(p),
            t.pairs
        ),
        (Some(tau), None) => format!("Kendall's tau-b {tau:.2} over {} pairs", t.pairs),
        _ => "Kendall's tau-b: too few ranked pairs".to_string(),
    };
    let ambiguous = t.rows.iter().filter(|r| r.ambiguous).count();
    let left_out = match ambiguous {
        0 => String::new(),
        n => format!(
            " ({n} row{} whose split the seed's text does not pin down left out, marked{AMBIGUOUS})",
            if n == 1 { "" } else { "s" }
        ),
    };
    format!("{}: {}; {tau}{left_out}", t.title, cols.join(", "))
}

fn pval(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// One cell: "48.25 #2 -> 0.171 #1 (x0.0035)".
pub fn cell(c: &CellThenNow) -> String {
    let rank = |r: Option<u32>| r.map(|r| format!(" #{r}")).unwrap_or_default();
    let now = c.now.map(num).unwrap_or_else(|| "-".into());
    let ratio = c
        .ratio
        .map(|r| format!(" (x{})", num(r)))
        .unwrap_or_default();
    format!(
        "{}{} -> {now}{}{ratio}",
        c.then_text,
        rank(c.rank_then),
        rank(c.rank_now)
    )
}

/// Marks a row measured at another scale than the seed's.
pub const OTHER_SCALE: &str = " †";

/// Marks a row whose split the seed's text does not pin down: not in τ, no flip.
pub const AMBIGUOUS: &str = " ?";

/// The row's name: the run's label, the seed's wording when it differs, the unit,
/// [`OTHER_SCALE`] when its sizes are not the seed's and [`AMBIGUOUS`] when its split is not
/// pinned down.
pub fn row_name(r: &RowThenNow) -> String {
    let scale = if r.other_scale.is_some() {
        OTHER_SCALE
    } else {
        ""
    };
    let split = if r.ambiguous { AMBIGUOUS } else { "" };
    let mark = format!("{scale}{split}");
    if r.label == r.seed {
        format!("{} [{}]{mark}", r.label, r.unit)
    } else {
        format!("{} [{}] (seed: {}){mark}", r.label, r.unit, r.seed)
    }
}

/// The notes under a table: what the marks mean (when a row has one), rows at another
/// scale whose own label does not show it, and how the transcription read a seed row.
pub fn row_notes(t: &TableThenNow) -> Vec<String> {
    let mut out = Vec::new();
    if t.rows.iter().any(|r| r.other_scale.is_some()) {
        out.push(format!(
            "{}: measured at another scale than the seed's (its label names this run's sizes)",
            OTHER_SCALE.trim()
        ));
    }
    if t.rows.iter().any(|r| r.ambiguous) {
        out.push(format!(
            "{}: the seed ran the row's cells together and its text does not pin down how they \
             split; shown, but its ranks are in neither Kendall's tau nor the flips",
            AMBIGUOUS.trim()
        ));
    }
    for r in &t.rows {
        if let Some(s) = r
            .other_scale
            .as_ref()
            .filter(|s| !s.starts_with("measured as"))
        {
            out.push(format!("{}: {s}", r.seed));
        }
        if let Some(n) = &r.note {
            out.push(format!("{}: seed value {n}", r.seed));
        }
    }
    out
}

/// The Markdown section (nothing without then-and-now).
pub fn markdown(t: Option<&ThenAndNow>, escape: fn(&str) -> String) -> String {
    let Some(t) = t else {
        return String::new();
    };
    let mut out = format!(
        "\n## Then and now: the seed's numbers\n\n{}.\n",
        escape(&legend(t))
    );
    if let Some(n) = &t.scale_note {
        out.push_str(&format!("\n{}.\n", escape(n)));
    }
    for table in &t.tables {
        out.push_str(&format!("\n### {}\n\n", escape(&table_line(table))));
        out.push_str("| test |");
        for c in &table.columns {
            out.push_str(&format!(" {} |", escape(&c.target)));
        }
        out.push_str("\n|---|");
        out.push_str(&"--:|".repeat(table.columns.len()));
        out.push('\n');
        for r in &table.rows {
            out.push_str(&format!("| {} |", escape(&row_name(r))));
            for c in &r.cells {
                out.push_str(&format!(" {} |", escape(&cell(c))));
            }
            out.push('\n');
        }
        let mut notes = table.flips.clone();
        notes.extend(row_notes(table));
        if !notes.is_empty() {
            out.push('\n');
        }
        for l in notes {
            out.push_str(&format!("- {}\n", escape(&l)));
        }
    }
    out
}

//! A seed's published tables on their own (`fsbattery report --then SUITE`).
//!
//! Role: shows [`fsbattery_record::published`] data as the seed printed it, with each
//! filesystem's rank per row (1 = best by the row's direction; ties share the lower rank),
//! and where it comes from: the study, its machine and repeat policy, each table's source.

use fsbattery_record::published::{PubRow, PubTable, Published};
use fsbattery_stats::Better;

/// Ranks of a row's columns among those with a value (">99999" counts as 99999: tied).
pub fn row_ranks(t: &PubTable, r: &PubRow) -> Vec<Option<u32>> {
    let v: Vec<Option<f64>> = (0..t.columns.len())
        .map(|i| r.number(i).map(|x| x.value))
        .collect();
    let key = |x: f64| if r.better(t) == Better::Lower { x } else { -x };
    v.iter()
        .map(|x| {
            let x = (*x)?;
            Some(v.iter().flatten().filter(|&&w| key(w) < key(x)).count() as u32 + 1)
        })
        .collect()
}

/// Who published, on which machine, with which repeats: one line each.
pub fn header(p: &Published) -> String {
    let m = &p.machine;
    format!(
        "{} ({}, {}): \"{}\", seed {}\nmachine: CPU {}; RAM {}; disk {}; kernel {}; {}\ntools: {}\nrepeats: {}\n",
        p.study,
        p.year,
        p.author,
        p.title,
        p.seed,
        m.cpu,
        m.ram,
        m.disk,
        m.kernel,
        m.os,
        m.tools.join("; "),
        p.repeat
    )
}

/// The table's unit, or where to find it when its rows have their own.
pub fn unit(t: &PubTable) -> &str {
    if t.rows.iter().any(|r| r.unit.is_some()) {
        "units in the row labels"
    } else {
        &t.unit
    }
}

fn cell(v: &str, rank: Option<u32>) -> String {
    rank.map_or_else(|| v.to_string(), |r| format!("{v} #{r}"))
}

/// Plain text: a header, then per table its source and aligned columns.
pub fn text(p: &Published) -> String {
    let mut out = header(p);
    for t in &p.tables {
        out.push_str(&format!(
            "\n{} [{}]\n  from {}\n",
            t.title, t.unit, t.source
        ));
        if let Some(n) = &t.note {
            out.push_str(&format!("  note: {n}\n"));
        }
        let mut grid: Vec<Vec<String>> = vec![std::iter::once("test".to_string())
            .chain(t.columns.iter().cloned())
            .collect()];
        for r in &t.rows {
            let ranks = row_ranks(t, r);
            let mut line = vec![r.label.clone()];
            line.extend((0..t.columns.len()).map(|i| cell(&r.values[i], ranks[i])));
            grid.push(line);
        }
        let widths: Vec<usize> = (0..grid[0].len())
            .map(|c| grid.iter().map(|l| l[c].chars().count()).max().unwrap_or(0))
            .collect();
        for line in &grid {
            let cells: Vec<String> = line
                .iter()
                .enumerate()
                .map(|(c, s)| format!("{s:<w$}", w = widths[c]))
                .collect();
            out.push_str(&format!("  {}\n", cells.join("  ").trim_end()));
        }
        for r in t.rows.iter().filter(|r| r.note.is_some()) {
            out.push_str(&format!(
                "  {}: {}\n",
                r.label,
                r.note.as_deref().unwrap_or("")
            ));
        }
    }
    out
}

/// Markdown: the same, one table per published table.
pub fn markdown(p: &Published) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = format!("# {}\n\n", esc(&header(p).replace('\n', "  \n")));
    for t in &p.tables {
        out.push_str(&format!(
            "## {} [{}]\n\nFrom {}.{}\n\n| test | {} |\n|---|{}\n",
            esc(&t.title),
            esc(unit(t)),
            esc(&t.source),
            t.note
                .as_deref()
                .map(|n| format!(" {}.", esc(n)))
                .unwrap_or_default(),
            t.columns
                .iter()
                .map(|c| esc(c))
                .collect::<Vec<_>>()
                .join(" | "),
            "--:|".repeat(t.columns.len())
        ));
        for r in &t.rows {
            let ranks = row_ranks(t, r);
            let cells: Vec<String> = (0..t.columns.len())
                .map(|i| esc(&cell(&r.values[i], ranks[i])))
                .collect();
            out.push_str(&format!("| {} | {} |\n", esc(&r.label), cells.join(" | ")));
        }
        out.push('\n');
    }
    out
}

//! Renderers of comparisons, one per `compare --format`: terminal table, Markdown, CSV and JSON.
//! Pure: reports in, bytes out.
//!
//! Every format shows the same facts: each NEW run's differences from BASE, the compared rows,
//! and the rows only one run holds (a titled section in the table and Markdown, the `presence`
//! column in CSV and field in JSON). A row touched by a difference is marked "≠" in every
//! format (`differs`). CSV columns are the fields of [`CompareRow`], derived by serialising it.

use crate::compare::{CompareReport, CompareRow, Presence};
use crate::format::num;
use crate::RenderError;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell as TCell, CellAlignment, Table};
use fsbattery_stats::Verdict;

const HEADER: [&str; 7] = [
    "test",
    "target",
    "base mean",
    "new mean",
    "ratio",
    "change",
    "verdict",
];

/// The sections of one report: compared rows, then rows only in BASE, then only in NEW.
fn sections(r: &CompareReport) -> [(Option<&'static str>, Vec<&CompareRow>); 3] {
    let with = |p: Presence| r.rows.iter().filter(move |x| x.presence == p).collect();
    [
        (None, with(Presence::Both)),
        (
            Some("only in BASE (not compared)"),
            with(Presence::BaseOnly),
        ),
        (Some("only in NEW (not compared)"), with(Presence::NewOnly)),
    ]
}

fn verdict_text(r: &CompareRow) -> String {
    let mut s = match (&r.note, r.verdict, r.p_value) {
        (Some(n), _, _) => n.clone(),
        (None, Some(v @ (Verdict::Better | Verdict::Worse)), Some(p)) => format!("{v} (p={p:.3})"),
        (None, Some(v), _) => v.to_string(),
        (None, None, _) => "-".into(),
    };
    if !r.differs.is_empty() {
        s.push_str(&format!(" ≠ {} differ", r.differs.join(", ")));
    }
    s
}

fn cells(r: &CompareRow) -> [String; 7] {
    let opt = |v: Option<f64>| v.map(num).unwrap_or_else(|| "-".into());
    [
        r.label.clone(),
        r.target.clone(),
        opt(r.base_mean),
        opt(r.new_mean),
        r.ratio
            .map(|x| format!("{x:.3}"))
            .unwrap_or_else(|| "-".into()),
        r.change_pct
            .map(|x| format!("{x:+.1}%"))
            .unwrap_or_else(|| "-".into()),
        verdict_text(r),
    ]
}

fn differences_line(r: &CompareReport) -> Option<String> {
    if r.differences.is_empty() {
        return None;
    }
    let d: Vec<String> = r.differences.iter().map(ToString::to_string).collect();
    Some(format!(
        "≠ the runs differ (rows marked ≠ are not gated): {}",
        d.join("; ")
    ))
}

/// Terminal tables, one per NEW run.
pub fn terminal(reports: &[CompareReport]) -> Vec<u8> {
    let mut out = String::new();
    for r in reports {
        out.push_str(&format!("{} → {}\n", r.base, r.new));
        if let Some(d) = differences_line(r) {
            out.push_str(&format!("{d}\n"));
        }
        for (title, rows) in sections(r) {
            match title {
                Some(_) if rows.is_empty() => continue,
                Some(t) => out.push_str(&format!("{t}:\n")),
                None => {}
            }
            let mut t = Table::new();
            t.load_preset(UTF8_FULL_CONDENSED)
                .force_no_tty()
                .set_header(HEADER);
            for row in rows {
                t.add_row(cells(row).into_iter().enumerate().map(|(i, s)| {
                    let c = TCell::new(s);
                    if (2..6).contains(&i) {
                        c.set_alignment(CellAlignment::Right)
                    } else {
                        c
                    }
                }));
            }
            out.push_str(&format!("{t}\n"));
        }
    }
    out.into_bytes()
}

/// Markdown: a heading per NEW run, its differences as a list, then the tables.
pub fn markdown(reports: &[CompareReport]) -> Vec<u8> {
    let mut out = String::new();
    for r in reports {
        out.push_str(&format!("### {} → {}\n\n", r.base, r.new));
        if let Some(d) = differences_line(r) {
            out.push_str(&format!("{d}\n\n"));
        }
        for (title, rows) in sections(r) {
            match title {
                Some(_) if rows.is_empty() => continue,
                Some(t) => out.push_str(&format!("**{t}**\n\n")),
                None => {}
            }
            out.push_str(&format!(
                "| {} |\n|---|---|---:|---:|---:|---:|---|\n",
                HEADER.join(" | ")
            ));
            for row in rows {
                let c = cells(row).map(|s| s.replace('|', "\\|"));
                out.push_str(&format!("| {} |\n", c.join(" | ")));
            }
            out.push('\n');
        }
    }
    out.into_bytes()
}

/// CSV: one line per row of every report, led by the `base` and `new` run names; the other
/// columns are [`CompareRow`]'s fields (lists joined with "; ", absent values empty).
pub fn csv(reports: &[CompareReport]) -> Result<Vec<u8>, RenderError> {
    let err = |e: &dyn std::fmt::Display| RenderError(e.to_string());
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header_written = false;
    for r in reports {
        for row in &r.rows {
            let mut map = serde_json::Map::new();
            map.insert("base".into(), r.base.clone().into());
            map.insert("new".into(), r.new.clone().into());
            match serde_json::to_value(row).map_err(|e| err(&e))? {
                serde_json::Value::Object(m) => map.extend(m),
                _ => unreachable!("a struct serialises to an object"),
            }
            if !header_written {
                w.write_record(map.keys()).map_err(|e| err(&e))?;
                header_written = true;
            }
            w.write_record(map.values().map(field))
                .map_err(|e| err(&e))?;
        }
    }
    w.into_inner().map_err(|e| err(&e))
}

fn field(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) => a.iter().map(field).collect::<Vec<_>>().join("; "),
        other => other.to_string(),
    }
}

/// JSON: the array of reports (differences and rows, non-finite numbers as null).
pub fn json(reports: &[CompareReport]) -> Result<Vec<u8>, RenderError> {
    let mut v = serde_json::to_vec_pretty(reports).map_err(|e| RenderError(e.to_string()))?;
    v.push(b'\n');
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::tests::record;
    use fsbattery_record::Cell;

    /// BASE holds ext4 and xfs, NEW only ext4 with another scale, 20% slower.
    fn report() -> CompareReport {
        let mut base = record(&[1.00, 1.01, 0.99, 1.02, 0.98]);
        let mut xfs: Cell = base.cells[0].clone();
        xfs.target = "xfs".into();
        base.cells.push(xfs);
        let mut new = record(&[1.20, 1.21, 1.19, 1.22, 1.18]);
        new.plan.scale = "standard".into();
        CompareReport::new("base", &base, "new", &new, 0.05)
    }

    #[test]
    fn every_format_lists_base_only_rows_and_marks_differing_ones() {
        let r = [report()];
        assert_eq!(r[0].rows.len(), 2);
        assert_eq!(r[0].rows[1].presence, Presence::BaseOnly);
        assert!(
            !r[0].rows[0].regressed(10.0),
            "a row measured differently never trips the gate"
        );
        let text = String::from_utf8(terminal(&r)).unwrap();
        let md = String::from_utf8(markdown(&r)).unwrap();
        for out in [&text, &md] {
            assert!(out.contains("only in BASE"), "{out}");
            assert!(out.contains("≠ scale differ"), "{out}");
            assert!(out.contains("scale: quick vs standard"), "{out}");
        }
        let csv = String::from_utf8(csv(&r).unwrap()).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(&header[..3], ["base", "new", "label"]);
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows[0][col("differs")], "scale");
        assert_eq!(rows[1][col("presence")], "base_only");
        let j: serde_json::Value = serde_json::from_slice(&json(&r).unwrap()).unwrap();
        assert_eq!(j[0]["rows"][1]["presence"], "base_only");
        assert_eq!(j[0]["differences"][0]["what"], "scale");
        assert_eq!(j[0]["differences"][0]["scope"], "run");
    }
}

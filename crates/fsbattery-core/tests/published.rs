//! The published numbers are the seeds' (issue 25 §1): every value of every
//! `suites/published/*.toml` is checked against its own row of the seed text it transcribes,
//! not merely found somewhere in the file.
//!
//! How: the table's `after` lines are found in order, then the row's section lines, then the
//! first line starting with the row's text; what follows it, with the seed's separators
//! (spaces and `|`) removed, must be exactly the row's values written one after the other in
//! column order. So a value in the wrong column, a digit slipped, a value of the next row, or
//! a missing cell fails. Tables the seed prints one line per filesystem (iozone's Excel
//! output) are checked the same way per column line. The seed texts are kept verbatim in
//! `suites/published/seeds/` (and compared with the project's `../shared/seeds/` copy where
//! it exists).

use fsbattery_core::published;
use fsbattery_record::published::{PubTable, Published};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn seed_text(p: &Published) -> String {
    let ours = repo().join("suites/published/seeds").join(&p.seed);
    let text = std::fs::read_to_string(&ours).unwrap_or_else(|e| panic!("{}: {e}", ours.display()));
    let shared = repo().join("../shared/seeds").join(&p.seed);
    if let Ok(original) = std::fs::read_to_string(shared) {
        assert_eq!(text, original, "{} differs from the shared seed", p.seed);
    }
    text
}

/// Index of the line after the lines starting with each of `after`, in order, from `from`.
fn after(lines: &[&str], from: usize, heads: &[String], what: &str) -> usize {
    let mut i = from;
    for h in heads {
        let found = lines[i..]
            .iter()
            .position(|l| l.trim().starts_with(h.trim()));
        let k = found.unwrap_or_else(|| panic!("{what}: no line '{h}' after line {}", i + 1));
        i += k + 1;
    }
    i
}

/// What follows `start` on the first line from `from` that starts with it, separators removed.
fn cells(lines: &[&str], from: usize, start: &str, what: &str) -> String {
    let line = lines[from..]
        .iter()
        .map(|l| l.trim())
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("{what}: no line starting '{start}' after line {from}"));
    line[start.len()..]
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '|')
        .collect()
}

fn check_table(p: &Published, t: &PubTable, lines: &[&str]) -> usize {
    let what = format!("{} {}", p.preset, t.id);
    let base = after(lines, 0, &t.after, &what);
    let mut checked = 0;
    if t.lines.is_empty() {
        for r in &t.rows {
            let what = format!("{what} '{}'", r.label);
            let at = after(lines, base, &r.after, &what);
            let text = cells(lines, at, r.line.as_deref().unwrap_or(&r.label), &what);
            assert_eq!(
                text,
                r.values.concat(),
                "{what}: the seed's row against ours"
            );
            checked += r.values.len();
        }
    }
    for l in &t.lines {
        let what = format!("{what} column {}", l.column);
        let c = t.columns.iter().position(|c| *c == l.column).expect(&what);
        let at = after(lines, base, &l.after, &what);
        let ours: String = t.rows.iter().map(|r| r.values[c].as_str()).collect();
        assert_eq!(cells(lines, at, &l.line, &what), ours, "{what}");
        checked += t.rows.len();
    }
    checked
}

#[test]
fn every_published_value_is_in_its_row_of_the_seed() {
    let mut total = 0;
    for name in published::names() {
        let p = published::for_suite(name).unwrap();
        let text = seed_text(&p);
        let lines: Vec<&str> = text.lines().collect();
        for t in &p.tables {
            assert_eq!(t.columns.len(), t.fs.len(), "{name} {}", t.id);
            for r in &t.rows {
                assert_eq!(r.values.len(), t.columns.len(), "{name} {}", r.label);
                for i in 0..r.values.len() {
                    assert!(
                        r.number(i).is_some(),
                        "{name} {}: '{}'",
                        r.label,
                        r.values[i]
                    );
                }
            }
            let n = check_table(&p, t, &lines);
            assert_eq!(n, t.rows.len() * t.columns.len(), "{name} {}", t.id);
            total += n;
        }
    }
    // S1 4 x 21 x (6|5), S2 16 x 9, S3 26 x 12 x 2, S4 26 x 12.
    assert_eq!(total, 462 + 144 + 624 + 312);
}

#[test]
fn a_wrong_digit_fails_the_check() {
    let mut p = published::for_suite("piszcz2006").unwrap();
    p.tables[0].rows[8].values[5] = "40.18".into(); // S1's untar on xfs is 40.81
    let text = seed_text(&p);
    let lines: Vec<&str> = text.lines().collect();
    let r = std::panic::catch_unwind(|| check_table(&p, &p.tables[0], &lines));
    assert!(r.is_err());
}

/// Every published row corresponds to a row of its preset (by seed wording or label) with the
/// same workload and metric; iozone's rows to a record size of their preset row's family.
#[test]
fn every_published_row_maps_to_a_preset_row() {
    for name in published::names() {
        let p = published::for_suite(name).unwrap();
        let suite = fsbattery_core::suite::load(name).unwrap();
        for t in &p.tables {
            for r in &t.rows {
                let family = r.metric.split('@').next().unwrap();
                let row = suite.rows.iter().find(|s| {
                    s.workload == r.workload
                        && (s.metric == r.metric || s.metric == family)
                        && (r.metric.contains('@')
                            || s.seed.as_deref().unwrap_or(&s.label) == r.label
                            || t.id.ends_with("part1"))
                });
                assert!(
                    row.is_some(),
                    "{name} {}: '{}' has no preset row",
                    t.id,
                    r.label
                );
            }
        }
    }
}

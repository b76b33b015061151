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

/// S4's randomio setup from its own text: `randomio bigfile THREADS WRITE_FRACTION ...`.
fn randomio_setup(text: &str) -> (f64, f64) {
    let line = text
        .lines()
        .find(|l| l.trim().starts_with("5. randomio bigfile"))
        .expect("S4's step 5: randomio bigfile ...");
    let args: Vec<&str> = line.split_whitespace().collect();
    // "5." "randomio" "bigfile" threads write-fraction sync-fraction size seconds samples
    (args[3].parse().unwrap(), args[4].parse().unwrap())
}

/// io/s by Little's law: `threads` synchronous requests in flight, each taking the mean of the
/// read and write latencies (ms) weighted by the write share.
fn little_iops(threads: f64, writes: f64, read_ms: f64, write_ms: f64) -> f64 {
    threads * 1000.0 / ((1.0 - writes) * read_ms + writes * write_ms)
}

/// The S4 row labelled `label`.
fn s4_row<'p>(p: &'p Published, label: &str) -> &'p fsbattery_record::published::PubRow {
    p.tables[0]
        .rows
        .iter()
        .find(|r| r.label == label)
        .unwrap_or_else(|| panic!("S4 has no row '{label}'"))
}

/// The cells of S4's io/s and latency rows, as numbers: where Little's law misses the seed's
/// own io/s by more than 3 %, "column: io/s x, Little's law y".
fn little_misses(p: &Published, threads: f64, writes: f64) -> Vec<String> {
    let io = s4_row(p, "randomio random io/s");
    let read = s4_row(p, "randomio random read latency ms");
    let write = s4_row(p, "randomio random write latency ms");
    let mut misses = Vec::new();
    for (c, column) in p.tables[0].columns.iter().enumerate() {
        let n = |r: &fsbattery_record::published::PubRow| r.number(c).unwrap().value;
        let law = little_iops(threads, writes, n(read), n(write));
        if (law / n(io) - 1.0).abs() > 0.03 {
            misses.push(format!("{column}: io/s {}, Little's law {law:.0}", n(io)));
        }
    }
    misses
}

/// Every way to cut the three run-together rows `io`, `read` and `write` into twelve cells
/// each (io/s up to 4 digits, latencies up to 3, no leading zero) such that every cell's io/s
/// is Little's law's within 3 %; searched cell by cell, so a cut that fails a cell is dropped
/// with everything after it.
fn little_splits(rows: [&str; 3], threads: f64, writes: f64) -> Vec<[Vec<f64>; 3]> {
    fn go(
        rest: [&str; 3],
        left: usize,
        law: &dyn Fn(f64, f64) -> f64,
        acc: &mut [Vec<f64>; 3],
        out: &mut Vec<[Vec<f64>; 3]>,
    ) {
        if left == 0 {
            if rest.iter().all(|r| r.is_empty()) {
                out.push(acc.clone());
            }
            return;
        }
        fn cut(s: &str, k: usize) -> Option<(&str, &str)> {
            (k <= s.len() && !s.starts_with('0')).then(|| s.split_at(k))
        }
        for a in 1..=4 {
            for b in 1..=3 {
                for c in 1..=3 {
                    let (Some((i, ri)), Some((r, rr)), Some((w, rw))) =
                        (cut(rest[0], a), cut(rest[1], b), cut(rest[2], c))
                    else {
                        continue;
                    };
                    let v = |t: &str| t.parse::<f64>().unwrap();
                    if (law(v(r), v(w)) / v(i) - 1.0).abs() > 0.03 {
                        continue;
                    }
                    for (k, t) in [i, r, w].into_iter().enumerate() {
                        acc[k].push(v(t));
                    }
                    go([ri, rr, rw], left - 1, law, acc, out);
                    for x in acc.iter_mut() {
                        x.pop();
                    }
                }
            }
        }
    }
    let law = |r: f64, w: f64| little_iops(threads, writes, r, w);
    let mut out = Vec::new();
    go(rows, 12, &law, &mut [vec![], vec![], vec![]], &mut out);
    out
}

/// S4 ran its rows' cells together ("random write latency ms66757761626623243232"); its own
/// io/s, read and write latencies are tied by Little's law (randomio's threads each have one
/// synchronous request in flight). The published write latencies fit the seed's io/s within
/// 3 % in every cell; the split this file had before (xfs 6/6/7/5, ext4 77/61/62/66) does not.
#[test]
fn s4_write_latencies_fit_the_seeds_own_io_per_second() {
    let p = published::for_suite("zfs2007").unwrap();
    let text = seed_text(&p);
    let (threads, writes) = randomio_setup(&text);
    assert_eq!((threads, writes), (10.0, 0.25));
    let misses = little_misses(&p, threads, writes);
    assert!(misses.is_empty(), "{misses:#?}");
    let mut old = p.clone();
    let row = old.tables[0]
        .rows
        .iter_mut()
        .find(|r| r.label == "randomio random write latency ms")
        .unwrap();
    row.values = [
        "6", "6", "7", "5", "77", "61", "62", "66", "23", "24", "32", "32",
    ]
    .map(String::from)
    .to_vec();
    // 8 of its 12 cells differ; 6 miss by more than 3 % (xfs/internal/hw's 7 is right by chance,
    // ext4/external/sw's 61 is a neighbour's 1 off).
    assert_eq!(little_misses(&old, threads, writes).len(), 6);
}

/// The law pins the split of both latency rows: of every way to cut the seed's run-together
/// digits of the io/s row (cells of up to 4 digits) and of the two latency rows (up to 3)
/// into twelve cells, one alone fits every cell within 3 %, and it is the published one.
#[test]
fn s4_latency_splits_are_the_only_ones_the_io_per_second_allow() {
    let p = published::for_suite("zfs2007").unwrap();
    let text = seed_text(&p);
    let (threads, writes) = randomio_setup(&text);
    let lines: Vec<&str> = text.lines().collect();
    let base = after(&lines, 0, &p.tables[0].after, "S4");
    let seed_digits = |label: &str| {
        let r = s4_row(&p, label);
        let at = after(&lines, base, &r.after, label);
        cells(&lines, at, r.line.as_deref().unwrap_or(&r.label), label)
    };
    let found = little_splits(
        [
            &seed_digits("randomio random io/s"),
            &seed_digits("randomio random read latency ms"),
            &seed_digits("randomio random write latency ms"),
        ],
        threads,
        writes,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    let numbers = |label: &str| -> Vec<f64> {
        let r = s4_row(&p, label);
        (0..12).map(|c| r.number(c).unwrap().value).collect()
    };
    assert_eq!(found[0][0], numbers("randomio random io/s"));
    assert_eq!(found[0][1], numbers("randomio random read latency ms"));
    assert_eq!(found[0][2], numbers("randomio random write latency ms"));
    for label in [
        "randomio random read latency ms",
        "randomio random write latency ms",
    ] {
        assert!(!s4_row(&p, label).ambiguous, "{label} is pinned down");
    }
}

/// The rows whose split no arithmetic of S4's text pins down are marked ambiguous and say why;
/// nothing else of any study is.
#[test]
fn rows_the_text_does_not_pin_down_are_marked_ambiguous() {
    let expected = [
        "bonnie sequential create /s",
        "randomio random read latency std dev ms",
        "ffsb multithreaded write io/s",
        "kernel untar kernel s",
        "kernel copy kernel s",
        "kernel tar kernel s",
    ];
    for name in published::names() {
        let p = published::for_suite(name).unwrap();
        for t in &p.tables {
            for r in t.rows.iter().filter(|r| r.ambiguous) {
                assert!(
                    name == "zfs2007" && expected.contains(&r.label.as_str()),
                    "{name} '{}' marked ambiguous",
                    r.label
                );
                assert!(
                    r.note.as_deref().is_some_and(|n| n.contains("not ranked")),
                    "{name} '{}': the note says why",
                    r.label
                );
            }
        }
    }
    let p = published::for_suite("zfs2007").unwrap();
    for label in expected {
        assert!(s4_row(&p, label).ambiguous, "{label}");
    }
}

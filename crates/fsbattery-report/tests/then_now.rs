//! Then and now (issue 25 §2) on the fixture run (ext2, ext4, xfs; lower is better): planted
//! seed values whose order is the run's give τ = 1 and no flip; reversed, τ = -1 and the flips
//! named; every output carries them; a record written before the fields existed still reads.

mod common;
use fsbattery_record::published::{Machine, PubRow, PubTable, Published};
use fsbattery_report::{html::Html, markdown::Markdown, table::TerminalTable, Renderer, Report};
use fsbattery_stats::{Aggregate, Better};

/// The fixture's means: touch 0.0312 / 0.0362 / 0.0525, find 0.0040 / 0.0043 / 0.0051,
/// remove 0.0202 / 0.0249 / 0.0472, mkdir 0.0604 / 0.0481 / 0.0713 (ext2 / ext4 / xfs).
fn published(rows: &[(&str, &str, [&str; 3])]) -> Published {
    Published {
        preset: "piszcz2006".into(),
        study: "S1".into(),
        seed: "000.txt".into(),
        title: "Planted".into(),
        author: "test".into(),
        year: 2006,
        repeat: "3".into(),
        machine: Machine {
            cpu: "c".into(),
            ram: "r".into(),
            disk: "d".into(),
            kernel: "k".into(),
            os: "o".into(),
            tools: vec![],
        },
        tables: vec![PubTable {
            id: "elapsed".into(),
            title: "Seconds Elapsed".into(),
            source: "planted".into(),
            unit: "s".into(),
            better: Better::Lower,
            quantity: "value".into(),
            then_and_now: true,
            note: None,
            after: vec![],
            columns: vec!["EXT2".into(), "EXT4".into(), "XFS".into(), "JFS".into()],
            fs: vec!["ext2".into(), "ext4".into(), "xfs".into(), "jfs".into()],
            config: vec![],
            lines: vec![],
            rows: rows
                .iter()
                .map(|(label, metric, v)| PubRow {
                    label: label.to_string(),
                    line: None,
                    after: vec![],
                    unit: None,
                    better: None,
                    workload: "metadata".into(),
                    metric: metric.to_string(),
                    values: v
                        .iter()
                        .map(|s| s.to_string())
                        .chain(["9".into()])
                        .collect(),
                    note: None,
                    ambiguous: false,
                })
                .collect(),
        }],
    }
}

const SAME: &[(&str, &str, [&str; 3])] = &[
    ("Touch", "touch_files", ["1", "2", "3"]),
    ("Find", "find_files", ["1", "2", "3"]),
    ("Remove", "remove_files", ["1,5", "2", "3"]),
    ("Make", "mkdir_dirs", ["2", "1", "3"]),
];

const REVERSED: &[(&str, &str, [&str; 3])] = &[
    ("Touch", "touch_files", ["3", "2", "1"]),
    ("Find", "find_files", ["3", "2", "1"]),
    ("Remove", "remove_files", ["3", "2", "1"]),
    ("Make", "mkdir_dirs", ["2", "3", "1"]),
];

fn with(rows: &[(&str, &str, [&str; 3])]) -> fsbattery_record::RunRecord {
    let mut rec = common::run();
    rec.published = Some(Box::new(published(rows)));
    rec
}

#[test]
fn the_same_order_is_tau_one_with_no_flip() {
    let rec = with(SAME);
    let tn = fsbattery_report::then_now::for_report(&Report::new(&rec, Aggregate::Mean)).unwrap();
    let t = &tn.tables[0];
    // jfs has a seed column but no target: only the three measured are ranked.
    let cols: Vec<&str> = t.columns.iter().map(|c| c.column.as_str()).collect();
    assert_eq!(cols, ["EXT2", "EXT4", "XFS"]);
    assert_eq!(t.rows.len(), 4);
    assert_eq!(t.tau, Some(1.0));
    assert_eq!(t.pairs, 12);
    assert!(t.p.unwrap() < 0.01, "{:?}", t.p);
    assert!(t.flips.is_empty(), "{:?}", t.flips);
    let remove = &t.rows[2].cells[0];
    assert_eq!(remove.then, Some(1.5));
    assert_eq!((remove.rank_then, remove.rank_now), (Some(1), Some(1)));
    let ratio = remove.ratio.unwrap();
    assert!((ratio - 0.02016 / 1.5).abs() < 1e-4, "{ratio}");
}

#[test]
fn a_reversed_order_is_tau_minus_one_and_each_flip_is_named() {
    let rec = with(REVERSED);
    let tn = fsbattery_report::then_now::for_report(&Report::new(&rec, Aggregate::Mean)).unwrap();
    let t = &tn.tables[0];
    assert_eq!(t.tau, Some(-1.0));
    assert_eq!(
        t.flips,
        [
            "Touch: ext2 slowest in 2006 at 3 s against xfs's 1 s, fastest now",
            "Find: ext2 slowest in 2006 at 3 s against xfs's 1 s, fastest now",
            "Remove: ext2 slowest in 2006 at 3 s against xfs's 1 s, fastest now",
            "Make: ext4 slowest in 2006 at 3 s against xfs's 1 s, fastest now",
        ]
    );
}

#[test]
fn every_output_shows_then_and_now_and_the_record_keeps_it() {
    let rec = with(REVERSED);
    let report = Report::new(&rec, Aggregate::Mean);
    let term = String::from_utf8(TerminalTable { styled: false }.render(&report).unwrap()).unwrap();
    assert!(term.contains("Kendall's tau-b -1.00"), "{term}");
    assert!(term.contains("3 #3 -> 0.031 #1 (x0.010)"), "{term}");
    assert!(term.contains("Touch: ext2 slowest in 2006"), "{term}");
    let md = String::from_utf8(Markdown.render(&report).unwrap()).unwrap();
    assert!(md.contains("## Then and now: the seed's numbers"), "{md}");
    assert!(
        md.contains("| Touch 2,000 Files [s] (seed: Touch) | 3 #3 -> 0.031 #1 (x0.010) |"),
        "{md}"
    );
    let html = String::from_utf8(Html.render(&report).unwrap()).unwrap();
    assert!(
        html.contains("<svg class=\"chart slope\""),
        "no slope chart"
    );
    assert!(html.contains("data-target=\"xfs\"><title>xfs: mean rank 1.00 then, 3.00 now"));
    // results.json: derived with the cells' statistics, read back; without it, as before.
    let mut annotated = rec.clone();
    fsbattery_report::cell_stats::annotate(&mut annotated, false);
    let tn = annotated
        .then_and_now
        .as_ref()
        .expect("then_and_now in the record");
    assert_eq!(tn.tables[0].tau, Some(-1.0));
    let json = serde_json::to_string(&annotated).unwrap();
    let back: fsbattery_record::RunRecord = serde_json::from_str(&json).unwrap();
    // (serde_json reads floats back to within an ulp; the text is what must survive.)
    let (a, b) = (
        &tn.tables[0],
        &back.then_and_now.as_ref().unwrap().tables[0],
    );
    assert_eq!(
        (a.tau, &a.flips, a.rows.len()),
        (b.tau, &b.flips, b.rows.len())
    );
    assert_eq!(back.published, annotated.published);
    let plain = common::run();
    assert!(plain.published.is_none() && plain.then_and_now.is_none());
    let term = String::from_utf8(
        TerminalTable { styled: false }
            .render(&Report::new(&plain, Aggregate::Mean))
            .unwrap(),
    )
    .unwrap();
    assert!(!term.contains("Kendall"), "{term}");
}

/// Where several seed columns share a filesystem (S4's journal and RAID configurations), a
/// target stands beside the one its spec's journal placement names, software RAID first.
#[test]
fn a_target_stands_beside_its_configuration() {
    let mut p = published(SAME);
    let t = &mut p.tables[0];
    t.columns = [
        "xfs/internal/hw",
        "xfs/internal/sw",
        "xfs/external/sw",
        "ext4/internal/sw",
    ]
    .map(String::from)
    .to_vec();
    t.fs = ["xfs", "xfs", "xfs", "ext4"].map(String::from).to_vec();
    t.config = ["internal/hw", "internal/sw", "external/sw", "internal/sw"]
        .map(String::from)
        .to_vec();
    let mut rec = common::run();
    rec.published = Some(Box::new(p.clone()));
    let cols = |rec: &fsbattery_record::RunRecord| {
        let tn = fsbattery_report::then_now::for_report(&Report::new(rec, Aggregate::Mean));
        tn.unwrap().tables[0]
            .columns
            .iter()
            .map(|c| format!("{}={}", c.target, c.column))
            .collect::<Vec<_>>()
    };
    assert_eq!(cols(&rec), ["ext4=ext4/internal/sw", "xfs=xfs/internal/sw"]);
    for t in &mut rec.targets {
        if t.label == "xfs" {
            t.spec = "loop:xfs,log=external".into();
        }
    }
    assert_eq!(cols(&rec), ["ext4=ext4/internal/sw", "xfs=xfs/external/sw"]);
    // A guest's md array with its log on a disk of its own: the spec names a device, the
    // shaping options say external.
    for t in &mut rec.targets {
        if t.label == "xfs" {
            t.spec = "dev:/dev/md0,fs=xfs,journal=/dev/vdg".into();
            t.options.insert("journal".into(), "external".into());
        }
    }
    assert_eq!(cols(&rec), ["ext4=ext4/internal/sw", "xfs=xfs/external/sw"]);
}

/// A row whose split the seed's text does not pin down (S4's run-together cells) is shown
/// with its ranks, but counts in neither τ nor the flips, and every output says so.
#[test]
fn an_ambiguous_row_is_shown_but_left_out_of_tau_and_the_flips() {
    let mut p = published(REVERSED);
    p.tables[0].rows[3].ambiguous = true; // "Make", reversed like the others
    let mut rec = common::run();
    rec.published = Some(Box::new(p));
    let report = Report::new(&rec, Aggregate::Mean);
    let tn = fsbattery_report::then_now::for_report(&report).unwrap();
    let t = &tn.tables[0];
    assert_eq!(t.rows.len(), 4, "still shown");
    assert!(t.rows[3].ambiguous && t.rows[3].cells[2].rank_then == Some(1));
    assert_eq!(
        (t.tau, t.pairs),
        (Some(-1.0), 9),
        "three rows of three pairs"
    );
    assert_eq!(t.flips.len(), 3, "{:?}", t.flips);
    assert!(
        !t.flips.iter().any(|f| f.starts_with("Make")),
        "{:?}",
        t.flips
    );
    let term = String::from_utf8(TerminalTable { styled: false }.render(&report).unwrap()).unwrap();
    assert!(
        term.contains("(1 row whose split the seed's text does not pin down left out, marked ?)"),
        "{term}"
    );
    assert!(
        term.contains("in neither Kendall's tau nor the flips"),
        "{term}"
    );
}

/// The closing lines give the then-and-now in one line — τ, p, the flips — and name the
/// run's targets the study never measured, also when nothing can be ranked.
#[test]
fn the_closing_line_gives_tau_the_flips_and_the_targets_the_study_lacked() {
    let rec = with(REVERSED);
    let report = Report::new(&rec, Aggregate::Mean);
    let lines = fsbattery_report::then_now_closing::lines(&report);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let l = &lines[0];
    assert!(
        l.starts_with("Then and now (S1, 2006): Kendall's tau-b -1.00 (p "),
        "{l}"
    );
    assert!(
        l.contains(", 12 pairs in 4 rows); 4 rank flips: Touch: ext2 slowest"),
        "{l}"
    );
    assert!(l.ends_with("; 2 more in the then-and-now table"), "{l}");
    assert!(!l.contains("not in the"), "{l}");
    // The terminal's closing lines end with it.
    let term = String::from_utf8(TerminalTable { styled: false }.render(&report).unwrap()).unwrap();
    assert_eq!(term.trim_end().lines().last(), Some(l.as_str()), "{term}");

    // A study with only xfs of this run's filesystems (S1 had no ext4): nothing to rank, and
    // the line says which targets the study lacked instead of only "too few pairs".
    let mut p = published(SAME);
    p.tables[0].fs = ["ext3", "jfs", "xfs", "reiserfs"]
        .map(String::from)
        .to_vec();
    let mut rec = common::run();
    rec.published = Some(Box::new(p));
    let lines = fsbattery_report::then_now_closing::lines(&Report::new(&rec, Aggregate::Mean));
    assert_eq!(
        lines,
        [
            "Then and now (S1, 2006): Kendall's tau-b: too few ranked pairs (only xfs stands \
          beside a column of the study); ext2, ext4 were not in the 2006 study (no column to \
          rank beside)"
        ]
    );
    // An interrupted run (every cell short of its planned repeats): its targets have
    // columns, but nothing finished to rank, and the line says that, not "no column".
    let mut rec = with(SAME);
    rec.interrupted = true;
    for c in &mut rec.cells {
        c.status = fsbattery_record::CellStatus::Incomplete;
    }
    let lines = fsbattery_report::then_now_closing::lines(&Report::new(&rec, Aggregate::Mean));
    assert_eq!(
        lines,
        [
            "Then and now (S1, 2006): Kendall's tau-b: too few ranked pairs (ext2, ext4, xfs \
          stand beside columns of the study, but no row has finished its repeats on them)"
        ]
    );
    // No published numbers: no line.
    let plain = common::run();
    assert!(
        fsbattery_report::then_now_closing::lines(&Report::new(&plain, Aggregate::Mean)).is_empty()
    );
}

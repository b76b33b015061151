//! Every suite file shipped in `suites/` (issue 12 §4): no two rows show one measurement under
//! two labels, and no label names a size or count other than the one the run used — a number
//! in a label is a `{workload.param}` placeholder, a unit (`[1/s]`), or fixed by the metric the
//! row names (`split_1000`'s "1000 Byte Pieces"); the seed's own sizes live in `seed`.

use fsbattery_core::suite::{self, Suite};
use std::path::Path;

/// Every `suites/*.toml`, parsed as a user's file would be (so a file left out of the
/// compiled-in presets is checked too), with its file name.
fn suite_files() -> Vec<(String, Suite)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../suites");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("suites/ exists") {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "toml") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let s = suite::load(path.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
            out.push((name, s));
        }
    }
    assert!(out.len() >= 6, "{out:?}", out = out.len());
    out
}

#[test]
fn every_suite_file_is_a_builtin_preset() {
    let builtin: Vec<&str> = suite::presets().iter().map(|p| p.name).collect();
    for (file, s) in suite_files() {
        assert!(
            builtin.contains(&s.name.as_str()),
            "{file}: not compiled in"
        );
    }
}

#[test]
fn no_two_rows_map_to_one_measurement() {
    let mut problems = Vec::new();
    for (file, s) in suite_files() {
        let mut seen: Vec<(String, String, String, &str)> = Vec::new();
        for r in &s.rows {
            let agg = r.aggregate.unwrap_or(s.aggregate).to_string();
            let key = (r.workload.clone(), r.metric.clone(), agg);
            match seen
                .iter()
                .find(|k| (&k.0, &k.1, &k.2) == (&key.0, &key.1, &key.2))
            {
                Some(k) => problems.push(format!(
                    "{file}: \"{}\" and \"{}\" both show {} {} ({})",
                    k.3, r.label, key.0, key.1, key.2
                )),
                None => seen.push((key.0, key.1, key.2, &r.label)),
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The label with its placeholders `{...}` and units `[...]` taken out.
fn literal_text(label: &str) -> String {
    let mut out = String::new();
    let mut depth: Option<char> = None;
    for c in label.chars() {
        match (depth, c) {
            (None, '{') => depth = Some('}'),
            (None, '[') => depth = Some(']'),
            (Some(close), c) if c == close => depth = None,
            (None, c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// Runs of digits (with the separators of "10,000" and "2.6.14.4" inside them).
fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let inner = (c == ',' || c == '.')
            && !cur.is_empty()
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || inner {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    out.extend((!cur.is_empty()).then_some(cur));
    out
}

#[test]
fn every_size_and_count_in_a_label_is_templated() {
    let mut problems = Vec::new();
    for (file, s) in suite_files() {
        for r in &s.rows {
            let fixed: Vec<&str> = r
                .metric
                .split(|c: char| !c.is_ascii_digit())
                .filter(|t| !t.is_empty())
                .collect();
            for n in numbers(&literal_text(&r.label)) {
                if !fixed.contains(&n.as_str()) {
                    problems.push(format!(
                        "{file}: \"{}\": {n} is neither a placeholder nor fixed by metric {}",
                        r.label, r.metric
                    ));
                }
            }
            // A suite that reproduces a seed (it names the seed's RAM) keeps its wording.
            if s.seed_memory.is_some() && r.label.contains('{') && r.seed.is_none() {
                problems.push(format!(
                    "{file}: \"{}\" is templated but keeps no seed = \"...\" wording",
                    r.label
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_number_finder_sees_sizes_counts_and_versions() {
    assert_eq!(
        numbers(&literal_text(
            "Copy 2.6.14.4 Tarball 10 Times, 10,000 [1/s] {a.b} 4GB."
        )),
        ["2.6.14.4", "10", "10,000", "4"]
    );
}

/// The tree phases each preset runs at its own parameters: only its seed's (issue 25 §4,
/// "extra phases"), each of them a row of its table.
#[test]
fn each_preset_runs_only_its_seeds_tree_phases() {
    let want: &[(&str, &[&str])] = &[
        (
            "piszcz2006",
            &[
                "tarball_in",
                "tarball_out",
                "untar",
                "tar",
                "copy_tree",
                "remove_tree",
                "tarball_copy10",
            ],
        ),
        ("zfs2007", &["tarball_in", "untar", "tar", "copy_tree"]),
    ];
    for (_, s) in suite_files() {
        let Some((_, expected)) = want.iter().find(|(n, _)| *n == s.name) else {
            continue;
        };
        let (_, given) = s.workloads.iter().find(|(n, _)| n == "tree").unwrap();
        let tree = fsbattery_core::workload::find("tree").unwrap();
        let p = fsbattery_core::params::Params::resolve(
            "tree",
            tree.params(),
            fsbattery_core::params::Scale::Standard,
            0,
            given,
        )
        .unwrap();
        let mut runs: Vec<String> = tree.metrics(&p).into_iter().map(|m| m.name).collect();
        let mut expected: Vec<String> = expected.iter().map(|m| m.to_string()).collect();
        runs.sort();
        expected.sort();
        assert_eq!(runs, expected, "{}", s.name);
        for m in &runs {
            assert!(
                s.rows
                    .iter()
                    .any(|r| r.workload == "tree" && &r.metric == m),
                "{}: tree phase {m} runs but no row shows it",
                s.name
            );
        }
    }
}

/// Sizes a seed took from its RAM are written as multiples of `seed_memory` and are the
/// seed's own at standard scale (S2's 16 GB file on 8 GB, S4's 2 GB bonnie file on 1 GB); at
/// quick scale the workload's small default applies.
#[test]
fn seed_memory_sizes_are_the_seeds_own_at_standard_scale() {
    use fsbattery_core::params::{Params, Scale};
    let want = [
        ("prolinux2013", "bonnie", 16u64 << 30),
        ("prolinux2013", "bigfile", 16 << 30),
        ("zfs2007", "bonnie", 2 << 30),
    ];
    let suites = suite_files();
    for (suite, workload, bytes) in want {
        let (_, s) = suites.iter().find(|(_, s)| s.name == suite).unwrap();
        let (_, given) = s.workloads.iter().find(|(n, _)| n == workload).unwrap();
        assert_eq!(given["size"], "2 * seed_memory", "{suite} {workload}");
        let w = fsbattery_core::workload::find(workload).unwrap();
        let at = |scale| {
            let mut g = given.clone();
            fsbattery_core::seed_sized::apply(
                workload,
                &mut g,
                w.params(),
                s.seed_memory,
                scale,
                0,
            )
            .unwrap();
            Params::resolve(workload, w.params(), scale, 0, &g)
                .unwrap()
                .get("size")
        };
        assert_eq!(at(Scale::Standard), bytes, "{suite} {workload}");
        assert!(at(Scale::Quick) < 1 << 30, "{suite} {workload}");
    }
}

/// Each study preset's default repeats and aggregate are its seed's stated policy, read in the
/// seed's own words as its published file keeps them (`repeat = "..."`): S1 "3 times and the
/// average", S2 "five times, the best", S3 and S4 one run (postmark is S4's). The plan uses
/// them for any number of targets (crates/fsbattery/tests/study_repeats.rs).
#[test]
fn every_study_preset_repeats_as_its_seed_says() {
    use fsbattery_stats::Aggregate;
    let cases = [
        (
            "piszcz2006",
            "piszcz2006",
            "3 times and the average",
            3,
            Aggregate::Mean,
        ),
        (
            "prolinux2013",
            "prolinux2013",
            "five times, the best",
            5,
            Aggregate::Best,
        ),
        ("iozone2016", "iozone2016", "one run", 1, Aggregate::Mean),
        ("zfs2007", "zfs2007", "one run", 1, Aggregate::Mean),
        ("postmark", "zfs2007", "one run", 1, Aggregate::Mean),
    ];
    for (preset, study, words, repeat, aggregate) in cases {
        let s = suite::load(preset).unwrap();
        let p = fsbattery_core::published::for_suite(study).unwrap();
        assert!(p.repeat.contains(words), "{study}: '{}'", p.repeat);
        assert_eq!((s.repeat, s.aggregate), (repeat, aggregate), "{preset}");
    }
}

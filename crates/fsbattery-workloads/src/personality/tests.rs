//! Tests of the filebench personalities: every metric measured, operation counts that follow
//! from each flow, 1 and 4 threads, nothing left behind.

use super::*;
use crate::model::Sample;
use crate::Method;
use std::collections::BTreeMap;

const ALL: [&Personality; 3] = [&FILESERVER, &VARMAIL, &WEBSERVER];

/// Quick-scale parameters of `w`, made small, with `threads`.
fn small(w: &Personality, threads: u64) -> Settings {
    small_with(w, threads, &[])
}

/// [`small`] with some parameters set otherwise.
fn small_with(w: &Personality, threads: u64, set: &[(&str, u64)]) -> Settings {
    let mut p: BTreeMap<&str, u64> = w.params().iter().map(|s| (s.name, s.quick)).collect();
    for (k, v) in [
        ("files", 200),
        ("mean_size", 8 << 10),
        ("runtime", 1),
        ("threads", threads),
    ]
    .into_iter()
    .chain(set.iter().copied())
    {
        p.insert(k, v);
    }
    let pairs: Vec<(&str, u64)> = p.into_iter().collect();
    crate::settings::with_pairs(&pairs)
}

fn run(w: &Personality, dir: &Path, p: &Settings) -> Result<BTreeMap<String, f64>, WorkloadError> {
    let mut got = BTreeMap::new();
    let mut on = |m: &str, s: Sample| {
        got.insert(m.to_string(), s.value);
    };
    let mut ctx = WorkloadCtx::new(dir, 0, Method::Native, Duration::ZERO, &mut on);
    w.run(&mut ctx, p)?;
    drop(ctx);
    Ok(got)
}

#[test]
fn every_metric_is_positive_with_1_and_4_threads_and_nothing_is_left() {
    for w in ALL {
        for threads in [1, 4] {
            let tmp = tempfile::tempdir().unwrap();
            let p = small(w, threads);
            let got = run(w, tmp.path(), &p).unwrap();
            let declared = w.metrics(&p);
            assert_eq!(got.len(), declared.len(), "{}", w.name());
            for m in &declared {
                let v = got.get(&m.name).copied();
                assert!(
                    v.is_some_and(|v| v > 0.0),
                    "{} with {threads} threads: {} = {v:?}",
                    w.name(),
                    m.name
                );
            }
            let sum: f64 = w
                .kind
                .ops()
                .iter()
                .map(|o| got[&format!("{}_ops", o.name())])
                .sum();
            assert!(
                (sum / got["ops"] - 1.0).abs() < 1e-9,
                "{}: {sum} vs {}",
                w.name(),
                got["ops"]
            );
            assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        }
    }
}

/// Run `w`'s flow directly (no phase) and return the per-kind counts.
fn counts(w: &Personality, threads: u64) -> FlowResult {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = Config::new(w.kind, &small(w, threads)).unwrap();
    let set = Fileset::new(tmp.path().join("set"), &cfg);
    let log = (w.kind == Kind::Webserver).then(|| tmp.path().join("log"));
    let tally = Tally::default();
    prepare(&cfg, &set, log.as_deref(), &tally).unwrap();
    run_flow(&cfg, &set, log.as_deref(), &tally).unwrap()
}

#[test]
fn operation_counts_follow_each_flow() {
    let n = |r: &FlowResult, op: Op| r.stats[op as usize].ops;
    let r = counts(&FILESERVER, 2);
    assert_eq!(n(&r, Op::Create), n(&r, Op::Write));
    assert_eq!(n(&r, Op::Open), n(&r, Op::Append) + n(&r, Op::Read));
    assert_eq!(n(&r, Op::Close), n(&r, Op::Create) + n(&r, Op::Open));
    assert_eq!(n(&r, Op::Fsync), 0);

    let r = counts(&VARMAIL, 2);
    assert_eq!(n(&r, Op::Close), n(&r, Op::Create) + n(&r, Op::Open));
    assert_eq!(n(&r, Op::Fsync), n(&r, Op::Append));
    assert_eq!(n(&r, Op::Read), n(&r, Op::Open));
    assert_eq!(n(&r, Op::Stat) + n(&r, Op::Write), 0);

    let r = counts(&WEBSERVER, 2);
    assert_eq!(n(&r, Op::Open), n(&r, Op::Read));
    assert_eq!(n(&r, Op::Open), n(&r, Op::Close));
    // Ten reads per append, less the loop the deadline cut short in each thread.
    assert!(n(&r, Op::Read) <= 10 * n(&r, Op::Append));
    assert!(n(&r, Op::Read) + 20 >= 10 * n(&r, Op::Append));
}

#[test]
fn the_set_has_filebench_sizes_and_layout() {
    let p = small(&FILESERVER, 1);
    let cfg = Config::new(Kind::Fileserver, &p).unwrap();
    let set = Fileset::new(PathBuf::from("/x"), &cfg);
    let mean = set.target.iter().sum::<u64>() as f64 / set.target.len() as f64;
    assert!((mean / (8 << 10) as f64 - 1.0).abs() < 0.2, "mean {mean}");
    assert_eq!(set.path(0), Path::new("/x/d00000/f0"));
    assert_eq!(set.path(45), Path::new("/x/d00002/f45"));
    let i = set.take(false).unwrap();
    assert!(set.take(true).is_none() && set.peek().is_none());
    set.put(i, true);
    assert_eq!(set.peek(), Some(i));
}

/// filebench's fileset_pick: the first free entry at or after the rotor, the rotor moving past
/// it, wrapping to the lowest; held entries are skipped; existing and absent entries have
/// rotors of their own.
#[test]
fn entries_are_picked_in_rotation_as_filebench_picks_them() {
    let p = small_with(&FILESERVER, 1, &[("files", 6)]);
    let cfg = Config::new(Kind::Fileserver, &p).unwrap();
    let set = Fileset::new(PathBuf::from("/x"), &cfg);
    // All absent: creates go 0, 1, 2 ...
    let made: Vec<u32> = (0..4).map(|_| set.take(false).unwrap()).collect();
    assert_eq!(made, [0, 1, 2, 3]);
    for &i in &made {
        set.put(i, true);
    }
    // Existing 0..=3, absent 4, 5: the existing rotor starts at 0 and wraps.
    assert_eq!(set.take(true), Some(0));
    assert_eq!(set.take(true), Some(1));
    set.put(1, true);
    assert_eq!(set.take(true), Some(2));
    assert_eq!(set.take(true), Some(3));
    // 0 and 2, 3 are held: after 3 the rotor wraps to the lowest free, 1.
    assert_eq!(set.take(true), Some(1));
    assert_eq!(set.take(true), None);
    // The absent rotor kept its own place (4), and wraps past 5 to 0 once 0 is deleted.
    assert_eq!(set.take(false), Some(4));
    assert_eq!(set.take(false), Some(5));
    set.put(0, false);
    assert_eq!(set.take(false), Some(0));
    // A read-only peek moves the existing rotor without holding the entry.
    set.put(2, true);
    set.put(3, true);
    assert_eq!(
        (set.peek(), set.peek(), set.peek()),
        (Some(2), Some(3), Some(2))
    );
}

/// Pre-allocation draws each entry, as filebench does: about PREALLOC percent of them, spread
/// over the whole index range rather than the first ones, the same for the same seed.
#[test]
fn the_entries_made_first_are_drawn_per_entry() {
    let with = |prealloc| {
        let p = small_with(&FILESERVER, 1, &[("files", 10_000), ("prealloc", prealloc)]);
        preallocated(&Config::new(Kind::Fileserver, &p).unwrap())
    };
    let made = with(80);
    assert!((7_700..=8_300).contains(&made.len()), "{}", made.len());
    let late = made.iter().filter(|&&i| i >= 9_000).count();
    assert!((700..=900).contains(&late), "{late} of the last 1,000");
    assert_eq!(made, with(80));
    assert_eq!(with(100).len(), 10_000);
    assert!(with(0).is_empty());
}

#[test]
fn io_uring_runs_where_available() {
    if crate::engine::probe_uring().is_err() {
        eprintln!("SKIP: io_uring unavailable");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut p: BTreeMap<&str, u64> = [("engine", 1), ("depth", 4)].into_iter().collect();
    for s in VARMAIL.params() {
        p.entry(s.name).or_insert(s.quick);
    }
    p.insert("runtime", 1);
    let pairs: Vec<(&str, u64)> = p.into_iter().collect();
    let got = run(&VARMAIL, tmp.path(), &crate::settings::with_pairs(&pairs)).unwrap();
    assert!(got["fsync_ops"] > 0.0);
}

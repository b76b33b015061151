//! Tests of the filebench personalities: every metric measured, operation counts that follow
//! from each flow, 1 and 4 threads, nothing left behind.

use super::*;
use crate::model::Sample;
use crate::workload::Method;
use std::collections::BTreeMap;

const ALL: [&Personality; 3] = [&FILESERVER, &VARMAIL, &WEBSERVER];

/// Quick-scale parameters of `w`, made small, with `threads`.
fn small(w: &Personality, threads: u64) -> Params {
    let mut p: BTreeMap<String, u64> = w
        .params()
        .iter()
        .map(|s| (s.name.to_string(), s.quick))
        .collect();
    for (k, v) in [
        ("files", 200),
        ("mean_size", 8 << 10),
        ("runtime", 1),
        ("threads", threads),
    ] {
        p.insert(k.into(), v);
    }
    let pairs: Vec<(&str, u64)> = p.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    Params::from_pairs(&pairs)
}

fn run(w: &Personality, dir: &Path, p: &Params) -> Result<BTreeMap<String, f64>, WorkloadError> {
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
    let mut rng = XorShift::new(1);
    let i = set.take(false, &mut rng).unwrap();
    assert!(set.take(true, &mut rng).is_none() && set.peek(&mut rng).is_none());
    set.put(i, true);
    assert_eq!(set.peek(&mut rng), Some(i));
}

#[test]
fn io_uring_runs_where_available() {
    if crate::engine::probe_uring().is_err() {
        eprintln!("SKIP: io_uring unavailable");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut p: BTreeMap<String, u64> = [("engine", 1), ("depth", 4)]
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    for s in VARMAIL.params() {
        p.entry(s.name.into()).or_insert(s.quick);
    }
    p.insert("runtime".into(), 1);
    let pairs: Vec<(&str, u64)> = p.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let got = run(&VARMAIL, tmp.path(), &Params::from_pairs(&pairs)).unwrap();
    assert!(got["fsync_ops"] > 0.0);
}

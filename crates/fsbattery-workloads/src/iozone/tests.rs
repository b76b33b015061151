//! Tests of the iozone workload: every test × record measured and named as declared, reads
//! verified against the writes, each block visited once by the stride and backward reads,
//! parameter and O_DIRECT refusals, ENOSPC mapping, and nothing left on the target.

use super::*;
use crate::engine::OffsetGen;
use crate::engine::{check_direct, DirectIo};
use crate::model::Sample;
use crate::params::Scale;
use crate::settings::Settings;
use crate::Method;
use std::time::Duration;

/// Size 1 MiB, records 4 KiB..64 KiB, buffered: 5 record sizes × 13 tests in well under 1 s.
fn tiny(direct: u64) -> Config {
    crate::settings::with_pairs(&[
        ("size", 1 << 20),
        ("min_record", 4 << 10),
        ("max_record", 64 << 10),
        ("direct", direct),
        ("buffered_fallback", 0),
        ("engine", 0),
        ("uring.depth", 1),
        ("stride", 17),
        ("stdio_buffer", 0),
    ])
}

fn run_on(target: &Path, p: &Config) -> Result<Vec<(String, Sample)>, WorkloadError> {
    let mut samples = Vec::new();
    let mut on = |m: &str, s: Sample| samples.push((m.to_string(), s));
    let mut ctx = WorkloadCtx::new(target, 0, Method::Native, Duration::ZERO, &mut on);
    let res = Iozone.run(&mut ctx, p);
    drop(ctx);
    res.map(|()| samples)
}

fn assert_empty(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    assert!(left.is_empty(), "files left on the target: {left:?}");
}

#[test]
fn every_test_and_record_is_measured_as_declared_and_nothing_is_left() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tiny(0);
    let samples = run_on(tmp.path(), &p).unwrap();
    let names: Vec<&str> = samples.iter().map(|s| s.0.as_str()).collect();
    let declared: Vec<String> = Iozone.metrics(&p).into_iter().map(|m| m.name).collect();
    assert_eq!(names, declared);
    assert_eq!(names.len(), 5 * 13);
    assert_eq!(names[0], "write@4096");
    assert_eq!(names[64], "freread@65536");
    for (m, s) in &samples {
        assert!(s.value > 0.0 && s.value.is_finite(), "{m} = {}", s.value);
        assert!(s.elapsed_s > 0.0 && s.cpu_pct >= 0.0, "{m}: {s:?}");
    }
    assert_empty(tmp.path());
}

#[test]
fn direct_io_runs_where_supported() {
    let tmp = tempfile::tempdir().unwrap();
    if !matches!(check_direct(tmp.path()), DirectIo::Supported) {
        eprintln!(
            "skipped: O_DIRECT not supported on {}",
            tmp.path().display()
        );
        return;
    }
    let mut p = tiny(1);
    for (k, v) in [("size", 256 << 10), ("max_record", 8 << 10)] {
        p = with(&p, k, v);
    }
    let samples = run_on(tmp.path(), &p).unwrap();
    assert_eq!(samples.len(), 2 * 13);
    assert_empty(tmp.path());
}

#[test]
fn io_uring_engine_runs_where_available() {
    if let Err(e) = crate::engine::probe_uring() {
        eprintln!("skipped: {e}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = with(&with(&tiny(0), "engine", 1), "uring.depth", 4);
    assert_eq!(run_on(tmp.path(), &p).unwrap().len(), 5 * 13);
    assert_empty(tmp.path());
}

fn with(p: &Config, key: &str, v: u64) -> Config {
    let mut pairs = p.to_pairs();
    pairs.push((key, v));
    crate::settings::with_pairs(&pairs)
}

fn setup(dir: &Path, c: &Config, direct: bool) -> Setup {
    Setup {
        dir: dir.to_path_buf(),
        file: dir.join("iozone.tmp"),
        rec_file: dir.join("iozone.DUMMY"),
        size: c.size,
        direct,
        engine: EngineSpec::Sync,
        stride: c.stride,
        stdio_buffer: c.stdio_buffer,
        verify: true,
    }
}

#[test]
fn every_engine_read_returns_what_the_writes_put_there() {
    let tmp = tempfile::tempdir().unwrap();
    let direct = matches!(check_direct(tmp.path()), DirectIo::Supported);
    let s = setup(tmp.path(), &tiny(0), direct);
    for rec in [4096, 65536] {
        let mut done = Vec::new();
        s.run_tests(rec, &mut done).unwrap();
        assert_eq!(done.len(), 13);
        s.remove_files();
    }
    assert_empty(tmp.path());
}

/// Block indices an engine test's job visits, as its generator produces them.
fn visits(s: &Setup, how: How, rec: u64) -> Vec<u64> {
    let spec = s.job(how, rec);
    let Stop::Ops(n) = spec.stop else {
        panic!("iozone jobs stop after a count")
    };
    let mut g = OffsetGen::new(spec.pattern, 0, spec.blocks(), rec, 1);
    (0..n).map(|_| g.next_offset() / rec).collect()
}

#[test]
fn stride_and_backward_reads_visit_every_block_exactly_once() {
    let dir = Path::new("/nonexistent");
    for (size, rec, stride) in [
        (1 << 20, 4096, 17),
        (100 * 4096, 4096, 17),
        (64 << 10, 8192, 3),
    ] {
        let p = with(&with(&tiny(0), "size", size), "stride", stride);
        let s = setup(dir, &p, false);
        let blocks = size / rec;
        for test in ["stride_read", "backward_read", "read"] {
            let how = TESTS.iter().find(|t| t.name == test).unwrap().how;
            let mut v = visits(&s, how, rec);
            if test == "backward_read" {
                assert_eq!(v[0], blocks - 1, "backward starts at the last block");
            }
            v.sort_unstable();
            assert_eq!(
                v,
                (0..blocks).collect::<Vec<_>>(),
                "{test} size {size} rec {rec}"
            );
        }
    }
}

#[test]
fn record_rewrite_rewrites_one_record_once_per_record_of_the_file() {
    let s = setup(Path::new("/x"), &tiny(0), false);
    let spec = s.job(How::RecordRewrite, 4096);
    assert_eq!((spec.file_size, spec.stop), (4096, Stop::Ops(256)));
    assert_eq!(spec.path, Path::new("/x/iozone.DUMMY"));
    assert!(visits(&s, How::RecordRewrite, 4096).iter().all(|&b| b == 0));
    // Random read and random write visit the same blocks, as iozone's srand48(0).
    let rr = TESTS.iter().find(|t| t.name == "random_read").unwrap().how;
    let rw = TESTS.iter().find(|t| t.name == "random_write").unwrap().how;
    assert_eq!(s.job(rr, 4096).seed, s.job(rw, 4096).seed);
}

#[test]
fn metrics_cover_the_record_sizes_of_each_scale() {
    let p = |scale| crate::settings::at_scale::<Config>(scale);
    let quick = Iozone.metrics(&p(Scale::Quick));
    assert_eq!(quick.len(), 8 * 13, "8K..1M");
    let standard = Iozone.metrics(&p(Scale::Standard));
    assert_eq!(standard.len(), 12 * 13, "8K..16M as S3");
    assert_eq!(standard.last().unwrap().name, "freread@16777216");
    assert!(standard.iter().all(|m| m.unit == "KB/s"));
    // Records larger than the file are skipped.
    let small = with(&p(Scale::Quick), "size", 20 << 10);
    assert_eq!(records(&small), [8192, 16384]);
}

#[test]
fn impossible_parameters_are_refused_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    for (key, v, says) in [
        ("min_record", 100, "at least 512"),
        ("size", 1024, "raise size"),
        ("stride", 0, "stride 0"),
        ("max_record", 4 << 30, "at most 1GiB"),
    ] {
        let e = run_on(tmp.path(), &with(&tiny(0), key, v)).unwrap_err();
        assert!(e.to_string().contains(says), "{key}={v}: {e}");
    }
    assert_empty(tmp.path());
}

#[test]
fn missing_o_direct_fails_unless_fallback() {
    let dir = Path::new("/mnt/t");
    let no = || DirectIo::Unsupported("EINVAL".into());
    let decide = |want, fallback, probe| {
        crate::io::decide_direct("iozone", want, fallback, dir, probe).map(|d| d.on())
    };
    let e = decide(true, false, no()).unwrap_err().to_string();
    assert!(
        e.contains("/mnt/t") && e.contains("buffered_fallback=1"),
        "{e}"
    );
    assert!(!decide(true, true, no()).unwrap());
    assert!(!decide(false, false, no()).unwrap());
    assert!(decide(true, false, DirectIo::SupportedButCached).unwrap());
}

#[test]
fn enospc_reads_as_target_full_with_the_bytes_written() {
    let tmp = tempfile::tempdir().unwrap();
    let s = setup(tmp.path(), &tiny(0), false);
    std::fs::write(&s.file, vec![0u8; 12345]).unwrap();
    let enospc = std::io::Error::from_raw_os_error(libc::ENOSPC);
    let e = s.full(WorkloadError::io("write x", enospc)).to_string();
    assert!(e.starts_with("target full after 12345 bytes"), "{e}");
    let short = EngineError::Short {
        kind: "write",
        offset: 0,
        got: 1,
        want: 2,
        path: s.file.clone(),
    };
    assert!(s.engine_error(short).to_string().contains("target full"));
    let other = std::io::Error::from_raw_os_error(libc::EIO);
    let e = s.full(WorkloadError::io("write x", other)).to_string();
    assert!(!e.contains("target full"), "{e}");
}

#[test]
#[ignore = "timing report for the hand-over notes: cargo test -- --ignored --nocapture"]
fn quick_scale_timing() {
    let tmp = tempfile::tempdir().unwrap();
    let p = crate::settings::at_scale::<Config>(Scale::Quick);
    let t = std::time::Instant::now();
    let samples = run_on(tmp.path(), &p).unwrap();
    eprintln!(
        "iozone quick on {}: {} samples in {:.1} s",
        tmp.path().display(),
        samples.len(),
        t.elapsed().as_secs_f64()
    );
    for (m, s) in &samples {
        eprintln!("{m:>24} {:>12.0} KB/s  cpu {:5.1} %", s.value, s.cpu_pct);
    }
}

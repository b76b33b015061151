//! Engine tests: every engine reads back exactly what it wrote, under every pattern, buffered
//! and O_DIRECT, one thread and four; the submit/reap contract; validation; latency sanity.
//!
//! Files are small (a few hundred KiB) in tempdirs. O_DIRECT tests run in the first candidate
//! directory whose filesystem honours it (probed); io_uring tests need a kernel and sandbox
//! that allow it (probed). A missing capability skips with a message, unless
//! `FSBATTERY_REQUIRE_PRIVILEGED=1`, as in CI, turns the skip into a failure.

use super::buffer::{matches, stamp};
use super::*;
use std::path::Path;
use std::time::Duration;
use tempfile::TempDir;

const BS: u32 = 4096;
const BLOCKS: u64 = 64;

fn require(what: &str) {
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("{what} is required (FSBATTERY_REQUIRE_PRIVILEGED=1)");
    }
    eprintln!("skipping: {what} unavailable");
}

fn uring_ok() -> bool {
    match probe_uring() {
        Ok(()) => true,
        Err(e) => {
            require(&format!("io_uring ({e})"));
            false
        }
    }
}

/// A tempdir where O_DIRECT works (real or cached), if any candidate has one.
fn direct_dir() -> Option<TempDir> {
    for base in [std::env::temp_dir(), "/var/tmp".into(), ".".into()] {
        if let Ok(d) = tempfile::tempdir_in(&base) {
            if !matches!(check_direct(d.path()), DirectIo::Unsupported(_)) {
                return Some(d);
            }
        }
    }
    require("a directory supporting O_DIRECT");
    None
}

/// Every registered engine that moves bytes (a new engine is round-tripped without a new
/// test), io_uring where it can be set up, and io_uring with its other options.
fn engines() -> Vec<EngineSpec> {
    let uring = uring_ok();
    let mut v: Vec<EngineSpec> = ENGINES
        .iter()
        .filter(|e| !e.caps.no_io && (uring || !e.caps.io_uring))
        .filter_map(|e| {
            EngineSpec::of(
                e,
                UringOptions {
                    depth: 8,
                    ..UringOptions::default()
                },
            )
        })
        .collect();
    if uring {
        v.push(EngineSpec::io_uring(UringOptions {
            depth: 3,
            registered_buffers: false,
            registered_files: false,
            batch: 2,
        }));
    }
    v
}

fn spec(path: &Path, engine: EngineSpec, direct: bool, jobs: u32, pattern: Pattern) -> JobSpec {
    JobSpec {
        pattern,
        engine,
        direct,
        jobs,
        seed: 42,
        ..JobSpec::new(path, BLOCKS * u64::from(BS), BS)
    }
}

fn expected_block(fill: Fill, seed: u64, offset: u64) -> Vec<u8> {
    let mut b = vec![0u8; BS as usize];
    fill.generate(seed, &mut b);
    if fill.stamps() {
        stamp(&mut b, offset);
    }
    b
}

/// Every block of the file is either untouched (zeros) or exactly what the job writes there.
/// Returns how many blocks were written.
fn check_file(s: &JobSpec) -> u64 {
    let data = std::fs::read(&s.path).unwrap();
    let mut base = vec![0u8; BS as usize];
    s.fill.generate(s.seed, &mut base);
    let mut written = 0;
    for (i, block) in data.chunks(BS as usize).enumerate() {
        let off = i as u64 * u64::from(BS);
        if matches(block, &base, off, s.fill.stamps()) {
            written += 1;
        } else {
            assert!(
                block.iter().all(|&b| b == 0),
                "block {i} is neither written nor zero"
            );
        }
    }
    written
}

fn assert_sane(r: &JobResult, ops: u64) {
    assert_eq!(r.ops, ops, "{r:?}");
    assert_eq!(r.bytes, ops * u64::from(BS));
    let l = r.latency;
    assert_eq!(l.count, ops);
    assert!(
        l.min_ns <= l.p50_ns && l.p50_ns <= l.p99_ns && l.p99_ns <= l.max_ns,
        "{l:?}"
    );
    assert!(l.p99_ns <= l.p999_ns && l.mean_ns > 0.0 && r.iops > 0.0);
    // The engine's mean in-flight count: positive, never above the depth per thread.
    assert!(
        r.queue_depth > 0.0 && r.queue_depth <= f64::from(r.depth) + 1e-9 && r.reaps <= ops,
        "{r:?}"
    );
}

/// Write with `pattern`, check the file directly, complete it sequentially, read it back with
/// `pattern` and verification on.
fn round_trip(dir: &Path, engine: EngineSpec, direct: bool, jobs: u32, pattern: Pattern) {
    let path = dir.join(format!("f-{}-{direct}-{jobs}-{pattern}", engine.name()));
    std::fs::File::create(&path)
        .unwrap()
        .set_len(BLOCKS * u64::from(BS))
        .unwrap();
    let what = format!("{} direct={direct} jobs={jobs} {pattern}", engine.name());
    let mut w = spec(&path, engine, direct, jobs, pattern);
    w.write_fraction = 1.0;
    let r = run_job(&w).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_sane(&r, BLOCKS);
    assert_eq!(r.write.ops, BLOCKS);
    let written = check_file(&w);
    if pattern == Pattern::Random {
        assert!(
            written > BLOCKS / 3,
            "{what}: only {written} blocks written"
        );
    } else {
        assert_eq!(written, BLOCKS, "{what}");
    }
    let full = JobSpec {
        pattern: Pattern::Sequential,
        ..w.clone()
    };
    run_job(&full).unwrap();
    assert_eq!(check_file(&full), BLOCKS);
    let mut rd = spec(&path, engine, direct, jobs, pattern);
    rd.verify = true;
    rd.file_mode = FileMode::Existing;
    rd.stop = Stop::Ops(2 * BLOCKS);
    let r = run_job(&rd).unwrap_or_else(|e| panic!("{what} read: {e}"));
    assert_sane(&r, 2 * BLOCKS);
    assert_eq!((r.read.ops, r.write.ops), (2 * BLOCKS, 0));
}

#[test]
fn engines_read_back_what_they_wrote_buffered() {
    let dir = tempfile::tempdir().unwrap();
    for engine in engines() {
        for jobs in [1, 4] {
            for pattern in [Pattern::Sequential, Pattern::Random, Pattern::Stride(5)] {
                round_trip(dir.path(), engine, false, jobs, pattern);
            }
        }
    }
}

#[test]
fn engines_read_back_what_they_wrote_direct() {
    let Some(dir) = direct_dir() else { return };
    for engine in engines() {
        for jobs in [1, 4] {
            for pattern in [Pattern::Sequential, Pattern::Random, Pattern::Backward] {
                round_trip(dir.path(), engine, true, jobs, pattern);
            }
        }
    }
}

#[test]
fn every_fill_round_trips_and_wrong_content_fails_verification() {
    let dir = tempfile::tempdir().unwrap();
    for (i, fill) in [Fill::Zeros, Fill::Compressible(0.3), Fill::Random]
        .into_iter()
        .enumerate()
    {
        let path = dir.path().join(format!("fill{i}"));
        let mut w = spec(&path, EngineSpec::Sync, false, 1, Pattern::Sequential);
        w.fill = fill;
        w.write_fraction = 1.0;
        w.file_mode = FileMode::Truncate;
        run_job(&w).unwrap();
        let data = std::fs::read(&path).unwrap();
        assert_eq!(&data[..BS as usize], &expected_block(fill, 42, 0)[..]);
        let mut r = w.clone();
        r.write_fraction = 0.0;
        r.file_mode = FileMode::Existing;
        r.verify = true;
        run_job(&r).unwrap();
        if fill != Fill::Zeros {
            r.seed = 43;
            let err = run_job(&r).unwrap_err();
            assert!(
                matches!(err, EngineError::Verify { offset: 0, .. }),
                "{err}"
            );
        }
    }
}

#[test]
fn mixed_reads_writes_and_fsyncs_keep_the_file_consistent() {
    let dir = tempfile::tempdir().unwrap();
    for engine in engines() {
        let path = dir.path().join(format!("mixed-{}", engine.name()));
        let mut w = spec(&path, engine, false, 2, Pattern::Sequential);
        w.write_fraction = 1.0;
        run_job(&w).unwrap();
        let mut m = spec(&path, engine, false, 2, Pattern::Random);
        m.write_fraction = 0.3;
        m.fsync_fraction = 0.2;
        m.verify = true;
        m.stop = Stop::Ops(2000);
        let r = run_job(&m).unwrap();
        assert_eq!(r.read.ops + r.write.ops, 2000);
        assert!(r.write.ops > 400 && r.write.ops < 800, "{:?}", r.write);
        assert!(r.fsync.ops > 0 && r.fsync.latency.count == r.fsync.ops);
        // Writes issued from slots that had been read into still carry the fill pattern.
        assert_eq!(check_file(&m), BLOCKS);
    }
}

#[test]
fn runtime_stop_ends_near_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("timed");
    let mut s = spec(&path, EngineSpec::Sync, false, 1, Pattern::Random);
    s.write_fraction = 1.0;
    s.stop = Stop::Runtime(Duration::from_millis(50));
    let r = run_job(&s).unwrap();
    assert!(r.elapsed_s >= 0.05 && r.elapsed_s < 1.0, "{}", r.elapsed_s);
    assert!(r.ops > 0 && r.latency.count == r.ops);
}

fn laid_out(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("contract");
    let mut w = spec(&path, EngineSpec::Sync, false, 1, Pattern::Sequential);
    w.write_fraction = 1.0;
    run_job(&w).unwrap();
    path
}

fn read_op(slot: u16) -> Op {
    Op {
        kind: OpKind::Read,
        offset: u64::from(slot) * u64::from(BS),
        len: BS,
        slot,
        file: 0,
        issued_ns: u64::from(slot) + 100,
    }
}

#[test]
fn sync_engine_completes_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = laid_out(dir.path());
    let file = std::fs::File::open(&path).unwrap();
    let mut e = SyncEngine::new(BufferPool::new(1, BS as usize, 4096));
    assert_eq!(e.add_file(file).unwrap(), 0);
    match e.submit(read_op(0)).unwrap() {
        Submit::Completed(c) => assert_eq!((c.result, c.op), (BS as i32, read_op(0))),
        other => panic!("sync engine answered {other:?}"),
    }
    assert_eq!(e.in_flight(), 0);
    assert_eq!(e.reap(1, &mut Vec::new()).unwrap(), 0);
    let past_end = Op {
        offset: 10 * BLOCKS * u64::from(BS),
        ..read_op(0)
    };
    assert!(matches!(e.submit(past_end).unwrap(), Submit::Completed(c) if c.result == 0));
}

#[test]
fn uring_engine_queues_then_reports_busy_then_reaps() {
    if !uring_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = laid_out(dir.path());
    let file = std::fs::File::open(&path).unwrap();
    let opts = UringOptions {
        depth: 4,
        ..UringOptions::default()
    };
    let pool = BufferPool::new(4, BS as usize, 4096);
    let mut e = UringEngine::new(pool, opts).unwrap();
    assert_eq!(e.add_file(file).unwrap(), 0);
    for slot in 0..4 {
        assert_eq!(e.submit(read_op(slot)).unwrap(), Submit::Queued);
    }
    assert_eq!(e.in_flight(), 4);
    assert_eq!(e.submit(read_op(0)).unwrap(), Submit::Busy);
    let mut out = Vec::new();
    let n = e.reap(1, &mut out).unwrap();
    assert!(n >= 1 && n == out.len() && e.in_flight() == 4 - n);
    let freed = out[0].op.slot;
    assert_eq!(e.submit(read_op(freed)).unwrap(), Submit::Queued);
    // `freed` is in flight again: reusing it is a caller bug, refused (or Busy if full).
    if e.in_flight() < 4 {
        assert!(
            e.submit(read_op(freed)).is_err(),
            "slot reused while in flight"
        );
    } else {
        assert_eq!(e.submit(read_op(freed)).unwrap(), Submit::Busy);
    }
    let left = e.in_flight();
    out.clear();
    assert_eq!(e.reap(usize::MAX, &mut out).unwrap(), left);
    assert_eq!(e.in_flight(), 0);
    for c in &out {
        assert_eq!(c.result, BS as i32);
        let want = expected_block(Fill::Random, 42, c.op.offset);
        assert_eq!(e.buffers().slot(c.op.slot as usize), &want[..]);
    }
    // reap(0) only polls, yet a polled completion still arrives (deferred task work runs).
    assert_eq!(e.submit(read_op(2)).unwrap(), Submit::Queued);
    out.clear();
    let start = std::time::Instant::now();
    while out.is_empty() && start.elapsed() < Duration::from_secs(5) {
        e.reap(0, &mut out).unwrap();
    }
    assert_eq!((out.len(), out[0].result), (1, BS as i32));
}

#[test]
fn impossible_jobs_are_refused_before_io() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("never");
    let mut s = spec(&path, EngineSpec::Sync, false, 1, Pattern::Sequential);
    s.file_mode = FileMode::Truncate;
    assert!(matches!(s.validate(), Err(EngineError::Invalid(_))));
    s.file_mode = FileMode::Create;
    s.jobs = 100;
    assert!(matches!(s.validate(), Err(EngineError::Invalid(_))));
    s.jobs = 1;
    s.engine = EngineSpec::uring(0);
    assert!(s.validate().is_err());
    s.engine = EngineSpec::Sync;
    s.direct = true;
    s.block_size = 1000;
    assert!(s.validate().is_err());
    assert!(!path.exists(), "validation touched the file system");
    let mut r = spec(&path, EngineSpec::Sync, false, 1, Pattern::Sequential);
    r.file_mode = FileMode::Existing;
    assert!(matches!(run_job(&r), Err(EngineError::Io { .. })));
    r.file_mode = FileMode::Create;
    let err = run_job(&r).unwrap_err().to_string();
    assert!(err.contains("lay it out first"), "{err}");
}

#[test]
fn direct_io_probe_tells_tmpfs_apart() {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        assert_ne!(check_direct(shm), DirectIo::Supported);
    }
    if let Some(d) = direct_dir() {
        let a = dio_alignment(d.path());
        assert!(a.mem >= 4096 && a.offset.is_power_of_two());
    }
}

/// Submit `op` and wait for its completion, whatever kind of engine.
fn one(e: &mut dyn Engine, op: Op) -> i32 {
    match e.submit(op).unwrap() {
        Submit::Completed(c) => c.result,
        Submit::Queued => {
            let mut out = Vec::new();
            e.reap(1, &mut out).unwrap();
            out[0].result
        }
        Submit::Busy => panic!("busy with nothing in flight"),
    }
}

#[test]
fn one_engine_serves_many_files() {
    let dir = tempfile::tempdir().unwrap();
    for spec in engines() {
        let mut e = spec
            .build(BufferPool::new(spec.depth() as usize, BS as usize, 4096))
            .unwrap();
        let mut ids = Vec::new();
        for i in 0..3u8 {
            let path = dir.path().join(format!("many-{}-{i}", spec.name()));
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .unwrap();
            ids.push(e.add_file(f).unwrap());
        }
        assert_eq!(ids, [0, 1, 2]);
        for &id in &ids {
            e.buffers_mut().slot_mut(0).fill(id as u8 + 1);
            let w = Op {
                kind: OpKind::Write,
                file: id,
                ..read_op(0)
            };
            assert_eq!(one(e.as_mut(), w), BS as i32);
            let s = Op {
                kind: OpKind::Fsync,
                file: id,
                ..read_op(0)
            };
            assert_eq!(one(e.as_mut(), s), 0);
        }
        for &id in ids.iter().rev() {
            assert_eq!(
                one(
                    e.as_mut(),
                    Op {
                        file: id,
                        ..read_op(0)
                    }
                ),
                BS as i32
            );
            assert!(e.buffers().slot(0).iter().all(|&b| b == id as u8 + 1));
        }
        assert!(e.remove_file(1).is_some());
        assert_eq!(
            one(
                e.as_mut(),
                Op {
                    file: 1,
                    ..read_op(0)
                }
            ),
            -libc::EBADF
        );
        let f = std::fs::File::open(dir.path().join(format!("many-{}-0", spec.name()))).unwrap();
        assert_eq!(e.add_file(f).unwrap(), 1, "freed index is reused");
        assert_eq!(
            one(
                e.as_mut(),
                Op {
                    file: 1,
                    ..read_op(0)
                }
            ),
            BS as i32
        );
    }
}

#[test]
fn auto_reap_batch_is_a_quarter_of_the_depth_per_thread_and_an_explicit_batch_wins() {
    let spec = |depth, batch| {
        EngineSpec::io_uring(UringOptions {
            depth,
            batch,
            ..UringOptions::default()
        })
    };
    let auto: Vec<u32> = [1, 2, 8, 32, 128, 4096]
        .iter()
        .map(|&d| spec(d, 0).reap_batch(1))
        .collect();
    assert_eq!(auto, [1, 1, 2, 8, 16, 16]);
    let four: Vec<u32> = [8, 32, 128]
        .iter()
        .map(|&d| spec(d, 0).reap_batch(4))
        .collect();
    assert_eq!(four, [1, 2, 8]);
    assert_eq!(spec(32, 0).reap_batch(0), 8, "0 threads counts as 1");
    assert_eq!(UringOptions::default().batch, 0, "auto is the default");
    assert_eq!(spec(32, 1).reap_batch(4), 1);
    assert_eq!(spec(32, 64).reap_batch(1), 32, "clamped to the depth");
    assert_eq!(EngineSpec::Sync.reap_batch(1), 1);
}

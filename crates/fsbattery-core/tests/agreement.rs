//! Agreement with the reference tools: fsbattery's random IO against fio, and its bonnie
//! workload against bonnie++ and fio, on the same freshly made ext4 loop filesystem.
//!
//! Every side uses O_DIRECT (fio `--direct=1`, bonnie++ `-D`, fsbattery `direct=1`) and the
//! loop device is bound with direct IO (`dio=on`), so no tool is flattered by a page cache the
//! other misses: fsbattery drops caches before every phase, bonnie++ never does. bonnie++
//! 2.00a's `-D` only covers its write pass, so the cold block read is checked against fio
//! running bonnie's block input; bonnie++'s own (cached) read, rewrite and seeks are printed.
//!
//! The disk is shared with other work, so single runs swing by several times. Sides run
//! interleaved in rounds; each keeps its best result (best-of-N converges on the quiet-disk
//! number, which is what is compared); rounds continue, 2 to 6, until every pair agrees.
//!
//! Tolerances: IOPS within ±15% (same system calls, block size, mix and threads; only the
//! offset generator and bookkeeping differ). Block write/read within ±25%: bonnie++ times
//! passes with its own clock and rounds K/sec, and our write clock includes a closing fsync
//! (cheap with O_DIRECT, not free); 25% still catches a workload that measures the page cache
//! or moves the wrong number of bytes.
//!
//! Prerequisites: root, /dev/loop-control, mkfs.ext4, fio, bonnie++. Missing ones SKIP with the
//! reason, unless FSBATTERY_REQUIRE_PRIVILEGED=1, where they FAIL. Nothing stays mounted: the
//! target is torn down by a guard on every path.

use fsbattery_core::engine::{run_job, EngineSpec, FileMode, Fill, JobSpec, Pattern, Stop};
use fsbattery_core::model::Sample;
use fsbattery_core::params::{Params, Scale};
use fsbattery_core::target::{self, availability, Target, TargetOptions};
use fsbattery_core::workload::{self, Method, WorkloadCtx};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The agreement tests share one disk: run one at a time, or each disturbs the other's
/// measurements (the test harness runs tests on parallel threads).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn require(what: &str, ok: bool) -> bool {
    if ok {
        return true;
    }
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("missing prerequisite (FSBATTERY_REQUIRE_PRIVILEGED=1): {what}");
    }
    eprintln!("SKIP: {what}");
    false
}

fn runs(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).output().is_ok()
}

fn prerequisites() -> bool {
    let ext4 = availability()
        .into_iter()
        .find(|(n, _)| n == "ext4")
        .is_some_and(|(_, r)| r.is_ok());
    require("running as root", nix::unistd::geteuid().is_root())
        && require(
            "/dev/loop-control exists",
            Path::new("/dev/loop-control").exists(),
        )
        && require("ext4 loop filesystems (mkfs.ext4)", ext4)
        && require(
            "fio installed (apt-get install fio)",
            runs("fio", "--version"),
        )
        && require(
            "bonnie++ installed (apt-get install bonnie++)",
            runs("bonnie++", "-h"),
        )
}

/// A mounted ext4 loop filesystem, torn down on drop (also when a comparison panics).
struct Mounted {
    target: Box<dyn Target>,
    _work: tempfile::TempDir,
}

impl Mounted {
    fn ext4(size: &str) -> Mounted {
        let work = tempfile::Builder::new()
            .prefix("fsb-agree-")
            .tempdir()
            .unwrap();
        let opts = TargetOptions {
            workdir: work.path().to_path_buf(),
            ..TargetOptions::default()
        };
        let spec = format!("loop:ext4,size={size},dio=on");
        let mut target = target::parse(&spec, &opts).unwrap();
        target.setup(0).unwrap_or_else(|e| panic!("{spec}: {e}"));
        Mounted {
            target,
            _work: work,
        }
    }

    fn root(&self) -> PathBuf {
        self.target.root().to_path_buf()
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Err(e) = self.target.teardown() {
            eprintln!("teardown failed: {e}");
        }
    }
}

/// Most rounds a comparison may take before it is declared a disagreement. A median of six
/// per-round ratios still swung from 0.85 to 1.0 on a quiet 2-core VM (single rounds ranged
/// 0.68–1.42, 2026-11-23); more rounds steady the median without widening the tolerance.
const MAX_ROUNDS: usize = 9;

/// Every round's value per measurement, rounds interleaved so a drift of the shared disk
/// hits every side alike.
#[derive(Default)]
struct Best(BTreeMap<String, Vec<f64>>);

impl Best {
    fn put(&mut self, what: &str, v: f64) {
        eprintln!("RUN {what}: {v:.1}");
        self.0.entry(what.to_string()).or_default().push(v);
    }

    /// Median over the rounds (for the informational lines).
    fn get(&self, what: &str) -> f64 {
        self.0.get(what).map(|v| median(v.clone())).unwrap_or(0.0)
    }

    /// Median over the rounds of ours ÷ theirs measured in the same round: robust against
    /// one side catching a quiet (or busy) moment that the other missed, which a best-of-N
    /// comparison turns into a false disagreement.
    fn ratio(&self, ours: &str, theirs: &str) -> f64 {
        let (o, t) = (self.0.get(ours), self.0.get(theirs));
        let (Some(o), Some(t)) = (o, t) else {
            return f64::NAN;
        };
        median(
            o.iter()
                .zip(t)
                .filter(|(_, t)| **t > 0.0)
                .map(|(o, t)| o / t)
                .collect(),
        )
    }
}

/// Sync and drop the page cache as the runner does before every timed phase of a workload, so
/// the reference reads what ours reads. Without it fio's file, kept across rounds, was read
/// from the cache of the loop image's backing file in later rounds (fio seq read 809 then
/// 1,211 MB/s beside ours at 830, 2026-11-23) and the comparison measured cache, not I/O.
fn same_cache_state(file: &Path) {
    if file.exists() {
        let _ = fsbattery_core::cache::quiesce(&[file]);
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Rounds of `round` (each measuring every side once) until `pairs` (ours, reference,
/// tolerance) all agree by the median of the per-round ratios: at least three rounds, at
/// most [`MAX_ROUNDS`]; then every pair is checked and reported.
fn converge(mut round: impl FnMut(&mut Best), pairs: &[(&str, &str, f64)]) -> Best {
    let mut best = Best::default();
    for n in 1..=MAX_ROUNDS {
        round(&mut best);
        let agree = pairs
            .iter()
            .all(|&(o, r, tol)| within(best.ratio(o, r), tol));
        if n >= 3 && agree {
            break;
        }
    }
    for &(o, r, tol) in pairs {
        check(o, r, best.ratio(o, r), tol);
    }
    best
}

fn within(ratio: f64, tolerance: f64) -> bool {
    (1.0 - tolerance..=1.0 + tolerance).contains(&ratio)
}

fn check(ours_name: &str, ref_name: &str, ratio: f64, tolerance: f64) {
    eprintln!(
        "AGREEMENT {ours_name} / {ref_name} = median per-round ratio {ratio:.3} (±{}%)",
        tolerance * 100.0
    );
    assert!(
        within(ratio, tolerance),
        "{ours_name} vs {ref_name}: median per-round ratio {ratio:.3} is outside ±{}%",
        tolerance * 100.0
    );
}

/// Run a workload natively in `dir` with `over` on its quick defaults; metric → value.
fn run_workload(name: &str, dir: &Path, over: &[(&str, String)]) -> BTreeMap<String, f64> {
    let w = workload::find(name).unwrap();
    let o: BTreeMap<String, String> = over
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let p = Params::resolve(name, w.params(), Scale::Quick, 0, &o).unwrap();
    let mut out = BTreeMap::new();
    let mut on = |m: &str, s: Sample| {
        out.insert(m.to_string(), s.value);
    };
    let mut ctx = WorkloadCtx::new(dir, 0, Method::Native, Duration::ZERO, &mut on);
    w.run(&mut ctx, &p)
        .unwrap_or_else(|e| panic!("{name} failed: {e}"));
    drop(ctx);
    out
}

const FILE_SIZE: u64 = 512 << 20;
const RUNTIME_S: u64 = 3;

/// fio's IOPS for 4 KiB random reads and writes, 25% writes, O_DIRECT, psync, on `file`.
fn fio_iops(file: &Path, threads: u32) -> f64 {
    same_cache_state(file);
    let out = Command::new("fio")
        .args([
            "--name=agree",
            "--rw=randrw",
            "--rwmixwrite=25",
            "--bs=4k",
            "--direct=1",
            "--ioengine=psync",
            "--thread",
            "--group_reporting",
            "--time_based",
            "--norandommap",
            "--output-format=json",
        ])
        .arg(format!("--filename={}", file.display()))
        .arg(format!("--size={FILE_SIZE}"))
        .arg(format!("--numjobs={threads}"))
        .arg(format!("--runtime={RUNTIME_S}"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fio: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let job = &v["jobs"][0];
    job["read"]["iops"].as_f64().unwrap() + job["write"]["iops"].as_f64().unwrap()
}

/// fsbattery's engine with the same job as [`fio_iops`] on the same file.
fn engine_iops(file: &Path, threads: u32) -> f64 {
    same_cache_state(file);
    let spec = JobSpec {
        pattern: Pattern::Random,
        write_fraction: 0.25,
        direct: true,
        engine: EngineSpec::Sync,
        jobs: threads,
        stop: Stop::Runtime(Duration::from_secs(RUNTIME_S)),
        fill: Fill::Random,
        file_mode: FileMode::Existing,
        seed: 7,
        ..JobSpec::new(file, FILE_SIZE, 4096)
    };
    run_job(&spec).unwrap().iops
}

#[test]
fn random_io_agrees_with_fio() {
    let _one_at_a_time = serial();
    if !prerequisites() {
        return;
    }
    let fs = Mounted::ext4("2G");
    let file = fs.root().join("shared");
    // Lay the shared file out once with a sequential write job (fio then reuses it as is).
    let layout = JobSpec {
        write_fraction: 1.0,
        file_mode: FileMode::Truncate,
        ..JobSpec::new(&file, FILE_SIZE, 1 << 20)
    };
    run_job(&layout).unwrap();
    let root = fs.root();
    for threads in [1, 4] {
        let over = [
            ("threads", threads.to_string()),
            ("write_pct", "25".into()),
            ("sync_pct", "0".into()),
            ("request", "4096".into()),
            ("runtime", RUNTIME_S.to_string()),
            ("size", FILE_SIZE.to_string()),
            ("direct", "1".into()),
        ];
        let (fio, engine, wl) = (
            format!("fio IOPS, {threads} thread(s)"),
            format!("engine IOPS, {threads} thread(s), same file"),
            format!("randomio workload IOPS, {threads} thread(s)"),
        );
        converge(
            |b| {
                b.put(&fio, fio_iops(&file, threads));
                b.put(&engine, engine_iops(&file, threads));
                b.put(&wl, run_workload("randomio", &root, &over)["iops"]);
            },
            &[(&engine, &fio, 0.15), (&wl, &fio, 0.15)],
        );
    }
    std::fs::remove_file(&file).unwrap();
}

/// bonnie++'s K/sec fields of one CSV line: block write, rewrite, block read, seeks (/s).
/// "+++++" (a pass too short for bonnie to time) is `None`.
fn bonnie_csv(line: &str) -> [Option<f64>; 4] {
    let f: Vec<&str> = line.split(',').collect();
    assert!(f.len() > 20, "not a bonnie++ CSV line: {line}");
    [11, 13, 17, 19].map(|i| f[i].trim().parse::<f64>().ok())
}

/// Run bonnie++ on `dir` with O_DIRECT and no small-file tests; MB/s (10^6) and seeks/s.
fn bonnie_pp(dir: &Path, size_mib: u64) -> [Option<f64>; 4] {
    let out = Command::new("bonnie++")
        .arg("-d")
        .arg(dir)
        .args(["-n", "0", "-f", "-u", "root", "-q", "-D"])
        .arg("-s")
        .arg(format!("{size_mib}m:256k"))
        .arg("-r")
        .arg((size_mib / 2).to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bonnie++: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.split(',').count() > 20)
        .unwrap_or_else(|| panic!("no CSV line in bonnie++ output:\n{stdout}"));
    let [w, rw, r, s] = bonnie_csv(line);
    let mb = |k: Option<f64>| k.map(|k| k * 1024.0 / 1e6);
    [mb(w), mb(rw), mb(r), s]
}

/// fio's MB/s (10^6) for one sequential O_DIRECT pass (`rw` = read or write) of `size_mib`
/// over `file` in 256 KiB psync requests: bonnie's block input/output, one op at a time.
fn fio_seq(file: &Path, rw: &str, size_mib: u64) -> f64 {
    same_cache_state(file);
    let out = Command::new("fio")
        .args([
            "--name=seq",
            "--bs=256k",
            "--direct=1",
            "--ioengine=psync",
            "--output-format=json",
        ])
        .arg(format!("--rw={rw}"))
        .arg(format!("--filename={}", file.display()))
        .arg(format!("--size={size_mib}M"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fio: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["jobs"][0][rw]["bw_bytes"].as_f64().unwrap() / 1e6
}

#[test]
fn bonnie_agrees_with_bonnie_plus_plus_and_fio() {
    let _one_at_a_time = serial();
    if !prerequisites() {
        return;
    }
    // Large enough that bonnie++ times every pass (it prints "+++++" under half a second).
    let size_mib = 2048;
    // Room for bonnie++'s or our big file beside fio's.
    let fs = Mounted::ext4("5G");
    let root = fs.root();
    // bonnie++ 2.00 seeks with 5 processes and 8192 seeks (1.03, the seeds' version: 3 and
    // 8000); ours is set to the same for the comparison.
    let over = [
        ("size", format!("{size_mib}MiB")),
        ("chunk", "256KiB".into()),
        ("files", "0".into()),
        ("direct", "1".into()),
        ("seekers", "5".into()),
        ("seeks", "8192".into()),
    ];
    // bonnie++ 2.00a's -D opens only the write pass with O_DIRECT (strace: rewrite, read and
    // seeks reopen the file without it), and its buffered rewrite leaves a file smaller than
    // RAM in the page cache, so its block input reads memory. The cold O_DIRECT block input is
    // compared with fio doing exactly bonnie's block input (256 KiB psync reads) instead.
    let file = root.join("fio-seq");
    let best = converge(
        |b| {
            let [w, rw, r, s] = bonnie_pp(&root, size_mib);
            for (name, v) in [("write", w), ("rewrite", rw), ("read", r), ("seeks", s)] {
                b.put(&format!("bonnie++ {name}"), v.unwrap_or(0.0));
            }
            for (m, v) in run_workload("bonnie", &root, &over) {
                b.put(&format!("fsbattery {m}"), v);
            }
            b.put("fio seq read", fio_seq(&file, "read", size_mib));
        },
        &[
            ("fsbattery seq_write", "bonnie++ write", 0.25),
            ("fsbattery seq_read", "fio seq read", 0.25),
        ],
    );
    std::fs::remove_file(&file).unwrap();
    // Reported, not asserted: bonnie++ runs these buffered (see above), ours with O_DIRECT.
    for (ours, theirs) in [
        ("seq_read", "read"),
        ("rewrite", "rewrite"),
        ("seeks", "seeks"),
    ] {
        let (o, t) = (
            best.get(&format!("fsbattery {ours}")),
            best.get(&format!("bonnie++ {theirs}")),
        );
        if t > 0.0 {
            eprintln!(
                "AGREEMENT (info) fsbattery {ours} {o:.1} / bonnie++ {theirs} {t:.1} = ratio {:.3}",
                o / t
            );
        }
    }
}

#[test]
fn bonnie_csv_fields() {
    let line = "1.98,2.00a,vm,1,1795381437,256M,,8192,5,,,+++++,+++,365952,40,,,412000,30,\
                +++++,+++,,,,,,,,,,,,,,,,,,,10591us,45090us,,4059us,44343us,,,,,,";
    assert_eq!(
        bonnie_csv(line),
        [None, Some(365952.0), Some(412000.0), None]
    );
}

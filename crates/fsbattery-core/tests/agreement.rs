//! Agreement with the reference tools: fsbattery's random IO against fio, and its bonnie
//! workload against bonnie++ (its six small-file rates, and its block write) and fio (the
//! cold block read), on the same freshly made ext4 loop filesystem.
//!
//! The small-file rates and randomio are measured the way users get them: through the runner
//! (`agree::run_via_runner`) with the CLI's default `--cache tool`, so the runner's per-phase
//! cache handling is part of what is checked (bonnie: nothing dropped between create, stat and
//! delete, as bonnie++; randomio: fio's invalidate). Both hold to ±10%, the median of
//! per-round ratios. bonnie++ prints "+++++" for a pass under half a second (its MinTime), so
//! the file count is set where its fastest pass (stat) still takes most of a second.
//! Rounds in which another process dropped the page cache are left out (`DROPS`, `SKIP`);
//! on a machine busy with other work single rounds still swing by 2× and a comparison can
//! fail on noise (2026-11-23, load 7–12 on 2 cores: 2 passes, 3 failures, no rate on one side).
//!
//! The block passes use O_DIRECT on every side (fio `--direct=1`, bonnie++ `-D`, fsbattery
//! `direct=1`) on a loop device bound with direct IO (`dio=on`). bonnie++ 2.00a's `-D` only
//! covers its write pass, so the cold block read is checked against fio running bonnie's block
//! input; bonnie++'s own (cached) read, rewrite and seeks are printed. Block write/read hold to
//! ±25%: bonnie++ times passes with its own clock and rounds K/sec, and our write clock
//! includes a closing fsync (cheap with O_DIRECT, not free).
//!
//! Rounds, ratios and the loop filesystem come from the shared harness (`agree/mod.rs`).
//!
//! Prerequisites: root, /dev/loop-control, mkfs.ext4, fio, bonnie++. Missing ones SKIP with the
//! reason, unless FSBATTERY_REQUIRE_PRIVILEGED=1, where they FAIL. Nothing stays mounted: the
//! target is torn down by a guard on every path.

mod agree;

use agree::{
    converge, converge_up_to, prerequisites, run_via_runner, run_workload, same_cache_state,
    serial, Mounted,
};
use fsbattery_core::engine::{run_job, EngineSpec, FileMode, Fill, JobSpec, Pattern, Stop};
use fsbattery_core::model::{CachePolicy, CachePrep};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The reference tools these tests run beside fsbattery.
const TOOLS: &[(&str, &str, &str)] = &[("fio", "--version", "fio"), ("bonnie++", "-h", "bonnie++")];

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
    if !prerequisites(TOOLS) {
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
        // The three sides take turns at going first: with fio always first, a quiet run
        // (2026-11-29 12:10) put the engine at 1.152 x fio, 90 % interval 1.016-1.248, where
        // earlier runs had agreed; whatever the first run of a round pays, each side pays it
        // in a third of the rounds.
        let mut round = 0usize;
        converge(
            |b| {
                for k in 0..3 {
                    match (round + k) % 3 {
                        0 => b.put(&fio, fio_iops(&file, threads)),
                        1 => b.put(&engine, engine_iops(&file, threads)),
                        _ => {
                            let wl_iops =
                                run_via_runner("randomio", &root, &over, CachePolicy::Tool)["iops"]
                                    .value;
                            b.put(&wl, wl_iops);
                        }
                    }
                }
                round += 1;
            },
            &[(&engine, &fio, 0.10), (&wl, &fio, 0.10)],
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

/// bonnie++'s six small-file rates (files/s) of one CSV line, in the order of [`FILE_RATES`];
/// "+++++" is `None`.
fn bonnie_csv_files(line: &str) -> [Option<f64>; 6] {
    let f: Vec<&str> = line.split(',').collect();
    assert!(f.len() > 36, "not a bonnie++ CSV line: {line}");
    [26, 28, 30, 32, 34, 36].map(|i| f[i].trim().parse::<f64>().ok())
}

/// Run bonnie++ as root on `dir` with `args`; its CSV line.
fn bonnie_pp_line(dir: &Path, args: &[String]) -> String {
    let out = Command::new("bonnie++")
        .arg("-d")
        .arg(dir)
        .args(["-u", "root", "-q"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bonnie++: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find(|l| l.split(',').count() > 20)
        .unwrap_or_else(|| panic!("no CSV line in bonnie++ output:\n{stdout}"))
        .to_string()
}

/// Run bonnie++ on `dir` with O_DIRECT and no small-file tests; MB/s (10^6) and seeks/s.
fn bonnie_pp(dir: &Path, size_mib: u64) -> [Option<f64>; 4] {
    let args = [
        "-n".into(),
        "0".into(),
        "-f".into(),
        "-D".into(),
        "-s".into(),
        format!("{size_mib}m:256k"),
        "-r".into(),
        (size_mib / 2).to_string(),
    ];
    let [w, rw, r, s] = bonnie_csv(&bonnie_pp_line(dir, &args));
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
    if !prerequisites(TOOLS) {
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

#[test]
fn bonnie_csv_file_fields() {
    let line = "1.98,2.00a,vm,1,1795475884,,,,,,,,,,,,,,,,,64,1999,,,,16170,36,70968,57,27689,\
                62,21070,45,+++++,+++,22308,60,,,,,,,11098us,17876us,9510us,9418us,12429us,8485us";
    let want = [16170.0, 70968.0, 27689.0, 21070.0].map(Some);
    assert_eq!(bonnie_csv_files(line)[..4], want);
    assert_eq!(bonnie_csv_files(line)[4..], [None, Some(22308.0)]);
}

/// bonnie's small-file metrics, in bonnie++'s CSV order.
const FILE_RATES: [&str; 6] = [
    "seq_create",
    "seq_stat",
    "seq_delete",
    "random_create",
    "random_stat",
    "random_delete",
];

/// bonnie++ `-n FILES_K` (× 1024 files) of up to 1999 bytes, S2's shape. bonnie++ prints
/// `+++++` for a pass under half a second, so its stat passes need room: at 64 they took
/// 0.9 s on one machine (2026-11-23) but 0.50–0.60 s on a CI run (2026-11-24), where bonnie++
/// reported seq_stat in 3 rounds of 9 — only its slow ones — and the median ratio, 1.16, was
/// that selection, not a difference. At 128 a stat pass takes about a second at 130k files/s.
const FILES_K: u64 = 128;

/// Most rounds the six file rates may take. A single round's ratio varies by about 0.13
/// (standard deviation over 49 rounds from 9 runs, 2026-11-26/27; the same with the image in
/// memory and with both tools pinned to one CPU, so the machine, not the disk), and the six
/// must agree at one look. Pooled over those rounds, fsbattery's stat passes ran 0.96–0.97 ×
/// bonnie++'s, the other passes 0.98–1.0; seq_stat was 0.89–0.91 in three later runs that
/// morning (the same system calls per file on both sides, user-space time a few per cent of
/// either's: cause not found). A simulation of that (per-round noise, those medians, a
/// run-level drift of 2 %) failed a correct comparison in 26 % of runs with 9 rounds, and
/// fresh-clone CI runs failed on this test 4 times in 5 (1.164, 1.114, 0.878, 0.831). With 25
/// rounds it fails about 3 % of runs; a round takes 15–20 s and most runs stop within 12.
const FILE_RATE_ROUNDS: usize = 25;

/// One round of bonnie++'s six file tests and fsbattery's, through the runner, the one first
/// in odd rounds the other in even ones (`round`): with 131,072 files the tool that went second
/// stat'ed slower in 5 of 6 rounds, whichever it was, by up to 20 % (2026-11-24), and 9 rounds
/// with bonnie++ always first put fsbattery's seq_stat at 0.886 ×: a fixed order measures
/// the order. A round in which another process dropped the page cache (neither
/// side does here) measured that process, not the tools: a stat pass found its inodes gone at
/// 5–13k files/s instead of 55–120k (2026-11-23, while other tests dropped caches 1–9 times a
/// second). It puts nothing and does not count toward the three rounds the comparison needs.
fn file_round(b: &mut agree::Best, root: &Path, round: &mut u32) {
    *round += 1;
    let args = [
        "-s".into(),
        "0".into(),
        "-n".into(),
        format!("{FILES_K}:1999:0:1"),
    ];
    let over = [
        ("size", "0".to_string()),
        ("files", (FILES_K * 1024).to_string()),
        ("max_size", "1999".into()),
        ("min_size", "0".into()),
        ("dirs", "1".into()),
    ];
    let bonnie_pp = || {
        let drops = agree::foreign_drops();
        let theirs = bonnie_csv_files(&bonnie_pp_line(root, &args));
        (theirs, drops.end("bonnie++"))
    };
    let fsbattery = || {
        let drops = agree::foreign_drops();
        let ours = run_via_runner("bonnie", root, &over, CachePolicy::Tool);
        (ours, drops.end("fsbattery"))
    };
    let ((theirs, theirs_drops), (ours, ours_drops)) = if *round % 2 == 1 {
        let t = bonnie_pp();
        (t, fsbattery())
    } else {
        let o = fsbattery();
        (bonnie_pp(), o)
    };
    for m in FILE_RATES {
        // The runner dropped nothing before the passes that read files create made.
        if let Some(c) = ours[m].cache {
            assert_eq!(c.prep, CachePrep::Nothing, "{m}: {c:?}");
        }
    }
    if theirs_drops + ours_drops > 0 {
        eprintln!("SKIP round: another process dropped the page cache during it");
        return;
    }
    for (m, v) in FILE_RATES.iter().zip(theirs) {
        // A pass bonnie++ did not time says nothing about the ratio: neither side counts
        // this round (and the round count stays honest).
        let Some(v) = v else {
            eprintln!("bonnie++ printed +++++ for {m}: under its 0.5 s floor this round");
            continue;
        };
        b.put(&format!("bonnie++ {m}"), v);
        b.put(&format!("fsbattery {m}"), ours[*m].value);
    }
    let stat = ours["seq_stat"]
        .cache
        .map_or(f64::NAN, |c| c.resident_pct());
    eprintln!("fsbattery seq_stat found {stat:.0}% of its files cached");
}

#[test]
fn bonnie_file_rates_agree_with_bonnie_plus_plus() {
    let _one_at_a_time = serial();
    if !prerequisites(TOOLS) {
        return;
    }
    // 4G: mke2fs gives a 2G image 131,072 inodes, not enough for 128 × 1024 files.
    let fs = Mounted::ext4("4G");
    let root = fs.root();
    let names: Vec<(String, String)> = FILE_RATES
        .iter()
        .map(|m| (format!("fsbattery {m}"), format!("bonnie++ {m}")))
        .collect();
    let pairs: Vec<(&str, &str, f64)> = names
        .iter()
        .map(|(o, t)| (o.as_str(), t.as_str(), 0.10))
        .collect();
    let mut round = 0;
    converge_up_to(
        FILE_RATE_ROUNDS,
        |b| file_round(b, &root, &mut round),
        &pairs,
    );
}

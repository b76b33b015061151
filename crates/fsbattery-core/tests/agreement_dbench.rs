//! Agreement of `dbench:ARGS` with dbench 4.0 (Debian's `dbench`, its client.txt) on one
//! freshly made ext4 loop filesystem: the same command line run by both, in interleaved
//! rounds (A B in even rounds, B A in odd ones), throughput held to ±10 % by the median of
//! the per-round ratios ours ÷ dbench's.
//!
//! The loop image lives in /dev/shm: dbench's Flush is an fsync, and on the shared disk of this
//! machine one run's fsyncs took 7 ms on average and up to 99 ms (dbench -t 5 2 on /tmp,
//! 2026-11-28), so the comparison measured the other users of the disk. On a memory-backed
//! image what is measured is what both tools do per operation, which is what has to agree.
//!
//! Decided, not hoped for: a fixed number of rounds ([`ROUNDS`]), all of which count; the
//! verdict is the median, and the order-statistic interval around it (the 2nd smallest to the
//! 2nd largest of 7 ratios: 88 % coverage of the median by the sign test) is printed with it.
//! A dbench run here is `-t 3 2`: dbench's warmup is a fifth of -t, 0 s, so each run lasts
//! about 3.5 s with its setup and cleanup, and 7 rounds of two runs stay under a minute.
//!
//! Prerequisites: root, /dev/loop-control, mkfs.ext4, dbench with its client.txt. Missing ones
//! SKIP with the reason, unless FSBATTERY_REQUIRE_PRIVILEGED=1, where they FAIL.

mod agree;

use agree::{median, prerequisites, raise_priority, require, run_via_runner, serial, Mounted};
use fsbattery_core::import::{self, Reading};
use fsbattery_core::model::CachePolicy;
use std::path::Path;
use std::process::Command;

const TOLERANCE: f64 = 0.10;
/// Rounds, each one run of each side.
const ROUNDS: u32 = 7;
/// The command line both sides run.
const ARGS: &str = "-t 3 2";

/// dbench's own Throughput for [`ARGS`] run in `dir`, read by fsbattery's importer.
fn real_dbench(dir: &Path) -> f64 {
    std::fs::create_dir_all(dir).unwrap();
    let out = Command::new("dbench")
        .args(ARGS.split_whitespace())
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "dbench failed: {text}");
    let p = import::parse("dbench output", &out.stdout, import::by_name("dbench")).unwrap();
    match &p.metrics[0] {
        (m, Reading::Value(s)) if m.name == "throughput" => s.value,
        other => panic!("no throughput in dbench's output: {other:?}\n{text}"),
    }
}

/// Measured 2026-11-29 on an idle machine: median 0.985 (88 % interval 0.937..1.022); on
/// 2026-11-28 at load 14 on 2 cores it was 0.82 twice: like the other agreement tests it needs
/// a machine that runs nothing else, as CI's does.
#[test]
fn dbench_agrees_with_dbench_4_0() {
    let _one_at_a_time = serial();
    if !prerequisites(&[("dbench", "--help", "dbench")])
        || !require(
            "dbench's loadfile /usr/share/dbench/client.txt (apt-get install dbench)",
            Path::new("/usr/share/dbench/client.txt").is_file(),
        )
    {
        return;
    }
    raise_priority();
    let fs = Mounted::ext4_in("2G", Path::new("/dev/shm"), false);
    let root = fs.root();
    let name = format!("dbench:{ARGS}");
    let mut ratios = Vec::new();
    for round in 0..ROUNDS {
        let ours = || run_via_runner(&name, &root, &[], CachePolicy::Tool)["throughput"].value;
        let theirs = || real_dbench(&root.join(format!("ref{round}")));
        nix::unistd::sync();
        let (o, t) = if round % 2 == 0 {
            let o = ours();
            nix::unistd::sync();
            (o, theirs())
        } else {
            let t = theirs();
            nix::unistd::sync();
            (ours(), t)
        };
        eprintln!(
            "ROUND {round}: fsbattery {o:.1} MB/s, dbench {t:.1} MB/s, ratio {:.3}",
            o / t
        );
        assert!(o > 0.0 && t > 0.0, "a side measured nothing");
        ratios.push(o / t);
    }
    let mut sorted = ratios.clone();
    sorted.sort_by(f64::total_cmp);
    let m = median(ratios);
    eprintln!(
        "AGREEMENT dbench throughput / dbench 4.0 Throughput = median per-round ratio {m:.3} \
         (88 % interval {:.3}..{:.3}, ±{}%)",
        sorted[1],
        sorted[sorted.len() - 2],
        TOLERANCE * 100.0
    );
    assert!(
        (1.0 - TOLERANCE..=1.0 + TOLERANCE).contains(&m),
        "dbench throughput vs dbench 4.0: median per-round ratio {m:.3} is outside ±10 % \
         (ratios {sorted:.3?})"
    );
}

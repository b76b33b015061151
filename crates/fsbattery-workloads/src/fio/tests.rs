//! Job files run end to end in a temp directory: the metrics each declares come out once, in
//! order, with fio's semantics where a count or a rate shows them.

use super::*;
use crate::blockio::testutil::{run_typed as run_native, uring_ok, values};
use crate::settings::NoSettings;
use std::collections::BTreeMap;

fn jobs(text: &str, over: &[(&str, &str)]) -> FioJobs {
    let over: Vec<(String, String)> = over
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let host = ini::tests::FakeHost(Default::default());
    FioJobs {
        name: "fio:test.fio",
        summary: "",
        set_by: "size",
        file: parse(text, "test.fio", &host, &over).unwrap(),
    }
}

fn run(text: &str, over: &[(&str, &str)]) -> BTreeMap<String, f64> {
    let w = jobs(text, over);
    let (samples, _tmp) = run_native(&w, &NoSettings).unwrap();
    values(&samples)
}

#[test]
fn random_writes_with_fsync_report_sync_latency() {
    let v = run("[j]\nrw=randwrite\nbs=8k\nfsync=1\nsize=2m\n", &[]);
    assert!(v["write_iops"] > 0.0 && (v["write_iops"] - v["iops"]).abs() < 1e-9);
    // 256 writes of 8 KiB: bandwidth is IOPS × 8 KiB.
    assert!((v["write_bw"] - v["write_iops"] * 8192.0 / 1e6).abs() < 1e-6 * v["write_bw"]);
    assert!(v["sync_lat_p50"] > 0.0 && v["sync_lat_p1"] <= v["sync_lat_p50"]);
    assert!(v["sync_lat_p50"] <= v["sync_lat_p99.99"]);
    assert!(!v.contains_key("read_iops"));
}

#[test]
fn groups_prefix_their_metrics() {
    let text =
        "[global]\nsize=1m\nnumjobs=2\n[w]\nrw=write\nfdatasync=8\nend_fsync=1\n[r]\nstonewall\nrw=randread\n";
    let v = run(text, &[]);
    for m in [
        "w.write_bw",
        "w.sync_lat_p50",
        "r.read_iops",
        "r.read_clat_p99.9",
    ] {
        assert!(v.get(m).is_some_and(|x| *x > 0.0), "{m}: {v:?}");
    }
    assert!(!v.contains_key("r.sync_lat_p50"));
}

#[test]
fn many_files_windows_splits_and_loops_run() {
    let text = "[m]\nrw=randrw\nbssplit=4k/50:16k/50\nnrfiles=6\nopenfiles=2\nfilesize=64k\nloops=2\nfile_service_type=sequential\nfsync=3\nfsync_on_close=1\nunlink=1\n";
    let v = run(text, &[]);
    // 6 files × 64 KiB × 2 loops, half reads (by count) of 4 or 16 KiB.
    let moved = (v["read_bw"] + v["write_bw"]) * 1e6;
    assert!(moved > 0.0 && v["sync_lat_mean"] > 0.0, "{v:?}");
}

#[test]
fn rate_iops_holds_the_rate() {
    let v = run(
        "[r]\nrw=randread\nsize=1m\ntime_based\nruntime=1\nrate_iops=200\n",
        &[],
    );
    assert!((150.0..=230.0).contains(&v["iops"]), "{v:?}");
}

#[test]
fn overrides_apply_to_every_job_and_engines_map() {
    if !uring_ok() {
        return;
    }
    let text =
        "[global]\nioengine=libaio\niodepth=4\nsize=64m\n[a]\nrw=randread\n[b]\nrw=randwrite\n";
    let w = jobs(text, &[("size", "1m"), ("runtime", "1")]);
    for j in w.file.jobs() {
        assert_eq!(j.io_size(), 1 << 20);
        assert_eq!(run::engine_of(&j.opts).name(), "io_uring");
    }
    let v = run(text, &[("size", "1m")]);
    assert!(v["read_iops"] > 0.0 && v["write_iops"] > 0.0, "{v:?}");
}

#[test]
fn shipped_job_files_resolve() {
    for (name, text) in SHIPPED {
        let host = ini::tests::FakeHost(Default::default());
        let f = parse(text, name, &host, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(f.jobs().count() > 0);
    }
}

#[test]
fn needs_name_the_space_and_the_files() {
    let w = jobs("[j]\nrw=write\nsize=64m\nnumjobs=3\n", &[]);
    let n = TypedWorkload::needs(&w, &NoSettings);
    assert_eq!(n.floor, 3 * (64 << 20));
    assert_eq!(n.inodes, 3 + 1);
    assert!(n.set_by.contains("size"));
    let caps = crate::model::Capabilities {
        space_bytes: Some(100 << 20),
        ..Default::default()
    };
    let e = crate::needs::check(TypedWorkload::name(&w), &n, "loop:ext4", &caps).unwrap_err();
    assert!(e.contains("192MiB") && e.contains("--set fio."), "{e}");
}

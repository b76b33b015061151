//! Runs of small loadfiles on a temporary directory: every declared metric is recorded, the
//! clients' files are gone afterwards, a line whose outcome contradicts its status fails the
//! run naming the line, and the settings record the command line and the checksum.

use super::*;
use crate::model::Sample;
use crate::Method;
use std::collections::BTreeMap;
use std::time::Duration;

/// A client's session in client.txt's style: its directory, a file written, read, locked,
/// renamed and deleted.
const LOAD: &str = r#"Deltree "\clients\client1" NT_STATUS_OK
Mkdir "\clients" NT_STATUS_OK
NTCreateX "\clients\client1" 0x1 0x2 16385 NT_STATUS_OK
Close 16385 NT_STATUS_OK
NTCreateX "\clients\client1\gone" 0x40 0x1 9935 NT_STATUS_OBJECT_NAME_NOT_FOUND
QUERY_PATH_INFORMATION "\clients\client1\~dmtmp" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
NTCreateX "\clients\client1\f.000" 0x40 0x5 9938 NT_STATUS_OK
QUERY_FS_INFORMATION 1 NT_STATUS_OK
WriteX 9938 0 65536 65536 NT_STATUS_OK
WriteX 9938 65536 4096 4096 NT_STATUS_OK
QUERY_FILE_INFORMATION 9938 258 NT_STATUS_OK
LockX 9938 0 10 NT_STATUS_OK
UnlockX 9938 0 10 NT_STATUS_OK
ReadX 9938 0 65536 65536 NT_STATUS_OK
SET_FILE_INFORMATION 9938 1004 NT_STATUS_OK
Flush 9938 NT_STATUS_OK
Close 9938 NT_STATUS_OK
FIND_FIRST "\clients\client1\*" 260 1366 1 NT_STATUS_OK
Rename "\clients\client1\f.000" "\clients\client1\g.000" NT_STATUS_OK
Unlink "\clients\client1\g.000" 0x20 NT_STATUS_OK
"#;

fn write_load(dir: &std::path::Path, text: &str) -> String {
    let p = dir.join("load.txt");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn run_on(
    w: &dyn Workload,
    root: &std::path::Path,
) -> Result<BTreeMap<String, f64>, WorkloadError> {
    let p = crate::settings::defaults_for(w.params());
    let mut got = BTreeMap::new();
    let mut on = |m: &str, s: Sample| {
        got.insert(m.to_string(), s.value);
    };
    let mut ctx = WorkloadCtx::new(root, 0, Method::Native, Duration::ZERO, &mut on);
    let r = w.run(&mut ctx, &p);
    drop(ctx);
    r.map(|()| got)
}

#[test]
fn a_command_line_run_reports_dbench_figures_and_cleans_up() {
    let tmp = tempfile::tempdir().unwrap();
    let lf = write_load(tmp.path(), LOAD);
    let root = tmp.path().join("target");
    std::fs::create_dir(&root).unwrap();
    let name = format!("dbench:-c {lf} -t 2 -S -D sub --clients-per-process=2 2");
    let w = crate::find_or_refuse(&name).unwrap();
    let p = crate::settings::defaults_for(w.params());
    let names: Vec<String> = w.metrics(&p).into_iter().map(|m| m.name).collect();
    assert_eq!(names[..2], ["throughput", "max_latency"]);
    assert!(names.contains(&"NTCreateX_count".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("Rmdir")), "{names:?}");
    let got = run_on(w, &root).unwrap();
    for m in &names {
        assert!(got.contains_key(m), "{m} missing: {got:?}");
    }
    assert!(got["throughput"] > 0.0, "{got:?}");
    assert!(got["max_latency"] > 0.0, "{got:?}");
    assert!(got["NTCreateX_avglat"] > 0.0 && got["NTCreateX_maxlat"] >= got["NTCreateX_avglat"]);
    assert_eq!(
        std::fs::read_dir(&root).unwrap().count(),
        0,
        "scratch left behind"
    );
    let rec = w.recorded(&p).unwrap();
    assert!(
        rec.contains("-t 2 -S") && rec.contains("sha256 ") && rec.contains(&lf),
        "{rec}"
    );
}

#[test]
fn an_outcome_against_the_status_fails_naming_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let text = LOAD.replace(
        r#"Unlink "\clients\client1\g.000" 0x20 NT_STATUS_OK"#,
        r#"Unlink "\clients\client1\nosuch" 0x20 NT_STATUS_OK"#,
    );
    let lf = write_load(tmp.path(), &text);
    let w = crate::find_or_refuse(&format!("dbench:-c {lf} -t 2 1")).unwrap();
    let root = tmp.path().join("target");
    std::fs::create_dir(&root).unwrap();
    let e = run_on(w, &root).unwrap_err().to_string();
    assert!(e.contains("line 20") && e.contains("unlink"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
}

#[test]
fn refusals_are_one_line_and_name_the_cause() {
    let tmp = tempfile::tempdir().unwrap();
    let lf = write_load(tmp.path(), "Close 1 NT_STATUS_OK\n");
    for (name, want) in [
        (
            format!("dbench:-c {lf} 1"),
            "never leave its warmup".to_string(),
        ),
        (
            "dbench:-c /nonexistent/l.txt 1".into(),
            "cannot read the loadfile".into(),
        ),
        ("dbench:-x 1".into(), "-x".into()),
        (format!("dbench:-c {lf} -D /abs 1"), "-D /abs".into()),
    ] {
        let e = crate::find_or_refuse(&name).err().expect(&name).to_string();
        assert!(e.contains(&want), "{name}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

/// The fallback room for an unreadable client.txt covers the real one (when installed).
#[test]
fn client_txt_fits_the_declared_fallback() {
    let Ok(l) = loadfile(args::DEFAULT_LOADFILE) else {
        return;
    };
    assert!(
        l.peak_bytes <= CLIENT_TXT_PEAK && l.peak_bytes > CLIENT_TXT_PEAK / 2,
        "{}",
        l.peak_bytes
    );
    assert!(l.names <= CLIENT_TXT_NAMES, "{}", l.names);
    // dbench 4.0 prints 14 of them after a warmup: Deltree and Mkdir come only at the start.
    assert_eq!(l.kinds().count(), 16);
}

#[test]
fn an_operation_never_done_records_its_count_and_no_latency() {
    let none = run::OpStat::default();
    assert_eq!(
        op_figures("Flush", none),
        [("Flush_count".to_string(), 0.0)]
    );
    let two = run::OpStat {
        count: 2,
        total_ns: 3_000_000,
        max_ns: 2_000_000,
    };
    let got = op_figures("Flush", two);
    assert_eq!(got[1], ("Flush_avglat".to_string(), 1.5));
    assert_eq!(got[2], ("Flush_maxlat".to_string(), 2.0));
}

//! Shared helpers of the renderer tests: the fixture run, a derived "previous round", golden
//! file comparison and the privileged-tool gate.
#![allow(dead_code)]

use fsbattery_record::RunRecord;
use std::path::{Path, PathBuf};

// Finding and waiting for Chromium is shared with the binary's site test (which includes the
// file by path: test helpers are not a crate of their own).
mod chromium;
// Not every test file that includes `common` loads a page.
#[allow(unused_imports)]
pub use chromium::{chromium, wait_for_chromium};

/// The fixture directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The fixture run: piszcz2006 at quick scale on ext2/ext4/xfs loop images, one pending row,
/// one failed cell, lifecycles, iozone and latency cells.
pub fn run() -> RunRecord {
    let text = std::fs::read_to_string(fixtures().join("run.json")).expect("read run.json");
    let mut rec: RunRecord = serde_json::from_str(&text).expect("parse run.json");
    // Written before cells carried `comparable`: loaded as `fsbattery report` loads it.
    fsbattery_record::lifecycle::upgrade(&mut rec);
    rec
}

/// The same study one round earlier: another kernel, times 12% longer and rates 10% lower
/// (a deterministic transform, so the golden file is stable), as S1 compared 2.4 with 2.6.
pub fn previous_round() -> RunRecord {
    let mut rec = run();
    rec.started = "2026-11-15T09:12:03.441+00:00".into();
    rec.finished = Some("2026-11-15T09:19:55.102+00:00".into());
    rec.host.kernel = "5.10.0-28-amd64 #1 SMP Debian 5.10.209-2 (2024-01-31)".into();
    for cell in &mut rec.cells {
        let f = match cell.better {
            fsbattery_stats::Better::Lower => 1.12,
            fsbattery_stats::Better::Higher => 0.9,
        };
        for s in &mut cell.samples {
            s.value *= f;
            s.elapsed_s *= f;
        }
    }
    rec
}

/// Compare `actual` with the golden file `name`, or rewrite it when UPDATE_GOLDEN=1.
pub fn golden(name: &str, actual: &[u8]) {
    let path = fixtures().join("golden").join(name);
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        std::fs::write(&out, actual).unwrap();
        panic!(
            "{} differs from the golden file; actual output written to {}; \
             if the change is intended, rerun with UPDATE_GOLDEN=1",
            path.display(),
            out.display()
        );
    }
}

/// Whether a missing tool must fail the test (CI) instead of skipping it.
pub fn required() -> bool {
    std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1")
}

/// Skip (print why and return false) or, when required, fail.
pub fn gate(available: bool, what: &str) -> bool {
    if available {
        return true;
    }
    if required() {
        panic!("{what} is not available and FSBATTERY_REQUIRE_PRIVILEGED=1");
    }
    // Written to the stderr handle, not with eprintln!, so the harness does not swallow it:
    // a skipped check must be visible in every test log.
    let line = format!(
        "skipped: {what} is not available (set FSBATTERY_REQUIRE_PRIVILEGED=1 to fail instead)\n"
    );
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    false
}

/// Flags that keep Chromium off the network and quiet; the page itself forbids loads too.
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
];

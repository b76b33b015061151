//! A full target: dd, randomio and bonnie on a 16 MiB tmpfs asked to write far more fail with
//! "target full after N bytes" (N > 0, within the filesystem's size) and leave nothing behind.
//!
//! Needs root to mount the tmpfs; SKIPs without it unless FSBATTERY_REQUIRE_PRIVILEGED=1.

use fsbattery_core::params::{Params, Scale};
use fsbattery_core::targets::{self, Target, TargetOptions};
use fsbattery_core::workload::{self, Method, WorkloadCtx};
use std::collections::BTreeMap;
use std::time::Duration;

const FS_BYTES: u64 = 16 << 20;

/// A mounted tmpfs, torn down on drop (its work directory is removed after).
struct Mounted {
    target: Box<dyn Target>,
    _work: tempfile::TempDir,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Err(e) = self.target.teardown() {
            eprintln!("teardown failed: {e}");
        }
    }
}

fn failure(name: &str, root: &std::path::Path, over: &[(&str, &str)]) -> String {
    let w = workload::find(name).unwrap();
    let o: BTreeMap<String, String> = over
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let p = Params::resolve(name, w.params(), Scale::Quick, 0, &o).unwrap();
    let mut on = |_: &str, _| {};
    let mut ctx = WorkloadCtx::new(root, 0, Method::Native, Duration::ZERO, &mut on);
    match w.run(&mut ctx, &p) {
        Ok(()) => panic!("{name} filled a {FS_BYTES}-byte tmpfs without failing"),
        Err(e) => e.to_string(),
    }
}

/// The N of "target full after N bytes".
fn bytes_written(msg: &str) -> u64 {
    let rest = msg
        .split("target full after ")
        .nth(1)
        .unwrap_or_else(|| panic!("not a target-full failure: {msg}"));
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn a_full_target_fails_with_the_bytes_written() {
    if !nix::unistd::geteuid().is_root() {
        if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
            panic!("root is required (FSBATTERY_REQUIRE_PRIVILEGED=1) to mount a tmpfs");
        }
        eprintln!("SKIP: mounting a tmpfs needs root");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let opts = TargetOptions {
        workdir: work.path().to_path_buf(),
        ..TargetOptions::default()
    };
    let mut t = targets::parse(&format!("tmpfs:size={FS_BYTES}"), &opts).unwrap();
    t.setup(0).unwrap();
    let fs = Mounted {
        target: t,
        _work: work,
    };
    let root = fs.target.root().to_path_buf();
    let cases: [(&str, &[(&str, &str)]); 3] = [
        ("dd", &[("size", "64MiB")]),
        ("randomio", &[("size", "64MiB"), ("direct", "0")]),
        ("bonnie", &[("size", "64MiB"), ("files", "0")]),
    ];
    for (name, over) in cases {
        let msg = failure(name, &root, over);
        eprintln!("{name}: {msg}");
        let n = bytes_written(&msg);
        assert!(n > 0 && n <= FS_BYTES, "{name}: {n} bytes in {msg}");
        let left: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
        assert!(left.is_empty(), "{name} left {left:?}");
    }
    // Small files fill it too: 20,000 files of up to 1999 bytes need ~20 MiB of pages.
    let msg = failure(
        "bonnie",
        &root,
        &[("size", "0"), ("files", "20000"), ("min_size", "1000")],
    );
    eprintln!("bonnie files: {msg}");
    assert!(bytes_written(&msg) > 0, "{msg}");
}

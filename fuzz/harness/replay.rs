//! Replaying saved fuzz inputs on stable, shared by the regression tests of fsbattery-core
//! and fsbattery-report: every file under `fuzz/regressions/TARGET/` goes through the same
//! harness function the cargo-fuzz target calls, and so does every seed under
//! `fuzz/seeds/TARGET/`. No input may panic; inputs named `err-*`
//! (minimised crashes whose fix is a refusal) must also be refused.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Every regular file under `fuzz/regressions/<target>/` and the real seed inputs under
/// `fuzz/seeds/<target>/`, recursively, sorted.
fn inputs(target: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut out = Vec::new();
    walk(&fuzz.join("regressions").join(target), &mut out);
    walk(&fuzz.join("seeds").join(target), &mut out);
    out.sort();
    out
}

/// Replay `target`'s inputs through `f`; fail naming every input that panicked or that
/// should have been refused and was not.
pub fn replay(target: &str, f: fn(&[u8]) -> Result<(), String>) {
    let files = inputs(target);
    assert!(!files.is_empty(), "no saved inputs for {target}");
    let mut bad = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        match catch_unwind(AssertUnwindSafe(|| f(&data))) {
            Err(_) => bad.push(format!("{} panicked", path.display())),
            Ok(Ok(())) if name_of(path).starts_with("err-") => {
                bad.push(format!("{} was accepted", path.display()))
            }
            Ok(_) => {}
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

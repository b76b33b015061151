//! The renderers build without the I/O side: following the normal (not dev) path
//! dependencies of this crate's manifest never reaches fsbattery-core, nor a workspace crate
//! that depends on nix, io-uring or tar (issue 14: `cargo tree -p fsbattery-report` showed all
//! three through core).

use std::path::{Path, PathBuf};

/// Names of `dir`'s normal dependencies, and the directories of those that are path crates.
fn normal_deps(dir: &Path) -> (Vec<String>, Vec<PathBuf>) {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let manifest: toml::Table = text.parse().unwrap();
    let Some(deps) = manifest.get("dependencies").and_then(|d| d.as_table()) else {
        return (Vec::new(), Vec::new());
    };
    let paths = deps
        .values()
        .filter_map(|d| d.get("path").and_then(|p| p.as_str()))
        .map(|p| dir.join(p))
        .collect();
    (deps.keys().cloned().collect(), paths)
}

#[test]
fn the_report_crate_depends_on_nothing_of_the_io_side() {
    let mut todo = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
    let mut seen = Vec::new();
    while let Some(dir) = todo.pop() {
        let dir = dir.canonicalize().unwrap();
        if seen.contains(&dir) {
            continue;
        }
        let (names, paths) = normal_deps(&dir);
        for bad in ["fsbattery-core", "nix", "io-uring", "tar"] {
            assert!(
                !names.iter().any(|n| n == bad),
                "{} depends on {bad}",
                dir.display()
            );
        }
        todo.extend(paths);
        seen.push(dir);
    }
    assert!(seen.len() >= 3, "report, record and stats: {seen:?}");
}

//! House rules that are facts about the tree, held by a test instead of by review: no Rust
//! source under crates/ is longer than 800 lines (phases are a loop, files have one job), and
//! docs/src/architecture.md names every crate the workspace's Cargo.toml lists, so the map a
//! newcomer reads first cannot lose a room when a crate is added.
//!
//! The lints the code keeps (SAFETY comments on `unsafe`, no `unwrap` outside tests) are in
//! the root Cargo.toml's `[workspace.lints]`, checked by the compiler, not here.

use std::path::{Path, PathBuf};

/// The longest a source file may be.
const MAX_LINES: usize = 800;

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every `.rs` file below `dir`, depth first.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_longer_than_800_lines() {
    let root = repo();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    assert!(files.len() > 100, "crates/ holds the workspace's sources");
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > MAX_LINES).then(|| {
                let rel = f.strip_prefix(&root).unwrap_or(f);
                format!("{} ({lines} lines)", rel.display())
            })
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines, split by job: {}",
        long.join(", ")
    );
}

/// The `members` of the root Cargo.toml's `[workspace]`.
fn members(manifest: &str) -> Vec<String> {
    let start = manifest
        .find("members")
        .expect("the root Cargo.toml lists its members");
    let open = start + manifest[start..].find('[').unwrap();
    let close = open + manifest[open..].find(']').unwrap();
    manifest[open + 1..close]
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The package name in a member's Cargo.toml.
fn package_name(manifest: &str) -> String {
    manifest
        .lines()
        .find_map(|l| {
            let (key, value) = l.split_once('=')?;
            (key.trim() == "name").then(|| value.trim().trim_matches('"').to_string())
        })
        .expect("a member's Cargo.toml names its package")
}

/// Whether `text` holds `name` as a whole name: not as the start of a longer crate name
/// (`fsbattery` inside `fsbattery-core`) nor inside a path word.
fn names(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

#[test]
fn the_architecture_page_names_every_crate_of_the_workspace() {
    let root = repo();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let crates: Vec<String> = members(&manifest)
        .iter()
        .map(|m| package_name(&std::fs::read_to_string(root.join(m).join("Cargo.toml")).unwrap()))
        .collect();
    assert!(crates.len() >= 8, "{crates:?}");
    let page = std::fs::read_to_string(root.join("docs/src/architecture.md")).unwrap();
    let missing: Vec<&String> = crates.iter().filter(|c| !names(&page, c)).collect();
    assert!(
        missing.is_empty(),
        "docs/src/architecture.md does not name {missing:?}: add them to its crate diagram"
    );
}

#[test]
fn a_name_inside_a_longer_name_does_not_count() {
    assert!(!names("fsbattery-core and fsbattery_report", "fsbattery"));
    assert!(names("the binary, fsbattery (clap)", "fsbattery"));
    assert!(!names("fsbattery-storehouse", "fsbattery-store"));
}

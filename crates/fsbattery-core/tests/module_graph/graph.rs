//! The module graph of one folder of a crate: its child modules (the files and folders beside
//! its `lib.rs`, `main.rs` or `mod.rs`) and which of them names which, through `crate::…`
//! or through `super::…` paths that climb back to the folder.

use super::source::{code_of, paths, use_paths, Root};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module → the sibling modules it imports.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// A source file of a child module, with how many module levels it sits below the folder
/// (`c.rs` and `c/mod.rs`: 1; `c/x.rs`: 2).
struct File {
    path: PathBuf,
    depth: usize,
}

/// Files whose name ends in `tests.rs` are test modules (`#[cfg(test)] mod x_tests;`).
fn is_test_file(name: &str) -> bool {
    name.ends_with("tests.rs")
}

/// The files of the module folder `dir`, whose own module sits `depth` levels below the
/// folder being graphed: its `mod.rs` at that depth, each other file one deeper.
fn files_in(dir: &Path, depth: usize) -> Vec<File> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            out.extend(files_in(&path, depth + 1));
        } else if name.ends_with(".rs") && !is_test_file(&name) {
            let depth = if name == "mod.rs" { depth } else { depth + 1 };
            out.push(File { path, depth });
        }
    }
    out
}

/// Whether `dir` is a module folder: it has a `mod.rs`, or a `dir.rs` beside it.
fn is_module_dir(dir: &Path) -> bool {
    dir.is_dir() && (dir.join("mod.rs").is_file() || dir.with_extension("rs").is_file())
}

/// The child modules of `folder`: name → its files (`c.rs`, `c/mod.rs`, `c/**/*.rs`).
fn children(folder: &Path) -> BTreeMap<String, Vec<File>> {
    let mut out: BTreeMap<String, Vec<File>> = BTreeMap::new();
    for e in std::fs::read_dir(folder).unwrap().flatten() {
        let path = e.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = name.strip_suffix(".rs").unwrap_or(&name).to_string();
        let root_file = ["lib", "main", "mod"].contains(&module.as_str());
        if is_module_dir(&path) {
            out.entry(module).or_default().extend(files_in(&path, 1));
        } else if name.ends_with(".rs") && !root_file && !is_test_file(&name) {
            out.entry(module).or_default().push(File { path, depth: 1 });
        }
    }
    out
}

/// The sibling a path names, if it names one: `prefix` is the folder's module path from
/// the crate root, `depth` the file's level below the folder.
fn sibling<'a>(
    root: Root,
    path: &'a [String],
    prefix: &[String],
    depth: usize,
) -> Option<&'a String> {
    let up = match root {
        Root::Crate => prefix.len(),
        // Fewer `super`s than levels: a path inside the file's own child module.
        Root::Super(n) if n < depth => return None,
        Root::Super(n) => n - depth,
    };
    // The path, relative to the ancestor `up` levels above the folder, must come back down
    // through the rest of the folder's own path.
    let back = prefix.get(prefix.len().checked_sub(up)?..)?;
    if path.len() > back.len() && path[..back.len()] == *back {
        Some(&path[back.len()])
    } else {
        None
    }
}

/// Names the folder's own file (`lib.rs`, `main.rs`, `mod.rs`, or `c.rs` beside folder `c/`)
/// re-exports from a child module (`pub use registry::{lookup, ENGINES}`): a path to
/// `crate::lookup` is an import of `registry`, so a re-export cannot hide an edge.
fn reexports(
    folder: &Path,
    prefix: &[String],
    kids: &BTreeSet<String>,
) -> BTreeMap<String, String> {
    let own = ["lib.rs", "main.rs", "mod.rs"]
        .iter()
        .map(|f| folder.join(f))
        .chain(std::iter::once(folder.with_extension("rs")))
        .filter(|p| p.is_file());
    let mut out = BTreeMap::new();
    for file in own {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for (root, mut path) in use_paths(&code) {
            match root {
                Some(Root::Crate) if path.starts_with(prefix) => drop(path.drain(..prefix.len())),
                Some(_) => continue,
                None if path.first().is_some_and(|p| p == "self") => drop(path.remove(0)),
                None => {}
            }
            if path.len() >= 2 && kids.contains(&path[0]) {
                out.insert(path.last().unwrap().clone(), path[0].clone());
            }
        }
    }
    out
}

/// Imports between the child modules of `folder`, whose module path is `prefix`.
pub fn folder_graph(folder: &Path, prefix: &[String]) -> Graph {
    let kids = children(folder);
    let names: BTreeSet<String> = kids.keys().cloned().collect();
    let reexported = reexports(folder, prefix, &names);
    let mut graph = Graph::new();
    for (m, files) in &kids {
        let mut to = BTreeSet::new();
        for f in files {
            let code = code_of(&std::fs::read_to_string(&f.path).unwrap());
            for (root, path) in paths(&code) {
                let named = sibling(root, &path, prefix, f.depth);
                let module = named.and_then(|s| match kids.contains_key(s) {
                    true => Some(s),
                    false => reexported.get(s),
                });
                if let Some(s) = module.filter(|s| *s != m) {
                    to.insert(s.clone());
                }
            }
        }
        graph.insert(m.clone(), to);
    }
    graph
}

/// Every module folder under `src` (itself included) with its module path.
pub fn module_folders(src: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut out = vec![(src.to_path_buf(), Vec::new())];
    let mut i = 0;
    while i < out.len() {
        let (dir, prefix) = out[i].clone();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if is_module_dir(&p) {
                let mut sub = prefix.clone();
                sub.push(p.file_name().unwrap().to_string_lossy().into_owned());
                out.push((p, sub));
            }
        }
        i += 1;
    }
    out
}

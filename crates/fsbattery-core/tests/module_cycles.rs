//! Import circles between fsbattery-core's top-level modules: reads every source file's
//! `crate::…` paths (comments and `#[cfg(test)]` tails left out: a test may reach anywhere),
//! builds the module graph and prints each circle that remains.
//!
//! The circle finder is asserted on graphs with known answers. The tree itself is only
//! reported for now: issue 27 cuts its circles in several parallel changes, and this test
//! becomes a hard check (`assert!(circles.is_empty())`) once the tree has none.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The source text that counts: comments dropped, and everything from a `#[cfg(test)]` on.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Top-level modules a piece of code names through `crate::m` or `crate::{m, …}`.
fn imports(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group
                .split('}')
                .next()
                .unwrap_or("")
                .split(',')
                .map(|p| p.trim().split("::").next().unwrap_or(""))
                .collect(),
            None => vec![rest
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")],
        };
        out.extend(
            names
                .into_iter()
                .filter(|n| modules.contains(*n))
                .map(String::from),
        );
    }
    out
}

fn rust_files(p: &Path) -> Vec<PathBuf> {
    if p.is_file() {
        return vec![p.to_path_buf()];
    }
    let mut out = Vec::new();
    for e in std::fs::read_dir(p).unwrap().flatten() {
        let path = e.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if name.ends_with(".rs") && !name.ends_with("tests.rs") {
            out.push(path);
        }
    }
    out
}

/// The graph of `src`'s top-level modules (files and folders beside lib.rs).
fn module_graph(src: &Path) -> Graph {
    let mut paths = BTreeMap::new();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let path = e.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = name.strip_suffix(".rs").unwrap_or(&name).to_string();
        if module != "lib" && (path.is_dir() || name.ends_with(".rs")) {
            paths.insert(module, path);
        }
    }
    let modules: BTreeSet<String> = paths.keys().cloned().collect();
    let mut graph = Graph::new();
    for (m, path) in &paths {
        let mut to = BTreeSet::new();
        for f in rust_files(path) {
            to.extend(imports(
                &code_of(&std::fs::read_to_string(f).unwrap()),
                &modules,
            ));
        }
        to.remove(m);
        graph.insert(m.clone(), to);
    }
    graph
}

/// Each strongly connected group of two or more modules (Tarjan), with one circle through it
/// as the path `a → b → … → a`.
fn circles(g: &Graph) -> Vec<(BTreeSet<String>, Vec<String>)> {
    struct State<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        groups: Vec<BTreeSet<&'g str>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                s.low.entry(v).and_modify(|l| *l = (*l).min(lw));
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                s.low.entry(v).and_modify(|l| *l = (*l).min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                group.insert(w);
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                s.groups.push(group);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        groups: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    let named = |group: &BTreeSet<&str>| group.iter().map(|m| m.to_string()).collect();
    s.groups
        .iter()
        .map(|group| (named(group), circle_in(g, group)))
        .collect()
}

/// A shortest path from the group's first module back to itself, inside the group.
fn circle_in(g: &Graph, group: &BTreeSet<&str>) -> Vec<String> {
    let start = *group.iter().next().unwrap();
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in g[v]
            .iter()
            .map(String::as_str)
            .filter(|w| group.contains(w))
        {
            if w == start {
                let mut path = vec![start.to_string()];
                let mut at = v;
                while at != start {
                    path.push(at.to_string());
                    at = prev[at];
                }
                path.push(start.to_string());
                let last = path.len() - 1;
                path[1..last].reverse();
                return path;
            }
            if !prev.contains_key(w) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("a strongly connected group holds a circle")
}

fn graph(edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (a, b) in edges {
        g.entry(a.to_string()).or_default().insert(b.to_string());
        g.entry(b.to_string()).or_default();
    }
    g
}

#[test]
fn the_finder_names_each_circle_and_nothing_else() {
    let none = graph(&[("a", "b"), ("b", "c"), ("a", "c")]);
    assert!(circles(&none).is_empty());
    let two = graph(&[
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
        ("c", "d"),
        ("d", "e"),
        ("e", "d"),
    ]);
    let paths: Vec<Vec<String>> = circles(&two).into_iter().map(|(_, c)| c).collect();
    assert_eq!(paths, vec![vec!["d", "e", "d"], vec!["a", "b", "c", "a"]]);
}

#[test]
fn imports_are_read_from_code_not_comments_or_tests() {
    let modules: BTreeSet<String> = ["params", "error", "workload"].map(String::from).into();
    let code = code_of(
        "use crate::params::Params; // crate::error\n/// [`crate::workload`]\n\
         use crate::{error::UsageError, model};\n#[cfg(test)]\nuse crate::workload;\n",
    );
    let found: Vec<String> = imports(&code, &modules).into_iter().collect();
    assert_eq!(found, ["error", "params"]);
}

#[test]
fn report_the_circles_left_between_top_level_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = module_graph(&src);
    assert!(
        g.contains_key("runner") && g.contains_key("targets"),
        "read {src:?}"
    );
    let found = circles(&g);
    for (group, circle) in &found {
        println!("import circle: {}", circle.join(" → "));
        for m in group {
            let inside: Vec<&String> = g[m].iter().filter(|t| group.contains(*t)).collect();
            println!("  {m} → {inside:?}");
        }
    }
    println!(
        "{} circle group(s) between fsbattery-core's top-level modules",
        found.len()
    );
}

//! No import circles between modules, in any crate of the workspace: for every module folder
//! (each crate's `src/` and every folder of modules below it, such as the binary's `cmd/`),
//! the graph of which child module names which — through `crate::…` paths, or `super::…`
//! paths that climb back to the folder — must have no circle.
//!
//! The module graph is the view `docs/src/architecture.md` points to: run
//! `cargo test -p fsbattery-core --test module_cycles -- --nocapture` to print every folder's
//! edges. Comments, strings and `#[cfg(test)]` items are left out (a test may reach
//! anywhere). The reader and the circle finder are asserted on planted cases first.

mod module_graph;

use module_graph::circles::circles;
use module_graph::graph::{folder_graph, module_folders, Graph};
use module_graph::source::{code_of, paths, Root};
use std::path::Path;

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
fn imports_are_read_from_code_not_comments_strings_or_tests() {
    let code = code_of(
        "use crate::params::Params; // crate::error\n/// [`crate::workload`]\n\
         use crate::{error::UsageError, model};\n#[cfg(test)]\nmod tests;\n\
         fn f() { let _ = \"crate::suite\"; let _ = '{'; let _ = (\"\", \"a\", r#\"crate::tune\"#); }\n/* crate::label */\n\
         use super::super::{plan::{self, Plan}, run};\n\
         #[cfg(test)]\nmod t { use crate::workload; fn g() { {} } }\nuse crate::runner::x;\n",
    );
    let mut found: Vec<(Root, Vec<String>)> = paths(&code);
    found.sort_by(|a, b| a.1.cmp(&b.1));
    let shown: Vec<String> = found
        .iter()
        .map(|(r, p)| format!("{r:?}:{}", p.join("::")))
        .collect();
    assert_eq!(
        shown,
        [
            "Crate:error::UsageError",
            "Crate:model",
            "Crate:params::Params",
            "Super(2):plan::Plan",
            "Super(2):run",
            "Crate:runner::x",
        ]
    );
}

/// Write `files` (path, text) under a fresh temporary `src/`.
fn planted(files: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = tmp.path().join("src").join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    tmp
}

#[test]
fn super_paths_and_reexports_into_sibling_modules_are_edges() {
    let tmp = planted(&[
        ("main.rs", "mod cmd;\nmod cli;\npub use stdout::Out;\n"),
        ("progress.rs", "use crate::Out;\n"),
        ("cli.rs", "use crate::cmd::run;\n"),
        ("cli/args.rs", "use super::super::stdout;\n"),
        ("stdout.rs", ""),
        ("cmd/mod.rs", "mod plan;\nmod run;\nmod tune;\n"),
        ("cmd/plan.rs", "use super::run::Args;\n"),
        ("cmd/run.rs", "use crate::cmd::{plan, tune};\n"),
        ("cmd/tune/mod.rs", "use self::search::x;\nmod search;\n"),
        (
            "cmd/tune/search.rs",
            "use super::super::plan::y;\nuse super::z;\n",
        ),
        ("cmd/tune_tests.rs", "use super::run;\n"),
    ]);
    let src = tmp.path().join("src");
    let top = folder_graph(&src, &[]);
    // `crate::Out` is `stdout`'s, re-exported by main.rs: the re-export hides no edge.
    assert_eq!(
        top,
        graph(&[("cli", "cmd"), ("cli", "stdout"), ("progress", "stdout")])
    );
    let cmd = folder_graph(&src.join("cmd"), &["cmd".to_string()]);
    assert_eq!(
        cmd,
        graph(&[
            ("plan", "run"),
            ("run", "plan"),
            ("run", "tune"),
            ("tune", "plan")
        ])
    );
    let found: Vec<Vec<String>> = circles(&cmd).into_iter().map(|(_, c)| c).collect();
    assert_eq!(found, vec![vec!["plan", "run", "plan"]]);
    let folders: Vec<Vec<String>> = module_folders(&src).into_iter().map(|(_, p)| p).collect();
    assert!(folders.contains(&vec!["cmd".to_string(), "tune".to_string()]));
    assert!(folders.contains(&vec!["cli".to_string()]));
}

#[test]
fn no_import_circles_in_any_crate() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut names: Vec<_> = std::fs::read_dir(&crates)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file() && p.join("src").is_dir())
        .collect();
    names.sort();
    assert!(names.len() >= 8, "read the crates in {crates:?}");
    let mut left = Vec::new();
    let mut folders = 0;
    for krate in &names {
        let name = krate.file_name().unwrap().to_string_lossy().into_owned();
        for (dir, prefix) in module_folders(&krate.join("src")) {
            folders += 1;
            let g = folder_graph(&dir, &prefix);
            let at = format!("{name}::{}", prefix.join("::"));
            for (m, to) in &g {
                if !to.is_empty() {
                    println!("{at}  {m} → {to:?}");
                }
            }
            for (group, circle) in circles(&g) {
                let inside: Vec<String> = group
                    .iter()
                    .map(|m| {
                        let t: Vec<&String> = g[m].iter().filter(|t| group.contains(*t)).collect();
                        format!("{m} → {t:?}")
                    })
                    .collect();
                left.push(format!(
                    "{at}: {} ({})",
                    circle.join(" → "),
                    inside.join("; ")
                ));
            }
        }
    }
    println!("{folders} module folders in {} crates read", names.len());
    assert!(
        left.is_empty(),
        "import circles (cut each by moving the shared piece to a leaf module):\n{}",
        left.join("\n")
    );
}

//! The book (docs/, mdBook layout) and the README hold together: every relative link in
//! README.md, bench/README.md and the book's pages resolves to a file, and a `#fragment` to
//! a heading of that page; every SUMMARY.md entry exists; every page under docs/src is listed
//! in SUMMARY.md (mdBook renders only listed pages, so an unlisted one is unreachable).
//!
//! This stands in for `mdbook build` in CI: mdbook is not packaged in Debian 12, and building
//! it from source for one check is not worth its minutes. Links inside code (fenced blocks,
//! `inline`) are text, not links, and are skipped; absolute URLs are not fetched.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Markdown text with fenced code blocks and inline code spans blanked out.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if fenced {
            out.push('\n');
            continue;
        }
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of inline links `[text](target)` in prose.
fn links(text: &str) -> Vec<String> {
    let text = prose(text);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        out.push(target.to_string());
        rest = &rest[end..];
    }
    out
}

/// The anchors of a page's headings as GitHub and mdBook make them: lower case, spaces to
/// hyphens, punctuation other than `-` and `_` dropped, repeats suffixed -1, -2, ...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
                _ => None,
            })
            .flat_map(char::to_lowercase)
            .collect();
        let mut name = slug.clone();
        let mut n = 0;
        while seen.contains(&name) {
            n += 1;
            name = format!("{slug}-{n}");
        }
        seen.insert(name);
    }
    seen
}

/// Problems with the relative links of the markdown file `page`.
fn broken_links(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut broken = Vec::new();
    for target in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
            continue;
        }
        let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
        let dest = if file.is_empty() {
            page.to_path_buf()
        } else {
            page.parent().unwrap().join(file)
        };
        let name = format!("{}: ({target})", page.display());
        if !dest.exists() {
            broken.push(format!("{name}: no such file"));
        } else if !fragment.is_empty() && dest.extension().is_some_and(|e| e == "md") {
            let headings = anchors(&std::fs::read_to_string(&dest).unwrap());
            if !headings.contains(fragment) {
                broken.push(format!("{name}: no heading #{fragment}"));
            }
        }
    }
    broken
}

/// Every markdown page under docs/src.
fn pages() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![repo().join("docs/src")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn slugs_and_links_are_read_as_markdown_renders_them() {
    let a = anchors("# A b\n```\n# not\n```\n## Many clients: MPI and IO500\n# A b\n");
    let want = ["a-b", "a-b-1", "many-clients-mpi-and-io500"];
    assert_eq!(a, want.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        links("[x](a.md#b) `[y](c.md)` [z](d.md \"t\")\n```\n[w](e.md)\n```\n"),
        ["a.md#b", "d.md"]
    );
}

#[test]
fn every_relative_link_resolves() {
    let root = repo();
    let mut files = vec![root.join("README.md"), root.join("bench/README.md")];
    files.extend(pages());
    assert!(files.len() > 10, "{files:?}");
    let broken: Vec<String> = files.iter().flat_map(|f| broken_links(f)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn summary_lists_every_page_and_only_pages_that_exist() {
    let src = repo().join("docs/src");
    assert!(
        repo().join("docs/book.toml").is_file(),
        "docs/book.toml is missing"
    );
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = links(&summary).iter().map(|l| src.join(l)).collect();
    let missing: Vec<_> = listed.iter().filter(|p| !p.is_file()).collect();
    assert!(
        missing.is_empty(),
        "SUMMARY.md entries with no page: {missing:?}"
    );
    let unlisted: Vec<_> = pages()
        .into_iter()
        .filter(|p| !p.ends_with("SUMMARY.md") && !listed.contains(p))
        .collect();
    assert!(
        unlisted.is_empty(),
        "pages SUMMARY.md does not reach: {unlisted:?}"
    );
}

//! What a source file imports, read from its text: comments and string contents dropped,
//! `#[cfg(test)]` items left out (a test may reach anywhere), then every `crate::…` and
//! `super::…` path expanded through its `{…}` groups.
//!
//! Written by hand rather than with `syn`: the test needs only paths, and a full parser of
//! the whole workspace would be a heavy dev-dependency for that.

/// Where a path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// `crate::`
    Crate,
    /// `super::` repeated this many times.
    Super(usize),
}

/// `text` with comments removed, string and char literals emptied and `#[cfg(test)]` items cut.
pub fn code_of(text: &str) -> String {
    drop_test_items(&strip_comments_and_literals(text))
}

fn strip_comments_and_literals(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            i = skip_block_comment(&c, i);
            out.push(' ');
        } else if c[i] == '"' || (c[i] == 'r' && raw_string_at(&c, i).is_some()) {
            i = skip_string(&c, i);
            out.push_str("\"\"");
        } else if c[i] == '\'' && char_literal_end(&c, i).is_some() {
            i = char_literal_end(&c, i).unwrap();
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Index after a `/* … */` comment (nested ones included) starting at `i`.
fn skip_block_comment(c: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                break;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// The number of `#` of a raw string `r#"…"#` starting at `i`, if one starts there.
fn raw_string_at(c: &[char], i: usize) -> Option<usize> {
    if c[i] != 'r' || (i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_')) {
        return None;
    }
    let hashes = c[i + 1..].iter().take_while(|&&x| x == '#').count();
    (c.get(i + 1 + hashes) == Some(&'"')).then_some(hashes)
}

/// Index after the string literal (plain or raw) starting at `i`.
fn skip_string(c: &[char], i: usize) -> usize {
    if let Some(hashes) = raw_string_at(c, i) {
        let mut j = i + hashes + 2;
        while j < c.len() {
            if c[j] == '"'
                && c[j + 1..]
                    .iter()
                    .take(hashes)
                    .filter(|&&x| x == '#')
                    .count()
                    == hashes
            {
                return j + 1 + hashes;
            }
            j += 1;
        }
        return j;
    }
    let mut j = i + 1;
    while j < c.len() && c[j] != '"' {
        j += if c[j] == '\\' { 2 } else { 1 };
    }
    j + 1
}

/// Index after the char literal starting at `i` (`'x'`, `'\n'`, `'\u{1F}'`); `None` for a
/// lifetime such as `'a`.
fn char_literal_end(c: &[char], i: usize) -> Option<usize> {
    match c.get(i + 1)? {
        '\\' => (i + 2..c.len().min(i + 12))
            .find(|&j| c[j] == '\'')
            .map(|j| j + 1),
        _ => (c.get(i + 2) == Some(&'\'')).then_some(i + 3),
    }
}

/// `code` without each item marked `#[cfg(test)]`: a `mod x;` line or a braced block.
fn drop_test_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let end = match (item.find(';'), item.find('{')) {
            (Some(semi), Some(brace)) if semi < brace => semi + 1,
            (_, Some(brace)) => matching_brace(item, brace),
            (Some(semi), None) => semi + 1,
            (None, None) => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Index after the `}` closing the `{` at `open` (literals are already emptied).
fn matching_brace(s: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, ch) in s[open..].char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + i + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// Every `crate::…` and `super::…` path in `code`, groups expanded: `use super::{a, b::c}`
/// gives `(Super(1), [a])` and `(Super(1), [b, c])`.
pub fn paths(code: &str) -> Vec<(Root, Vec<String>)> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let starts_word =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || b"_:$".contains(&bytes[i - 1]));
        let rest = &code[i..];
        let (root, after) = if starts_word && rest.starts_with("crate::") {
            (Root::Crate, "crate::".len())
        } else if starts_word && rest.starts_with("super::") {
            let n = (0..)
                .take_while(|k| rest[k * "super::".len()..].starts_with("super::"))
                .count();
            (Root::Super(n), n * "super::".len())
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let (trees, used) = tree(&rest[after..]);
        out.extend(trees.into_iter().map(|p| (root, p)));
        i += after + used.max(1);
    }
    out
}

/// The paths of one use-tree at the start of `s` (`a::b`, `a::{b, c::d}`, `{a, b}`), and how
/// many bytes it took.
fn tree(s: &str) -> (Vec<Vec<String>>, usize) {
    let ws = s.len() - s.trim_start().len();
    let s2 = &s[ws..];
    if let Some(inner) = s2.strip_prefix('{') {
        let mut out = Vec::new();
        let mut used = ws + 1;
        let mut rest = inner;
        loop {
            let trimmed = rest.trim_start();
            used += rest.len() - trimmed.len();
            rest = trimmed;
            if rest.is_empty() {
                return (out, used);
            }
            if rest.starts_with('}') {
                return (out, used + 1);
            }
            if let Some(r) = rest.strip_prefix(',') {
                rest = r;
                used += 1;
                continue;
            }
            let (sub, n) = tree(rest);
            out.extend(sub);
            rest = &rest[n.max(1)..];
            used += n.max(1);
        }
    }
    let name_len = s2
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s2.len());
    let name = &s2[..name_len];
    let after = &s2[name_len..];
    if name.is_empty() || name == "self" {
        // `*` or `self`: names nothing beyond the path so far.
        return (Vec::new(), ws + name_len);
    }
    if let Some(more) = after.strip_prefix("::") {
        let (subs, n) = tree(more);
        let subs = if subs.is_empty() {
            vec![Vec::new()]
        } else {
            subs
        };
        let paths = subs
            .into_iter()
            .map(|mut p| {
                p.insert(0, name.to_string());
                p
            })
            .collect();
        return (paths, ws + name_len + 2 + n);
    }
    (vec![vec![name.to_string()]], ws + name_len)
}

/// The paths of every `use` item in `code`, with their root (`None`: a path from the module
/// itself, such as `use registry::lookup` in `lib.rs`).
pub fn use_paths(code: &str) -> Vec<(Option<Root>, Vec<String>)> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("use ") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let item = code[i + 4..].split(';').next().unwrap_or("").trim_start();
        let (root, rest) = if let Some(r) = item.strip_prefix("crate::") {
            (Some(Root::Crate), r)
        } else if item.starts_with("super::") {
            (Some(Root::Super(0)), item)
        } else {
            (None, item)
        };
        out.extend(tree(rest).0.into_iter().map(|p| (root, p)));
    }
    out
}

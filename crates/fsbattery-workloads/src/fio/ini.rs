//! fio's job-file syntax, as fio 3.x's `__parse_jobs_ini` reads it: `[section]` headers,
//! `key=value` or bare `key` lines, `;` and `#` comments (whole lines and trailing), `include
//! FILE` inside a section (relative to the including file), and in values `${ENV}`
//! substitution and the keywords `$ncpus`, `$mb_memory`, `$pagesize`, after which simple
//! integer arithmetic (`+ - * /`, as fio hands it to `bc`) is evaluated.
//!
//! Pure but for the reader it is given (files for `include`, the environment and the host's
//! figures come in through [`Host`]), so the fuzz target and tests feed it anything.
//! Invariants: every option keeps the file and line it came from, so a refusal can name
//! them; errors are one line; nothing here knows what an option means.

use std::path::{Path, PathBuf};

/// How deep `include` may nest (fio forbids sections in included files, not nesting; a file
/// that includes itself must end).
const MAX_INCLUDE_DEPTH: usize = 8;

/// One `key[=value]` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawOption {
    /// The option name, lower-cased as fio matches it.
    pub key: String,
    /// The value after `=`, variables substituted; `None` for a bare `key`.
    pub value: Option<String>,
    /// Where it was written: the file as named and the 1-based line.
    pub at: Place,
}

/// A file and line, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file as named (the job file, or an included one).
    pub file: String,
    /// 1-based line.
    pub line: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} line {}", self.file, self.line)
    }
}

/// One `[name]` section with its options in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The name between the brackets.
    pub name: String,
    /// Where the header is.
    pub at: Place,
    /// Its options, includes expanded.
    pub options: Vec<RawOption>,
}

impl Section {
    /// Whether this is a `[global]` section (fio: any name starting with "global").
    pub fn is_global(&self) -> bool {
        self.name.starts_with("global")
    }
}

/// What the host contributes to a job file: the keywords' values, environment variables and
/// the files `include` names.
pub trait Host {
    /// Online CPUs (`$ncpus`).
    fn ncpus(&self) -> u64;
    /// Physical memory in MiB (`$mb_memory`).
    fn mb_memory(&self) -> u64;
    /// The page size (`$pagesize`).
    fn pagesize(&self) -> u64;
    /// An environment variable (`${NAME}`); fio substitutes an unset one by nothing.
    fn env(&self, name: &str) -> Option<String>;
    /// The text of an included file.
    fn read(&self, path: &Path) -> Result<String, String>;
}

/// Parse `text`, the job file called `file` (a path: includes are relative to its folder).
pub fn parse(text: &str, file: &str, host: &dyn Host) -> Result<Vec<Section>, String> {
    let mut sections: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = Place {
            file: file.to_string(),
            line: i + 1,
        };
        let Some(line) = content(raw) else {
            continue;
        };
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .filter(|n| !n.is_empty() && !n.contains(['[', ']']))
                .ok_or_else(|| format!("{at}: section header {line:?} is not [NAME]"))?;
            sections.push(Section {
                name: name.to_string(),
                at,
                options: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err(format!(
                "{at}: option {line:?} outside of a [section]: start the file with [global] \
                 or [JOBNAME]"
            ));
        };
        option_line(line, &at, host, 0, &mut section.options)?;
    }
    Ok(sections)
}

/// A line without its comment and surrounding blanks; `None` when nothing is left.
fn content(raw: &str) -> Option<&str> {
    let cut = raw.find([';', '#']).unwrap_or(raw.len());
    let line = raw[..cut].trim();
    (!line.is_empty()).then_some(line)
}

/// One option line (or an include) into `out`.
fn option_line(
    line: &str,
    at: &Place,
    host: &dyn Host,
    depth: usize,
    out: &mut Vec<RawOption>,
) -> Result<(), String> {
    if let Some(name) = line.strip_prefix("include") {
        if name.starts_with(char::is_whitespace) {
            return include(name.trim(), at, host, depth, out);
        }
    }
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (line, None),
    };
    if key.is_empty() || key.contains(char::is_whitespace) {
        return Err(format!("{at}: {line:?} is not KEY=VALUE or KEY"));
    }
    let value = match value {
        Some(v) => Some(substitute(v, host).map_err(|e| format!("{at}: {key}={v}: {e}"))?),
        None => None,
    };
    out.push(RawOption {
        key: key.to_ascii_lowercase(),
        value,
        at: at.clone(),
    });
    Ok(())
}

/// `include FILE`: its option lines, in place (fio allows no section in an included file).
fn include(
    name: &str,
    at: &Place,
    host: &dyn Host,
    depth: usize,
    out: &mut Vec<RawOption>,
) -> Result<(), String> {
    if depth >= MAX_INCLUDE_DEPTH {
        return Err(format!(
            "{at}: include {name}: nested more than {MAX_INCLUDE_DEPTH} deep (does it include \
             itself?)"
        ));
    }
    let path = relative_to(Path::new(&at.file), name);
    let text = host
        .read(&path)
        .map_err(|e| format!("{at}: include {name}: {e}"))?;
    let file = path.display().to_string();
    for (i, raw) in text.lines().enumerate() {
        let here = Place {
            file: file.clone(),
            line: i + 1,
        };
        let Some(line) = content(raw) else {
            continue;
        };
        if line.starts_with('[') {
            return Err(format!(
                "{here}: included files hold options only, not sections (fio: \"No new \
                 sections in included files\")"
            ));
        }
        option_line(line, &here, host, depth + 1, out)?;
    }
    Ok(())
}

/// `name` as fio finds it: relative to the including file's folder.
fn relative_to(including: &Path, name: &str) -> PathBuf {
    let p = Path::new(name);
    match including.parent() {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

/// `${ENV}` and the keywords substituted; arithmetic evaluated when a keyword was (as fio
/// runs `bc` only then).
fn substitute(v: &str, host: &dyn Host) -> Result<String, String> {
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if j > 0 => {
                out.push_str(&host.env(&after[..j]).unwrap_or_default());
                rest = &after[j + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let mut keyword = false;
    for (word, value) in [
        ("$ncpus", host.ncpus()),
        ("$mb_memory", host.mb_memory()),
        ("$pagesize", host.pagesize()),
    ] {
        if out.contains(word) {
            out = out.replace(word, &value.to_string());
            keyword = true;
        }
    }
    if out.contains('$') {
        return Err("unknown variable: fio knows $ncpus, $mb_memory, $pagesize and ${ENV}".into());
    }
    if keyword && out.contains(['+', '-', '*', '/']) {
        return arithmetic(&out).map(|n| n.to_string());
    }
    Ok(out)
}

/// Integer `+ - * /` with the usual precedence and parentheses, as `bc` at scale 0 reads it.
fn arithmetic(s: &str) -> Result<i128, String> {
    let tokens: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut pos = 0;
    let v = sum(&tokens, &mut pos, 0)?;
    if pos != tokens.len() {
        return Err(format!(
            "cannot evaluate {s:?}: use integers and + - * / ( )"
        ));
    }
    Ok(v)
}

fn sum(t: &[char], pos: &mut usize, depth: usize) -> Result<i128, String> {
    let mut v = product(t, pos, depth)?;
    while let Some(&op) = t.get(*pos).filter(|c| matches!(c, '+' | '-')) {
        *pos += 1;
        let r = product(t, pos, depth)?;
        v = if op == '+' {
            v.checked_add(r)
        } else {
            v.checked_sub(r)
        }
        .ok_or("overflow")?;
    }
    Ok(v)
}

fn product(t: &[char], pos: &mut usize, depth: usize) -> Result<i128, String> {
    let mut v = atom(t, pos, depth)?;
    while let Some(&op) = t.get(*pos).filter(|c| matches!(c, '*' | '/')) {
        *pos += 1;
        let r = atom(t, pos, depth)?;
        v = match op {
            '*' => v.checked_mul(r).ok_or("overflow")?,
            _ => v.checked_div(r).ok_or("division by zero")?,
        };
    }
    Ok(v)
}

fn atom(t: &[char], pos: &mut usize, depth: usize) -> Result<i128, String> {
    if depth > 32 {
        return Err("too many parentheses".into());
    }
    match t.get(*pos) {
        Some('(') => {
            *pos += 1;
            let v = sum(t, pos, depth + 1)?;
            if t.get(*pos) != Some(&')') {
                return Err("unbalanced parentheses".into());
            }
            *pos += 1;
            Ok(v)
        }
        Some('-') => {
            *pos += 1;
            Ok(-atom(t, pos, depth + 1)?)
        }
        _ => {
            let start = *pos;
            while t.get(*pos).is_some_and(|c| c.is_ascii_digit()) {
                *pos += 1;
            }
            let digits: String = t[start..*pos].iter().collect();
            digits
                .parse()
                .map_err(|_| "cannot evaluate: use integers and + - * / ( )".to_string())
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A host with fixed figures and in-memory files.
    pub struct FakeHost(pub BTreeMap<PathBuf, String>);

    impl Host for FakeHost {
        fn ncpus(&self) -> u64 {
            4
        }
        fn mb_memory(&self) -> u64 {
            8192
        }
        fn pagesize(&self) -> u64 {
            4096
        }
        fn env(&self, name: &str) -> Option<String> {
            (name == "SIZE").then(|| "64m".to_string())
        }
        fn read(&self, path: &Path) -> Result<String, String> {
            self.0
                .get(path)
                .cloned()
                .ok_or_else(|| "no such file".into())
        }
    }

    fn host() -> FakeHost {
        let mut files = BTreeMap::new();
        files.insert(
            PathBuf::from("jobs/common.fio"),
            "bs=8k\n; c\nfsync=1\n".into(),
        );
        files.insert(PathBuf::from("jobs/loop.fio"), "include loop.fio\n".into());
        files.insert(PathBuf::from("jobs/sect.fio"), "[x]\n".into());
        FakeHost(files)
    }

    #[test]
    fn sections_options_comments_and_includes() {
        let text = "; head\n[global]\nrw=randwrite # trailing\n\n[a]\ntime_based\n  include common.fio\nsize=${SIZE}\nnumjobs=$ncpus/2\n";
        let s = parse(text, "jobs/x.fio", &host()).unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].is_global() && !s[1].is_global());
        let kv: Vec<(String, Option<String>, usize)> = s[1]
            .options
            .iter()
            .map(|o| (o.key.clone(), o.value.clone(), o.at.line))
            .collect();
        assert_eq!(
            kv,
            [
                ("time_based".into(), None, 6),
                ("bs".into(), Some("8k".into()), 1),
                ("fsync".into(), Some("1".into()), 3),
                ("size".into(), Some("64m".into()), 8),
                ("numjobs".into(), Some("2".into()), 9),
            ]
        );
        assert_eq!(s[1].options[1].at.file, "jobs/common.fio");
        assert_eq!(s[0].options[0].value.as_deref(), Some("randwrite"));
    }

    #[test]
    fn bad_input_is_one_line_naming_the_place() {
        for (text, want) in [
            ("rw=read\n", "line 1"),
            ("[a\n", "not [NAME]"),
            ("[a]\ninclude loop.fio\n", "nested"),
            ("[a]\ninclude sect.fio\n", "not sections"),
            ("[a]\ninclude none.fio\n", "no such file"),
            ("[a]\nsize=$nope\n", "unknown variable"),
            ("[a]\nsize=$ncpus/0\n", "division by zero"),
            ("[a]\nmy key=1\n", "KEY=VALUE"),
        ] {
            let e = parse(text, "jobs/x.fio", &host()).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }

    #[test]
    fn arithmetic_follows_precedence() {
        assert_eq!(arithmetic("2+3*4").unwrap(), 14);
        assert_eq!(arithmetic("(2+3)*4").unwrap(), 20);
        assert_eq!(arithmetic("8192/4-1").unwrap(), 2047);
    }
}

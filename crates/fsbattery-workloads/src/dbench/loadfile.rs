//! dbench 4.0's loadfile (`client.txt`): one SMB-level operation per line, replayed by every
//! client. Tokenised exactly as `child_run` (child.c) does it, line by line on every pass
//! (dbench re-reads and re-splits each line each time, and that CPU is part of what it
//! measures): every `\` becomes `/`, every " /" becomes " ", then words split on spaces with
//! double quotes grouping (and dropped); lines of fewer than two words or starting with `#`
//! are skipped; a leading number is the line's target time; the last word is the expected
//! status (`NT_STATUS_…` or `0x…`); numbers are read as strtol(s, NULL, 0) reads them.
//!
//! Invariants: the whole file is checked once when the plan is built ([`Loadfile::read`] /
//! [`Loadfile::parse`]), so at run time [`parse_line`] of a kept line cannot fail; a line
//! dbench would stop on or misread (a dbench 1 `SMB…` line, an unknown operation, too few
//! words, a malformed status, a line longer than dbench's 1,023-byte buffer) is refused with
//! its line number. Pure: no I/O but the one read of the file.

use sha2::{Digest, Sha256};

/// The operations dbench times, in the order of its report table (`op_names` in dbench.c);
/// `Sleep` is replayed but not timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `NTCreateX path options disposition handle status`.
    NTCreateX,
    /// `Close handle status`.
    Close,
    /// `Rename old new status`.
    Rename,
    /// `Unlink path attributes status`.
    Unlink,
    /// `Deltree path status`.
    Deltree,
    /// `Rmdir path status`.
    Rmdir,
    /// `Mkdir path status`.
    Mkdir,
    /// `QUERY_PATH_INFORMATION path level status`.
    Qpathinfo,
    /// `QUERY_FILE_INFORMATION handle level status`.
    Qfileinfo,
    /// `QUERY_FS_INFORMATION level status`.
    Qfsinfo,
    /// `SET_FILE_INFORMATION handle level status`.
    Sfileinfo,
    /// `FIND_FIRST pattern level maxcount count status`.
    Find,
    /// `WriteX handle offset size returned status`.
    WriteX,
    /// `ReadX handle offset size returned status`.
    ReadX,
    /// `LockX handle offset size status`.
    LockX,
    /// `UnlockX handle offset size status`.
    UnlockX,
    /// `Flush handle status`.
    Flush,
    /// `Sleep microseconds status` (not timed).
    Sleep,
}

/// The timed operations in report order.
pub const TIMED: [Kind; 17] = [
    Kind::NTCreateX,
    Kind::Close,
    Kind::Rename,
    Kind::Unlink,
    Kind::Deltree,
    Kind::Rmdir,
    Kind::Mkdir,
    Kind::Qpathinfo,
    Kind::Qfileinfo,
    Kind::Qfsinfo,
    Kind::Sfileinfo,
    Kind::Find,
    Kind::WriteX,
    Kind::ReadX,
    Kind::LockX,
    Kind::UnlockX,
    Kind::Flush,
];

impl Kind {
    /// The loadfile's word, and the words a line needs (status included).
    fn word(self) -> (&'static str, usize) {
        match self {
            Kind::NTCreateX => ("NTCreateX", 6),
            Kind::Close => ("Close", 3),
            Kind::Rename => ("Rename", 4),
            Kind::Unlink => ("Unlink", 4),
            Kind::Deltree => ("Deltree", 3),
            Kind::Rmdir => ("Rmdir", 3),
            Kind::Mkdir => ("Mkdir", 3),
            Kind::Qpathinfo => ("QUERY_PATH_INFORMATION", 4),
            Kind::Qfileinfo => ("QUERY_FILE_INFORMATION", 4),
            Kind::Qfsinfo => ("QUERY_FS_INFORMATION", 3),
            Kind::Sfileinfo => ("SET_FILE_INFORMATION", 4),
            Kind::Find => ("FIND_FIRST", 6),
            Kind::WriteX => ("WriteX", 6),
            Kind::ReadX => ("ReadX", 6),
            Kind::LockX => ("LockX", 5),
            Kind::UnlockX => ("UnlockX", 5),
            Kind::Flush => ("Flush", 3),
            Kind::Sleep => ("Sleep", 3),
        }
    }

    /// The name dbench's report table gives it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Qpathinfo => "Qpathinfo",
            Kind::Qfileinfo => "Qfileinfo",
            Kind::Qfsinfo => "Qfsinfo",
            Kind::Sfileinfo => "Sfileinfo",
            Kind::Find => "Find",
            k => k.word().0,
        }
    }

    /// Index in [`TIMED`] (Sleep: none).
    pub fn index(self) -> Option<usize> {
        TIMED.iter().position(|k| *k == self)
    }

    fn of_word(w: &str) -> Option<Kind> {
        TIMED
            .iter()
            .copied()
            .chain([Kind::Sleep])
            .find(|k| k.word().0 == w)
    }
}

/// One operation of a line, borrowing the line's words.
#[derive(Debug, Clone, PartialEq)]
pub struct Op<'a> {
    /// What it does.
    pub kind: Kind,
    /// The line's target time in seconds (0: none).
    pub targett: f64,
    /// First word after the operation when it is a path (starts with '/').
    pub path1: Option<&'a str>,
    /// Second such word.
    pub path2: Option<&'a str>,
    /// Words 1 to 4 after the operation as strtol(s, NULL, 0) reads them.
    pub n: [i64; 4],
    /// Whether the status says success (`NT_STATUS_OK`, or `0x…` of value 0).
    pub ok: bool,
}

/// dbench's line buffer (`char line[1024]`, read with fgets(…, 1023)): longer lines split.
const MAX_LINE: usize = 1022;
/// dbench's word buffers (`malloc(100)` each) and their count.
const MAX_WORD: usize = 99;
const MAX_WORDS: usize = 19;

/// Split `line` into words as child.c does (see the module notes), into `words` (reused,
/// like dbench's fixed buffers: no allocation per line once they have grown); returns how
/// many words the line has (`words[..n]`); `scratch` is reused too.
pub fn tokenize(line: &str, words: &mut Vec<String>, scratch: &mut String) -> usize {
    scratch.clear();
    scratch.extend(line.chars().map(|c| if c == '\\' { '/' } else { c }));
    if scratch.contains(" /") {
        *scratch = scratch.replace(" /", " ");
    }
    let mut n = 0;
    let mut rest = scratch.as_str();
    while n < MAX_WORDS {
        rest = rest.trim_start_matches(' ');
        if rest.is_empty() {
            break;
        }
        if n == words.len() {
            words.push(String::new());
        }
        let w = &mut words[n];
        w.clear();
        let mut quoted = false;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            if c == '"' {
                quoted = !quoted;
            } else if c == ' ' && !quoted {
                end = i;
                break;
            } else {
                w.push(c);
            }
        }
        n += 1;
        rest = rest.get(end + 1..).unwrap_or("");
    }
    n
}

/// strtol(s, NULL, 0): optional sign, `0x` hex, leading `0` octal, else decimal; stops at the
/// first character that does not fit; 0 when none does; saturates as strtol does.
pub fn ival(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, h)
    } else if t.starts_with('0') {
        (8, t)
    } else {
        (10, t)
    };
    let mut v: i64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        v = v.saturating_mul(radix as i64).saturating_add(d as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

/// Whether dbench's `expected_status` reads `status` as success.
fn status_ok(status: &str) -> bool {
    status == "NT_STATUS_OK"
        || status
            .strip_prefix("0x")
            .is_some_and(|h| u64::from_str_radix(h.trim(), 16).ok() == Some(0))
}

/// The operation of a tokenised line, `None` for a line dbench skips; the error says what is
/// wrong (the caller adds the line number).
pub fn parse_line(words: &[String]) -> Result<Option<Op<'_>>, String> {
    if words.len() < 2 || words[0].starts_with('#') {
        return Ok(None);
    }
    if words[0].starts_with("SMB") {
        return Err("a dbench 1 load file (SMB… lines): give a dbench 4 loadfile".into());
    }
    if let Some(w) = words.iter().find(|w| w.len() > MAX_WORD) {
        let head: String = w.chars().take(24).collect();
        return Err(format!(
            "a word longer than dbench's {MAX_WORD} bytes ({head}…)"
        ));
    }
    let (targett, p) = match words[0].as_bytes().first() {
        Some(b'0'..=b'9') => (strtod(&words[0]), &words[1..]),
        _ => (0.0, words),
    };
    let status = p.last().map(String::as_str).unwrap_or("");
    if !status.starts_with("NT_STATUS_") && !status.starts_with("0x") {
        return Err(format!(
            "badly formed status {status:?}: a line ends with NT_STATUS_… or 0x…"
        ));
    }
    let kind = Kind::of_word(&p[0]).ok_or_else(|| {
        format!("unknown operation {:?} (dbench 4.0 replays NTCreateX, Close, Rename, Unlink, Deltree, Rmdir, Mkdir, QUERY_PATH_INFORMATION, QUERY_FILE_INFORMATION, QUERY_FS_INFORMATION, SET_FILE_INFORMATION, FIND_FIRST, WriteX, ReadX, LockX, UnlockX, Flush, Sleep)", p[0])
    })?;
    let need = kind.word().1;
    if p.len() < need {
        return Err(format!(
            "{} takes {} words and a status, got {}",
            p[0],
            need - 2,
            p.len().saturating_sub(2)
        ));
    }
    let words = &p;
    let path = |i: usize| {
        words
            .get(i)
            .map(String::as_str)
            .filter(|w| w.starts_with('/'))
    };
    let num = |i: usize| words.get(i).map_or(0, |w| ival(w));
    Ok(Some(Op {
        kind,
        targett,
        path1: path(1),
        path2: path(2),
        n: [num(1), num(2), num(3), num(4)],
        ok: status_ok(status),
    }))
}

/// strtod's reading of a leading number (what it can parse of the word).
fn strtod(w: &str) -> f64 {
    let end = w
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == '-' || *c == '+'))
        .map_or(w.len(), |(i, _)| i);
    (0..=end)
        .rev()
        .find_map(|e| w[..e].parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .unwrap_or(0.0)
}

/// A checked loadfile: its text, the operations it uses, its checksum.
#[derive(Debug)]
pub struct Loadfile {
    /// Where it was read from.
    pub path: String,
    /// Its lines (the newline removed).
    pub lines: Vec<String>,
    /// How many times each timed operation appears in one pass, in [`TIMED`] order.
    pub counts: [u64; 17],
    /// Bytes read and written by one pass of one client (ReadX and WriteX sizes).
    pub bytes_per_pass: u64,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    /// Bytes one client's files can hold at once, at most: the sum over the names it opens
    /// of the furthest byte written to each.
    pub peak_bytes: u64,
    /// Names one client creates or opens (files and directories).
    pub names: u64,
}

impl Loadfile {
    /// Read and check the loadfile at `path`.
    pub fn read(path: &str) -> Result<Loadfile, String> {
        let bytes = std::fs::read(path).map_err(|e| {
            format!("cannot read the loadfile {path}: {e} (install the dbench package, e.g. apt-get install dbench, or give -c FILE)")
        })?;
        Loadfile::parse(path, &bytes)
    }

    /// Check the loadfile `bytes` read from `path` (pure: what the fuzz target runs).
    pub fn parse(path: &str, bytes: &[u8]) -> Result<Loadfile, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            format!("{path} line {line}: not UTF-8 text")
        })?;
        let (mut counts, mut bytes_per_pass, mut lines) = ([0u64; 17], 0u64, Vec::new());
        let (mut words, mut scratch) = (Vec::new(), String::new());
        let mut open = std::collections::HashMap::<i64, String>::new();
        let mut extent = std::collections::HashMap::<String, u64>::new();
        for (i, line) in text.lines().enumerate() {
            let at = |m: String| format!("{path} line {}: {m}", i + 1);
            if line.len() > MAX_LINE {
                return Err(at(format!(
                    "longer than dbench's {MAX_LINE}-byte line buffer"
                )));
            }
            if line.contains('\0') {
                return Err(at("a NUL byte (no path can hold one)".into()));
            }
            let n = tokenize(line, &mut words, &mut scratch);
            if let Some(op) = parse_line(&words[..n]).map_err(at)? {
                if let Some(k) = op.kind.index() {
                    counts[k] += 1;
                }
                if let (Kind::NTCreateX | Kind::Mkdir, Some(p)) = (op.kind, op.path1) {
                    if op.kind == Kind::NTCreateX {
                        open.insert(op.n[3], p.to_string());
                    }
                    extent.entry(p.to_string()).or_default();
                }
                if let (Kind::WriteX, Some(p)) = (op.kind, open.get(&op.n[0])) {
                    let end = op.n[1].clamp(0, 1 << 40) as u64 + op.n[2].clamp(0, 1 << 24) as u64;
                    let e = extent.entry(p.clone()).or_default();
                    *e = (*e).max(end);
                }
                if matches!(op.kind, Kind::ReadX | Kind::WriteX) {
                    if !(0..=1 << 24).contains(&op.n[2]) {
                        return Err(at(format!("size {} is not 0..16 MiB", op.n[2])));
                    }
                    bytes_per_pass = bytes_per_pass.saturating_add(op.n[2] as u64);
                }
            }
            lines.push(line.to_string());
        }
        if counts.iter().sum::<u64>() == 0 {
            return Err(format!("{path}: no operation dbench replays in it"));
        }
        Ok(Loadfile {
            path: path.to_string(),
            lines,
            counts,
            bytes_per_pass,
            sha256: format!("{:x}", Sha256::digest(bytes)),
            peak_bytes: extent.values().fold(0u64, |a, b| a.saturating_add(*b)),
            names: extent.len() as u64,
        })
    }

    /// The timed operations that appear in it, in report order.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        TIMED
            .iter()
            .copied()
            .zip(self.counts)
            .filter(|(_, n)| *n > 0)
            .map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(line: &str) -> Option<(Kind, Option<String>, [i64; 4], bool)> {
        let (mut w, mut s) = (Vec::new(), String::new());
        let n = tokenize(line, &mut w, &mut s);
        parse_line(&w[..n])
            .unwrap()
            .map(|o| (o.kind, o.path1.map(String::from), o.n, o.ok))
    }

    #[test]
    fn lines_are_read_as_child_c_reads_them() {
        let (k, p, n, ok) =
            op(r#"NTCreateX "\clients\client1\~dmtmp" 0x1 0x2 9937 NT_STATUS_OK"#).unwrap();
        assert_eq!(
            (k, p.as_deref(), ok),
            (Kind::NTCreateX, Some("/clients/client1/~dmtmp"), true)
        );
        assert_eq!(n[1..], [1, 2, 9937]);
        let (k, _, n, ok) = op("WriteX 9938 65534 1 1 NT_STATUS_OK").unwrap();
        assert_eq!((k, n, ok), (Kind::WriteX, [9938, 65534, 1, 1], true));
        let (_, _, _, ok) = op(
            r#"NTCreateX "\clients\client1\mixfile" 0x40 0x1 9935 NT_STATUS_OBJECT_NAME_NOT_FOUND"#,
        )
        .unwrap();
        assert!(!ok);
        // An unquoted path loses its slash to the " /" rule, so dbench gives it no file name.
        let (_, p, _, _) = op(r"Unlink \clients\x 0x20 NT_STATUS_OK").unwrap();
        assert_eq!(p, None);
        assert_eq!(op("# comment NT_STATUS_OK"), None);
        assert_eq!(op("Close"), None);
        assert!(op("12.5 Close 7 0x0").unwrap().3);
        assert_eq!(
            (ival("0x40"), ival("010"), ival("12ab"), ival("x")),
            (64, 8, 12, 0)
        );
    }

    #[test]
    fn bad_loadfiles_are_refused_in_one_line_naming_the_line() {
        for (text, want) in [
            ("Close 1 NT_STATUS_OK\nSMBopenX 1 2\n", "line 2"),
            ("Frob 1 NT_STATUS_OK\n", "unknown operation"),
            ("WriteX 1 2 NT_STATUS_OK\n", "WriteX takes 4"),
            ("Close 1 OK\n", "badly formed status"),
            ("# nothing\n", "no operation"),
            ("ReadX 1 0 999999999 0 NT_STATUS_OK\n", "size"),
        ] {
            let e = Loadfile::parse("l.txt", text.as_bytes()).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
            assert_eq!(e.lines().count(), 1);
        }
        let long = format!("Close {} NT_STATUS_OK\n", "1".repeat(1100));
        assert!(Loadfile::parse("l", long.as_bytes())
            .unwrap_err()
            .contains("line 1"));
        assert!(Loadfile::parse("l", b"Close 1 NT_STATUS_OK\n\xff\n")
            .unwrap_err()
            .contains("line 2: not UTF-8"));
    }

    #[test]
    fn a_loadfile_counts_its_operations_and_bytes() {
        let text = "Deltree \"\\clients\\client1\" NT_STATUS_OK\nWriteX 1 0 100 100 NT_STATUS_OK\nReadX 1 0 50 50 NT_STATUS_OK\nSleep 10 NT_STATUS_OK\n";
        let l = Loadfile::parse("l", text.as_bytes()).unwrap();
        assert_eq!(l.bytes_per_pass, 150);
        let k: Vec<_> = l.kinds().collect();
        assert_eq!(k, [Kind::Deltree, Kind::WriteX, Kind::ReadX]);
        assert_eq!(l.sha256.len(), 64);
    }
}

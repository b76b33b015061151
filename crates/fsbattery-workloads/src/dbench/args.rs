//! dbench 4.0's command line (Debian's `dbench` 4.0, popt), parsed into a [`Config`]: what
//! `--workload 'dbench:ARGS'` takes, so a user pastes the line they already run.
//!
//! Invariants: pure (no I/O; the loadfile is read later); every option dbench 4.0 accepts is
//! either honoured or refused by name with the reason; a value is checked as dbench would use
//! it (whole seconds, at least one process) and a mistake is one line naming the option.
//! Short flags group as popt lets them (`-sSF`), a short option's value may be attached
//! (`-t10`) and a long one's given with `=` or as the next word.

/// The loadfile dbench 4.0 reads without `-c` (Debian's package puts it there).
pub const DEFAULT_LOADFILE: &str = "/usr/share/dbench/client.txt";

/// dbench's settings, as its `struct options` holds them after parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// `-t`: seconds of the timed run after the warmup (default 600).
    pub timelimit: u64,
    /// `-c`: the loadfile.
    pub loadfile: String,
    /// `-D`: the working directory, relative to the target's scratch directory.
    pub directory: String,
    /// NPROCS, the one positional argument.
    pub nprocs: u64,
    /// `--clients-per-process`.
    pub clients_per_process: u64,
    /// `-R`: target rate in MB/s (0: as fast as possible).
    pub target_rate: f64,
    /// `-s`: open files O_SYNC.
    pub sync_open: bool,
    /// `-S`: fdatasync the parent directory after a directory change.
    pub sync_dirs: bool,
    /// `-F`: fsync after every write.
    pub do_fsync: bool,
    /// `--no-resolve`: no case-insensitive lookup of a missing name.
    pub no_resolve: bool,
    /// `--one-byte-write-fix`.
    pub one_byte_write_fix: bool,
    /// `--stat-check`.
    pub stat_check: bool,
    /// `--fake-io`: count reads and writes without doing them.
    pub fake_io: bool,
    /// `--skip-cleanup`: leave the clients' files (the scratch directory still goes).
    pub skip_cleanup: bool,
    /// `--per-client-results` (dbench prints a table per client; recorded, no metric).
    pub per_client_results: bool,
}

impl Default for Config {
    /// dbench 4.0's defaults (`options` in dbench.c), with 1 process.
    fn default() -> Self {
        Config {
            timelimit: 600,
            loadfile: DEFAULT_LOADFILE.into(),
            directory: ".".into(),
            nprocs: 1,
            clients_per_process: 1,
            target_rate: 0.0,
            sync_open: false,
            sync_dirs: false,
            do_fsync: false,
            no_resolve: false,
            one_byte_write_fix: false,
            stat_check: false,
            fake_io: false,
            skip_cleanup: false,
            per_client_results: false,
        }
    }
}

impl Config {
    /// Clients in all: NPROCS × clients per process.
    pub fn clients(&self) -> u64 {
        self.nprocs * self.clients_per_process
    }

    /// dbench 4.0's warmup: a fifth of the time limit, whole seconds.
    pub fn warmup(&self) -> u64 {
        self.timelimit / 5
    }

    /// The sync options as dbench's summary line names them.
    pub fn sync_text(&self) -> String {
        let mut s = String::new();
        if self.sync_open {
            s.push_str(" (sync open)");
        }
        if self.sync_dirs {
            s.push_str(" (sync dirs)");
        }
        s
    }
}

/// Most seconds `-t` takes (a day, fsbattery's longest phase).
const MAX_TIME: u64 = crate::params::MAX_RUNTIME;
/// Fewest seconds `-t` takes: with -t 1 dbench ends at its first tick, before any tick
/// measured throughput, and reports 0 MB/sec.
const MIN_TIME: u64 = 2;
/// Most clients in all (processes × clients per process).
const MAX_CLIENTS: u64 = 4096;

/// Options dbench 4.0 has that fsbattery refuses, with the reason.
const REFUSED: &[(&str, &str)] = &[
    ("-T", "TCP socket options are tbench's (no sockets here)"),
    (
        "--tcp-options",
        "TCP socket options are tbench's (no sockets here)",
    ),
    (
        "-x",
        "extended attributes (user.DosAttrib) are not reproduced",
    ),
    (
        "--xattr",
        "extended attributes (user.DosAttrib) are not reproduced",
    ),
];

/// Split `text` into words: whitespace separates, single or double quotes group.
fn words(text: &str) -> Result<Vec<String>, String> {
    let (mut out, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => {
                cur.push(c);
                any = true;
            }
        }
    }
    if quote.is_some() {
        return Err("an unclosed quote".into());
    }
    if any {
        out.push(cur);
    }
    Ok(out)
}

/// A whole number of `what` from `v` (popt's POPT_ARG_INT: decimal, no sign games).
fn number(opt: &str, v: &str, min: u64, max: u64) -> Result<u64, String> {
    v.parse::<u64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("{opt} {v:?}: give a whole number from {min} to {max}"))
}

/// Parse dbench's command line `text` (without the program name).
pub fn parse(text: &str) -> Result<Config, String> {
    let w = words(text)?;
    let mut c = Config::default();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < w.len() {
        let a = w[i].as_str();
        i += 1;
        if a == "--" {
            positional.extend(w[i..].iter().cloned());
            break;
        }
        if let Some((name, why)) = REFUSED
            .iter()
            .find(|(n, _)| a == *n || a.starts_with(&format!("{n}=")))
        {
            return Err(format!("option {name} is not supported: {why}"));
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let mut value = || -> Result<String, String> {
                if let Some(v) = inline.clone() {
                    return Ok(v);
                }
                let v = w.get(i).cloned();
                i += 1;
                v.ok_or_else(|| format!("--{name} needs a value"))
            };
            long_option(&mut c, name, &mut value, inline.is_some())?;
        } else if a.len() > 1 && a.starts_with('-') {
            i = short_options(&mut c, a, &w, i)?;
        } else {
            positional.push(a.to_string());
        }
    }
    match positional.as_slice() {
        [] => return Err("give NPROCS, the number of processes (e.g. 'dbench:-t 10 4')".into()),
        [n] => c.nprocs = number("NPROCS", n, 1, MAX_CLIENTS)?,
        [_, extra, ..] => {
            return Err(format!(
                "one positional argument (NPROCS) expected, also got {extra:?} (a server \
                 name is tbench's)"
            ))
        }
    }
    if c.clients() > MAX_CLIENTS {
        return Err(format!(
            "{} processes × {} clients per process: at most {MAX_CLIENTS} clients",
            c.nprocs, c.clients_per_process
        ));
    }
    check_directory(&c.directory)?;
    Ok(c)
}

/// `-D` is taken inside the target's scratch directory: relative, and never above it.
fn check_directory(d: &str) -> Result<(), String> {
    let p = std::path::Path::new(d);
    if p.is_absolute() {
        return Err(format!(
            "-D {d}: an absolute directory would run outside the target; give a directory \
             relative to the target (e.g. -D sub)"
        ));
    }
    if p.components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(format!("-D {d}: '..' would leave the target's directory"));
    }
    Ok(())
}

/// One long option `--name` (value from `value` when it takes one).
fn long_option(
    c: &mut Config,
    name: &str,
    value: &mut dyn FnMut() -> Result<String, String>,
    has_inline: bool,
) -> Result<(), String> {
    let flag = |set: &mut bool| -> Result<(), String> {
        if has_inline {
            return Err(format!("--{name} takes no value"));
        }
        *set = true;
        Ok(())
    };
    match name {
        "timelimit" => c.timelimit = number("--timelimit", &value()?, MIN_TIME, MAX_TIME)?,
        "loadfile" => c.loadfile = nonempty("--loadfile", value()?)?,
        "directory" => c.directory = nonempty("--directory", value()?)?,
        "target-rate" => c.target_rate = rate(&value()?)?,
        "clients-per-process" => {
            c.clients_per_process = number("--clients-per-process", &value()?, 1, MAX_CLIENTS)?
        }
        "sync" => flag(&mut c.sync_open)?,
        "sync-dir" => flag(&mut c.sync_dirs)?,
        "fsync" => flag(&mut c.do_fsync)?,
        "no-resolve" => flag(&mut c.no_resolve)?,
        "one-byte-write-fix" => flag(&mut c.one_byte_write_fix)?,
        "stat-check" => flag(&mut c.stat_check)?,
        "fake-io" => flag(&mut c.fake_io)?,
        "skip-cleanup" => flag(&mut c.skip_cleanup)?,
        "per-client-results" => flag(&mut c.per_client_results)?,
        _ => return Err(unknown(&format!("--{name}"))),
    }
    Ok(())
}

/// A group of short options `-abc` starting at word `i - 1`; returns the next word's index.
fn short_options(c: &mut Config, a: &str, w: &[String], mut i: usize) -> Result<usize, String> {
    let chars: Vec<char> = a.chars().skip(1).collect();
    for (k, ch) in chars.iter().enumerate() {
        let rest: String = chars[k + 1..].iter().collect();
        let mut value = || -> Result<String, String> {
            if !rest.is_empty() {
                return Ok(rest.clone());
            }
            let v = w.get(i).cloned();
            i += 1;
            v.ok_or_else(|| format!("-{ch} needs a value"))
        };
        match ch {
            't' => c.timelimit = number("-t", &value()?, MIN_TIME, MAX_TIME)?,
            'c' => c.loadfile = nonempty("-c", value()?)?,
            'D' => c.directory = nonempty("-D", value()?)?,
            'R' => c.target_rate = rate(&value()?)?,
            's' => {
                c.sync_open = true;
                continue;
            }
            'S' => {
                c.sync_dirs = true;
                continue;
            }
            'F' => {
                c.do_fsync = true;
                continue;
            }
            'T' | 'x' => {
                let (n, why) = REFUSED
                    .iter()
                    .find(|(n, _)| n[1..] == ch.to_string())
                    .expect("listed");
                return Err(format!("option {n} is not supported: {why}"));
            }
            _ => return Err(unknown(&format!("-{ch}"))),
        }
        // An option with a value took the rest of the group.
        break;
    }
    Ok(i)
}

fn nonempty(opt: &str, v: String) -> Result<String, String> {
    if v.trim().is_empty() {
        return Err(format!("{opt}: give a non-empty value"));
    }
    Ok(v)
}

fn rate(v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && (0.0..=1e6).contains(r))
        .ok_or_else(|| format!("-R {v:?}: give a target rate in MB/s from 0 to 1000000"))
}

fn unknown(opt: &str) -> String {
    format!(
        "option {opt} is not a dbench 4.0 option fsbattery supports (supported: -t -c -D -R -s \
         -S -F --no-resolve --clients-per-process --one-byte-write-fix --stat-check --fake-io \
         --skip-cleanup --per-client-results)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbench_command_lines_parse_as_dbench_reads_them() {
        let c = parse("-t 10 4").unwrap();
        assert_eq!((c.timelimit, c.nprocs, c.warmup()), (10, 4, 2));
        assert_eq!(c.loadfile, DEFAULT_LOADFILE);
        let c = parse("-c /tmp/l.txt -t10 -sSF --clients-per-process=3 -D sub 2").unwrap();
        assert_eq!(c.loadfile, "/tmp/l.txt");
        assert_eq!((c.timelimit, c.nprocs, c.clients()), (10, 2, 6));
        assert!(c.sync_open && c.sync_dirs && c.do_fsync);
        assert_eq!(c.directory, "sub");
        assert_eq!(c.sync_text(), " (sync open) (sync dirs)");
        let c = parse("--timelimit 7 --loadfile 'a b.txt' --no-resolve --skip-cleanup 1").unwrap();
        assert_eq!((c.timelimit, c.loadfile.as_str()), (7, "a b.txt"));
        assert!(c.no_resolve && c.skip_cleanup);
        assert_eq!(parse("-R 2.5 1").unwrap().target_rate, 2.5);
    }

    #[test]
    fn unsupported_and_malformed_lines_are_refused_in_one_line_naming_the_option() {
        for (args, names) in [
            ("-x 2", "-x"),
            ("--xattr 2", "--xattr"),
            ("-T TCP_NODELAY 2", "-T"),
            ("--warmup 3 2", "--warmup"),
            ("-q 2", "-q"),
            ("-t 2", "NPROCS"),
            ("-t 2 2 server", "server"),
            ("-t abc 2", "-t"),
            ("-t 0 2", "-t"),
            ("-t 1 2", "from 2"),
            ("-t", "-t"),
            ("-D /tmp 2", "-D /tmp"),
            ("-D ../up 2", "-D ../up"),
            ("-c '' 2", "-c"),
            ("'2", "quote"),
            ("-R nan 2", "-R"),
            ("0", "NPROCS"),
            ("--fsync=1 2", "--fsync"),
            ("--clients-per-process=5000 1", "--clients-per-process"),
            ("--clients-per-process=4096 2", "4096 clients"),
        ] {
            let e = parse(args).expect_err(args);
            assert!(e.contains(names), "{args}: {e}");
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }
}

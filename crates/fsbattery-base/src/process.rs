//! Running external programs: the tools targets depend on (mkfs, mount, zpool, wipefs, ...),
//! the package manager, command-mode workloads and the free-space report. A general helper,
//! so it sits at the crate's top level and depends on no part of it but the stopwatch.
//!
//! Invariants: every child runs in its own process group with SIGINT ignored, so a SIGINT
//! typed at the terminal reaches fsbattery (which raises its flag and tears down on the normal
//! path) but never a half-finished mkfs or mount; stdin is /dev/null so a tool that would
//! prompt fails instead of hanging; every child is waited for. Tools are looked up on PATH and
//! in the sbin directories (sudo often drops those from PATH), and the resolved path is what
//! is recorded.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A program could not be started, or it failed; the message is the tool's own.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ProcessError(pub String);

/// Directories searched after PATH: mkfs tools live in sbin.
const EXTRA_DIRS: [&str; 4] = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"];

/// Full path of `tool`, or `None` when it is not installed: PATH, then the sbin and bin
/// directories (mkfs and mount helpers live in sbin, which a user's PATH may lack; fsbattery
/// runs them by this full path).
pub fn which(tool: &str) -> Option<PathBuf> {
    lookup(tool, &EXTRA_DIRS)
}

/// Full path of `tool` on PATH alone: what a child process started by name (command mode,
/// `sh -c` pipelines) will find, since it inherits PATH.
pub fn on_path(tool: &str) -> Option<PathBuf> {
    lookup(tool, &[])
}

fn lookup(tool: &str, extra: &[&str]) -> Option<PathBuf> {
    if tool.contains('/') {
        return is_executable(Path::new(tool)).then(|| PathBuf::from(tool));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra.iter().map(PathBuf::from))
        .map(|d| d.join(tool))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// A finished command: its line as run, what it printed and how long it took.
#[derive(Debug, Clone, Default)]
pub struct Ran {
    /// The command line, words joined by spaces.
    pub command: String,
    /// stdout followed by stderr.
    pub output: String,
    /// stderr alone (its first line summarises a failure).
    pub stderr: String,
    /// Wall seconds from spawn to exit.
    pub secs: f64,
    /// CPU of the command (reaped child) and of this process while it ran: measured around
    /// this command alone, so mkfs's CPU never lands on the mount's sample.
    pub cpu: crate::model::CpuSecs,
}

/// The command line as text (for records and messages).
pub fn show(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A command with its program resolved; the first word is a tool name or path.
fn command(argv: &[String]) -> Result<(Command, Vec<String>), ProcessError> {
    let tool = argv
        .first()
        .ok_or_else(|| ProcessError("empty command".into()))?;
    let path = which(tool).ok_or_else(|| ProcessError(format!("{tool} not found on PATH")))?;
    let mut shown = argv.to_vec();
    shown[0] = path.display().to_string();
    let mut cmd = Command::new(&path);
    cmd.args(&argv[1..])
        .stdin(Stdio::null())
        .process_group(0)
        .env("LC_ALL", "C");
    // A Ctrl-C that lands between fork and setpgid still reaches the child through our
    // process group; without this it would be pending at exec with its default action and
    // kill the tool. Ignoring SIGINT discards it and survives exec. (FUSE daemons keep an
    // ignored SIGINT ignored; they are stopped by unmount or SIGTERM.)
    // SAFETY: signal(2) is async-signal-safe, as required between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    Ok((cmd, shown))
}

/// Run to completion; a non-zero exit is an error carrying the tool's own message.
pub fn run(argv: &[String]) -> Result<Ran, ProcessError> {
    let ran = run_status(argv)?;
    match ran.1 {
        Some(0) => Ok(ran.0),
        code => Err(failure(&ran.0, code)),
    }
}

/// Run to completion and return the exit code too (`None` when killed by a signal).
pub fn run_status(argv: &[String]) -> Result<(Ran, Option<i32>), ProcessError> {
    let (mut cmd, shown) = command(argv)?;
    let command = show(&shown);
    let sw = crate::measure::Stopwatch::start();
    let out = cmd
        .output()
        .map_err(|e| ProcessError(format!("cannot run {command}: {e}")))?;
    let timing = sw.stop();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&stderr);
    Ok((
        Ran {
            command,
            output,
            stderr,
            secs: timing.elapsed_s,
            cpu: timing.cpu(),
        },
        out.status.code(),
    ))
}

/// "CMD failed (exit status N): first line of stderr" followed by the whole output.
pub fn failure(ran: &Ran, code: Option<i32>) -> ProcessError {
    let status = code.map_or("killed by a signal".to_string(), |c| {
        format!("exit status {c}")
    });
    let text = ran.output.trim();
    // Tools put the reason first on stderr (usage text follows); without stderr, the last
    // line of stdout is the likeliest reason.
    let first = ran
        .stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .or_else(|| text.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("no output");
    let mut msg = format!("{} failed ({status}): {}", ran.command, first.trim());
    if text.lines().count() > 1 {
        msg.push('\n');
        msg.push_str(text);
    }
    ProcessError(msg)
}

/// Spawn without waiting (daemons); own process group, output appended to `log`.
pub fn spawn(argv: &[String], log: &Path) -> Result<std::process::Child, ProcessError> {
    let (mut cmd, shown) = command(argv)?;
    let open = || {
        std::fs::OpenOptions::new()
            .append(true)
            .open(log)
            .map_err(|e| ProcessError(format!("cannot open {}: {e}", log.display())))
    };
    cmd.stdout(open()?).stderr(open()?);
    cmd.spawn()
        .map_err(|e| ProcessError(format!("cannot start {}: {e}", show(&shown))))
}

/// The line of a version query that names the tool (some print library versions first,
/// on another stream), else its first non-empty line; `None` when the tool is missing.
pub fn version(argv: &[&str]) -> Option<String> {
    let name = argv.first()?.rsplit('/').next()?.to_string();
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let (ran, _) = run_status(&argv).ok()?;
    let lines = || ran.output.lines().map(str::trim).filter(|l| !l.is_empty());
    let named = lines().find(|l| l.starts_with(&name));
    named.or_else(|| lines().next()).map(str::to_string)
}

/// Words of `s`, split on whitespace, honouring '...' and "..." quoting (no escapes).
pub fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(cur.take()),
            (None, c) => cur.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return Err(format!("unbalanced quote in '{s}'"));
    }
    words.extend(cur);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_with_quotes() {
        assert_eq!(
            split_words("-m crc=1  -L 'a b'").unwrap(),
            ["-m", "crc=1", "-L", "a b"]
        );
        assert_eq!(split_words("''").unwrap(), [""]);
        assert!(split_words("'open").is_err());
    }

    #[test]
    fn show_quotes_only_when_needed() {
        let argv = vec!["mkfs.ext4".to_string(), "-L".into(), "a b".into()];
        assert_eq!(show(&argv), "mkfs.ext4 -L 'a b'");
    }

    #[test]
    fn failing_command_reports_its_output() {
        let err = run(&["sh".into(), "-c".into(), "echo oops >&2; exit 3".into()]).unwrap_err();
        assert!(err.0.contains("exit status 3"), "{err}");
        assert!(err.0.contains("oops"), "{err}");
        let ok = run(&["true".into()]).unwrap();
        assert!(ok.command.ends_with("true"));
    }
}

//! A PostgreSQL server of our own for one pgbench cell: made with `initdb` in a directory on
//! the target, started on a private socket, stopped and removed when the guard drops.
//!
//! Invariants:
//! - everything runs as the unprivileged account [`Account`] (PostgreSQL refuses root) with
//!   a cleared environment, so no `PGDATA`, `PGHOST` or `PGPORT` of the caller's can point a
//!   command at a cluster we did not make; every command names our data directory or socket;
//! - the server listens on no TCP address: only the Unix socket in our directory (0700, owned
//!   by the account), so nothing else on the machine can reach it;
//! - [`Server`] stops the server on drop — success, failed cell, interruption — first with
//!   `pg_ctl stop -m fast`, then by signalling the postmaster whose pid and start time we
//!   recorded, then any process still working in our data directory; the files go with the
//!   scratch directory. That release is `targets::postgres_release`, the one `fsbattery
//!   cleanup` runs after a kill -9: it finds a server's processes by their working directory,
//!   which PostgreSQL's processes set to their data directory at start.

use crate::error::{IoContext, WorkloadError};
use crate::targets::postgres_release;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian and Ubuntu install PostgreSQL's server programs (`postgresql-NN`).
const LIB: &str = "/usr/lib/postgresql";

/// The account the server and pgbench run as. `nobody` exists on every Debian, Fedora and
/// SUSE system and owns no files, so a data directory it owns is ours alone; creating an
/// account of our own would change /etc/passwd for good.
pub(super) const ACCOUNT: &str = "nobody";

/// The superuser role initdb makes (a name, not an account: trust authentication on our
/// private socket).
pub(super) const ROLE: &str = "fsbattery";

/// The unprivileged account, looked up once per cell.
#[derive(Debug, Clone, Copy)]
pub(super) struct Account {
    pub uid: u32,
    pub gid: u32,
}

impl Account {
    /// [`ACCOUNT`], or why it cannot be used.
    pub(super) fn lookup() -> Result<Account, String> {
        match nix::unistd::User::from_name(ACCOUNT) {
            Ok(Some(u)) => Ok(Account {
                uid: u.uid.as_raw(),
                gid: u.gid.as_raw(),
            }),
            _ => Err(format!(
                "no account '{ACCOUNT}' to run PostgreSQL as (it refuses root): create it"
            )),
        }
    }

    /// `program args` as this account, in `cwd`, with a cleared environment. Through
    /// `setpriv`, which keeps one capability: CAP_DAC_READ_SEARCH, to walk the run's private
    /// (0700, root-owned) directories down to the target — nothing is written outside the
    /// account's own directory.
    pub(super) fn command(&self, cwd: &Path, program: &Path) -> Command {
        let mut c = Command::new("setpriv");
        c.args([
            format!("--reuid={}", self.uid),
            format!("--regid={}", self.gid),
            "--clear-groups".into(),
            "--inh-caps=+dac_read_search".into(),
            "--ambient-caps=+dac_read_search".into(),
            "--".into(),
        ])
        .arg(program)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LC_ALL", "C")
        .stdin(Stdio::null());
        c
    }
}

/// The directory of the newest PostgreSQL server programs installed (`initdb`, `pg_ctl`,
/// `postgres`, `pgbench`), or why there is none.
pub(super) fn bin_dir() -> Result<PathBuf, String> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(LIB)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            let all = ["initdb", "pg_ctl", "postgres", "pgbench"];
            all.iter()
                .all(|p| bin.join(p).is_file())
                .then_some((v, bin))
        })
        .collect();
    found.sort();
    match found.pop() {
        Some((_, bin)) => Ok(bin),
        None => Err(format!(
            "PostgreSQL is not installed (no {LIB}/NN/bin with initdb, pg_ctl, postgres and \
             pgbench): {}, or run `fsbattery setup`",
            crate::packages::hint_here(&crate::packages::Need::program("pgbench"))
        )),
    }
}

/// `postgres --version` of `bin`, e.g. "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)".
pub(super) fn version(bin: &Path) -> Option<String> {
    let out = Command::new(bin.join("postgres"))
        .arg("--version")
        .env_clear()
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// A free TCP port on the loopback (bound then released). The server listens on no TCP
/// address; the port names its socket file, chosen free so that nothing that reads the
/// number (logs, `ps`) confuses it with another server on this machine.
pub(super) fn free_port() -> Result<u16, WorkloadError> {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).ctx(|| "find a free port".into())?;
    Ok(l.local_addr().ctx(|| "find a free port".into())?.port())
}

/// Run `cmd` (stdout and stderr to `log`), polling the interruption flag; a failure says
/// `what` failed with the log's last lines.
pub(super) fn run_logged(
    mut cmd: Command,
    what: &str,
    log: &Path,
    limit: Duration,
) -> Result<(), WorkloadError> {
    let out = std::fs::File::create(log).ctx(|| format!("create {}", log.display()))?;
    let err = out.try_clone().ctx(|| format!("open {}", log.display()))?;
    let mut child = cmd
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| WorkloadError::io(format!("run {what} (setpriv)"), e))?;
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().ctx(|| format!("wait for {what}"))? {
            break s;
        }
        // The child is ours: stop it on a signal or when it overruns, then reap it.
        if crate::interrupt::requested() || t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            if crate::interrupt::requested() {
                return Err(WorkloadError::Interrupted);
            }
            return Err(WorkloadError::Failed(format!(
                "{what} did not finish within {} s (log: {})",
                limit.as_secs(),
                tail(log, 3)
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if status.success() {
        return Ok(());
    }
    if crate::interrupt::requested() {
        return Err(WorkloadError::Interrupted);
    }
    Err(WorkloadError::Failed(format!(
        "{what} failed ({status}): {}",
        tail(log, 3)
    )))
}

/// The last `n` lines of a log file, joined with " / ".
pub(super) fn tail(log: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" / ")
}

/// A running (or made but not started) server of ours; stopped on drop.
pub(super) struct Server {
    pub bin: PathBuf,
    pub account: Account,
    /// Our directory (0700, owned by the account): socket, logs, the data directory.
    pub dir: PathBuf,
    pub data: PathBuf,
    pub port: u16,
    /// The postmaster's pid and start time once started.
    postmaster: Option<(i32, u64)>,
    /// `pg_ctl start` was run and the server not yet stopped.
    started: bool,
}

impl Server {
    /// Make our directory under `parent` and a cluster in it with `initdb`, then append
    /// `settings` to its postgresql.conf.
    pub(super) fn init(
        bin: &Path,
        account: Account,
        parent: &Path,
        settings: &str,
    ) -> Result<Server, WorkloadError> {
        use std::os::unix::fs::PermissionsExt;
        let dir = parent.join("pg");
        std::fs::create_dir(&dir).ctx(|| format!("mkdir {}", dir.display()))?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .ctx(|| format!("chmod {}", dir.display()))?;
        std::os::unix::fs::chown(&dir, Some(account.uid), Some(account.gid))
            .ctx(|| format!("chown {} to {ACCOUNT}", dir.display()))?;
        let s = Server {
            bin: bin.to_path_buf(),
            account,
            data: postgres_release::data_dir(parent),
            port: free_port()?,
            dir,
            postmaster: None,
            started: false,
        };
        let mut c = account.command(&s.dir, &s.bin.join("initdb"));
        c.arg("-D").arg(&s.data).args([
            "-U",
            ROLE,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
        ]);
        run_logged(
            c,
            "initdb",
            &s.dir.join("initdb.log"),
            Duration::from_secs(300),
        )?;
        let conf = s.data.join("postgresql.conf");
        let own = format!(
            "\n# fsbattery\n{settings}port = {}\nunix_socket_directories = '{}'\n",
            s.port,
            s.dir.display()
        );
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&conf)
            .ctx(|| format!("open {}", conf.display()))?;
        std::io::Write::write_all(&mut f, own.as_bytes())
            .ctx(|| format!("write {}", conf.display()))?;
        Ok(s)
    }

    /// `pg_ctl start -w`, then the postmaster's pid from postmaster.pid.
    pub(super) fn start(&mut self) -> Result<(), WorkloadError> {
        self.started = true;
        let mut c = self.account.command(&self.dir, &self.bin.join("pg_ctl"));
        c.arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(self.dir.join("server.log"))
            .args(["-w", "-t", "120", "start"]);
        let res = run_logged(
            c,
            "pg_ctl start",
            &self.dir.join("pg_ctl.log"),
            Duration::from_secs(150),
        );
        // Read the pid even after a failure: a server that started late must be stopped too.
        self.postmaster = postmaster(&self.data);
        res.map_err(|e| match e {
            WorkloadError::Failed(m) => WorkloadError::Failed(format!(
                "{m}; server log: {}",
                tail(&self.dir.join("server.log"), 3)
            )),
            e => e,
        })
    }

    /// The postmaster's pid and start time, once started.
    pub(super) fn postmaster(&self) -> Option<(i32, u64)> {
        self.postmaster
    }

    /// The socket directory clients connect through.
    pub(super) fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// Stop the server: `pg_ctl stop -m fast`, then signals to what is left of it. Returns
    /// what went wrong, for a notice; afterwards no process works in the data directory.
    pub(super) fn stop(&mut self) -> Result<(), String> {
        if !std::mem::take(&mut self.started) {
            return Ok(());
        }
        let mut c = self.account.command(&self.dir, &self.bin.join("pg_ctl"));
        c.arg("-D")
            .arg(&self.data)
            .args(["-m", "fast", "-w", "-t", "30", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let stopped = c.status().map(|s| s.success()).unwrap_or(false);
        // What pg_ctl left: the recorded postmaster, then anything working in our data
        // directory (the same release `fsbattery cleanup` runs from the state file).
        postgres_release::stop_data(&self.data, self.postmaster.take())?;
        match stopped {
            true => Ok(()),
            false => Err(format!(
                "pg_ctl stop failed for {}; the server was signalled and is gone",
                self.data.display()
            )),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            crate::notice::warn(e);
        }
    }
}

/// The postmaster's (pid, start time) from `data/postmaster.pid`, if it runs.
fn postmaster(data: &Path) -> Option<(i32, u64)> {
    let text = std::fs::read_to_string(data.join("postmaster.pid")).ok()?;
    let pid: i32 = text.lines().next()?.trim().parse().ok()?;
    let start = crate::targets::state::start_time(pid)?;
    Some((pid, start))
}

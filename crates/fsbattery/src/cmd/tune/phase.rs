//! One phase of a tune — a set of configurations × repeats — measured as an ordinary
//! `fsbattery run` of this same binary, into its own run directory: every configuration's
//! runs are cells of a record that `report`, `compare` and the HTML read like any other.
//!
//! Running `run` itself, rather than its internals, gives every phase the run's guarantees
//! unchanged (trial mounts, teardown on any signal, journal, the record) and keeps the tune
//! out of the runner's code. A signal to the tune is passed on to the phase, which tears
//! down and exits 130; the tune then stops too.

use crate::cli::TuneArgs;
use anyhow::Context;
use fsbattery_core::error::EXIT_INTERRUPTED;
use fsbattery_record::model::RunRecord;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a phase repeats.
pub enum Repeats {
    /// Exactly this many.
    Fixed(u32),
    /// `--repeat auto:3..30` within this many seconds.
    Auto(u64),
}

/// What a phase left: its record and how long it took.
pub struct Measured {
    /// The run record of the phase.
    pub record: RunRecord,
    /// Wall seconds of the whole phase.
    pub secs: f64,
}

/// The phase was cut short by a signal: the tune stops, its phases so far are kept.
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}
impl std::error::Error for Interrupted {}

/// A configuration the phase's trial mount refused (a combination the option file does not
/// list as invalid): the tune leaves it out and measures the phase again.
#[derive(Debug)]
pub struct Refused {
    /// The refused spec.
    pub spec: String,
    /// The phase's one line.
    pub line: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
    }
}
impl std::error::Error for Refused {}

/// Run `specs` × `repeats` into `dir`.
pub fn measure(
    args: &TuneArgs,
    specs: &[String],
    repeats: Repeats,
    dir: &Path,
) -> anyhow::Result<Measured> {
    let exe = std::env::current_exe().context("finding this program to run a phase")?;
    let mut cmd = Command::new(exe);
    // A tune's phases are dozens of one-off configurations: they stay out of the results
    // store's history (`fsbattery store add OUT/NN-phase` adds one on purpose).
    cmd.arg("run")
        .arg("--quiet")
        .arg("--no-ceiling")
        .arg("--no-store");
    for s in specs {
        cmd.arg("--target").arg(s);
    }
    if let Some(s) = &args.suite {
        cmd.arg("--suite").arg(s);
    }
    if !args.workloads.is_empty() {
        cmd.arg("--workload").arg(args.workloads.join(","));
    }
    for s in &args.set {
        cmd.arg("--set").arg(s);
    }
    match repeats {
        Repeats::Fixed(n) => cmd.arg("--repeat").arg(n.to_string()),
        Repeats::Auto(secs) => cmd
            .arg("--repeat")
            .arg("auto:3..30")
            .arg("--budget")
            .arg(format!("{}s", secs.max(1))),
    };
    cmd.arg("--scale").arg(scale_name(args));
    cmd.arg("--workdir")
        .arg(&args.workdir)
        .arg("--out")
        .arg(dir);
    cmd.arg("--format").arg("json");
    cmd.stdout(Stdio::null())
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().context("starting a tune phase")?;
    // Read on a thread so a chatty phase can never block on a full pipe.
    let mut pipe = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut pipe, &mut text);
        text
    });
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if fsbattery_core::interrupt::requested() {
            // Passed on once: the phase tears down and exits 130 itself.
            let pid = nix::unistd::Pid::from_raw(child.id() as i32);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            let _ = child.wait();
            return Err(Interrupted.into());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr = reader.join().unwrap_or_default();
    if status.code() == Some(i32::from(EXIT_INTERRUPTED)) {
        return Err(Interrupted.into());
    }
    if status.code() == Some(i32::from(fsbattery_core::error::EXIT_TARGET_REFUSED)) {
        let line = stderr
            .lines()
            .rev()
            .find(|l| l.contains("error"))
            .unwrap_or("")
            .to_string();
        if let Some(spec) = specs
            .iter()
            .find(|s| line.contains(&format!("target {s}:")))
        {
            return Err(Refused {
                spec: spec.clone(),
                line,
            }
            .into());
        }
    }
    if !status.success() && status.code() != Some(3) {
        let last = stderr.lines().last().unwrap_or("").to_string();
        anyhow::bail!("the phase in {} failed ({status}): {last}", dir.display());
    }
    for l in stderr.lines().filter(|l| !l.trim().is_empty()) {
        crate::stderr::errln!("  {l}");
    }
    let loaded = fsbattery_record::load::load(dir)
        .map_err(|e| anyhow::anyhow!("reading the phase in {}: {e}", dir.display()))?;
    // Exit 3 (a cell failed) leaves a record whose failed cells have no samples; the
    // objective then lacks them and says so.
    Ok(Measured {
        record: loaded.record,
        secs: start.elapsed().as_secs_f64(),
    })
}

fn scale_name(args: &TuneArgs) -> &'static str {
    match args.scale {
        crate::cli::ScaleArg::Quick => "quick",
        crate::cli::ScaleArg::Standard => "standard",
        crate::cli::ScaleArg::Full => "full",
    }
}

//! engine_bench: run one IO engine job from flags and print its result as one JSON line.
//!
//! A hidden benchmarking entry (bench/engine.sh compares it with fio, dd and a C loop); the
//! real CLI lives in the fsbattery crate. Flags mirror `JobSpec` fields:
//!
//! ```text
//! cargo run --release -p fsbattery-engine --example engine_bench -- \
//!     --file /dev/shm/f --size 1G --bs 4k --pattern rand --engine sync --runtime 5
//! ```

use fsbattery_engine::{lookup, run_job, EngineSpec, FileMode, JobSpec, Stop, UringOptions, NAMES};
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: engine_bench --file PATH [--size 1G] [--bs 4k] \
[--pattern seq|rand|backward|stride:N] [--write FRACTION] [--fsync FRACTION] [--direct] \
[--engine sync|io_uring|null] [--depth N] [--batch N] [--no-reg-bufs] [--no-reg-files] \
[--jobs N] \
[--runtime SECS | --ops N] [--fill zeros|random|compress:F] \
[--mode existing|create|truncate] [--verify] [--seed N]";

/// `4k`, `1M`, `2G`, `512` → bytes (binary multiples).
fn size(s: &str) -> Result<u64, String> {
    let (num, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_lowercase() {
                'k' => 1u64 << 10,
                'm' => 1 << 20,
                'g' => 1 << 30,
                't' => 1 << 40,
                _ => return Err(format!("size '{s}': unknown suffix")),
            };
            (&s[..i], m)
        }
        _ => (s, 1),
    };
    num.parse::<u64>()
        .map(|n| n * mult)
        .map_err(|e| format!("size '{s}': {e}"))
}

fn num<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    v.parse().map_err(|e| format!("{flag} '{v}': {e}"))
}

fn parse(args: &[String]) -> Result<JobSpec, String> {
    let mut s = JobSpec::new("", 1 << 30, 4096);
    let (mut engine, mut uring, mut stop) = ("sync".to_string(), UringOptions::default(), None);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--file" => s.path = val()?.into(),
            "--size" => s.file_size = size(val()?)?,
            "--bs" => s.block_size = u32::try_from(size(val()?)?).map_err(|e| e.to_string())?,
            "--pattern" => s.pattern = val()?.parse()?,
            "--write" => s.write_fraction = num(flag, val()?)?,
            "--fsync" => s.fsync_fraction = num(flag, val()?)?,
            "--direct" => s.direct = true,
            "--engine" => engine = val()?.clone(),
            "--depth" => uring.depth = num(flag, val()?)?,
            "--no-reg-bufs" => uring.registered_buffers = false,
            "--no-reg-files" => uring.registered_files = false,
            "--batch" => uring.batch = num(flag, val()?)?,
            "--jobs" => s.jobs = num(flag, val()?)?,
            "--runtime" => {
                // try_: from_secs_f64 panics on nan, negative and huge values.
                let secs: f64 = num(flag, val()?)?;
                let d = Duration::try_from_secs_f64(secs)
                    .map_err(|e| format!("{flag} '{secs}': {e}"))?;
                stop = Some(Stop::Runtime(d));
            }
            "--ops" => stop = Some(Stop::Ops(num(flag, val()?)?)),
            "--fill" => s.fill = val()?.parse()?,
            "--mode" => {
                s.file_mode = match val()?.as_str() {
                    "existing" => FileMode::Existing,
                    "create" => FileMode::Create,
                    "truncate" => FileMode::Truncate,
                    m => return Err(format!("--mode '{m}': use existing, create or truncate")),
                }
            }
            "--verify" => s.verify = true,
            "--seed" => s.seed = num(flag, val()?)?,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown flag '{other}'\n{USAGE}")),
        }
    }
    if s.path.as_os_str().is_empty() {
        return Err(format!("--file is required\n{USAGE}"));
    }
    s.engine = lookup(&engine)
        .and_then(|e| EngineSpec::of(e, uring))
        .ok_or_else(|| format!("--engine '{engine}': use one of {}", NAMES.join(", ")))?;
    s.stop = stop.unwrap_or(Stop::Ops(s.blocks()));
    Ok(s)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = match parse(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("engine_bench: {e}");
            return ExitCode::from(2);
        }
    };
    match run_job(&spec) {
        Ok(r) => {
            println!("{}", serde_json::to_string(&r).expect("results serialize"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("engine_bench: {e}");
            ExitCode::from(1)
        }
    }
}

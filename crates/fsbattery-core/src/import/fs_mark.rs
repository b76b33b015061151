//! fs_mark 3.3's output (its stdout, or the `-l` log file of one run): the `#  fs_mark  ARGS`
//! line, `#\tVersion 3.3, …`, then one table line per loop — `FSUse% Count Size Files/sec App
//! Overhead`, and with `-v` the Min/Avg/Max µs of CREAT, WRITE, FSYNC, SYNC, CLOSE and UNLINK.
//!
//! The workload is `fs_mark:ARGS` with fs_mark's own arguments, each `-d` directory cut to its
//! last component (a native run takes `-d` relative to its target): the same command line given
//! to `fsbattery run --workload 'fs_mark:ARGS'` names the same workload, and the metrics come
//! from the workload's own [`metrics`](crate::workload::fs_mark::metrics) so the rows line up.
//! Per-call averages that fs_mark printed only with `-v` are Missing without it, never zero.

use super::{value, Importer, Parsed, Reading};
use crate::workload::fs_mark::{args, metrics, Stats, PREFIX};

/// The fs_mark importer.
pub struct FsMark;

/// fs_mark's arguments from its `#  fs_mark  ARGS` line, `-d` values cut to their last
/// component.
fn args_of(line: &str) -> String {
    let mut words = line.trim_start_matches('#').split_whitespace();
    words.next(); // the program
    let base = |d: &str| {
        std::path::Path::new(d)
            .file_name()
            .map_or_else(|| d.to_string(), |n| n.to_string_lossy().into_owned())
    };
    let mut out = Vec::new();
    let mut dir_next = false;
    for w in words {
        if dir_next {
            out.push(base(w));
            dir_next = false;
        } else if w == "-d" {
            out.push(w.to_string());
            dir_next = true;
        } else if let Some(d) = w.strip_prefix("-d") {
            out.push(format!("-d{}", base(d)));
        } else {
            out.push(w.to_string());
        }
    }
    out.join(" ")
}

/// One table line: (Files/sec, App Overhead, Min/Avg/Max per call when verbose).
fn table_line(line: &str) -> Option<Result<(Stats, bool), String>> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() < 5 || f[0].parse::<u64>().is_err() {
        return None;
    }
    let int = |i: usize| -> Result<u64, String> {
        f[i].parse()
            .map_err(|_| format!("table line \"{}\": '{}' is not a number", line.trim(), f[i]))
    };
    let fps: Result<f64, String> = f[3]
        .parse()
        .map_err(|_| format!("table line \"{}\": Files/sec '{}'", line.trim(), f[3]));
    let verbose = f.len() >= 23;
    let build = || -> Result<(Stats, bool), String> {
        let avg = |i: usize| if verbose { int(i) } else { Ok(0) };
        Ok((
            Stats {
                files_per_sec: fps?,
                app_overhead: int(4)?,
                creat: avg(6)?,
                write: avg(9)?,
                fsync: avg(12)?,
                sync: avg(15)?,
                close: avg(18)?,
                unlink: avg(21)?,
            },
            verbose,
        ))
    };
    Some(build())
}

impl Importer for FsMark {
    fn name(&self) -> &'static str {
        "fs_mark"
    }
    fn detect(&self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        text.contains("fs_mark") && text.contains("Files/sec") && text.contains("\tVersion ")
    }
    fn parse(&self, bytes: &[u8]) -> Result<Parsed, String> {
        let text = String::from_utf8_lossy(bytes);
        let mut cmd = None;
        let mut version = "unknown".to_string();
        let (mut loops, mut verbose) = (Vec::new(), true);
        for line in text.lines() {
            if line.starts_with('#') && line.contains("fs_mark ") && !line.contains('\t') {
                if cmd.is_some() {
                    return Err("holds more than one fs_mark run (a log file appended to): \
                                give one file per run"
                        .into());
                }
                cmd = Some(args_of(line));
            } else if let Some(v) = line.strip_prefix("#\tVersion ") {
                version = v.split(',').next().unwrap_or("unknown").trim().to_string();
            } else if let Some(row) = table_line(line) {
                let (s, v) = row?;
                verbose &= v;
                loops.push(s);
            }
        }
        let cmd = cmd.ok_or("no '#  fs_mark ARGS' line: give fs_mark's whole output")?;
        if loops.is_empty() {
            return Err(
                "no table line (FSUse% Count Size Files/sec ...): the run did not \
                        finish a loop"
                    .into(),
            );
        }
        let config = args::parse(&cmd).map_err(|e| format!("fs_mark's arguments: {e}"))?;
        let got = metrics::values(&config, &loops);
        let per_call = [
            "creat_us",
            "write_us",
            "fsync_us",
            "sync_us",
            "close_us",
            "unlink_us",
        ];
        let metrics = metrics::specs(&config)
            .into_iter()
            .map(|spec| {
                let reading = match got.iter().find(|(n, _)| *n == spec.name) {
                    _ if !verbose && per_call.contains(&spec.name.as_str()) => {
                        Reading::Missing("fs_mark prints per-call times only with -v".into())
                    }
                    Some((_, v)) => value(*v),
                    None => Reading::Missing(format!(
                        "fs_mark printed {} loop(s), not this one",
                        loops.len()
                    )),
                };
                (spec, reading)
            })
            .collect();
        Ok(Parsed {
            tool: "fs_mark",
            version,
            hostname: String::new(),
            started: None,
            workload: format!("{PREFIX}{cmd}"),
            params: Default::default(),
            metrics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Debian's fs_mark 3.3 run here, verbose, three loops with fsync per file, its stdout
    /// verbatim (2026-11-28; see the file's first line for the command).
    const VERBOSE: &str = include_str!("testdata/fs_mark-3.3-verbose.txt");
    /// The same, without -v and without loops: Files/sec and App Overhead only.
    const TERSE: &str = include_str!("testdata/fs_mark-3.3-terse.txt");

    fn reading(p: &Parsed, name: &str) -> Reading {
        p.metrics
            .iter()
            .find(|(m, _)| m.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .1
            .clone()
    }

    fn val(p: &Parsed, name: &str) -> f64 {
        match reading(p, name) {
            Reading::Value(s) => s.value,
            Reading::Missing(why) => panic!("{name} missing: {why}"),
        }
    }

    #[test]
    fn a_verbose_run_imports_under_the_workloads_names() {
        assert!(FsMark.detect(VERBOSE.as_bytes()));
        let p = FsMark.parse(VERBOSE.as_bytes()).unwrap();
        assert_eq!(p.version, "3.3");
        assert_eq!(p.workload, "fs_mark:-d fsm -n 200 -s 4096 -S 1 -L 3 -v");
        let w = crate::workload::find(&p.workload).expect("the same name is a workload");
        let names: Vec<String> = p.metrics.iter().map(|(m, _)| m.name.clone()).collect();
        let native: Vec<String> = w
            .metrics(&Default::default())
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, native);
        // The three loops' Files/sec, as printed, and their mean as the headline.
        let loops: Vec<f64> = (1..=3)
            .map(|k| val(&p, &format!("files_per_sec@loop{k}")))
            .collect();
        let mean = loops.iter().sum::<f64>() / 3.0;
        assert!((val(&p, "files_per_sec") - mean).abs() < 1e-9);
        assert!(val(&p, "fsync_us") > 0.0 && val(&p, "creat_us") > 0.0);
    }

    #[test]
    fn a_terse_run_has_no_per_call_times() {
        let p = FsMark.parse(TERSE.as_bytes()).unwrap();
        assert_eq!(p.workload, "fs_mark:-d fsm -n 500 -s 0 -S 0");
        assert!(val(&p, "files_per_sec") > 0.0);
        assert!(matches!(reading(&p, "unlink_us"), Reading::Missing(w) if w.contains("-v")));
    }

    #[test]
    fn cut_or_doubled_output_is_refused_with_the_fix() {
        let head: String = VERBOSE.lines().take(8).map(|l| format!("{l}\n")).collect();
        assert!(FsMark.parse(head.as_bytes()).unwrap_err().contains("loop"));
        let twice = format!("{TERSE}{TERSE}");
        assert!(FsMark
            .parse(twice.as_bytes())
            .unwrap_err()
            .contains("one file per run"));
        let bad = TERSE.replace("-S  0", "-S  9");
        assert!(FsMark.parse(bad.as_bytes()).unwrap_err().contains("-S 9"));
    }
}

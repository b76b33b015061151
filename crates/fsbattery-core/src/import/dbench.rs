//! dbench's output (what `dbench ... > FILE` captures): the version banner, the "Running for
//! T seconds with load 'FILE' and minimum warmup W secs" line, the per-operation table
//! (`Operation Count AvgLat MaxLat`, the first one: per-client tables follow it with
//! `--per-client-results`) and the closing line
//! `Throughput X MB/sec [(sync open)] [(sync dirs)] N clients P procs max_latency=Y ms`.
//!
//! Metric names are the native `dbench` workload's: `throughput`, `max_latency` and per
//! operation `<Op>_count`, `<Op>_avglat`, `<Op>_maxlat`, so an import and a run compare. The
//! parameters are the plain workload's (`clients`, `timelimit`, `sync`, `sync_dir`; `-F`
//! leaves no trace in the output), `clients_per_process` when a process ran several, and the
//! loadfile. The per-second progress lines are skipped. Works for dbench 4.0 and the later
//! tables with wider columns (words are split on whitespace).

use super::{value, Importer, Parsed};
use crate::model::{MetricSpec, Stat};
use std::collections::BTreeMap;

/// The dbench importer.
pub struct Dbench;

/// The closing line's figures: (MB/s, sync open, sync dirs, clients, procs, max latency ms).
fn throughput_line(l: &str) -> Result<(f64, bool, bool, u64, u64, f64), String> {
    let bad = || format!("unexpected Throughput line \"{}\"", l.trim());
    let w: Vec<&str> = l.split_whitespace().collect();
    let num = |s: Option<&&str>| s.and_then(|s| s.parse::<f64>().ok()).ok_or_else(bad);
    let before = |key: &str| {
        w.iter()
            .position(|x| *x == key)
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| w.get(i))
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(bad)
    };
    let lat = w
        .iter()
        .find_map(|x| x.strip_prefix("max_latency="))
        .and_then(|s| s.parse::<f64>().ok())
        .ok_or_else(bad)?;
    Ok((
        num(w.get(1))?,
        l.contains("(sync open)"),
        l.contains("(sync dirs)"),
        before("clients")?,
        before("procs")?,
        lat,
    ))
}

/// One row of the operation table: (name, count, avg ms, max ms).
fn op_row(l: &str) -> Result<(String, f64, f64, f64), String> {
    let w: Vec<&str> = l.split_whitespace().collect();
    let num = |i: usize| {
        w.get(i)
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| format!("unexpected operation row \"{}\"", l.trim()))
    };
    if w.len() != 4 {
        return Err(format!("unexpected operation row \"{}\"", l.trim()));
    }
    Ok((w[0].to_string(), num(1)?, num(2)?, num(3)?))
}

/// The "Running for …" line's seconds and loadfile.
fn running_line(l: &str) -> Option<(String, String)> {
    let rest = l.strip_prefix("Running for ")?;
    let secs = rest.split_whitespace().next()?.to_string();
    let load = rest.split('\'').nth(1)?.to_string();
    Some((secs, load))
}

impl Importer for Dbench {
    fn name(&self) -> &'static str {
        "dbench"
    }
    fn detect(&self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        text.contains("dbench version") && text.lines().any(|l| l.starts_with("Throughput "))
    }
    fn parse(&self, bytes: &[u8]) -> Result<Parsed, String> {
        let text = String::from_utf8_lossy(bytes);
        let (mut version, mut params) = ("unknown".to_string(), BTreeMap::new());
        let (mut rows, mut table, mut closing) = (Vec::new(), 0u8, None);
        for line in text.lines() {
            if let Some(v) = line.strip_prefix("dbench version ") {
                version = v.split_whitespace().next().unwrap_or("unknown").into();
            } else if let Some((secs, load)) = running_line(line) {
                params.insert("timelimit".to_string(), secs);
                params.insert("loadfile".to_string(), load);
            } else if line.trim_start().starts_with("Operation") && line.contains("AvgLat") {
                table += 1;
            } else if table == 1 && !line.trim().is_empty() && !line.trim_start().starts_with("---")
            {
                rows.push(op_row(line)?);
            } else if table == 1 && line.trim().is_empty() {
                table = 2;
            } else if line.starts_with("Throughput ") {
                closing = Some(throughput_line(line)?);
            }
        }
        let Some((mbs, sync, sync_dir, clients, procs, lat)) = closing else {
            return Err(
                "no \"Throughput … MB/sec\" line: give the output of a finished dbench run".into(),
            );
        };
        params.insert("clients".into(), procs.to_string());
        if clients != procs && procs > 0 {
            params.insert("clients_per_process".into(), (clients / procs).to_string());
        }
        params.insert("sync".into(), u8::from(sync).to_string());
        params.insert("sync_dir".into(), u8::from(sync_dir).to_string());
        let mut metrics = vec![
            (
                MetricSpec::rate("throughput", "MB/s", "dbench's Throughput"),
                value(mbs),
            ),
            (
                MetricSpec::latency_ms(
                    "max_latency",
                    "operation",
                    Stat::Max,
                    "dbench's max_latency",
                ),
                value(lat),
            ),
        ];
        for (op, count, avg, max) in rows {
            let c = format!("{op}_count");
            metrics.push((MetricSpec::rate(&c, "ops", &c), value(count)));
            // dbench prints 0.000 latencies for an operation never done: not a latency, as
            // the workload records none either.
            if count == 0.0 {
                continue;
            }
            let a = format!("{op}_avglat");
            metrics.push((MetricSpec::latency_ms(&a, &op, Stat::Mean, &a), value(avg)));
            let m = format!("{op}_maxlat");
            metrics.push((MetricSpec::latency_ms(&m, &op, Stat::Max, &m), value(max)));
        }
        Ok(Parsed {
            tool: "dbench",
            version,
            hostname: String::new(),
            started: None,
            workload: "dbench".into(),
            params,
            metrics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Reading;

    /// Debian's dbench 4.0-2.1 run here: `dbench -t 5 2` in a directory of /tmp (ext4 on the
    /// VM's disk), 2026-11-28.
    const HERE: &str = include_str!("testdata/dbench-4.00-t5-2.txt");

    fn get(p: &Parsed, name: &str) -> f64 {
        match p.metrics.iter().find(|(m, _)| m.name == name) {
            Some((_, Reading::Value(s))) => s.value,
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn an_operation_never_done_imports_its_count_and_no_latency() {
        let line = HERE
            .lines()
            .find(|l| l.trim_start().starts_with("Flush"))
            .unwrap();
        let text = HERE.replace(line, " Flush          0     0.000     0.000");
        let p = Dbench.parse(text.as_bytes()).unwrap();
        assert_eq!(get(&p, "Flush_count"), 0.0);
        assert!(!p
            .metrics
            .iter()
            .any(|(m, _)| m.name.starts_with("Flush_") && m.name != "Flush_count"));
        assert_eq!(p.metrics.len(), 2 + 14 * 3 - 2);
    }

    #[test]
    fn real_dbench_output_imports_under_the_workloads_names() {
        assert!(Dbench.detect(HERE.as_bytes()));
        let p = Dbench.parse(HERE.as_bytes()).unwrap();
        assert_eq!(p.version, "4.00");
        assert_eq!(get(&p, "throughput"), 66.968);
        assert_eq!(get(&p, "max_latency"), 99.063);
        assert_eq!(get(&p, "NTCreateX_count"), 10681.0);
        assert_eq!(get(&p, "Flush_avglat"), 7.208);
        assert_eq!(get(&p, "UnlockX_maxlat"), 0.002);
        assert_eq!(p.metrics.len(), 2 + 14 * 3);
        assert_eq!(p.params["clients"], "2");
        assert_eq!(p.params["timelimit"], "5");
        assert_eq!(p.params["loadfile"], "/usr/share/dbench/client.txt");
        // The native workload declares the same names for client.txt's operations.
        let native: Vec<String> = crate::workload::find("dbench")
            .map(|w| {
                let pr = crate::params::Params::default_for(w.params());
                w.metrics(&pr).into_iter().map(|m| m.name).collect()
            })
            .unwrap_or_default();
        for (m, _) in &p.metrics {
            assert!(
                native.is_empty() || native.contains(&m.name),
                "{} not native",
                m.name
            );
        }
    }

    #[test]
    fn cut_or_foreign_output_is_refused_in_one_line() {
        let cut: String = HERE.lines().take(20).collect::<Vec<_>>().join("\n");
        let e = Dbench.parse(cut.as_bytes()).unwrap_err();
        assert!(e.contains("Throughput"), "{e}");
        let bad = HERE.replace("max_latency=99.063", "max_latency=x");
        assert!(Dbench
            .parse(bad.as_bytes())
            .unwrap_err()
            .contains("Throughput line"));
        let row = HERE.replace(" Flush            768", " Flush            many");
        assert!(Dbench
            .parse(row.as_bytes())
            .unwrap_err()
            .contains("operation row"));
        assert!(!Dbench.detect(b"[RESULT] ior-easy-write 1 GiB/s : time 1 seconds"));
    }
}

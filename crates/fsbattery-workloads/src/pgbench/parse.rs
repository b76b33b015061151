//! Reading pgbench 15's results: its summary on stdout (TPS, latency average, transactions
//! processed and failed) and its per-transaction log (`-l`), from which the latency
//! percentiles come. Pure: text in, numbers out; tested against pgbench's real output.

/// pgbench's summary of a timed run.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Summary {
    /// `tps = X (without initial connection time)`.
    pub tps: f64,
    /// `latency average = X ms`.
    pub latency_avg_ms: f64,
    /// `number of transactions actually processed: N`.
    pub processed: u64,
    /// `number of failed transactions: N (…)` (0 when pgbench does not print it).
    pub failed: u64,
}

/// The summary pgbench prints on stdout, or what is missing from it.
pub(super) fn summary(text: &str) -> Result<Summary, String> {
    let field = |prefix: &str| -> Option<&str> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(prefix))
            .map(str::trim)
    };
    let first_number = |s: &str| -> Option<f64> { s.split_whitespace().next()?.parse().ok() };
    let tps = field("tps = ").and_then(first_number);
    let lat = field("latency average = ").and_then(first_number);
    let processed = field("number of transactions actually processed:")
        .and_then(|s| s.split('/').next()?.trim().parse().ok());
    let failed = field("number of failed transactions:")
        .map(|s| first_number(s).map(|v| v as u64))
        .unwrap_or(Some(0));
    match (tps, lat, processed, failed) {
        (Some(tps), Some(latency_avg_ms), Some(processed), Some(failed)) => Ok(Summary {
            tps,
            latency_avg_ms,
            processed,
            failed,
        }),
        _ => Err(format!(
            "pgbench printed no tps, latency average or transaction count: {}",
            text.lines().rev().take(3).collect::<Vec<_>>().join(" / ")
        )),
    }
}

/// The latencies of the transactions in one pgbench log (`-l`), in ms, appended to `out`;
/// returns how many transactions failed or were skipped (their time field says so).
///
/// A line is `client_id transaction_no time script_no time_epoch time_us [schedule_lag
/// [retries]]`, `time` in µs or `failed` / `skipped`.
pub(super) fn log_latencies(text: &str, out: &mut Vec<f64>) -> Result<u64, String> {
    let mut not_done = 0;
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        if f.len() < 6 {
            return Err(format!("pgbench log line {}: {line:?}", i + 1));
        }
        match f[2] {
            "failed" | "skipped" => not_done += 1,
            t => {
                let us: f64 = t
                    .parse()
                    .map_err(|_| format!("pgbench log line {}: time {t:?}", i + 1))?;
                out.push(us / 1e3);
            }
        }
    }
    Ok(not_done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pgbench 15.18's output of `pgbench -c 2 -j 2 -T 3 -l` (Debian 12, 2026-11-28).
    const OUT: &str = "pgbench (15.18 (Debian 15.18-0+deb12u1))
starting vacuum...end.
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 1
query mode: simple
number of clients: 2
number of threads: 2
maximum number of tries: 1
duration: 3 s
number of transactions actually processed: 974
number of failed transactions: 0 (0.000%)
latency average = 6.103 ms
initial connection time = 52.013 ms
tps = 327.708126 (without initial connection time)
";

    #[test]
    fn the_summary_is_read_from_pgbench_15() {
        let s = summary(OUT).unwrap();
        assert_eq!(
            s,
            Summary {
                tps: 327.708126,
                latency_avg_ms: 6.103,
                processed: 974,
                failed: 0
            }
        );
        // -t runs print "processed: N/M".
        let t = OUT.replace("processed: 974", "processed: 974/1000");
        assert_eq!(summary(&t).unwrap().processed, 974);
        let f = OUT.replace("transactions: 0 (0.000%)", "transactions: 3 (0.308%)");
        assert_eq!(summary(&f).unwrap().failed, 3);
    }

    #[test]
    fn a_summary_without_tps_is_refused_with_its_last_lines() {
        let e = summary("pgbench: error: connection to server failed\n").unwrap_err();
        assert!(
            e.contains("no tps") && e.contains("connection to server failed"),
            "{e}"
        );
    }

    #[test]
    fn log_lines_give_latencies_in_ms_and_count_failures() {
        let log = "0 1 23899 0 1795898165 693017\n0 2 19934 0 1795898165 712975\n\
                   1 1 failed 0 1795898165 705765\n1 2 4273 0 1795898165 726075 12 0\n";
        let mut v = Vec::new();
        assert_eq!(log_latencies(log, &mut v).unwrap(), 1);
        assert_eq!(v, vec![23.899, 19.934, 4.273]);
        assert!(log_latencies("0 1 abc 0 1 2\n", &mut v).is_err());
        assert!(log_latencies("0 1\n", &mut v).is_err());
    }
}

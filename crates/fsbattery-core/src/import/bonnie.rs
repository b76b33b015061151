//! bonnie++'s CSV result line (format 1.97 and later: bonnie++ 1.97 .. 2.00 print "1.98" first).
//!
//! The fields map onto the native `bonnie` workload's metrics: block output → `seq_write`,
//! rewrite → `rewrite`, block input → `seq_read` (K/sec → MB/s, 10^6 bytes), random seeks →
//! `seeks`, and the create/read/delete tests → `seq_create` .. `random_delete` (files/s);
//! bonnie++'s latencies become `<metric>_lat` in ms; each value's sample carries bonnie++'s
//! %CPU. A field bonnie++ printed as "+++++" (too fast to measure) is a missing value with that
//! reason; an empty field (a test not run, e.g. `-f` skips per-character IO) is no metric.
//! Per-character IO (putc/getc) has no native counterpart and is not imported.

use super::{fio::size, Importer, Parsed, Reading};
use crate::model::{MetricSpec, Sample, Stat};
use std::collections::BTreeMap;

/// The bonnie++ importer.
pub struct Bonnie;

/// Fields of the CSV line (bonnie++ 1.98 format).
const FIELDS: usize = 50;

/// Rate fields: (metric, value index, unit, K/sec → MB/s, latency index, help).
const RATES: [(&str, usize, &str, bool, usize, &str); 10] = [
    (
        "seq_write",
        11,
        "MB/s",
        true,
        39,
        "block write (bonnie++ Sequential Output Block)",
    ),
    (
        "rewrite",
        13,
        "MB/s",
        true,
        40,
        "rewrite (bonnie++ Sequential Output Rewrite)",
    ),
    (
        "seq_read",
        17,
        "MB/s",
        true,
        42,
        "block read (bonnie++ Sequential Input Block)",
    ),
    (
        "seeks",
        19,
        "seeks/s",
        false,
        43,
        "random seeks (bonnie++ Random Seeks)",
    ),
    (
        "seq_create",
        26,
        "files/s",
        false,
        44,
        "create files in name order (bonnie++)",
    ),
    (
        "seq_stat",
        28,
        "files/s",
        false,
        45,
        "stat files in readdir order (bonnie++ Read)",
    ),
    (
        "seq_delete",
        30,
        "files/s",
        false,
        46,
        "delete files in readdir order (bonnie++)",
    ),
    (
        "random_create",
        32,
        "files/s",
        false,
        47,
        "create files in random order (bonnie++)",
    ),
    (
        "random_stat",
        34,
        "files/s",
        false,
        48,
        "stat files in random order (bonnie++ Read)",
    ),
    (
        "random_delete",
        36,
        "files/s",
        false,
        49,
        "delete files in random order (bonnie++)",
    ),
];

/// The CSV result lines of `text`: a format version like "1.98", a bonnie++ version, then the
/// rest of the fields.
fn result_lines(text: &str) -> Vec<Vec<&str>> {
    text.lines()
        .map(|l| l.trim().split(',').collect::<Vec<_>>())
        .filter(|f| {
            f.len() >= FIELDS - 12
                && f[0].parse::<f64>().is_ok_and(|v| (1.9..3.0).contains(&v))
                && f[1].starts_with(|c: char| c.is_ascii_digit())
        })
        .collect()
}

impl Importer for Bonnie {
    fn name(&self) -> &'static str {
        "bonnie"
    }
    fn detect(&self, bytes: &[u8]) -> bool {
        !result_lines(&String::from_utf8_lossy(bytes)).is_empty()
    }
    fn parse(&self, bytes: &[u8]) -> Result<Parsed, String> {
        let text = String::from_utf8_lossy(bytes);
        let lines = result_lines(&text);
        let mut f = match lines.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err("no bonnie++ CSV result line (it starts with e.g. 1.98,2.00a,)".into())
            }
            _ => {
                return Err(format!(
                    "{} bonnie++ result lines: import one per file (each becomes a repeat)",
                    lines.len()
                ))
            }
        };
        f.resize(FIELDS, "");
        let mut metrics = Vec::new();
        for (name, i, unit, kib, lat, help) in RATES {
            if f[i].is_empty() {
                continue;
            }
            let cpu = f[i + 1].parse::<f64>().unwrap_or(0.0);
            let value = reading(f[i], cpu, |v| if kib { v * 1024.0 / 1e6 } else { v })?;
            metrics.push((MetricSpec::rate(name, unit, help), value));
            if !f[lat].is_empty() {
                let metric = format!("{name}_lat");
                let help = format!("{name} latency (bonnie++)");
                let spec = MetricSpec::latency_ms(&metric, &metric, Stat::Value, &help);
                metrics.push((spec, super::value(latency_ms(f[lat])?)));
            }
        }
        Ok(Parsed {
            tool: "bonnie++",
            version: f[1].to_string(),
            hostname: f[2].to_string(),
            started: None,
            workload: "bonnie".into(),
            params: params(&f)?,
            metrics,
        })
    }
}

/// A rate field: a number, or "+++++" (missing, with bonnie++'s reason).
fn reading(field: &str, cpu: f64, scale: impl Fn(f64) -> f64) -> Result<Reading, String> {
    if field.starts_with('+') {
        return Ok(Reading::Missing(
            "bonnie++ printed +++++: the test finished too fast to measure (use a larger -s or -n)"
                .into(),
        ));
    }
    let v: f64 = field
        .parse()
        .map_err(|_| format!("field '{field}' is not a number"))?;
    Ok(Reading::Value(Sample {
        repeat: 0,
        value: scale(v),
        elapsed_s: 0.0,
        user_s: 0.0,
        sys_s: 0.0,
        cpu_pct: cpu,
        device_io: None,
        cache: None,
        ranks: Vec::new(),
    }))
}

/// A bonnie++ latency ("248us", "12ms", "3s") in ms.
fn latency_ms(field: &str) -> Result<f64, String> {
    let bad = || format!("latency '{field}' is not a bonnie++ latency (e.g. 248us)");
    let (num, scale) = if let Some(n) = field.strip_suffix("us") {
        (n, 1e-3)
    } else if let Some(n) = field.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = field.strip_suffix('s') {
        (n, 1e3)
    } else {
        return Err(bad());
    };
    Ok(num.parse::<f64>().map_err(|_| bad())? * scale)
}

/// The native bonnie workload's parameters from the run's fields.
fn params(f: &[&str]) -> Result<BTreeMap<String, String>, String> {
    let mut p = BTreeMap::new();
    let mut put = |k: &str, v: String| {
        p.insert(k.to_string(), v);
    };
    if !f[5].is_empty() {
        put("size", size(f[5])?.to_string());
    }
    if !f[6].is_empty() {
        put("chunk", size(f[6])?.to_string());
    }
    for (k, i) in [
        ("seeks", 7),
        ("seekers", 8),
        ("max_size", 22),
        ("min_size", 23),
        ("dirs", 24),
    ] {
        if !f[i].is_empty() {
            put(k, f[i].to_string());
        }
    }
    if !f[21].is_empty() {
        // bonnie++ -n counts files in multiples of 1024.
        let n: u64 = f[21]
            .parse()
            .map_err(|_| format!("file count '{}'", f[21]))?;
        put("files", (n * 1024).to_string());
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPTURED: &str = include_str!("testdata/bonnie-2.00a.txt");

    #[test]
    fn plus_signs_are_missing_not_zero() {
        let p = Bonnie.parse(CAPTURED.as_bytes()).unwrap();
        assert_eq!(
            (p.tool, p.version.as_str(), p.workload.as_str()),
            ("bonnie++", "2.00a", "bonnie")
        );
        assert_eq!(p.params["size"], (64u64 << 20).to_string());
        assert_eq!(p.params["files"], "1024");
        let get = |n: &str| {
            p.metrics
                .iter()
                .find(|(m, _)| m.name == n)
                .map(|(_, r)| r.clone())
        };
        assert!(matches!(get("seq_write"), Some(Reading::Missing(r)) if r.contains("+++++")));
        let Some(Reading::Value(s)) = get("seeks_lat") else {
            panic!("{p:?}")
        };
        assert!((s.value - 28.074).abs() < 1e-9);
    }

    #[test]
    fn numbers_convert_kib_to_mb() {
        let line = CAPTURED
            .lines()
            .next()
            .unwrap()
            .replacen("+++++,+++", "51200,45", 1);
        let p = Bonnie.parse(line.as_bytes()).unwrap();
        let Reading::Value(s) = &p.metrics[0].1 else {
            panic!()
        };
        assert_eq!(p.metrics[0].0.name, "seq_write");
        assert!(
            (s.value - 52.4288).abs() < 1e-9 && s.cpu_pct == 45.0,
            "{s:?}"
        );
    }

    #[test]
    fn detection_and_latency_units() {
        assert!(Bonnie.detect(CAPTURED.as_bytes()));
        assert!(!Bonnie.detect(b"{\"fio version\": \"fio-3.33\"}"));
        assert_eq!(latency_ms("12ms").unwrap(), 12.0);
        assert_eq!(latency_ms("2s").unwrap(), 2000.0);
        assert!(latency_ms("12").is_err());
    }
}

//! fio's JSON output (`--output-format=json`, fio 3.x).
//!
//! One job per file: a job file of several jobs, or `numjobs` > 1, must be run with
//! `--group_reporting` so fio itself sums the jobs (latency percentiles cannot be merged after
//! the fact). Random jobs (`randread`, `randwrite`, `randrw`) become the `randomio` workload with
//! fio's options mapped onto randomio's parameters, so `compare` checks them against a native
//! randomio run; other jobs become a `fio` workload with fio's own option names.
//!
//! Metrics, named as randomio names its own: `iops`, `read_iops`/`write_iops`, `read_bw`/
//! `write_bw` (MB/s, 10^6 bytes), and per direction latency in ms — `_lat_mean`, `_lat_stddev`,
//! `_lat_max` from fio's total latency (`lat_ns`: submission + completion, what randomio times
//! per request) and `_lat_p50`..`_lat_p99.9` from the completion percentiles (`clat_ns`, the
//! only ones fio prints by default).

use super::{Importer, Parsed, Reading};
use crate::engine::EngineSpec;
use crate::model::{MetricSpec, Sample, Stat};
use serde_json::Value;
use std::collections::BTreeMap;

/// The fio importer.
pub struct Fio;

impl Importer for Fio {
    fn name(&self) -> &'static str {
        "fio"
    }
    fn detect(&self, bytes: &[u8]) -> bool {
        let head = &bytes[..bytes.len().min(4096)];
        String::from_utf8_lossy(head).contains("\"fio version\"")
    }
    fn parse(&self, bytes: &[u8]) -> Result<Parsed, String> {
        // fio may print notes before the JSON (e.g. "note: both iodepth >= 1 and synchronous
        // I/O engine are selected"): start at the first brace.
        let start = bytes
            .iter()
            .position(|&b| b == b'{')
            .ok_or("no JSON object")?;
        let doc: Value = serde_json::from_slice(&bytes[start..])
            .map_err(|e| format!("not valid fio JSON: {e}"))?;
        let version = text(&doc["fio version"]).ok_or("no \"fio version\" field")?;
        let jobs = doc["jobs"].as_array().ok_or("no \"jobs\" array")?;
        let job = match jobs.as_slice() {
            [job] => job,
            [] => return Err("no job in the output".into()),
            _ => {
                return Err(format!(
                    "{} jobs in one output: rerun fio with --group_reporting (one summed job), \
                     or import each job's output separately",
                    jobs.len()
                ))
            }
        };
        let opts = options(&doc, job);
        let (workload, params) = params(&opts)?;
        let started = doc["timestamp"]
            .as_i64()
            .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
            .map(|t| t.to_rfc3339());
        Ok(Parsed {
            tool: "fio",
            version,
            hostname: String::new(),
            started,
            workload,
            metrics: metrics(job, &opts),
            params,
        })
    }
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// Global options overlaid with the job's own.
fn options(doc: &Value, job: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for src in [&doc["global options"], &job["job options"]] {
        if let Some(map) = src.as_object() {
            for (k, v) in map {
                let v = v
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string());
                out.insert(k.clone(), v);
            }
        }
    }
    out
}

/// A fio size ("4k", "16M", "1g", "4096"): fio's default kb_base is 1024.
pub(crate) fn size(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.trim_end_matches('b').trim_end_matches('i');
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    num.trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("size '{s}' is not a fio size (e.g. 4k, 16M)"))
}

/// fio seconds ("60", "60s", "2m", "500ms") as whole seconds (rounded, at least 1).
fn seconds(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let bad = || format!("time '{s}' is not a fio time (e.g. 60, 60s, 2m)");
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (t.as_str(), 1.0)
    };
    let v: f64 = num.trim().parse().map_err(|_| bad())?;
    Ok(((v * scale).round() as u64).max(1))
}

/// The workload and its parameters: randomio's names for random jobs, fio's otherwise.
fn params(o: &BTreeMap<String, String>) -> Result<(String, BTreeMap<String, String>), String> {
    let get = |k: &str| o.get(k).map(String::as_str);
    let rw = get("rw").or(get("readwrite")).unwrap_or("read");
    let bs = size(get("bs").or(get("blocksize")).unwrap_or("4k"))?;
    let mut p = BTreeMap::new();
    let write_pct = match rw {
        "randread" => 0,
        "randwrite" => 100,
        "randrw" => match (get("rwmixwrite"), get("rwmixread")) {
            (Some(w), _) => w.parse().map_err(|_| format!("rwmixwrite '{w}'"))?,
            (None, Some(r)) => {
                100 - r
                    .parse::<u64>()
                    .map_err(|_| format!("rwmixread '{r}'"))?
                    .min(100)
            }
            (None, None) => 50,
        },
        _ => {
            for k in ["rw", "ioengine", "iodepth", "numjobs", "direct", "runtime"] {
                if let Some(v) = get(k) {
                    p.insert(k.to_string(), v.to_string());
                }
            }
            p.insert("bs".into(), bs.to_string());
            if let Some(s) = get("size") {
                p.insert("size".into(), size(s)?.to_string());
            }
            return Ok(("fio".into(), p));
        }
    };
    p.insert("write_pct".into(), write_pct.to_string());
    p.insert("request".into(), bs.to_string());
    p.insert("threads".into(), get("numjobs").unwrap_or("1").to_string());
    p.insert("direct".into(), get("direct").unwrap_or("0").to_string());
    if let Some(s) = get("size") {
        p.insert("size".into(), size(s)?.to_string());
    }
    if let Some(r) = get("runtime") {
        p.insert("runtime".into(), seconds(r)?.to_string());
    }
    // fio's engine names are the registry's names or aliases (psync, pvsync: sync); an
    // engine fsbattery lacks passes through and is refused by name when the plan is built.
    let fio_engine = get("ioengine").unwrap_or("psync");
    let engine = crate::engine::lookup(fio_engine).map_or(fio_engine, |e| e.name);
    p.insert("engine".into(), engine.to_string());
    // randomio's depth is the io_uring queue depth; the sync engine has none.
    if engine != EngineSpec::Sync.name() {
        p.insert("depth".into(), get("iodepth").unwrap_or("1").to_string());
    }
    if write_pct > 0 {
        // fio's fsync=N syncs every N writes; randomio syncs a percentage of them.
        let every: u64 = get("fsync").unwrap_or("0").parse().unwrap_or(0);
        let sync_pct = 100u64.checked_div(every).unwrap_or(0);
        p.insert("sync_pct".into(), sync_pct.to_string());
        match get("buffer_compress_percentage") {
            Some(c) => {
                p.insert("fill".into(), "compressible".into());
                p.insert("compress_pct".into(), c.to_string());
            }
            None => {
                let zeros = get("zero_buffers").is_some();
                p.insert("fill".into(), if zeros { "zeros" } else { "random" }.into());
            }
        }
    }
    Ok(("randomio".into(), p))
}

/// Every metric of the directions the job did IO in.
fn metrics(job: &Value, opts: &BTreeMap<String, String>) -> Vec<(MetricSpec, Reading)> {
    let runtime_s = job["job_runtime"].as_f64().unwrap_or(0.0) / 1000.0;
    let pct = |k: &str| job[k].as_f64().unwrap_or(0.0);
    let sample = |v: f64| {
        Reading::Value(Sample {
            repeat: 0,
            value: v,
            elapsed_s: runtime_s,
            user_s: pct("usr_cpu") / 100.0 * runtime_s,
            sys_s: pct("sys_cpu") / 100.0 * runtime_s,
            cpu_pct: pct("usr_cpu") + pct("sys_cpu"),
            device_io: None,
            cache: None,
            ranks: Vec::new(),
        })
    };
    let dirs: Vec<&str> = ["read", "write"]
        .into_iter()
        .filter(|d| job[*d]["total_ios"].as_u64().unwrap_or(0) > 0 || is_dir(opts, d))
        .collect();
    let iops = |d: &str| job[d]["iops"].as_f64().unwrap_or(0.0);
    let mut out = vec![(
        MetricSpec::rate("iops", "ops/s", "reads + writes per second (fio)"),
        sample(dirs.iter().map(|d| iops(d)).sum()),
    )];
    for d in &dirs {
        let help = format!("{d}s per second (fio {d}.iops)");
        out.push((
            MetricSpec::rate(&format!("{d}_iops"), "ops/s", &help),
            sample(iops(d)),
        ));
        let bw = job[*d]["bw_bytes"].as_f64().unwrap_or(0.0) / 1e6;
        let help = format!("{d} bandwidth (fio {d}.bw_bytes)");
        out.push((
            MetricSpec::rate(&format!("{d}_bw"), "MB/s", &help),
            sample(bw),
        ));
    }
    for d in &dirs {
        out.extend(latency(&job[*d], d, &sample));
    }
    out
}

/// Whether the job's rw option does IO in direction `d`.
fn is_dir(opts: &BTreeMap<String, String>, d: &str) -> bool {
    let rw = opts.get("rw").map(String::as_str).unwrap_or("read");
    match d {
        "read" => rw.contains("read") || rw.contains("rw"),
        _ => rw.contains("write") || rw.contains("rw"),
    }
}

/// Latency metrics of one direction, in ms.
fn latency(dir: &Value, d: &str, sample: &dyn Fn(f64) -> Reading) -> Vec<(MetricSpec, Reading)> {
    let ns = |v: &Value| v.as_f64().map(|n| n / 1e6);
    let reading = |v: Option<f64>, what: &str| match v {
        Some(v) => sample(v),
        None => Reading::Missing(format!("fio printed no {what}")),
    };
    let mut out = Vec::new();
    for (suffix, key, what) in [
        ("mean", "mean", "mean"),
        ("stddev", "stddev", "standard deviation"),
    ] {
        let spec = lat(d, suffix, &format!("{d} latency, {what} (fio lat_ns)"));
        out.push((
            spec,
            reading(ns(&dir["lat_ns"][key]), &format!("lat_ns.{key}")),
        ));
    }
    for (suffix, key) in [
        ("p50", "50.000000"),
        ("p90", "90.000000"),
        ("p99", "99.000000"),
        ("p99.9", "99.900000"),
    ] {
        let spec = lat(
            d,
            suffix,
            &format!("{d} completion latency, {suffix} (fio clat_ns)"),
        );
        let v = ns(&dir["clat_ns"]["percentile"][key]);
        out.push((spec, reading(v, &format!("clat_ns percentile {key}"))));
    }
    let spec = lat(d, "max", &format!("{d} latency, maximum (fio lat_ns)"));
    out.push((spec, reading(ns(&dir["lat_ns"]["max"]), "lat_ns.max")));
    out
}

/// The metric `<d>_lat_<stat>`: statistic `stat` of direction `d`'s latency, in ms.
fn lat(d: &str, stat: &str, help: &str) -> MetricSpec {
    let s = Stat::parse(stat).expect("fio's statistics are named as Stat writes them");
    MetricSpec::latency_ms(&format!("{d}_lat_{stat}"), &format!("{d}_lat"), s, help)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = include_str!("testdata/fio-randread.json");

    #[test]
    fn random_read_maps_onto_randomio() {
        let p = Fio.parse(ONE.as_bytes()).unwrap();
        assert_eq!(
            (p.tool, p.workload.as_str(), p.version.as_str()),
            ("fio", "randomio", "fio-3.33")
        );
        let want = [
            ("direct", "0"),
            ("engine", "sync"),
            ("request", "4096"),
            ("runtime", "1"),
            ("size", "16777216"),
            ("threads", "1"),
            ("write_pct", "0"),
        ];
        let want: BTreeMap<String, String> = want
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(p.params, want);
        let get = |n: &str| {
            p.metrics
                .iter()
                .find(|(m, _)| m.name == n)
                .map(|(_, r)| r.clone())
        };
        let Some(Reading::Value(s)) = get("read_iops") else {
            panic!("{p:?}")
        };
        assert!((s.value - 14200.799201).abs() < 1e-6);
        let Some(Reading::Value(s)) = get("read_lat_p50") else {
            panic!()
        };
        assert!((s.value - 0.06016).abs() < 1e-9, "{s:?}");
        assert!(get("write_iops").is_none() && get("read_lat_p99.9").is_some());
    }

    #[test]
    fn several_jobs_are_refused_with_the_remedy() {
        let two = ONE.replacen("\"jobs\" : [", "\"jobs\" : [{\"jobname\":\"x\"},", 1);
        let e = Fio.parse(two.as_bytes()).unwrap_err();
        assert!(e.contains("--group_reporting"), "{e}");
    }

    #[test]
    fn fio_sizes_and_times() {
        assert_eq!(size("4k").unwrap(), 4096);
        assert_eq!(size("16M").unwrap(), 16 << 20);
        assert_eq!(size("1GiB").unwrap(), 1 << 30);
        assert!(size("lots").is_err());
        assert_eq!(seconds("2m").unwrap(), 120);
        assert_eq!(seconds("500ms").unwrap(), 1);
    }

    #[test]
    fn randrw_mix_and_fsync() {
        let o: BTreeMap<String, String> = [
            ("rw", "randrw"),
            ("rwmixread", "70"),
            ("fsync", "4"),
            ("ioengine", "io_uring"),
            ("iodepth", "16"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let (w, p) = params(&o).unwrap();
        assert_eq!(w, "randomio");
        assert_eq!(
            (p["write_pct"].as_str(), p["sync_pct"].as_str()),
            ("30", "25")
        );
        assert_eq!(
            (
                p["engine"].as_str(),
                p["depth"].as_str(),
                p["fill"].as_str()
            ),
            ("io_uring", "16", "random")
        );
    }
}

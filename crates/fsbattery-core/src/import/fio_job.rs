//! fio's JSON of a job file, imported as the `fio:FILE` workload it was run as
//! (`import --from fio --workload fio:FILE`): one entry per reporting group (fio run with
//! `--group_reporting`), each group's metrics under the names a native `run --workload
//! fio:FILE` gives them ([`crate::workload::fio::metrics`]), so `compare` pairs them row by
//! row: `iops`, `read_bw`, `read_clat_p50`, `sync_lat_p99`, ... (prefixed `GROUP.` when the
//! file has several groups).

use super::{Parsed, Reading};
use crate::model::Sample;
use crate::workload::fio::metrics::{self, Shape, PERCENTILES};
use serde_json::Value;

/// Parse fio's JSON `bytes` as workload `workload` (`fio:FILE`).
pub fn parse(bytes: &[u8], workload: &str) -> Result<Parsed, String> {
    let start = bytes
        .iter()
        .position(|&b| b == b'{')
        .ok_or("no JSON object")?;
    let doc: Value =
        serde_json::from_slice(&bytes[start..]).map_err(|e| format!("not valid fio JSON: {e}"))?;
    let version = doc["fio version"]
        .as_str()
        .ok_or("no \"fio version\" field")?
        .to_string();
    let jobs = doc["jobs"].as_array().ok_or("no \"jobs\" array")?;
    if jobs.is_empty() {
        return Err("no job in the output".into());
    }
    let mut groups: Vec<i64> = jobs
        .iter()
        .map(|j| j["groupid"].as_i64().unwrap_or(0))
        .collect();
    groups.dedup();
    if groups.len() != jobs.len() {
        return Err(format!(
            "{} jobs in {} groups: rerun fio with --group_reporting (one entry per group)",
            jobs.len(),
            groups.len()
        ));
    }
    let mut out = Vec::new();
    for job in jobs {
        let name = job["jobname"].as_str().unwrap_or("job");
        let ios = |d: &str| job[d]["total_ios"].as_u64().unwrap_or(0) > 0;
        let shape = Shape {
            prefix: metrics::prefix(name, jobs.len()),
            dirs: [ios("read"), ios("write")],
            // fio counts fdatasyncs in `sync.lat_ns.N` but not in `sync.total_ios`.
            sync: ios("sync") || job["sync"]["lat_ns"]["N"].as_u64().unwrap_or(0) > 0,
        };
        let values = values(job, &shape);
        let runtime_s = job["job_runtime"].as_f64().unwrap_or(0.0) / 1000.0;
        for spec in metrics::names_for(&shape) {
            let reading = match values.iter().find(|(n, _)| *n == spec.name) {
                Some((_, Some(v))) => sample(job, *v, runtime_s),
                _ => Reading::Missing(format!("fio printed no value for {}", spec.name)),
            };
            out.push((spec, reading));
        }
    }
    Ok(Parsed {
        tool: "fio",
        version,
        hostname: String::new(),
        started: doc["timestamp"]
            .as_i64()
            .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
            .map(|t| t.to_rfc3339()),
        workload: workload.to_string(),
        params: Default::default(),
        metrics: out,
    })
}

/// Every value of one group entry by metric name (`None`: fio printed none).
fn values(job: &Value, s: &Shape) -> Vec<(String, Option<f64>)> {
    let pre = &s.prefix;
    let f = |v: &Value| v.as_f64();
    let ms = |v: &Value| v.as_f64().map(|n| n / 1e6);
    let mut v = vec![(
        format!("{pre}iops"),
        Some(f(&job["read"]["iops"]).unwrap_or(0.0) + f(&job["write"]["iops"]).unwrap_or(0.0)),
    )];
    let mut lat = |of: String, l: &Value| {
        v.push((format!("{of}_mean"), ms(&l["mean"])));
        for p in PERCENTILES {
            let key = format!("{p:.6}");
            v.push((
                format!("{of}_{}", metrics::pct_name(p)),
                ms(&l["percentile"][&key]),
            ));
        }
    };
    for d in ["read", "write"] {
        lat(format!("{pre}{d}_clat"), &job[d]["clat_ns"]);
    }
    lat(format!("{pre}sync_lat"), &job["sync"]["lat_ns"]);
    for d in ["read", "write"] {
        v.push((format!("{pre}{d}_iops"), f(&job[d]["iops"])));
        v.push((
            format!("{pre}{d}_bw"),
            f(&job[d]["bw_bytes"]).map(|b| b / 1e6),
        ));
    }
    v
}

/// A reading with fio's runtime and CPU shares.
fn sample(job: &Value, value: f64, runtime_s: f64) -> Reading {
    let pct = |k: &str| job[k].as_f64().unwrap_or(0.0);
    Reading::Value(Sample {
        repeat: 0,
        value,
        elapsed_s: runtime_s,
        user_s: pct("usr_cpu") / 100.0 * runtime_s,
        sys_s: pct("sys_cpu") / 100.0 * runtime_s,
        cpu_pct: pct("usr_cpu") + pct("sys_cpu"),
        device_io: None,
        cache: None,
        ranks: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = include_str!("testdata/fio-randread.json");

    #[test]
    fn a_job_file_run_imports_under_the_native_names() {
        let p = parse(ONE.as_bytes(), "fio:rr.fio").unwrap();
        assert_eq!(p.workload, "fio:rr.fio");
        let names: Vec<&str> = p.metrics.iter().map(|(m, _)| m.name.as_str()).collect();
        assert_eq!(&names[..3], ["iops", "read_iops", "read_bw"]);
        assert!(names.contains(&"read_clat_p99.99") && !names.contains(&"sync_lat_p50"));
        let get = |n: &str| match &p.metrics.iter().find(|(m, _)| m.name == n).unwrap().1 {
            Reading::Value(s) => s.value,
            Reading::Missing(m) => panic!("{m}"),
        };
        assert!((get("read_iops") - 14200.799201).abs() < 1e-6);
        assert!((get("read_clat_p50") - 0.06016).abs() < 1e-9);
    }

    #[test]
    fn jobs_not_summed_per_group_are_refused() {
        let two = ONE.replacen(
            "\"jobs\" : [",
            "\"jobs\" : [{\"jobname\":\"x\",\"groupid\":0},",
            1,
        );
        let e = parse(two.as_bytes(), "fio:x.fio").unwrap_err();
        assert!(e.contains("--group_reporting"), "{e}");
    }
}

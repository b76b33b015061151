//! The io500 app's result summary (`result_summary.txt` in its result directory, also the
//! lines it prints): `IO500 version <v> (<mode>)`, one `[RESULT]` line per phase
//! (`<phase> <score> GiB/s|kIOPS : time <s> seconds [INVALID]`) and the `[SCORE ]` line.
//!
//! Phases become the native io500 workload's metrics (`ior-easy-write` → `ior_easy_write`,
//! kIOPS recorded as kops/s, the same number); the `[SCORE ]` line's bandwidth, IOPS and total
//! become `score_bw`, `score_md` and `score`. The app's verdict is kept as parameters:
//! `app_valid` (yes/no, from the score line) and `app_invalid` (the phases it marked
//! `[INVALID]`), so the report says INVALID where the app did. Unscored lines (`[      ]
//! timestamp`) and the extended mode's `[SCOREX]` are skipped.

use super::{value, Importer, Parsed, Reading};
use crate::model::MetricSpec;
use std::collections::BTreeMap;

/// The io500 importer.
pub struct Io500;

/// One `[RESULT]` line: (phase, score, seconds, marked invalid).
fn result_line(rest: &str) -> Result<(String, f64, f64, bool), String> {
    let w: Vec<&str> = rest.split_whitespace().collect();
    // <phase> <score> <unit> : time <s> seconds [INVALID]
    if w.len() < 7 || w[3] != ":" || w[4] != "time" {
        return Err(format!("unexpected [RESULT] line \"{}\"", rest.trim()));
    }
    let num = |s: &str| {
        s.parse::<f64>()
            .map_err(|_| format!("[RESULT] {}: '{s}' is not a number", w[0]))
    };
    Ok((
        w[0].to_string(),
        num(w[1])?,
        num(w[5])?,
        rest.contains("[INVALID]"),
    ))
}

/// The `[SCORE ]` line's three numbers and its verdict.
fn score_line(rest: &str) -> Result<([f64; 3], bool), String> {
    let w: Vec<&str> = rest.split_whitespace().collect();
    let after = |key: &str| -> Result<f64, String> {
        let i = w
            .iter()
            .position(|x| *x == key)
            .ok_or_else(|| format!("[SCORE ] line without {key}"))?;
        w.get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("[SCORE ] {key}: no number"))
    };
    let s = [after("Bandwidth")?, after("IOPS")?, after("TOTAL")?];
    Ok((s, rest.contains("INVALID")))
}

impl Importer for Io500 {
    fn name(&self) -> &'static str {
        "io500"
    }
    fn detect(&self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        text.lines().any(|l| l.starts_with("[RESULT]")) && text.contains("[SCORE")
    }
    fn parse(&self, bytes: &[u8]) -> Result<Parsed, String> {
        let text = String::from_utf8_lossy(bytes);
        let mut version = "unknown".to_string();
        let (mut metrics, mut invalid, mut valid) = (Vec::new(), Vec::new(), None);
        for line in text.lines() {
            if let Some(v) = line.strip_prefix("IO500 version ") {
                version = v.split_whitespace().next().unwrap_or("unknown").into();
            } else if let Some(rest) = line.strip_prefix("[RESULT]") {
                let (phase, score, secs, bad) = result_line(rest)?;
                let unit = if phase.starts_with("ior") {
                    "GiB/s"
                } else {
                    "kops/s"
                };
                let mut r = value(score);
                if let Reading::Value(s) = &mut r {
                    s.elapsed_s = secs;
                }
                if bad {
                    invalid.push(phase.clone());
                }
                let spec = MetricSpec::rate(&phase.replace('-', "_"), unit, &phase);
                metrics.push((spec, r));
            } else if let Some(rest) = line.strip_prefix("[SCORE ]") {
                let (s, bad) = score_line(rest)?;
                valid = Some(!bad);
                for (name, unit, v) in [
                    ("score_bw", "GiB/s", s[0]),
                    ("score_md", "kops/s", s[1]),
                    ("score", "score", s[2]),
                ] {
                    metrics.push((MetricSpec::rate(name, unit, name), value(v)));
                }
            }
        }
        let Some(valid) = valid else {
            return Err(
                "no [SCORE ] line: give the app's result_summary.txt of a finished run".into(),
            );
        };
        let yes_no = if valid { "yes" } else { "no" };
        let mut params = BTreeMap::from([("app_valid".to_string(), yes_no.to_string())]);
        params.insert("app_invalid".into(), invalid.join(","));
        Ok(Parsed {
            tool: "io500",
            version,
            hostname: String::new(),
            started: None,
            workload: "io500".into(),
            params,
            metrics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The io500 repository's own example output (contrib/s3/README.md, io500-isc22_v1,
    /// 2 ranks on S3), verbatim.
    const S3: &str = include_str!("testdata/io500-result_summary.txt");

    #[test]
    fn the_apps_example_summary_imports_with_its_verdict() {
        assert!(Io500.detect(S3.as_bytes()));
        let p = Io500.parse(S3.as_bytes()).unwrap();
        assert_eq!(p.version, "io500-isc22_v1");
        assert_eq!(p.params["app_valid"], "no");
        assert_eq!(p.params["app_invalid"], "find");
        let names: Vec<&str> = p.metrics.iter().map(|(m, _)| m.name.as_str()).collect();
        assert_eq!(
            names.len(),
            15,
            "12 phases and 3 scores, no timestamp: {names:?}"
        );
        assert_eq!(names[0], "ior_easy_write");
        let Reading::Value(s) = &p.metrics[0].1 else {
            panic!("ior-easy-write has a value")
        };
        assert_eq!((s.value, s.elapsed_s), (0.002189, 303.523));
        let Reading::Value(t) = &p.metrics[14].1 else {
            panic!("the total has a value")
        };
        assert_eq!(t.value, 0.001875);
    }

    /// The io500 app (02091cf, IOR 5fcf0ba, pfind aaba722) built and run here: 2 ranks on a
    /// tmpfs, fixed sizes with the 300 s stonewall, so its write phases ended early and it
    /// marked them and the run INVALID; its extended phase switched off (2026-11-27), verbatim.
    const HERE: &str = include_str!("testdata/io500-app-here-result_summary.txt");

    #[test]
    fn a_real_app_run_imports_with_its_invalid_write_phases() {
        let p = Io500.parse(HERE.as_bytes()).unwrap();
        assert_eq!(p.version, "io500-isc26_v2-26-g02091cf254d8");
        assert_eq!(p.params["app_valid"], "no");
        assert_eq!(
            p.params["app_invalid"],
            "ior-easy-write,mdtest-easy-write,ior-hard-write,mdtest-hard-write"
        );
        let names: Vec<&str> = p.metrics.iter().map(|(m, _)| m.name.as_str()).collect();
        assert_eq!(
            names.len(),
            15,
            "the unscored timestamp and rnd4K lines left out: {names:?}"
        );
        let find = names.iter().position(|n| *n == "find").unwrap();
        let Reading::Value(s) = &p.metrics[find].1 else {
            panic!("find has a value")
        };
        assert_eq!((s.value, s.elapsed_s), (2790.908367, 0.215));
    }

    #[test]
    fn a_summary_without_its_score_line_is_refused_with_the_fix() {
        let cut: String = S3.lines().take(5).map(|l| format!("{l}\n")).collect();
        let e = Io500.parse(cut.as_bytes()).unwrap_err();
        assert!(e.contains("result_summary.txt"), "{e}");
    }
}

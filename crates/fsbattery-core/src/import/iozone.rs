//! iozone's `-R` ("Excel") report: per test a title line (`"Writer report"`), a header row of
//! record sizes in KiB, then one row per file size in KiB followed by values in KiB/s.
//!
//! One file size per import: the native `iozone` workload runs one file, so its metrics are
//! `<test>@<record bytes>` in KB/s (1 KB = 1024 B, as iozone prints) and a report of several
//! file sizes (`-a` without `-s`) is refused with the remedy. iozone prints no version in the
//! `-R` block; the version is recorded as "unknown" unless a "Version $Revision: ..." line is
//! present (iozone's own banner, when the whole output is imported).

use super::{Importer, Parsed};
use crate::model::{Dim, MetricSpec};
use std::collections::BTreeMap;

/// The iozone importer.
pub struct Iozone;

/// Words of a line: quoted strings unquoted, bare numbers as they are.
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace()
        .map(|w| w.trim_matches('"'))
        .collect()
}

/// The report title of `line`, when it is one (`"Writer report"`).
fn title(line: &str) -> Option<&str> {
    let t = line.trim();
    let inner = t.strip_prefix('"')?.strip_suffix('"')?;
    inner.ends_with("report").then_some(inner)
}

/// The report a `-+u` CPU block belongs to, when `line` is one's title
/// (`"Writer CPU utilization report (Zero values should be ignored)"` -> "Writer report").
fn cpu_title(line: &str) -> Option<String> {
    let inner = line.trim().strip_prefix('"')?.strip_suffix('"')?;
    let (test, _) = inner.split_once(" CPU utilization report")?;
    Some(format!("{test} report"))
}

/// A block's header of record sizes and its rows until a blank line or the next title:
/// (file bytes, record bytes, value) per cell.
fn block<'a>(
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
    report: &str,
) -> Result<Vec<(u64, u64, f64)>, String> {
    let header = lines.by_ref().find(|l| !l.trim().is_empty()).unwrap_or("");
    let recs: Vec<u64> = words(header)
        .iter()
        .map(|w| kib(w))
        .collect::<Result<_, _>>()?;
    let mut out = Vec::new();
    let is_title = |l: &str| title(l).is_some() || cpu_title(l).is_some();
    while let Some(row) = lines.next_if(|l| !l.trim().is_empty() && !is_title(l)) {
        let w = words(row);
        let file = kib(w[0])?;
        for (rec, v) in recs.iter().zip(&w[1..]) {
            let v: f64 = v
                .parse()
                .map_err(|_| format!("{report}: value '{v}' is not a number"))?;
            out.push((file, *rec, v));
        }
    }
    Ok(out)
}

/// A KiB count as bytes.
fn kib(w: &str) -> Result<u64, String> {
    w.parse::<u64>()
        .ok()
        .and_then(|k| k.checked_mul(1024))
        .ok_or_else(|| format!("'{w}' is not a size in KiB"))
}

impl Importer for Iozone {
    fn name(&self) -> &'static str {
        "iozone"
    }
    fn detect(&self, bytes: &[u8]) -> bool {
        String::from_utf8_lossy(bytes)
            .lines()
            .any(|l| title(l) == Some("Writer report"))
    }
    fn parse(&self, bytes: &[u8]) -> Result<Parsed, String> {
        let text = String::from_utf8_lossy(bytes);
        let mut lines = text.lines().peekable();
        let (mut metrics, mut files, mut records) = (Vec::new(), Vec::new(), Vec::new());
        // `-+u`'s CPU blocks, by metric name: put on the samples once every block is read.
        let mut cpu: BTreeMap<String, f64> = BTreeMap::new();
        while let Some(line) = lines.next() {
            if let Some(report) = cpu_title(line) {
                let test = crate::workload::test_of_report(&report)
                    .ok_or_else(|| format!("unknown iozone CPU report \"{report}\""))?;
                for (_, rec, v) in block(&mut lines, &report)? {
                    cpu.insert(format!("{test}@{rec}"), v);
                }
                continue;
            }
            let Some(report) = title(line) else { continue };
            let test = crate::workload::test_of_report(report)
                .ok_or_else(|| format!("unknown iozone report \"{report}\""))?;
            for (file, rec, v) in block(&mut lines, report)? {
                if !files.contains(&file) {
                    files.push(file);
                }
                records.push(rec);
                let help = format!("{report} at {rec} B records: kBytes/s (iozone -R)");
                let spec = MetricSpec::rate(&format!("{test}@{rec}"), "KB/s", &help).point(
                    test,
                    vec![Dim::bytes("record", rec), Dim::bytes("file", file)],
                );
                metrics.push((spec, super::value(v)));
            }
        }
        for (spec, reading) in &mut metrics {
            if let (Some(pct), super::Reading::Value(s)) = (cpu.get(&spec.name), reading) {
                s.cpu_pct = *pct;
            }
        }
        let size = match files.as_slice() {
            [one] => *one,
            [] => return Err("no iozone report block (\"Writer report\" ...) found".into()),
            _ => {
                return Err(format!(
                    "{} file sizes in one report: run iozone with one -s SIZE per import",
                    files.len()
                ))
            }
        };
        let mut params = BTreeMap::from([("size".to_string(), size.to_string())]);
        if let (Some(lo), Some(hi)) = (records.iter().min(), records.iter().max()) {
            params.insert("min_record".into(), lo.to_string());
            params.insert("max_record".into(), hi.to_string());
        }
        let version = text
            .lines()
            .find_map(|l| l.split("$Revision:").nth(1))
            .map(|v| v.trim().trim_end_matches('$').trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        Ok(Parsed {
            tool: "iozone",
            version,
            hostname: String::new(),
            started: None,
            workload: "iozone".into(),
            params,
            metrics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-made from iozone's documented `-R` layout (iozone is not packaged in Debian main):
    /// not captured from a real run.
    const FIXTURE: &str = include_str!("testdata/iozone-R-handmade.txt");

    #[test]
    fn blocks_become_test_at_record_metrics() {
        assert!(Iozone.detect(FIXTURE.as_bytes()));
        let p = Iozone.parse(FIXTURE.as_bytes()).unwrap();
        assert_eq!(p.version, "3.489");
        assert_eq!(p.params["size"], "65536");
        assert_eq!(
            (
                p.params["min_record"].as_str(),
                p.params["max_record"].as_str()
            ),
            ("4096", "16384")
        );
        let names: Vec<&str> = p.metrics.iter().map(|(m, _)| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "write@4096",
                "write@8192",
                "write@16384",
                "read@4096",
                "read@8192",
                "read@16384"
            ]
        );
        assert_eq!(p.metrics[4].1, super::super::value(3051234.0));
    }

    /// S3's published text (seed 003): XFS's iozone output, then EXT4's, each run with `-+u`.
    const S3: &str = include_str!("../../../../suites/published/seeds/003_52d440a95a896730.txt");

    /// One filesystem's output of S3: from its heading line to the next one.
    pub(crate) fn s3_part(fs: &str) -> &'static str {
        let start = S3.find(&format!("\n{fs}\nIozone:")).unwrap() + 1;
        let end = S3[start..]
            .find("\nEXT4\nIozone:")
            .map_or(S3.len(), |e| start + e);
        &S3[start..end]
    }

    #[test]
    fn s3s_published_outputs_import_with_their_cpu_blocks() {
        for (fs, write8, cpu8, last) in [
            ("XFS", 302780.0, 54.60, ("freread@16777216", 3275725.0)),
            ("EXT4", 250577.0, f64::NAN, ("freread@16777216", 2997931.0)),
        ] {
            let text = s3_part(fs);
            assert!(Iozone.detect(text.as_bytes()), "{fs}");
            let p = Iozone
                .parse(text.as_bytes())
                .unwrap_or_else(|e| panic!("{fs}: {e}"));
            assert_eq!(p.version, "3.434");
            assert_eq!(p.params["size"], (2097152u64 * 1024).to_string());
            assert_eq!(p.metrics.len(), 13 * 12, "{fs}");
            let get = |name: &str| {
                let (_, r) = p.metrics.iter().find(|(m, _)| m.name == name).unwrap();
                match r {
                    super::super::Reading::Value(s) => (s.value, s.cpu_pct),
                    _ => panic!("{name} has no value"),
                }
            };
            let (v, c) = get("write@8192");
            assert_eq!(v, write8);
            if cpu8.is_finite() {
                assert_eq!(c, cpu8, "{fs}: the Writer CPU block's first cell");
            } else {
                assert!(c > 0.0, "{fs}: CPU block kept");
            }
            assert_eq!(get(last.0).0, last.1, "{fs}");
        }
    }

    #[test]
    fn several_file_sizes_are_refused() {
        let two = FIXTURE.replace(
            "\"64\"   812345",
            "\"64\"   812345\n\"128\"   1 2 3\n\"64\"",
        );
        let e = Iozone.parse(two.as_bytes()).unwrap_err();
        assert!(e.contains("one -s SIZE"), "{e}");
    }
}

//! The objective a tune maximises, read from a phase's record: per configuration (target
//! spec), one value per repeat.
//!
//! `score` is the geometric mean of every ranked metric of the workloads (the `filesystem`
//! rows of mkfs and mount times left out: they are the cost of making a filesystem, not of
//! the workload), each oriented so higher is better; `WORKLOAD.METRIC` is one metric. Values
//! are kept as logs: an option's effect on a log is a factor on the objective, the same for
//! a metric in seconds and one in MB/s, and effects of several metrics add up.

use fsbattery_record::model::{CellStatus, RunRecord};
use fsbattery_stats::Better;
use std::collections::BTreeMap;

/// Which metrics count.
#[derive(Debug, Clone, PartialEq)]
pub enum Objective {
    /// Every ranked metric, geometric mean.
    Score,
    /// One metric: workload, metric.
    Metric(String, String),
}

impl Objective {
    /// From `--objective`.
    pub fn parse(s: &str) -> Result<Objective, String> {
        if s == "score" {
            return Ok(Objective::Score);
        }
        match s.split_once('.') {
            Some((w, m)) if !w.is_empty() && !m.is_empty() => {
                Ok(Objective::Metric(w.into(), m.into()))
            }
            _ => Err(format!(
                "--objective {s}: give `score` or WORKLOAD.METRIC (see `fsbattery list workloads`)"
            )),
        }
    }

    /// Whether the cell of `workload`.`metric` counts.
    fn counts(&self, workload: &str, metric: &str) -> bool {
        match self {
            Objective::Score => workload != "filesystem",
            Objective::Metric(w, m) => w == workload && m == metric,
        }
    }

    /// Log-objective samples of every target of `record`, by spec, one per repeat that
    /// measured every counted metric.
    pub fn samples(&self, record: &RunRecord) -> BTreeMap<String, Vec<f64>> {
        self.by_repeat(record)
            .into_iter()
            .map(|(spec, v)| (spec, v.into_iter().map(|(_, x)| x).collect()))
            .collect()
    }

    /// [`Self::samples`] with the repeat each came from: the phase's interleaved round, shared
    /// by every target of the phase (a block of the tune's blocked comparisons).
    pub fn by_repeat(&self, record: &RunRecord) -> BTreeMap<String, Vec<(u32, f64)>> {
        let mut out = BTreeMap::new();
        for t in &record.targets {
            let mut by_repeat: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
            let cells = record.cells.iter().filter(|c| {
                c.target == t.label && c.comparable && self.counts(&c.workload, &c.metric)
            });
            let mut metrics = 0;
            for c in cells {
                if !matches!(c.status, CellStatus::Ok) {
                    continue;
                }
                metrics += 1;
                for s in c
                    .samples
                    .iter()
                    .filter(|s| s.value > 0.0 && s.value.is_finite())
                {
                    let v = s.value.ln();
                    let oriented = if c.better == Better::Higher { v } else { -v };
                    by_repeat.entry(s.repeat).or_default().push(oriented);
                }
            }
            let values: Vec<(u32, f64)> = by_repeat
                .into_iter()
                .filter(|(_, v)| metrics > 0 && v.len() == metrics)
                .map(|(r, v)| (r, v.iter().sum::<f64>() / v.len() as f64))
                .collect();
            out.insert(t.spec.clone(), values);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objective_forms() {
        assert_eq!(Objective::parse("score"), Ok(Objective::Score));
        assert_eq!(
            Objective::parse("stream.write"),
            Ok(Objective::Metric("stream".into(), "write".into()))
        );
        assert!(Objective::parse("stream")
            .unwrap_err()
            .contains("WORKLOAD.METRIC"));
    }
}

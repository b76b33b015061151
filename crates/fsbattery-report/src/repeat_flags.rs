//! Cells whose repeats look wrong — an outlier, or a trend across them — named under the tables
//! and counted in the answer, as hyperfine warns of outliers: the verdicts assume repeats that
//! are exchangeable, and a slow first repeat on a cold dataset or a drifting machine is not.
//! The flags are [`fsbattery_stats::sample_flags`]'s; `results.json` carries them per cell.

use fsbattery_record::{Cell, RunRecord};
use fsbattery_stats::sample_flags;

/// One line per flagged cell, in record order.
pub fn lines(rec: &RunRecord) -> Vec<String> {
    rec.cells.iter().filter_map(line).collect()
}

/// How many cells are flagged.
pub fn count(rec: &RunRecord) -> usize {
    rec.cells.iter().filter(|c| line(c).is_some()).count()
}

/// "repeats: randomio read_iops on ext4: repeat 0 is an outlier (749 against a median of
/// 6010); rising across its 8 repeats (Kendall's τ 0.86, p 0.003)".
fn line(c: &Cell) -> Option<String> {
    let values = c.values();
    let f = sample_flags(&values);
    if !f.any() {
        return None;
    }
    let mut parts = Vec::new();
    if !f.outliers.is_empty() {
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        let which: Vec<String> = f
            .outliers
            .iter()
            .map(|&i| format!("{} ({})", c.samples[i].repeat, short(values[i])))
            .collect();
        parts.push(format!(
            "outlier repeat(s) {} against a median of {}",
            which.join(", "),
            short(median)
        ));
    }
    if let Some((tau, p)) = f.trend {
        let way = if tau > 0.0 { "rising" } else { "falling" };
        parts.push(format!(
            "{way} across its {} repeats (Kendall's τ {tau:.2}, p {p:.3})",
            values.len()
        ));
    }
    Some(format!(
        "repeats: {} {} on {}: {}",
        c.workload,
        c.metric,
        c.target,
        parts.join("; ")
    ))
}

/// A value with four significant digits.
fn short(v: f64) -> String {
    let digits = (3 - v.abs().max(1e-12).log10().floor() as i32).clamp(0, 6) as usize;
    format!("{v:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cold_first_repeat_is_named_with_its_value() {
        let mut rec =
            crate::compare::tests::record(&[749.0, 6010.0, 5990.0, 6050.0, 5970.0, 6020.0]);
        rec.cells[0].workload = "randomio".into();
        rec.cells[0].metric = "read_iops".into();
        let l = lines(&rec);
        assert_eq!(
            l,
            ["repeats: randomio read_iops on ext4: outlier repeat(s) 0 (749.0) against a median of \
              6010"]
        );
        assert_eq!(count(&rec), 1);
        let calm = crate::compare::tests::record(&[1.0, 1.01, 0.99, 1.02, 0.98, 1.0]);
        assert!(lines(&calm).is_empty());
    }
}

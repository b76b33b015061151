//! Then and now in a run's closing lines: how well a preset run's ranks agree with its study's,
//! in one line, and which of the run's targets the study never measured.
//!
//! Role: the then-and-now tables ([`crate::then_now_out`]) are long and shown in full only in
//! verbose output and the reports; the closing summary, where the reader's eye ends, gets the
//! answer: Kendall's τ-b pooled over every compared table (pairs within a row only; rows whose
//! split the seed's text does not pin down left out, as in each table's own τ), its p, the
//! rank flips, and the targets whose filesystem has no column in the study, so that "too few
//! ranked pairs" is never the only word on a run whose filesystems the study did not have.
//!
//! Invariants: built from [`crate::then_now::compute`], the numbers every output shows;
//! nothing for a run without published numbers; absolute values are never compared.

use crate::then_now::compute;
use crate::Report;
use fsbattery_record::then_now::ThenAndNow;
use fsbattery_stats::kendall_tau_b_pooled;

/// Flips named in the line; the rest are counted (the then-and-now table names them all).
const FLIPS_NAMED: usize = 2;

/// The closing lines of a preset run (empty without published numbers): one line with τ-b,
/// p and the flips, and the targets the study did not measure.
pub fn lines(report: &Report<'_>) -> Vec<String> {
    let Some(published) = report.record.published.as_deref() else {
        return Vec::new();
    };
    let tn = compute(published, report);
    let unmeasured = not_in_study(report, published);
    let in_study: Vec<&str> = report
        .record
        .targets
        .iter()
        .filter(|t| has_column(published, t))
        .map(|t| t.label.as_str())
        .collect();
    let mut line = format!(
        "Then and now ({}, {}): {}",
        tn.study,
        tn.year,
        agreement(&tn, &in_study)
    );
    if !unmeasured.is_empty() {
        line.push_str(&format!(
            "; {} {} not in the {} study (no column to rank beside)",
            unmeasured.join(", "),
            if unmeasured.len() == 1 { "was" } else { "were" },
            tn.year
        ));
    }
    vec![line]
}

/// "Kendall's tau-b 0.41 (p 0.003, 63 pairs in 21 rows); 1 rank flip: ..." over every table;
/// `in_study`: the run's targets whose filesystem has a column in the study.
fn agreement(tn: &ThenAndNow, in_study: &[&str]) -> String {
    let mut strata: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    let mut ambiguous = 0;
    for r in tn.tables.iter().flat_map(|t| &t.rows) {
        if r.ambiguous {
            ambiguous += 1;
            continue;
        }
        let pairs: Vec<(f64, f64)> = r
            .cells
            .iter()
            .filter_map(|c| Some((f64::from(c.rank_then?), f64::from(c.rank_now?))))
            .collect();
        if pairs.len() >= 2 {
            strata.push(pairs.into_iter().unzip());
        }
    }
    let views: Vec<(&[f64], &[f64])> = strata
        .iter()
        .map(|(a, b)| (a.as_slice(), b.as_slice()))
        .collect();
    let left_out = match ambiguous {
        0 => String::new(),
        n => format!(
            ", {n} ambiguous row{} left out",
            if n == 1 { "" } else { "s" }
        ),
    };
    let tau = match kendall_tau_b_pooled(&views) {
        Some(k) => {
            let p = k.p.map_or(String::new(), |p| format!("p {}, ", pval(p)));
            format!(
                "Kendall's tau-b {:.2} ({p}{} pairs in {} rows{left_out})",
                k.tau,
                k.pairs,
                strata.len()
            )
        }
        None => {
            let beside: Vec<&str> = tn
                .tables
                .iter()
                .max_by_key(|t| t.columns.len())
                .map_or(Vec::new(), |t| {
                    t.columns.iter().map(|c| c.target.as_str()).collect()
                });
            let why = match (beside.as_slice(), in_study) {
                // An interrupted run: its targets have columns, but no row finished its
                // repeats on any of them (only finished cells are ranked then and now).
                ([], [one]) => format!(
                    "{one} stands beside a column of the study, but no row has finished its \
                     repeats on it"
                ),
                ([], [_, ..]) => format!(
                    "{} stand beside columns of the study, but no row has finished its repeats \
                     on them",
                    in_study.join(", ")
                ),
                ([], []) => "none of this run's targets stands beside a column of the study".into(),
                ([one], _) => format!("only {one} stands beside a column of the study"),
                _ => "no row ranks two targets both then and now".to_string(),
            };
            format!("Kendall's tau-b: too few ranked pairs ({why}{left_out})")
        }
    };
    let flips: Vec<&String> = tn.tables.iter().flat_map(|t| &t.flips).collect();
    let flips = match flips.len() {
        0 if views.is_empty() => String::new(),
        0 => "; no rank flips".to_string(),
        n => {
            let named: Vec<&str> = flips.iter().take(FLIPS_NAMED).map(|f| f.as_str()).collect();
            let more = match n.saturating_sub(FLIPS_NAMED) {
                0 => String::new(),
                m => format!("; {m} more in the then-and-now table"),
            };
            format!(
                "; {n} rank flip{}: {}{more}",
                if n == 1 { "" } else { "s" },
                named.join("; ")
            )
        }
    };
    format!("{tau}{flips}")
}

fn pval(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// Whether `t`'s filesystem has a column in a table the study ranks against runs.
fn has_column(
    published: &fsbattery_record::published::Published,
    t: &fsbattery_record::TargetRecord,
) -> bool {
    published.compared().any(|tab| tab.fs.contains(&t.fs_type))
}

/// The run's targets whose filesystem has no column in any table the study ranks against runs.
fn not_in_study(
    report: &Report<'_>,
    published: &fsbattery_record::published::Published,
) -> Vec<String> {
    report
        .record
        .targets
        .iter()
        .filter(|t| !has_column(published, t))
        .map(|t| {
            if t.label == t.fs_type {
                t.label.clone()
            } else {
                format!("{} ({})", t.label, t.fs_type)
            }
        })
        .collect()
}

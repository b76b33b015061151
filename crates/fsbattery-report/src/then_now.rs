//! Then and now: a seed's published values and ranks beside a run's (issue 25 §2).
//!
//! Role: [`compute`] is the one computation every output shows (terminal, Markdown, HTML,
//! results.json): a pure function of the published numbers and a run record. Per published
//! table ranked against runs: the run's targets matched to the seed's columns (by filesystem;
//! where several columns share one, by the target's journal placement), per row each
//! filesystem's value and rank then and now and the ratio now/then for information, Kendall's
//! τ-b between the ranks pooled over the rows, and the rank flips in one sentence each. A row
//! the transcription marks ambiguous (the seed ran its cells together and the text does not pin
//! the split) is shown with its ranks but counts in neither τ nor the flips.
//!
//! Invariants: ranks are among the matched filesystems with a value both then and now, so the
//! two rankings rank the same set; absolute values are never judged across the years.

use crate::matrix::{Entry, Matrix, Quantity};
use crate::Report;
use fsbattery_record::published::{PubRow, PubTable, Published};
use fsbattery_record::then_now::{CellThenNow, ColumnMatch, RowThenNow, TableThenNow, ThenAndNow};
use fsbattery_record::RunRecord;
use fsbattery_stats::{kendall_tau_b_pooled, Better};

/// Then and now of `report`'s run against `published`.
pub fn compute(published: &Published, report: &Report<'_>) -> ThenAndNow {
    let m = Matrix::build(report, Quantity::Value);
    let tables = published
        .compared()
        .map(|t| table(published.year, t, &m, report))
        .filter(|t| !t.rows.is_empty())
        .collect();
    ThenAndNow {
        study: published.study.clone(),
        title: published.title.clone(),
        year: published.year,
        scale_note: scale_note(report.record),
        tables,
    }
}

/// Then and now of a report whose record carries published numbers.
pub fn for_report(report: &Report<'_>) -> Option<ThenAndNow> {
    report
        .record
        .published
        .as_deref()
        .map(|p| compute(p, report))
        .filter(|t| !t.tables.is_empty())
}

/// Below standard scale every size is smaller than the seeds' own.
fn scale_note(rec: &RunRecord) -> Option<String> {
    (rec.plan.scale == "quick").then(|| {
        "this run is at quick scale: sizes and counts below the seeds' own (--scale standard)"
            .to_string()
    })
}

fn table(year: u32, t: &PubTable, m: &Matrix, report: &Report<'_>) -> TableThenNow {
    // (matrix column, seed column) for every target the seed has a column for.
    let matched: Vec<(usize, usize)> = m
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, label)| seed_column(t, report.record, label).map(|c| (i, c)))
        .collect();
    let mut rows = Vec::new();
    let mut strata: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    let mut flips = Vec::new();
    for pr in &t.rows {
        let Some(mr) = matrix_row(m, report.record, pr) else {
            continue;
        };
        let agg = mr.aggregate_or(report.aggregate);
        let now: Vec<Option<f64>> = matched
            .iter()
            .map(|(i, _)| match &mr.entries[*i] {
                Entry::Measured(s) => Some(s.aggregate(agg)),
                _ => None,
            })
            .collect();
        if now.iter().all(Option::is_none) {
            continue;
        }
        let then: Vec<Option<f64>> = matched
            .iter()
            .map(|(_, c)| pr.number(*c).map(|v| v.value))
            .collect();
        let better = pr.better(t);
        let both: Vec<bool> = then
            .iter()
            .zip(&now)
            .map(|(a, b)| a.is_some() && b.is_some())
            .collect();
        let rank_then = ranks(&then, &both, better);
        let rank_now = ranks(&now, &both, better);
        let pick = |r: &[Option<u32>]| r.iter().flatten().map(|&x| f64::from(x)).collect();
        // A row whose split the seed's text does not pin down ranks nothing then.
        if !pr.ambiguous {
            strata.push((pick(&rank_then), pick(&rank_now)));
        }
        let names: Vec<&str> = matched
            .iter()
            .map(|(i, _)| m.columns[*i].as_str())
            .collect();
        let seed_label = pr.label.clone();
        let texts: Vec<&str> = matched
            .iter()
            .map(|(_, c)| pr.values[*c].as_str())
            .collect();
        let seen = Seen {
            names: &names,
            then: &texts,
            rank_then: &rank_then,
            rank_now: &rank_now,
        };
        if let Some(f) = flip(year, &seed_label, pr.unit(t), &seen).filter(|_| !pr.ambiguous) {
            flips.push(f);
        }
        let cells = (0..matched.len())
            .map(|k| CellThenNow {
                then_text: pr.values[matched[k].1].clone(),
                then: then[k],
                now: now[k],
                rank_then: rank_then[k],
                rank_now: rank_now[k],
                ratio: then[k]
                    .zip(now[k])
                    .and_then(|(a, b)| (a != 0.0).then(|| b / a)),
            })
            .collect();
        rows.push(RowThenNow {
            label: plan_label(report.record, &mr.label, pr),
            seed: seed_label,
            unit: pr.unit(t).to_string(),
            better,
            other_scale: other_scale(report.record, &mr.label, &mr.workload),
            note: pr.note.clone(),
            ambiguous: pr.ambiguous,
            cells,
        });
    }
    let views: Vec<(&[f64], &[f64])> = strata
        .iter()
        .map(|(a, b)| (a.as_slice(), b.as_slice()))
        .collect();
    let k = kendall_tau_b_pooled(&views);
    TableThenNow {
        id: t.id.clone(),
        title: t.title.clone(),
        columns: matched
            .iter()
            .map(|(i, c)| ColumnMatch {
                target: m.columns[*i].clone(),
                column: t.columns[*c].clone(),
            })
            .collect(),
        rows,
        tau: k.map(|k| k.tau),
        p: k.and_then(|k| k.p),
        pairs: k.map_or(0, |k| k.pairs),
        flips,
    }
}

/// The seed column a run target stands beside: same filesystem; where several columns share
/// it (S4's journal and RAID configurations), the one whose journal placement the target's
/// spec names (`journal=external`, `log=external`, a `dev:` or `vm:` target's journal
/// device), software RAID before hardware (a run's loop devices and md arrays are software).
fn seed_column(t: &PubTable, rec: &RunRecord, label: &str) -> Option<usize> {
    let target = rec.targets.iter().find(|x| x.label == label)?;
    let fs = target.fs_type.as_str();
    let candidates: Vec<usize> = (0..t.fs.len()).filter(|&i| t.fs[i] == fs).collect();
    if candidates.len() <= 1 || t.config.is_empty() {
        return candidates.first().copied();
    }
    // The spec's shaping options say it (`journal` is a size or "external" when external);
    // older records only in the spec's words.
    let external = target.options.get("journal").is_some_and(|j| !j.is_empty())
        || target.spec.contains("external");
    let placement = if external { "external" } else { "internal" };
    let score = |i: usize| {
        let c = &t.config[i];
        u8::from(c.starts_with(placement)) * 2 + u8::from(c.ends_with("sw"))
    };
    candidates
        .into_iter()
        .max_by_key(|&i| (score(i), usize::MAX - i))
}

/// The matrix row a published row stands beside: same workload and metric and, where one
/// metric has several rows (S2's min and max), the one whose seed wording is the row's.
fn matrix_row<'m>(m: &'m Matrix, rec: &RunRecord, pr: &PubRow) -> Option<&'m crate::matrix::Row> {
    let same: Vec<&crate::matrix::Row> = m
        .rows
        .iter()
        .filter(|r| r.workload == pr.workload && r.metric == pr.metric)
        .collect();
    if same.len() <= 1 {
        return same.first().copied();
    }
    same.iter()
        .find(|r| {
            rec.plan
                .rows
                .iter()
                .any(|p| p.label == r.label && p.seed.as_deref().unwrap_or(&p.label) == pr.label)
        })
        .or(same.first())
        .copied()
}

/// The run's label of a row: the plan's, or the seed's wording for a point of a sweep.
fn plan_label(rec: &RunRecord, matrix_label: &str, pr: &PubRow) -> String {
    if rec.plan.rows.iter().any(|r| r.label == matrix_label) {
        matrix_label.to_string()
    } else {
        pr.label.clone()
    }
}

/// Whether the row ran at another scale than the seed's: its label names other sizes than
/// the seed's wording, or another row of its workload does (the same parameters).
fn other_scale(rec: &RunRecord, label: &str, workload: &str) -> Option<String> {
    let differs = |r: &&fsbattery_record::RowInfo| r.seed.as_ref().is_some_and(|s| *s != r.label);
    let own = rec.plan.rows.iter().find(|r| r.label == label);
    if let Some(r) = own.filter(differs) {
        return Some(format!("measured as \"{}\"", r.label));
    }
    rec.plan
        .rows
        .iter()
        .filter(|r| r.workload == workload)
        .find(differs)
        .map(|r| {
            format!(
                "its workload ran at other sizes (\"{}\" for the seed's \"{}\")",
                r.label,
                r.seed.as_deref().unwrap_or_default()
            )
        })
}

/// Competition ranks (1 = best, ties share the lower rank) of the values where `use_` holds.
fn ranks(values: &[Option<f64>], use_: &[bool], better: Better) -> Vec<Option<u32>> {
    let key = |v: f64| if better == Better::Lower { v } else { -v };
    (0..values.len())
        .map(|i| {
            let v = values[i].filter(|_| use_[i])?;
            let ahead = (0..values.len())
                .filter(|&j| use_[j])
                .filter_map(|j| values[j])
                .filter(|&w| key(w) < key(v))
                .count();
            Some(ahead as u32 + 1)
        })
        .collect()
}

/// A row's matched filesystems: names, the seed's values as printed, ranks then and now.
struct Seen<'a> {
    names: &'a [&'a str],
    then: &'a [&'a str],
    rank_then: &'a [Option<u32>],
    rank_now: &'a [Option<u32>],
}

/// One sentence when the seed's unique slowest is the unique fastest now, or the other way.
fn flip(year: u32, row: &str, unit: &str, s: &Seen<'_>) -> Option<String> {
    let (names, rank_then, rank_now) = (s.names, s.rank_then, s.rank_now);
    let ranked: Vec<usize> = (0..names.len())
        .filter(|&i| rank_then[i].is_some())
        .collect();
    if ranked.len() < 2 {
        return None;
    }
    let n = ranked.len() as u32;
    let unique = |r: &[Option<u32>], v: u32| {
        let at: Vec<usize> = ranked
            .iter()
            .copied()
            .filter(|&i| r[i] == Some(v))
            .collect();
        (at.len() == 1).then(|| at[0])
    };
    let last = |r: &[Option<u32>]| ranked.iter().filter_map(|&i| r[i]).max();
    let name = |i: usize| names[i];
    let val = |i: usize| s.then[i];
    if let Some(i) = last(rank_then)
        .filter(|&l| l == n)
        .and_then(|l| unique(rank_then, l))
    {
        if unique(rank_now, 1) == Some(i) {
            let best = unique(rank_then, 1)
                .or_else(|| ranked.iter().copied().find(|&j| rank_then[j] == Some(1)))?;
            return Some(format!(
                "{row}: {} slowest in {year} at {} {unit} against {}'s {} {unit}, fastest now",
                name(i),
                val(i),
                name(best),
                val(best)
            ));
        }
    }
    let i = unique(rank_then, 1)?;
    let worst_now = last(rank_now)
        .filter(|&l| l > 1)
        .and_then(|l| unique(rank_now, l))?;
    (worst_now == i).then(|| {
        let worst_then = ranked
            .iter()
            .copied()
            .max_by_key(|&j| rank_then[j])
            .unwrap_or(i);
        format!(
            "{row}: {} fastest in {year} at {} {unit} against {}'s {} {unit}, slowest now",
            name(i),
            val(i),
            name(worst_then),
            val(worst_then)
        )
    })
}

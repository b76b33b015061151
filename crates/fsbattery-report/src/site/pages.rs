//! The site's pages: the index, one page per machine, filesystem, kernel and suite, and one
//! per run. Facet pages hold the runs and the series that touch their value.
//!
//! Invariant: pure. The caller reads the store ([`SiteData`]) and each run's record, and
//! writes the pages it is handed; nothing here touches a file.

use super::{extras, page, series_section};
use crate::format::num;
use crate::html::esc;
use fsbattery_record::RunRecord;
use fsbattery_store::{Point, RunRow, Series};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// The dimensions one can browse by, with the file-name prefix of their pages.
const FACETS: [(&str, &str); 4] = [
    ("machine", "machine"),
    ("filesystem", "fs"),
    ("kernel", "kernel"),
    ("suite", "suite"),
];

/// Everything the pages are made from, read once from the store (one snapshot, so a run
/// stored meanwhile is on every page or on none).
pub struct SiteData {
    /// The stored runs.
    pub runs: Vec<RunRow>,
    /// Every stored cell.
    pub points: Vec<Point>,
    /// The series, by every dimension.
    pub series: Vec<Series>,
}

type Data = SiteData;

/// Every page of the site, in order, handed to `write` as (file name, HTML); `record` reads
/// the record of a run from its directory (its page adds what the record holds beyond the
/// store's facts), or says why it cannot. Returns the number of pages, or `write`'s error.
pub fn pages<E>(
    data: &SiteData,
    record: &dyn Fn(&str) -> Result<RunRecord, String>,
    mut write: impl FnMut(String, String) -> Result<(), E>,
) -> Result<usize, E> {
    let facets: Vec<(&str, &str, Vec<String>)> = FACETS
        .iter()
        .map(|(name, prefix)| (*name, *prefix, values(data, name)))
        .collect();
    let nav = nav(&facets);
    let mut pages = 0;
    let body = format!(
        "<h2>Runs</h2>{}<h2>Series</h2>{}",
        runs_table(&data.runs.iter().collect::<Vec<_>>(), data),
        data.series.iter().map(series_section).collect::<String>()
    );
    write("index.html".into(), page("fsbattery results", &nav, &body))?;
    pages += 1;
    for (name, prefix, vals) in &facets {
        for (i, v) in vals.iter().enumerate() {
            let runs: Vec<&RunRow> = data.runs.iter().filter(|r| has(data, r, name, v)).collect();
            let ids: BTreeSet<i64> = runs.iter().map(|r| r.id).collect();
            let series: String = data
                .series
                .iter()
                .filter(|s| {
                    s.points.iter().any(|p| {
                        ids.contains(&p.run.id)
                            && (*name != "filesystem" || p.point.facts.fs_type == *v)
                    })
                })
                .map(series_section)
                .collect();
            let body = format!(
                "<h2>Runs</h2>{}<h2>Series</h2>{series}",
                runs_table(&runs, data)
            );
            write(
                format!("{prefix}-{i}.html"),
                page(&format!("{name} {v}"), &nav, &body),
            )?;
            pages += 1;
        }
    }
    for r in &data.runs {
        write(
            format!("run-{}.html", r.id),
            page(
                &format!("run {}", r.facts.started),
                &nav,
                &run_body(r, data, record),
            ),
        )?;
        pages += 1;
    }
    Ok(pages)
}

/// The values a facet takes, sorted (their index names the page).
fn values(data: &Data, facet: &str) -> Vec<String> {
    let mut v = BTreeSet::new();
    for r in &data.runs {
        match facet {
            "machine" => {
                v.insert(r.facts.machine_id.clone());
            }
            "kernel" => {
                v.insert(r.facts.kernel.clone());
            }
            "suite" => {
                v.insert(r.facts.suite.clone());
            }
            _ => v.extend(fs_types(data, r.id)),
        }
    }
    v.remove("");
    v.into_iter().collect()
}

fn fs_types(data: &Data, run: i64) -> BTreeSet<String> {
    data.points
        .iter()
        .filter(|p| p.run_id == run)
        .map(|p| p.facts.fs_type.clone())
        .collect()
}

/// Whether run `r` has `value` for `facet`.
fn has(data: &Data, r: &RunRow, facet: &str, value: &str) -> bool {
    match facet {
        "machine" => r.facts.machine_id == value,
        "kernel" => r.facts.kernel == value,
        "suite" => r.facts.suite == value,
        _ => fs_types(data, r.id).contains(value),
    }
}

fn nav(facets: &[(&str, &str, Vec<String>)]) -> String {
    let mut h = String::from("<nav><a href=\"index.html\">all runs</a>");
    for (name, prefix, vals) in facets {
        let _ = write!(h, "<div>by {name}: ");
        for (i, v) in vals.iter().enumerate() {
            let shown: String = v.chars().take(40).collect();
            let _ = write!(
                h,
                "<a href=\"{prefix}-{i}.html\" title=\"{}\">{}</a>",
                esc(v),
                esc(&shown)
            );
        }
        h.push_str("</div>");
    }
    h.push_str("</nav>");
    h
}

fn runs_table(runs: &[&RunRow], data: &Data) -> String {
    let mut h = String::from("<table><tr><th>started</th><th>suite</th><th>scale</th><th>filesystems</th><th>kernel</th><th>machine</th><th>fsbattery</th><th>directory</th></tr>");
    for r in runs {
        let f = &r.facts;
        let fs: Vec<String> = fs_types(data, r.id)
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        let _ = write!(
            h,
            "<tr class=\"searchable\"><td><a href=\"run-{}.html\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td title=\"{}\">{}</td><td>{}</td><td>{}</td></tr>",
            r.id,
            esc(&f.started_flagged()),
            esc(&f.suite),
            esc(&f.scale),
            esc(&fs.join(", ")),
            esc(&f.kernel),
            esc(&format!("{}, {} cores, {} GiB", f.cpu_model, f.cores, f.ram_bytes >> 30)),
            esc(&f.machine_id),
            esc(&f.tool_version),
            esc(&r.dir)
        );
    }
    h.push_str("</table>");
    h
}

/// A run's page: its facts, its cells, and the extras its record gives.
fn run_body(r: &RunRow, data: &Data, record: &dyn Fn(&str) -> Result<RunRecord, String>) -> String {
    let f = &r.facts;
    let mut h = format!(
        "<p class=\"facts\">suite {} · scale {} · method {} · cache {} · kernel {} · {} · machine {} ({}, {} cores) · fsbattery {} · {}</p>",
        esc(&f.suite), esc(&f.scale), esc(&f.method), esc(&f.cache_policy), esc(&f.kernel), esc(&f.os),
        esc(&f.machine_id), esc(&f.cpu_model), f.cores, esc(&f.tool_version), esc(&r.dir)
    );
    h.push_str("<table><tr><th>target</th><th>workload</th><th>metric</th><th>mean</th><th>95 % CI</th><th>n</th><th>options</th></tr>");
    let mut by_cell: BTreeMap<(String, String, String), &Point> = BTreeMap::new();
    for p in data.points.iter().filter(|p| p.run_id == r.id) {
        by_cell.insert(
            (
                p.facts.target.clone(),
                p.facts.workload.clone(),
                p.facts.metric.clone(),
            ),
            p,
        );
    }
    for p in by_cell.values() {
        let pf = &p.facts;
        let mean = pf
            .mean
            .map(|m| format!("{} {}", num(m), pf.unit))
            .unwrap_or_else(|| "no value".into());
        let ci = pf
            .ci_low
            .zip(pf.ci_high)
            .map(|(a, b)| format!("{} – {}", num(a), num(b)))
            .unwrap_or_default();
        let _ = write!(
            h,
            "<tr class=\"searchable\"><td>{}</td><td>{}</td><td>{}</td><td>{mean}</td><td>{ci}</td><td>{}</td><td>{}</td></tr>",
            esc(&pf.target), esc(&pf.workload), esc(&pf.metric), pf.samples.len(), esc(&pf.options)
        );
    }
    h.push_str("</table>");
    match record(&r.dir) {
        Ok(loaded) => h.push_str(&extras::run_extras(&loaded).unwrap_or_default()),
        Err(e) => {
            let _ = write!(h, "<p class=\"facts\">The run directory could not be read ({}): the store's facts only.</p>", esc(&e));
        }
    }
    h
}

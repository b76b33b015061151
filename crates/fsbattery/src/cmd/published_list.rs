//! `fsbattery list suites NAME`: one preset, and what its seed published.

use fsbattery_core::{published, suite};
use fsbattery_record::published::Published;

/// The preset `name` and its published tables (or that its seed publishes none).
pub fn one_suite(name: &str) -> anyhow::Result<String> {
    let s = suite::load(name)?;
    let mut out = format!(
        "{}\n  {}\n  {}\n  {} rows, {} of {} repeats\n",
        s.name,
        s.title,
        s.description,
        s.rows.len(),
        s.aggregate,
        s.repeat
    );
    match published::for_suite(&s.name) {
        Some(p) => out.push_str(&published_text(&p)),
        None => out.push_str("  published: no numbers of a seed ship for this suite\n"),
    }
    Ok(out)
}

/// What the seed published: study, machine, repeat policy, and each table's extent.
fn published_text(p: &Published) -> String {
    let mut out = String::from("\nPublished:\n");
    for l in fsbattery_report::seed_tables::header(p).lines() {
        out.push_str(&format!("  {l}\n"));
    }
    for t in &p.tables {
        out.push_str(&format!(
            "  {}: {} rows x {} ({}), {}{}\n    from {}\n",
            t.title,
            t.rows.len(),
            t.columns.join(" "),
            fsbattery_report::seed_tables::unit(t),
            if t.then_and_now {
                "ranked then and now"
            } else {
                "shown, not ranked"
            },
            t.note
                .as_deref()
                .map(|n| format!(": {n}"))
                .unwrap_or_default(),
            t.source
        ));
    }
    out.push_str(&format!(
        "  the numbers: fsbattery report --then {}\n",
        p.preset
    ));
    out
}

//! The environment section: host, plan, workloads, targets and every mkfs/mount cycle.
//!
//! Role: let a reader reproduce or question the numbers — which kernel, which mkfs and its
//! output, which mount options, how much space the filesystem offered (S1 measured mkfs and
//! mount time and available space before any test; S2 listed mount options per filesystem).
//! Invariants: every string from the record is escaped (mkfs output is arbitrary tool text);
//! a target without lifecycles (a directory fsbattery did not make) says so.

use super::data::Data;
use super::{esc, swatch};
use crate::format::{bytes, num};
use fsbattery_record::{format_bytes, Lifecycle, RunRecord, TargetRecord};
use fsbattery_record::{WorkloadPlan, BYTES};

/// The section (always present).
pub(crate) fn section(d: &Data<'_>) -> String {
    let mut out = String::new();
    for (ri, run) in d.runs.iter().enumerate() {
        out.push_str(&format!(
            "<div class=\"run-env\" data-run=\"{}\">",
            esc(&run.label)
        ));
        if d.runs.len() > 1 {
            out.push_str(&format!("<h3>{}</h3>", esc(&run.label)));
        }
        out.push_str(&host(run.record));
        out.push_str(&workloads(run.record));
        out.push_str(&cache_notes(run.record));
        out.push_str(&targets(d, ri));
        out.push_str("</div>\n");
    }
    out
}

fn kv(items: &[(&str, String)]) -> String {
    let mut out = String::from("<dl class=\"kv\">");
    for (k, v) in items {
        out.push_str(&format!("<dt>{k}</dt><dd>{v}</dd>"));
    }
    out.push_str("</dl>\n");
    out
}

fn host(rec: &RunRecord) -> String {
    let h = &rec.host;
    let p = &rec.plan;
    let finished = match (&rec.finished, rec.interrupted) {
        // A run made in several parts says so where its end is shown.
        (Some(f), false) if rec.resumed() => format!(
            "{} <span class=\"warn\">({})</span>",
            esc(f),
            esc(&rec.parts_line().unwrap_or_default())
        ),
        (Some(f), false) => esc(f),
        (Some(f), true) => format!("{} <span class=\"warn\">(interrupted)</span>", esc(f)),
        (None, _) => "<span class=\"warn\">not finished (interrupted)</span>".into(),
    };
    kv(&[
        ("Host", esc(&h.hostname)),
        ("Kernel", esc(&h.kernel)),
        ("OS", esc(&h.os)),
        (
            "CPU",
            format!("{} ({} online CPUs)", esc(&h.cpu_model), h.cores),
        ),
        ("Memory", bytes(h.ram_bytes)),
        ("Root", if h.root { "yes".into() } else { "no".into() }),
        (
            "Suite",
            format!(
                "{} ({} scale, {} method)",
                esc(&p.suite),
                esc(&p.scale),
                esc(&p.method)
            ),
        ),
        (
            "Repeats",
            format!(
                "{} per cell (the plan's aggregate: {}), {} s pause before each test",
                p.repeat_auto
                    .map_or_else(|| p.repeat.to_string(), |a| a.describe()),
                p.aggregate,
                num(p.pause_secs)
            ),
        ),
        ("Started", esc(&rec.started)),
        ("Finished", finished),
        (
            "Tool",
            format!("{} {}", esc(&rec.tool.name), esc(&rec.tool.version)),
        ),
    ])
}

fn workloads(rec: &RunRecord) -> String {
    let mut out = String::from(
        "<div class=\"table-wrap\"><table class=\"workloads\"><thead><tr><th>Workload</th><th>Parameters</th>\
         <th>Metrics</th></tr></thead><tbody>\n",
    );
    for w in &rec.plan.workloads {
        let params: Vec<String> = w
            .params
            .iter()
            .map(|(k, v)| format!("<code>{}={}</code>", esc(k), esc(&param_text(w, k, v))))
            .collect();
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td></tr>\n",
            esc(&w.name),
            params.join(" "),
            w.metrics.len()
        ));
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// A parameter's value as the user would type it: a size (unit [`BYTES`]) in binary units,
/// `64MiB`; anything else, or a size that is not a number, as recorded.
fn param_text(w: &WorkloadPlan, name: &str, value: &str) -> String {
    let bytes = w.param_units.get(name).is_some_and(|u| u == BYTES);
    match value.parse::<u64>() {
        Ok(v) if bytes => format_bytes(v),
        _ => value.to_string(),
    }
}

fn targets(d: &Data<'_>, run: usize) -> String {
    let rec = d.runs[run].record;
    let mut out = String::from(
        "<h3>Targets</h3>\n<div class=\"table-wrap\"><table class=\"targets\"><thead><tr><th>Target</th><th>Spec</th>\
         <th>Type</th><th>Device</th><th>Mount options</th><th>Path</th><th>Capabilities</th></tr></thead><tbody>\n",
    );
    for t in &rec.targets {
        let colour = d
            .columns
            .iter()
            .find(|c| c.run == run && c.target == t.label)
            .map(|c| swatch(&c.colour))
            .unwrap_or_default();
        let c = &t.capabilities;
        let caps: Vec<&str> = [
            (c.needs_root, "needs root"),
            (c.drop_caches, "drop caches"),
            (c.direct_io, "O_DIRECT"),
            (
                c.direct_io && !c.direct_io_bypasses_cache,
                "O_DIRECT cached",
            ),
        ]
        .iter()
        .filter(|x| x.0)
        .map(|x| x.1)
        .collect();
        let error = t
            .error
            .as_ref()
            .map(|e| format!("<br><span class=\"warn\">error: {}</span>", esc(e)))
            .unwrap_or_default();
        out.push_str(&format!(
            "<tr data-target=\"{}\"><th scope=\"row\">{colour}{}{error}</th><td><code>{}</code></td><td>{}</td><td>{}</td>\
             <td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>\n",
            esc(&t.label),
            esc(&t.label),
            esc(&t.spec),
            esc(&t.fs_type),
            esc(&t.device),
            esc(&t.mount_options),
            esc(&t.path),
            caps.join(", ")
        ));
    }
    out.push_str("</tbody></table></div>\n");
    out.push_str(&skipped(rec));
    out.push_str(&making(rec));
    for t in &rec.targets {
        out.push_str(&cycles(t));
    }
    out
}

/// What the page cache held when the phases started ([`crate::cache_notes`]).
fn cache_notes(rec: &RunRecord) -> String {
    let lines = crate::cache_notes::lines(rec);
    if lines.is_empty() {
        return String::new();
    }
    let items: String = lines
        .iter()
        .map(|l| format!("<li>{}</li>\n", esc(l)))
        .collect();
    format!("<h4>Cache state</h4>\n<ul class=\"cache\">\n{items}</ul>\n")
}

/// Default targets the run left out, each with why and the command that fixes it.
fn skipped(rec: &RunRecord) -> String {
    if rec.plan.skipped_targets.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h4>Skipped targets</h4>\n<ul class=\"skipped\">\n");
    for s in &rec.plan.skipped_targets {
        let fix = s
            .fix
            .as_ref()
            .map(|f| format!("; fix: <code>{}</code>", esc(f)))
            .unwrap_or_default();
        out.push_str(&format!(
            "<li><code>{}</code> <span class=\"warn\">skipped</span>: {}{fix}</li>\n",
            esc(&s.spec),
            esc(&s.reason)
        ));
    }
    out.push_str("</ul>\n");
    out
}

/// S1's pre-test numbers: mkfs, mount, unmount time and space, averaged over the cycles.
fn making(rec: &RunRecord) -> String {
    let made: Vec<&TargetRecord> = rec
        .targets
        .iter()
        .filter(|t| !t.lifecycles.is_empty())
        .collect();
    if made.is_empty() {
        return "<p class=\"note\">No target was made by fsbattery (directories on existing filesystems): no mkfs or mount records.</p>\n".into();
    }
    let mut out = String::from(
        "<h3>Making the filesystems</h3>\n<p class=\"note\">Mean over every make/mount cycle; space as statvfs \
         reported right after formatting.</p>\n<div class=\"table-wrap\"><table class=\"making\"><thead><tr><th>Target</th>\
         <th class=\"num\">Cycles</th><th class=\"num\">mkfs (s)</th><th class=\"num\">mount (s)</th><th class=\"num\">umount (s)</th>\
         <th class=\"num\">Total</th><th class=\"num\">Available</th></tr></thead><tbody>\n",
    );
    for t in made {
        let l = &t.lifecycles;
        let mean = |f: &dyn Fn(&Lifecycle) -> Option<f64>| {
            let v: Vec<f64> = l.iter().filter_map(f).collect();
            if v.is_empty() {
                "-".to_string()
            } else {
                num(v.iter().sum::<f64>() / v.len() as f64)
            }
        };
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
            esc(&t.label),
            l.len(),
            mean(&|c| Some(c.mkfs_secs)),
            mean(&|c| Some(c.mount_secs)),
            mean(&|c| c.umount_secs),
            bytes(l[0].total_bytes),
            bytes(l[0].avail_bytes)
        ));
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// Every cycle of one target, with the mkfs output folded away.
fn cycles(t: &TargetRecord) -> String {
    if t.lifecycles.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<details class=\"lifecycles\" data-target=\"{}\"><summary>{}: mkfs and mount records ({} cycle(s))</summary>\n\
         <div class=\"table-wrap\"><table><thead><tr><th>Cycle</th><th class=\"num\">mkfs (s)</th><th class=\"num\">mount (s)</th>\
         <th class=\"num\">umount (s)</th><th class=\"num\">Total</th><th class=\"num\">Available</th><th>Mount options</th></tr></thead><tbody>\n",
        esc(&t.label),
        esc(&t.label),
        t.lifecycles.len()
    );
    for l in &t.lifecycles {
        out.push_str(&format!(
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td><code>{}</code></td></tr>\n",
            l.repeat,
            num(l.mkfs_secs),
            num(l.mount_secs),
            l.umount_secs.map(num).unwrap_or_else(|| "not unmounted".into()),
            bytes(l.total_bytes),
            bytes(l.avail_bytes),
            esc(&l.mount_options)
        ));
    }
    out.push_str("</tbody></table></div>\n");
    for l in &t.lifecycles {
        let tools: Vec<String> = l
            .tool_versions
            .iter()
            .map(|(k, v)| format!("{}: {}", esc(k), esc(v)))
            .collect();
        out.push_str(&format!(
            "<p>Cycle {}: <code>{}</code> then <code>{}</code>{}</p>\n<details class=\"mkfs-output\"><summary>mkfs output, cycle {}</summary><pre>{}</pre></details>\n",
            l.repeat,
            esc(&l.mkfs_command),
            esc(&l.mount_command),
            if tools.is_empty() { String::new() } else { format!(" <span class=\"note\">({})</span>", tools.join("; ")) },
            l.repeat,
            esc(&l.mkfs_output)
        ));
    }
    out.push_str("</details>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_in_binary_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1 << 30), "1.00 GiB");
        assert_eq!(bytes(973_651_968), "928.55 MiB");
    }
}

//! The `device-io` section: what the block devices wrote per workload and target, and the
//! write amplification (shared model: [`crate::device_io`]); left out when no run has a
//! block-backed target.

use super::data::Data;
use super::esc;
use crate::device_io::{build, IoTable};

/// One table and one sentence per target for each run that has readings.
pub(crate) fn section(d: &Data<'_>) -> String {
    let mut out = String::new();
    for run in &d.runs {
        let Some(io) = build(run.record) else {
            continue;
        };
        if d.runs.len() > 1 {
            out.push_str(&format!("<h3>{}</h3>\n", esc(&run.label)));
        }
        out.push_str(&table(&io));
        out.push_str("<ul class=\"device-io\">\n");
        for s in io.sentences() {
            out.push_str(&format!("<li>{}</li>\n", esc(&s)));
        }
        out.push_str("</ul>\n");
    }
    if out.is_empty() {
        return out;
    }
    format!("<p>{}</p>\n{out}", esc(IoTable::legend()))
}

fn table(io: &IoTable) -> String {
    let mut out = String::from(
        "<div class=\"table-wrap\"><table class=\"matrix\" data-quantity=\"device-io\">\
         <thead><tr><th>Workload</th>",
    );
    for c in &io.columns {
        out.push_str(&format!("<th class=\"num\">{}</th>", esc(c)));
    }
    out.push_str("</tr></thead><tbody>\n");
    for (workload, entries) in &io.rows {
        out.push_str(&format!("<tr><th scope=\"row\">{}</th>", esc(workload)));
        for e in entries {
            let (text, title) = match e {
                Some(e) => (
                    e.short(),
                    format!(
                        "{} phase(s): written {} B, given {} B, read {} B, {} write IOs",
                        e.phases,
                        e.io.write_bytes,
                        e.io.given_bytes,
                        e.io.read_bytes,
                        e.io.write_ios
                    ),
                ),
                None => ("n/a".to_string(), "no reading".to_string()),
            };
            out.push_str(&format!(
                "<td class=\"num\" title=\"{}\">{}</td>",
                esc(&title),
                esc(&text)
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

//! Row labels that state what was measured: a suite's `{workload.param}` placeholders filled
//! with the values this run used, so a quick-scale row never names the seed's 16 GB file.
//!
//! The seed's own wording is kept apart (a row's `seed` key) and shown beside the label by the
//! renderers; the label itself only ever names this run's sizes. Counts take thousands
//! separators ("10,000"), sizes exact binary units ("64MiB", "1GiB"), and the values that are
//! neither (a kernel tree's release and fraction, a filesystem's size over several targets)
//! come as text made by the caller. Pure: no I/O.

use fsbattery_record::format_bytes;

/// The value a placeholder stands for.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelValue {
    /// A count: "10,000".
    Count(u64),
    /// A size in bytes: "64MiB".
    Bytes(u64),
    /// Text made by the caller (e.g. "2.6.14.4 (1/16 size)").
    Text(String),
}

/// Resolves `(workload, param)` of a `{workload.param}` placeholder; `None` leaves the
/// placeholder as written (its row cannot be measured in this run anyway).
pub type LabelLookup<'a> = dyn Fn(&str, &str) -> Option<LabelValue> + 'a;

/// Fill every `{workload.param}` placeholder of `label` through `lookup`.
pub fn render_label(label: &str, lookup: &LabelLookup<'_>) -> String {
    let mut out = String::new();
    let mut rest = label;
    while let Some(start) = rest.find('{') {
        let Some(end) = rest[start..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        let key = &rest[start + 1..start + end];
        match key.split_once('.').and_then(|(w, p)| lookup(w, p)) {
            Some(LabelValue::Count(v)) => out.push_str(&thousands(v)),
            Some(LabelValue::Bytes(v)) => out.push_str(&format_bytes(v)),
            Some(LabelValue::Text(t)) => out.push_str(&t),
            None => out.push_str(&rest[start..=start + end]),
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

/// A generated kernel tree as a label names it: the release, and the fraction of it when the
/// tree is scaled down ("2.6.14.4 (1/16 size)"); `None` for an unknown profile.
pub fn kernel_tree(kernel: u64, scale_div: u64) -> Option<String> {
    let p = crate::dataset::profile::by_id(kernel)?;
    Some(match scale_div {
        0 | 1 => p.version.to_string(),
        d => format!("{} (1/{d} size)", p.version),
    })
}

/// Several targets' values as one label text: the distinct ones in order, joined by " / ".
pub fn distinct(values: impl IntoIterator<Item = String>) -> Option<String> {
    let mut seen: Vec<String> = Vec::new();
    for v in values {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    (!seen.is_empty()).then(|| seen.join(" / "))
}

fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_render_counts_sizes_and_text() {
        let l = render_label(
            "Touch {metadata.files} Files, a {stream.size} File, {tree.kernel}, {x.y}",
            &|w, p| match (w, p) {
                ("metadata", "files") => Some(LabelValue::Count(10_000)),
                ("stream", "size") => Some(LabelValue::Bytes(64 << 20)),
                ("tree", "kernel") => kernel_tree(2614, 16).map(LabelValue::Text),
                _ => None,
            },
        );
        assert_eq!(
            l,
            "Touch 10,000 Files, a 64MiB File, 2.6.14.4 (1/16 size), {x.y}"
        );
        assert_eq!(render_label("open {brace", &|_, _| None), "open {brace");
    }

    #[test]
    fn a_whole_tree_is_named_by_its_release_alone() {
        assert_eq!(kernel_tree(2637, 1).as_deref(), Some("2.6.37"));
        assert_eq!(kernel_tree(9999, 1), None);
    }

    #[test]
    fn distinct_values_join_in_order() {
        let v = |s: &[&str]| distinct(s.iter().map(|s| s.to_string()));
        assert_eq!(v(&["1GiB", "2GiB", "1GiB"]).as_deref(), Some("1GiB / 2GiB"));
        assert_eq!(v(&[]), None);
    }
}

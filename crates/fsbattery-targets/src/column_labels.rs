//! Column labels, unique within a run. Targets that share a label (two `loop:ext4` with
//! different `mount=`) are labelled by what sets them apart — "ext4 data=journal",
//! "ext4 data=ordered" — so every table, JSON, CSV, HTML and compare says which is which
//! instead of "ext4" and "ext4-2", whose meaning depended on the order of `--target`.
//!
//! The difference is taken per word: a mount option (`data=journal`, `noatime`), the whole
//! `mkfs` string, or another shaping option as `key=value` (`size=2GiB`, `dio=on`). A word
//! every target of the group has is left out; a target with no word of its own keeps the
//! plain label. Targets that make no filesystem (directories) use their path instead, and
//! whatever still repeats (identical specs) gets "-2", "-3", ... as before.

use super::Target;
use std::collections::BTreeMap;

/// The column label of each target, in order.
pub fn column_labels(targets: &[Box<dyn Target>]) -> Vec<String> {
    let items: Vec<Item> = targets
        .iter()
        .map(|t| Item {
            label: t.label().to_string(),
            distinct: t.distinct_label(),
            options: t.options(),
        })
        .collect();
    labels(&items)
}

/// What labelling needs of a target.
struct Item {
    label: String,
    distinct: String,
    options: BTreeMap<String, String>,
}

fn labels(items: &[Item]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for it in items {
        let group: Vec<&Item> = items.iter().filter(|o| o.label == it.label).collect();
        let base = match (group.len(), it.options.is_empty()) {
            (1, _) => it.label.clone(),
            (_, true) => it.distinct.clone(),
            (_, false) => {
                let own: Vec<String> = words(&it.options)
                    .into_iter()
                    .filter(|w| !group.iter().all(|o| words(&o.options).contains(w)))
                    .collect();
                match own.is_empty() {
                    true => it.label.clone(),
                    false => format!("{} {}", it.label, own.join(" ")),
                }
            }
        };
        let mut label = base.clone();
        let mut n = 2;
        while out.contains(&label) {
            label = format!("{base}-{n}");
            n += 1;
        }
        out.push(label);
    }
    out
}

/// A target's shaping options as the words a label may show, in a stable order: the mount
/// options one by one, then the mkfs string whole, then every other set option.
fn words(o: &BTreeMap<String, String>) -> Vec<String> {
    let mut out: Vec<String> = o
        .get("mount")
        .map(|m| {
            m.split(',')
                .filter(|w| !w.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if let Some(m) = o.get("mkfs").filter(|m| !m.is_empty()) {
        out.push(format!("mkfs={m}"));
    }
    for (k, v) in o {
        // The filesystem is the label itself; mount and mkfs are above.
        if matches!(k.as_str(), "fs" | "mount" | "mkfs") || v.is_empty() {
            continue;
        }
        let v = match (k.as_str(), v.parse::<u64>()) {
            ("size" | "journal_size", Ok(b)) => crate::units::format_bytes(b),
            _ => v.clone(),
        };
        out.push(format!("{k}={v}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(label: &str, opts: &[(&str, &str)]) -> Item {
        Item {
            label: label.into(),
            distinct: format!("/path/{label}"),
            options: opts
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    fn ext4(mount: &str) -> Item {
        item(
            "ext4",
            &[
                ("fs", "ext4"),
                ("size", "1073741824"),
                ("mount", mount),
                ("dio", "off"),
            ],
        )
    }

    #[test]
    fn targets_differing_in_options_are_labelled_by_the_difference() {
        let got = labels(&[
            ext4("noatime,data=journal"),
            ext4("noatime,data=ordered"),
            ext4("noatime"),
            item("xfs", &[("fs", "xfs")]),
        ]);
        assert_eq!(
            got,
            ["ext4 data=journal", "ext4 data=ordered", "ext4", "xfs"]
        );
    }

    #[test]
    fn sizes_and_mkfs_strings_read_as_written() {
        let a = item("tmpfs", &[("size", "1073741824"), ("mount", "")]);
        let b = item("tmpfs", &[("size", "2147483648"), ("mount", "")]);
        assert_eq!(labels(&[a, b]), ["tmpfs size=1GiB", "tmpfs size=2GiB"]);
        let a = item("ext4", &[("mkfs", "-O ^has_journal")]);
        let b = item("ext4", &[("mkfs", "")]);
        assert_eq!(labels(&[a, b]), ["ext4 mkfs=-O ^has_journal", "ext4"]);
    }

    #[test]
    fn directories_use_their_path_and_identical_specs_are_numbered() {
        let d = |l: &str| item(l, &[]);
        assert_eq!(labels(&[d("dir"), d("dir")]), ["/path/dir", "/path/dir-2"]);
        assert_eq!(labels(&[ext4(""), ext4("")]), ["ext4", "ext4-2"]);
    }
}

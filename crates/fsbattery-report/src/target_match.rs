//! Which target of one run is which target of another, for `compare`: by the spec the user
//! gave (`loop:ext4,mount=data=journal`), not by column label or position.
//!
//! Labels are made per run (see `fsbattery_core::targets::column_labels`): the same spec was
//! "ext4-2" in a record written before targets were labelled by their options and is
//! "ext4 data=journal" now, and "ext4-2" named whichever came second. The spec is what was
//! measured. Targets no spec pairs are then paired by label — imports (whose spec is only
//! the tool's, `imported:fio`, and whose label `import --target` sets) and directories at
//! different paths (`dir:/tmp/a` and `dir:/tmp/b`, both "dir").

use fsbattery_record::RunRecord;

/// The pairing of two runs' targets by label.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Matched {
    /// (BASE label, NEW label) of every target both runs hold, in NEW's order.
    pub pairs: Vec<(String, String)>,
    /// Labels of BASE's targets NEW has no counterpart of.
    pub base_only: Vec<String>,
    /// Labels of NEW's targets BASE has no counterpart of.
    pub new_only: Vec<String>,
}

impl Matched {
    /// BASE's label of NEW's target `label`, if BASE holds it.
    pub fn base_of(&self, label: &str) -> Option<&str> {
        let p = self.pairs.iter().find(|(_, n)| n == label);
        p.map(|(b, _)| b.as_str())
    }

    /// NEW's label of BASE's target `label`, if NEW holds it.
    pub fn new_of(&self, label: &str) -> Option<&str> {
        let p = self.pairs.iter().find(|(b, _)| b == label);
        p.map(|(_, n)| n.as_str())
    }

    /// One run holds every target of the other (and they share at least one): a run compared
    /// with another of a subset of its targets.
    pub fn subset(&self) -> bool {
        !self.pairs.is_empty() && (self.base_only.is_empty() || self.new_only.is_empty())
    }
}

/// A target's identity for matching: its spec, unless the spec does not name what was
/// measured (an import's tool name, a record without one).
fn spec_key(spec: &str) -> Option<&str> {
    (!spec.is_empty() && !spec.starts_with("imported:")).then_some(spec)
}

/// Pair the targets of `base` and `new`: by spec first, then the rest by label. Cells of a
/// target that has no record entry (very old records) are paired by label as well.
pub fn match_targets(base: &RunRecord, new: &RunRecord) -> Matched {
    let labels_of = |r: &RunRecord| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = r
            .targets
            .iter()
            .map(|t| (t.label.clone(), t.spec.clone()))
            .collect();
        for c in &r.cells {
            if !v.iter().any(|(l, _)| *l == c.target) {
                v.push((c.target.clone(), String::new()));
            }
        }
        v
    };
    let (b, n) = (labels_of(base), labels_of(new));
    let mut taken = vec![false; b.len()];
    let mut paired: Vec<Option<usize>> = vec![None; n.len()];
    for (i, (_, spec)) in n.iter().enumerate() {
        let Some(key) = spec_key(spec) else { continue };
        let hit = (0..b.len()).find(|&j| !taken[j] && spec_key(&b[j].1) == Some(key));
        if let Some(j) = hit {
            taken[j] = true;
            paired[i] = Some(j);
        }
    }
    for (i, (label, _)) in n.iter().enumerate() {
        if paired[i].is_some() {
            continue;
        }
        if let Some(j) = (0..b.len()).find(|&j| !taken[j] && b[j].0 == *label) {
            taken[j] = true;
            paired[i] = Some(j);
        }
    }
    let mut m = Matched::default();
    for (i, (label, _)) in n.iter().enumerate() {
        match paired[i] {
            Some(j) => m.pairs.push((b[j].0.clone(), label.clone())),
            None => m.new_only.push(label.clone()),
        }
    }
    for (j, (label, _)) in b.iter().enumerate() {
        if !taken[j] {
            m.base_only.push(label.clone());
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::TargetRecord;

    fn rec(targets: &[(&str, &str)]) -> RunRecord {
        let mut r = crate::compare::tests::record(&[]);
        r.cells.clear();
        r.targets = targets
            .iter()
            .map(|(l, s)| TargetRecord {
                label: l.to_string(),
                spec: s.to_string(),
                ..TargetRecord::default()
            })
            .collect();
        r
    }

    #[test]
    fn targets_pair_by_spec_whatever_their_labels_or_order() {
        let old = rec(&[
            ("ext4", "loop:ext4,mount=data=ordered"),
            ("ext4-2", "loop:ext4,mount=data=journal"),
        ]);
        let now = rec(&[
            ("ext4 data=journal", "loop:ext4,mount=data=journal"),
            ("ext4 data=ordered", "loop:ext4,mount=data=ordered"),
        ]);
        let m = match_targets(&old, &now);
        assert_eq!(
            m.pairs,
            [
                ("ext4-2".to_string(), "ext4 data=journal".to_string()),
                ("ext4".to_string(), "ext4 data=ordered".to_string())
            ]
        );
        assert!(m.base_only.is_empty() && m.new_only.is_empty());
    }

    #[test]
    fn unpaired_specs_fall_back_to_labels_and_subsets_are_told() {
        let base = rec(&[("dir", "dir:/tmp/a"), ("xfs", "loop:xfs")]);
        let new = rec(&[("dir", "dir:/tmp/b")]);
        let m = match_targets(&base, &new);
        assert_eq!(m.pairs, [("dir".to_string(), "dir".to_string())]);
        assert_eq!(m.base_only, ["xfs"]);
        assert!(m.subset());
        let import = rec(&[("ext4", "imported:fio")]);
        let native = rec(&[("ext4", "loop:ext4"), ("xfs", "loop:xfs")]);
        assert_eq!(match_targets(&import, &native).new_of("ext4"), Some("ext4"));
        let other = rec(&[("btrfs", "loop:btrfs")]);
        assert!(!match_targets(&other, &new).subset());
    }
}

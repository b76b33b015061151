//! Reference targets: filesystems in RAM, shown beside disks but not ranked against them.
//!
//! Role: tmpfs takes every win and tops every score in a run with disks, which answers no
//! question anyone running a disk benchmark asks. Such a target is a reference line: its
//! numbers are shown, its cells take no part in the row verdicts or the composite score,
//! unless the user asks (`--rank-reference`).
//!
//! Invariants:
//! - a column is a reference when its target record says its filesystem is in memory
//!   ([`fsbattery_record::TargetRecord::in_memory`]);
//! - when every column of a run is a reference there is nothing else to rank them against,
//!   so none is excluded (a tmpfs-only run still gets verdicts).

use fsbattery_record::RunRecord;

/// Per column of `columns` (target labels of `rec`): left out of ranking. All false when
/// `rank_reference` is set or when no column is a disk.
pub fn excluded(rec: &RunRecord, columns: &[String], rank_reference: bool) -> Vec<bool> {
    let in_memory: Vec<bool> = columns
        .iter()
        .map(|c| {
            rec.targets
                .iter()
                .find(|t| &t.label == c)
                .is_some_and(|t| t.in_memory())
        })
        .collect();
    if rank_reference || in_memory.iter().all(|&r| r) {
        return vec![false; columns.len()];
    }
    in_memory
}

/// "not ranked: tmpfs (in RAM, a reference; --rank-reference ranks it)", or nothing.
pub fn note(columns: &[String], excluded: &[bool]) -> Option<String> {
    let names: Vec<&str> = columns
        .iter()
        .zip(excluded)
        .filter(|(_, &e)| e)
        .map(|(c, _)| c.as_str())
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "not ranked: {} (in RAM: shown as a reference, not ranked or scored against disks; \
             --rank-reference ranks it)",
            names.join(", ")
        )
    })
}

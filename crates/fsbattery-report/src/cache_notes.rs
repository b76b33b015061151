//! What the page cache held when the phases started, as notes under the tables.
//!
//! Role: a reader sees which cache policy the numbers come from, how resident the phases'
//! files were (measured per sample), every cold phase that found pages resident (marked `†`
//! in its cell; not for O_DIRECT workloads, which do not read those pages), a cold that was only attempted (fadvise without root), and targets whose
//! medium is memory (where residency is no cache hit). Pure: lines of text from the record;
//! each renderer escapes and lays them out its own way.

use fsbattery_record::{format_bytes, CachePolicy, CachePrep, Cell, PhaseCache, RunRecord};

/// The footnote mark of a cell whose cold phase found pages resident.
pub const MARK: &str = "†";

/// Whether any sample of `cell` was meant to start cold and found pages resident, in a
/// workload that reads through the page cache ([`direct`]).
pub fn flagged(rec: &RunRecord, cell: Option<&Cell>) -> bool {
    cell.is_some_and(|c| !direct(rec, &c.workload) && phases(c).any(|p| p.cold_but_resident()))
}

/// Whether `workload` ran its data I/O with O_DIRECT (`direct` true/on/1): pages of its file
/// left in the cache are not read from there, so their residency is no warning. iozone is
/// left out: its stdio tests stay buffered whatever `direct` says.
pub fn direct(rec: &RunRecord, workload: &str) -> bool {
    let on = |v: &String| matches!(v.as_str(), "true" | "on" | "1");
    workload != "iozone"
        && rec
            .plan
            .workloads
            .iter()
            .find(|w| w.name == workload)
            .and_then(|w| w.params.get("direct"))
            .is_some_and(on)
}

/// The guest configuration(s) the cells ran in, for the conditions line: one guest, or
/// several that differ only in their kernel (each kernel named with its targets).
fn guest_conditions(rec: &RunRecord) -> Option<String> {
    let mut kernels: Vec<(&fsbattery_record::guest::GuestInfo, Vec<&str>)> = Vec::new();
    for t in &rec.targets {
        let Some(g) = t.host(rec).guest.as_deref() else {
            continue;
        };
        match kernels.iter_mut().find(|(k, _)| k.same_configuration(g)) {
            Some((_, labels)) => labels.push(&t.label),
            None => kernels.push((g, vec![&t.label])),
        }
    }
    match kernels.len() {
        0 | 1 => rec.host.guest.as_ref().map(|g| {
            format!(
                "{}; ranked only against targets in this guest configuration",
                g.describe()
            )
        }),
        _ => Some(fsbattery_record::guest::GuestInfo::describe_kernels(
            &kernels,
        )),
    }
}

fn phases(c: &Cell) -> impl Iterator<Item = &PhaseCache> {
    c.samples.iter().filter_map(|s| s.cache.as_ref())
}

/// The notes, one line each (empty when no sample carries a cache state).
pub fn lines(rec: &RunRecord) -> Vec<String> {
    let all: Vec<&PhaseCache> = rec.cells.iter().flat_map(phases).collect();
    // Who chose the policy, the pause, the methods and mkfs/mount options: said first.
    let mut out = crate::settings_notes::lines(rec.plan.settings.as_deref());
    // A guest's numbers carry the emulation's cost: its configuration is a condition.
    if let Some(guest) = guest_conditions(rec) {
        match out.first_mut() {
            Some(first) if first.starts_with("conditions: ") => {
                first.push_str("; ");
                first.push_str(&guest);
            }
            _ => out.insert(0, format!("conditions: {guest}")),
        }
    }
    if let Some(m) = rec.plan.cache.as_ref().and_then(|c| c.memory.as_ref()) {
        let peak = |b: Option<u64>| b.map_or("not read".into(), format_bytes);
        out.push(format!(
            "memory: every workload ran in a {} memory cgroup ({}, {}): peak {}, page cache \
             up to {}",
            format_bytes(m.limit_bytes),
            m.version,
            m.source,
            peak(m.peak_bytes),
            peak(m.peak_cache_bytes)
        ));
    }
    for policy in [
        CachePolicy::Cold,
        CachePolicy::Warm,
        CachePolicy::Tool,
        CachePolicy::None,
    ] {
        let pcts: Vec<f64> = all
            .iter()
            .filter(|p| p.policy == policy && !p.memory_medium)
            .map(|p| p.resident_pct())
            .collect();
        if let (Some(lo), Some(hi)) = (min(&pcts), max(&pcts)) {
            out.push(format!(
                "cache {policy}: {} sample(s) measured, {lo:.1}–{hi:.1} % of their files \
                 resident when the clock started",
                pcts.len()
            ));
        }
    }
    let fadvised = all
        .iter()
        .filter(|p| p.policy == CachePolicy::Cold && p.prep == CachePrep::Fadvised)
        .count();
    if fadvised > 0 {
        out.push(format!(
            "cache cold attempted, not guaranteed in {fadvised} phase(s): caches could not be \
             dropped (not root), files evicted with fadvise only"
        ));
    }
    for c in rec.cells.iter().filter(|c| !direct(rec, &c.workload)) {
        let worst = phases(c)
            .filter(|p| p.cold_but_resident())
            .map(PhaseCache::resident_pct)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
        if let Some(w) = worst {
            out.push(format!(
                "{MARK} {} {} on {}: cold phase found up to {w:.1} % of its files resident",
                c.workload, c.metric, c.target
            ));
        }
    }
    for t in &rec.targets {
        let in_memory = rec
            .cells
            .iter()
            .filter(|c| c.target == t.label)
            .flat_map(phases)
            .any(|p| p.memory_medium);
        if in_memory {
            out.push(format!(
                "{}: files in memory ({}): residency is not a cache hit there",
                t.label, t.fs_type
            ));
        }
    }
    out
}

fn min(v: &[f64]) -> Option<f64> {
    v.iter().copied().reduce(f64::min)
}

fn max(v: &[f64]) -> Option<f64> {
    v.iter().copied().reduce(f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::{CellStatus, ResidencyProbe, Sample};

    fn cell(target: &str, resident: u64, prep: CachePrep, memory_medium: bool) -> Cell {
        let cache = PhaseCache {
            policy: CachePolicy::Cold,
            prep,
            resident_bytes: resident,
            file_bytes: 1000,
            probe: ResidencyProbe::Cachestat,
            memory_medium,
        };
        Cell {
            target: target.into(),
            workload: "stream".into(),
            metric: "read".into(),
            unit: "s".into(),
            better: fsbattery_stats::Better::Lower,
            comparable: true,
            method: "native".into(),
            status: CellStatus::Ok,
            samples: vec![Sample {
                repeat: 0,
                value: 1.0,
                elapsed_s: 1.0,
                user_s: 0.0,
                sys_s: 0.0,
                cpu_pct: 0.0,
                cache: Some(cache),
                ..Default::default()
            }],
            stats: None,
        }
    }

    #[test]
    fn a_resident_cold_phase_is_flagged_and_a_clean_one_is_not() {
        let warm = cell("ext4", 250, CachePrep::Dropped, false);
        let clean = cell("xfs", 0, CachePrep::Fadvised, false);
        let tmpfs = cell("tmpfs", 1000, CachePrep::Dropped, true);
        let mut rec = crate::compare::tests::record(&[1.0]);
        assert!(flagged(&rec, Some(&warm)));
        assert!(!flagged(&rec, Some(&clean)));
        assert!(!flagged(&rec, Some(&tmpfs)));
        // An O_DIRECT workload does not read the resident pages: no warning.
        let mut direct_rec = rec.clone();
        direct_rec
            .plan
            .workloads
            .push(fsbattery_record::WorkloadPlan {
                name: "stream".into(),
                params: [("direct".to_string(), "true".to_string())].into(),
                param_units: Default::default(),
                metrics: vec![],
            });
        direct_rec.cells = vec![warm.clone()];
        assert!(!flagged(&direct_rec, Some(&warm)));
        assert!(!lines(&direct_rec).join("\n").contains('†'));
        rec.cells = vec![warm, clean, tmpfs];
        rec.targets = vec![fsbattery_record::TargetRecord {
            label: "tmpfs".into(),
            fs_type: "tmpfs".into(),
            ..Default::default()
        }];
        let text = lines(&rec).join("\n");
        assert!(
            text.contains("cache cold: 2 sample(s) measured, 0.0–25.0 %"),
            "{text}"
        );
        assert!(
            text.contains("† stream read on ext4: cold phase found up to 25.0 %"),
            "{text}"
        );
        assert!(text.contains("not guaranteed in 1 phase(s)"), "{text}");
        assert!(!text.contains("on xfs"), "{text}");
        assert!(text.contains("tmpfs: files in memory (tmpfs)"), "{text}");
        assert!(!text.contains("memory:"), "{text}");
        rec.plan.cache = Some(Box::new(fsbattery_record::RunCache {
            policy: CachePolicy::Cold,
            memory: Some(fsbattery_record::MemoryLimit {
                limit_bytes: 64 << 20,
                source: "--memory".into(),
                cgroup: "/sys/fs/cgroup/memory/fsbattery-1".into(),
                version: "v1".into(),
                peak_bytes: Some(64 << 20),
                peak_cache_bytes: None,
            }),
        }));
        let text = lines(&rec).join("\n");
        assert!(
            text.contains(
                "64MiB memory cgroup (v1, --memory): peak 64MiB, page cache up to not read"
            ),
            "{text}"
        );
    }
}

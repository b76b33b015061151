//! What the numbers were measured on, in the one line every summary gives with its answer:
//! the kind and size of the targets (loop images and what holds them, a real device, a
//! directory, RAM), the machine's memory and any limit on it, the cache policy, and how much
//! of each workload's data fit in memory — with a plain warning when most of it did, because
//! such numbers say more about the page cache than about the disk, and how to measure the
//! disk instead.
//!
//! Pure: text from the record. A workload's data size is the largest file set a phase of it
//! measured (the residency probe's `file_bytes`); workloads whose phases recorded no cache
//! state are not counted.

use fsbattery_record::{format_bytes, RunRecord, TargetRecord};

/// Below this share of the memory bound a workload's data counts as fitting in the page cache.
const FITS_SHARE: f64 = 0.5;

/// The conditions line, `None` for a record without targets (an import of a bare result).
pub fn line(rec: &RunRecord) -> Option<String> {
    if rec.targets.is_empty() {
        return None;
    }
    let mut parts = vec![targets(&rec.targets)];
    parts.push(memory(rec));
    if let Some(c) = &rec.plan.cache {
        parts.push(format!("cache {} before each timed phase", c.policy));
    }
    let mut out = format!("Measured on: {}", parts.join("; "));
    if let Some(fit) = fit(rec) {
        out.push_str(&format!("; {fit}"));
    }
    out.push('.');
    Some(out)
}

/// "2 loop image(s) of 1GiB (direct I/O, on QEMU HARDDISK), 1 tmpfs in RAM".
fn targets(ts: &[TargetRecord]) -> String {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for t in ts {
        let k = kind(t);
        match kinds.iter_mut().find(|(n, _)| *n == k) {
            Some((_, c)) => *c += 1,
            None => kinds.push((k, 1)),
        }
    }
    kinds
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One target's kind in words, from its spec and recorded options.
fn kind(t: &TargetRecord) -> String {
    let prefix = t.spec.split(':').next().unwrap_or("");
    let size = t
        .options
        .get("size")
        .and_then(|s| s.parse::<u64>().ok())
        .map(format_bytes);
    let on = if t.device_model.is_empty() {
        String::new()
    } else {
        format!(", on {}", t.device_model)
    };
    if t.in_memory() {
        return match size {
            Some(s) => format!("{} of {s} in RAM", t.fs_type),
            None => format!("{} in RAM", t.fs_type),
        };
    }
    match prefix {
        "loop" => {
            let dio = match t.options.get("dio").map(String::as_str) {
                Some("on") => "direct I/O",
                _ => "buffered",
            };
            format!(
                "loop image(s) of {} ({dio}{on})",
                size.unwrap_or_else(|| "unknown size".into())
            )
        }
        "dev" => format!("real device(s){}", on.replacen(", on", ":", 1)),
        "dir" => format!("directory(ies) on the host's {}{on}", t.fs_type),
        other => format!("{other} target(s){on}"),
    }
}

/// "24GiB RAM" or "24GiB RAM, workloads limited to 512MiB".
fn memory(rec: &RunRecord) -> String {
    let ram = format!("{} RAM", format_bytes(rec.host.ram_bytes));
    match rec.plan.cache.as_ref().and_then(|c| c.memory.as_ref()) {
        Some(m) => format!(
            "{ram}, workloads limited to {}",
            format_bytes(m.limit_bytes)
        ),
        None => ram,
    }
}

/// The memory the workloads' page cache could use: the cgroup limit, else the RAM.
fn bound(rec: &RunRecord) -> u64 {
    rec.plan
        .cache
        .as_ref()
        .and_then(|c| c.memory.as_ref())
        .map_or(rec.host.ram_bytes, |m| m.limit_bytes)
}

/// How many workloads' data fit in memory, and the warning when all of them did.
fn fit(rec: &RunRecord) -> Option<String> {
    let bound = bound(rec);
    if bound == 0 {
        return None;
    }
    let mut sizes: Vec<(String, u64)> = Vec::new();
    for c in rec.cells.iter().filter(|c| {
        !rec.targets
            .iter()
            .any(|t| t.label == c.target && t.in_memory())
    }) {
        let largest = c
            .samples
            .iter()
            .filter_map(|s| s.cache.as_ref())
            .map(|p| p.file_bytes)
            .max();
        let Some(b) = largest else { continue };
        match sizes.iter_mut().find(|(w, _)| *w == c.workload) {
            Some((_, s)) => *s = (*s).max(b),
            None => sizes.push((c.workload.clone(), b)),
        }
    }
    let largest = sizes.iter().map(|s| s.1).max()?;
    let fits = sizes
        .iter()
        .filter(|(_, b)| (*b as f64) < FITS_SHARE * bound as f64)
        .count();
    let share = 100.0 * largest as f64 / bound as f64;
    let mut out = format!(
        "the data of {fits} of {} workload(s) fit in memory (largest {}, {share:.0} % of it)",
        sizes.len(),
        format_bytes(largest)
    );
    if fits == sizes.len() {
        out.push_str(
            ": mostly page cache, so these numbers say little about the disk; to measure the \
             disk, bound the cache (--memory 512M), raise --scale, or use a real device \
             (--target dev:/dev/DEVICE)",
        );
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::{CachePolicy, CachePrep, PhaseCache, ResidencyProbe, RunCache};

    fn record(file_bytes: u64) -> RunRecord {
        let mut rec = crate::compare::tests::record(&[1.0, 1.1]);
        rec.host.ram_bytes = 24 << 30;
        rec.plan.cache = Some(Box::new(RunCache {
            policy: CachePolicy::Cold,
            memory: None,
        }));
        rec.targets = vec![TargetRecord {
            label: "ext4".into(),
            spec: "loop:ext4".into(),
            fs_type: "ext4".into(),
            device_model: "QEMU HARDDISK".into(),
            options: [("size", "1073741824"), ("dio", "on")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }];
        for s in &mut rec.cells[0].samples {
            s.cache = Some(PhaseCache {
                policy: CachePolicy::Cold,
                prep: CachePrep::Dropped,
                resident_bytes: 0,
                file_bytes,
                probe: ResidencyProbe::Cachestat,
                memory_medium: false,
            });
        }
        rec
    }

    #[test]
    fn a_loop_run_in_cache_says_so_and_how_to_measure_the_disk() {
        let text = line(&record(64 << 20)).unwrap();
        assert!(
            text.starts_with(
                "Measured on: 1 loop image(s) of 1GiB (direct I/O, on QEMU HARDDISK); \
                 24GiB RAM; cache cold before each timed phase; the data of 1 of 1 \
                 workload(s) fit in memory (largest 64MiB, 0 % of it): mostly page cache"
            ),
            "{text}"
        );
        assert!(text.contains("--memory 512M"), "{text}");
    }

    #[test]
    fn data_larger_than_memory_carries_no_warning() {
        let text = line(&record(20 << 30)).unwrap();
        assert!(text.contains("the data of 0 of 1 workload(s)"), "{text}");
        assert!(!text.contains("mostly page cache"), "{text}");
    }
}

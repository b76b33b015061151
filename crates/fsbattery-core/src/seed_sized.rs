//! Parameters a seed sized from its machine's RAM, written as such in suite files:
//! `size = "2 * seed_memory"` (S2's `-s 16384m` on 8 GB, S4's 2 GB bonnie file on 1 GB).
//!
//! At standard scale — the seeds' own sizes — the value is the multiple of the suite's
//! `seed_memory`, and the run applies that memory as its limit (see `run --memory`), so the
//! file defeats the cache as it did on the seed's machine. At full scale it is at least that
//! and at least the parameter's full-scale default (2 × this host's RAM where the parameter
//! says so); at quick scale the parameter's quick default, since quick is for seconds-long
//! runs and never the seed's size.

use crate::error::UsageError;
use crate::params::{ParamKind, ParamSpec, Scale};
use std::collections::BTreeMap;

/// The name a suite value uses for the seed machine's RAM.
pub const SEED_MEMORY: &str = "seed_memory";

/// `N * seed_memory`, `N × seed_memory`, `seed_memory * N` or `seed_memory`: the factor N
/// (a positive number); `None` for any other text (an ordinary value).
pub fn factor(text: &str) -> Option<f64> {
    let t = text.trim();
    if t == SEED_MEMORY {
        return Some(1.0);
    }
    let (a, b) = t.split_once('*').or_else(|| t.split_once('×'))?;
    let (a, b) = (a.trim(), b.trim());
    let n = match (a == SEED_MEMORY, b == SEED_MEMORY) {
        (true, false) => b,
        (false, true) => a,
        _ => return None,
    };
    n.parse::<f64>().ok().filter(|f| f.is_finite() && *f > 0.0)
}

/// `factor × seed` in bytes, rounded down to whole MiB (sizes the workloads accept).
fn bytes(factor: f64, seed: u64) -> u64 {
    let v = (factor * seed as f64) as u64;
    v / (1 << 20) * (1 << 20)
}

/// Replace every `… seed_memory` value of `given` by its size at `scale` (or drop it at quick
/// scale, so the parameter's default applies). Fails in one line when the suite states no
/// seed memory, or the parameter is no size.
pub fn apply(
    workload: &str,
    given: &mut BTreeMap<String, String>,
    specs: &[ParamSpec],
    seed: Option<u64>,
    scale: Scale,
    ram_bytes: u64,
) -> Result<(), UsageError> {
    let sized: Vec<(String, f64)> = given
        .iter()
        .filter_map(|(k, v)| factor(v).map(|f| (k.clone(), f)))
        .collect();
    for (key, f) in sized {
        let spec = specs.iter().find(|s| s.name == key);
        let Some(spec) = spec.filter(|s| s.kind == ParamKind::Bytes) else {
            return Err(UsageError::Invalid(format!(
                "parameter {workload}.{key}: only a size can be a multiple of {SEED_MEMORY}"
            )));
        };
        let Some(seed) = seed else {
            return Err(UsageError::Invalid(format!(
                "parameter {workload}.{key} = {:?}: the suite states no {SEED_MEMORY} (add \
                 seed_memory = \"SIZE\", or give a size)",
                given[&key]
            )));
        };
        let value = match scale {
            Scale::Quick => {
                given.remove(&key);
                continue;
            }
            Scale::Standard => bytes(f, seed),
            Scale::Full => bytes(f, seed).max(spec.default_at(Scale::Full, ram_bytes)),
        };
        given.insert(key, format!("{value}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_are_read_in_every_spelling_and_other_text_is_left_alone() {
        for (text, f) in [
            ("seed_memory", 1.0),
            ("2 * seed_memory", 2.0),
            ("2*seed_memory", 2.0),
            ("2 × seed_memory", 2.0),
            ("seed_memory * 0.5", 0.5),
        ] {
            assert_eq!(factor(text), Some(f), "{text}");
        }
        for text in [
            "1GiB",
            "2 * ram",
            "0 * seed_memory",
            "-1 * seed_memory",
            "x * y",
        ] {
            assert_eq!(factor(text), None, "{text}");
        }
    }

    /// S4's bonnie file: 2 × its 1 GiB at standard; at quick the parameter's default; at full
    /// at least 2 × this host's RAM; a count or a suite without seed_memory is refused.
    #[test]
    fn sizes_follow_the_seeds_memory_at_standard_scale() {
        let bonnie = crate::workload::find("bonnie").unwrap();
        let specs = bonnie.params();
        let at = |scale, ram| {
            let mut g = BTreeMap::from([("size".to_string(), "2 * seed_memory".to_string())]);
            apply("bonnie", &mut g, specs, Some(1 << 30), scale, ram).unwrap();
            g.get("size").cloned()
        };
        assert_eq!(
            at(Scale::Standard, 64 << 30),
            Some((2u64 << 30).to_string())
        );
        assert_eq!(at(Scale::Quick, 64 << 30), None);
        assert_eq!(at(Scale::Full, 4 << 30), Some((8u64 << 30).to_string()));
        assert_eq!(at(Scale::Full, 512 << 20), Some((2u64 << 30).to_string()));
        let mut g = BTreeMap::from([("files".to_string(), "seed_memory".to_string())]);
        let e = apply("bonnie", &mut g, specs, Some(1 << 30), Scale::Standard, 0);
        assert!(e.unwrap_err().to_string().contains("only a size"));
        let mut g = BTreeMap::from([("size".to_string(), "seed_memory".to_string())]);
        let e = apply("bonnie", &mut g, specs, None, Scale::Standard, 0);
        assert!(e.unwrap_err().to_string().contains("states no seed_memory"));
    }
}

//! Workloads named by a prefix and what follows it — `fio:FILE`, `dbench:ARGS`,
//! `fs_mark:ARGS` — in one table, with one store that keeps each built workload for the rest
//! of the process (the runner, the journal and the renderers find it again by its name).
//!
//! Invariants: a name is built at most once while it is kept (a second lookup returns the
//! same object); building reads files but runs nothing; a refusal is one line naming the
//! whole workload name. A new prefix is one line in [`PREFIXES`] (beside the registry, so
//! this store names no workload module).

use super::{Workload, PREFIXES};
use crate::error::UsageError;
use std::sync::Mutex;

/// One prefix and how a workload of that kind is built from its whole name.
pub struct Prefix {
    /// How the name starts (`fio:`).
    pub prefix: &'static str,
    /// Build the workload `name` (the prefix included), or the one-line refusal.
    pub build: fn(&str) -> Result<Box<dyn Workload>, UsageError>,
}

/// The workloads built so far, by name.
static LOADED: Mutex<Vec<(&'static str, &'static dyn Workload)>> = Mutex::new(Vec::new());

/// The prefix `name` starts with, if any.
pub fn prefix_of(name: &str) -> Option<&'static Prefix> {
    PREFIXES.iter().find(|p| name.starts_with(p.prefix))
}

/// The workload `name` — kept from an earlier lookup, or built now and kept — or the
/// refusal; `None` when `name` has no known prefix.
pub fn load(name: &str) -> Option<Result<&'static dyn Workload, UsageError>> {
    let prefix = prefix_of(name)?;
    let mut l = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, w)) = l.iter().find(|(n, _)| *n == name) {
        return Some(Ok(*w));
    }
    Some((prefix.build)(name).map(|w| {
        // Kept for the rest of the process: the registry hands out `&'static` objects.
        let w: &'static dyn Workload = Box::leak(w);
        l.push((w.name(), w));
        w
    }))
}

/// Forget the workloads whose names start with `prefix` (their inputs changed: fio's
/// `--set fio.OPTION=VALUE` overrides), so the next lookup builds them again.
pub fn forget(prefix: &str) {
    let mut l = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    l.retain(|(n, _)| !n.starts_with(prefix));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One lookup per name: the second returns the very object the first built; a name
    /// without a known prefix is none of this table's business.
    #[test]
    fn a_name_is_built_once_and_kept() {
        let name = "fs_mark:-n 10 -s 0 -S 0 -L 2";
        let a = load(name).unwrap().unwrap();
        let b = load(name).unwrap().unwrap();
        assert!(std::ptr::eq(
            a as *const dyn Workload as *const u8,
            b as *const dyn Workload as *const u8
        ));
        assert_eq!(a.name(), name);
        assert!(load("dd").is_none());
        let Some(Err(e)) = load("fs_mark:-x") else {
            panic!("fs_mark:-x is refused")
        };
        let e = e.to_string();
        assert!(e.starts_with("fs_mark:-x: "), "{e}");
    }
}

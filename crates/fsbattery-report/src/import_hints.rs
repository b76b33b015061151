//! What would make an imported record (fio, bonnie++, iozone) comparable with a native run:
//! the `--set` flags that give the native workload the parameters the tool reported, and the
//! `import --target` that names the import's target as the run's. `compare` prints them under
//! the differences it refuses, so the reader is told the fix, not only the mismatch.

use crate::comparable::{Difference, Scope};
use fsbattery_record::RunRecord;

/// The lines to print, empty when neither record is imported or nothing would help.
/// `base_name`/`new_name` are how the runs were named on the command line.
pub fn hints(
    base: &RunRecord,
    base_name: &str,
    new: &RunRecord,
    new_name: &str,
    diffs: &[Difference],
) -> Vec<String> {
    let (import_is_base, native, native_name, import_name) =
        match (base.source.is_some(), new.source.is_some()) {
            (true, false) => (true, new, new_name, base_name),
            (false, true) => (false, base, base_name, new_name),
            _ => return Vec::new(),
        };
    let mut out = Vec::new();
    let flags: Vec<String> = diffs
        .iter()
        .filter(|d| matches!(d.scope, Scope::Workload(_)) && d.what.contains('.'))
        .map(|d| {
            let v = if import_is_base { &d.base } else { &d.new };
            format!("--set {}={v}", d.what)
        })
        .collect();
    if !flags.is_empty() {
        out.push(format!(
            "to measure what {import_name} measured, run {native_name} again with {}",
            flags.join(" ")
        ));
    }
    let alone = diffs.iter().any(|d| {
        matches!(d.scope, Scope::Target(_)) && d.what.starts_with("target ") && {
            let parts = [d.base.as_str(), d.new.as_str()];
            parts.contains(&"absent") && parts.contains(&"present")
        }
    });
    if alone {
        let labels: Vec<&str> = native.targets.iter().map(|t| t.label.as_str()).collect();
        out.push(format!(
            "the import's target is named by `fsbattery import --target LABEL`; {native_name} \
             has {}",
            labels.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_differences_become_set_flags_with_the_imports_values() {
        let native = crate::compare::tests::record(&[1.0]);
        let mut import = native.clone();
        import.source = Some(fsbattery_core::model::ImportSource {
            tool: "fio".into(),
            version: "fio-3.33".into(),
            files: vec![],
            imported_at: String::new(),
        });
        let d = |scope: Scope, what: &str, b: &str, n: &str| Difference {
            scope,
            what: what.into(),
            base: b.into(),
            new: n.into(),
        };
        let diffs = [
            d(
                Scope::Workload("randomio".into()),
                "randomio.request",
                "4096",
                "8192",
            ),
            d(
                Scope::Workload("randomio".into()),
                "workload dd",
                "present",
                "absent",
            ),
        ];
        let h = hints(&native, "native", &import, "fio-8k", &diffs);
        assert_eq!(
            h,
            ["to measure what fio-8k measured, run native again with --set randomio.request=8192"]
        );
        assert!(hints(&native, "a", &native, "b", &diffs).is_empty());
    }
}

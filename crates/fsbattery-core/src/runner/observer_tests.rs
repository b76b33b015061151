//! What core raises while a run tears down reaches the run's observer, not stderr: a notice
//! raised inside a target's teardown (as `release` and the guards raise theirs) and the
//! runner's own report of a failed teardown.

use super::*;
use crate::measure::Timing;
use crate::targets::TargetError;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A directory target whose teardown warns as `release` does, then fails.
struct Grumpy(PathBuf);

impl Target for Grumpy {
    fn label(&self) -> &str {
        "grumpy"
    }
    fn spec(&self) -> &str {
        "test:grumpy"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn setup(&mut self, _repeat: u32) -> Result<Option<Lifecycle>, TargetError> {
        Ok(None)
    }
    fn root(&self) -> &Path {
        &self.0
    }
    fn teardown(&mut self) -> Result<Option<Timing>, TargetError> {
        crate::notice::warn("mount point stayed busy: detached lazily");
        Err(TargetError("a loop device is still bound".into()))
    }
}

#[derive(Default)]
struct Heard {
    warnings: Vec<String>,
    teardowns: Vec<String>,
    messages: Vec<String>,
}

impl RunObserver for Heard {
    fn warning(&mut self, text: &str) {
        self.warnings.push(text.into());
    }
    fn teardown(&mut self, text: &str) {
        self.teardowns.push(text.into());
    }
    fn message(&mut self, text: &str) {
        self.messages.push(text.into());
    }
}

fn plan(root: PathBuf) -> Plan {
    let text = "name = \"t\"\nrepeat = 1\n[[workload]]\nname = \"metadata\"\n";
    let suite = crate::suite::parse(text, Path::new("t.toml")).unwrap();
    let wl = crate::workload::find("metadata").unwrap();
    let mut small = BTreeMap::new();
    small.insert("files".to_string(), "10".to_string());
    let params = Params::resolve("metadata", wl.params(), Scale::Quick, 0, &small).unwrap();
    Plan {
        suite,
        scale: Scale::Quick,
        repeat: 1,
        aggregate: Aggregate::Mean,
        pause: Duration::ZERO,
        method: crate::workload::Method::Native,
        settings: Default::default(),
        notes: Vec::new(),
        workloads: vec![PlannedWorkload {
            workload: wl,
            params,
            method: crate::workload::Method::Native,
            cache: Default::default(),
        }],
        rows: Vec::new(),
        targets: vec![Box::new(Grumpy(root))],
        fresh: Fresh::PerRepeat,
        datasets: None,
        skipped: Vec::new(),
        label: None,
        auto: None,
        age: None,
        cache: Default::default(),
        memory: None,
        rank_reference: false,
        weights: Default::default(),
    }
}

#[test]
fn a_teardown_warning_reaches_the_observer() {
    let (root, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let plan = plan(root.path().to_path_buf());
    let mut heard = Heard::default();
    let mut plan = CheckedPlan::check(plan, true, Space::Checked).unwrap();
    let outcome = execute(&mut plan, out.path(), HostInfo::default(), &mut heard).unwrap();
    assert_eq!(outcome.failed_cells, 0);
    assert_eq!(
        heard.warnings,
        vec!["mount point stayed busy: detached lazily".to_string()]
    );
    assert_eq!(
        heard.teardowns,
        vec!["teardown of test:grumpy failed: a loop device is still bound".to_string()]
    );
    assert!(heard.messages.is_empty(), "{:?}", heard.messages);
}

#[test]
fn by_default_warnings_are_messages_worded_as_on_stderr() {
    #[derive(Default)]
    struct Plain(Vec<String>);
    impl RunObserver for Plain {
        fn message(&mut self, text: &str) {
            self.0.push(text.into());
        }
    }
    let mut plain = Plain::default();
    plain.warning("w");
    plain.teardown("cleanup failed: c");
    assert_eq!(
        plain.0,
        vec![
            "fsbattery: warning: w".to_string(),
            "fsbattery: cleanup failed: c".to_string()
        ]
    );
}

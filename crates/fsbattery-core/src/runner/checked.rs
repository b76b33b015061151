//! The plan the runner accepts: a [`CheckedPlan`] exists only once every planned workload's
//! needs were checked against every target it keeps (as ripgrep's `HiArgs` exists only from
//! its parser), so `execute` cannot be handed a plan nobody checked. One check, here, used
//! by the plan's constructor and by the one way a checked plan gains a target. A dry run
//! goes through the same check with [`Space::Shown`], the one option it has: it shows a
//! target too small for the data instead of refusing it, and such a plan is never run.

use super::{Plan, PlannedWorkload};
use crate::dataset::DatasetStore;
use crate::error::UsageError;
use crate::targets::Target;

/// Whether the check holds the data against each target's room (bytes and inodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// Checked: a plan to run.
    Checked,
    /// Not checked, so a dry run shows a target too small for the data; never run.
    Shown,
}

/// A [`Plan`] whose workloads' needs fit every target it holds (space included unless
/// checked with [`Space::Shown`]). Read through `Deref`; changed only in ways that keep it
/// checked.
pub struct CheckedPlan(pub(super) Plan, Space);

impl CheckedPlan {
    /// The one check of a plan, with `fit`: `named` targets (given by the user) that cannot
    /// run a workload refuse the plan; defaults are left out with the reason.
    pub fn check(mut plan: Plan, named: bool, space: Space) -> Result<CheckedPlan, UsageError> {
        fit(&mut plan, named, space)?;
        Ok(CheckedPlan(plan, space))
    }

    /// How the room of the targets was checked.
    pub fn space(&self) -> Space {
        self.1
    }

    /// Add a target made after the check (the default directory, which exists only once
    /// nothing else can refuse the run): checked like the others, refused with the reason.
    pub fn add_target(&mut self, t: Box<dyn Target>) -> Result<(), UsageError> {
        let warnings = check_needs(&self.0.workloads, std::slice::from_ref(&t), self.1)?;
        self.0.notes.extend(warnings);
        self.0.targets.push(t);
        Ok(())
    }

    /// The targets, to set up and tear down in place (a trial mount); none added or removed.
    pub fn targets_mut(&mut self) -> &mut [Box<dyn Target>] {
        &mut self.0.targets
    }

    /// Lines to print before the run.
    pub fn add_notes(&mut self, notes: impl IntoIterator<Item = String>) {
        self.0.notes.extend(notes);
    }

    /// The rows of the result table, their labels naming what the checked plan holds (the
    /// filesystems of the targets that stayed); rows add no work, so the plan stays checked.
    pub fn set_rows(&mut self, rows: Vec<crate::model::RowInfo>) {
        self.0.rows = rows;
    }

    /// The source datasets (kernel trees) the workloads read.
    pub fn set_datasets(&mut self, store: DatasetStore) {
        self.0.datasets = Some(store);
    }
}

impl std::ops::Deref for CheckedPlan {
    type Target = Plan;
    fn deref(&self) -> &Plan {
        &self.0
    }
}

/// [`check_needs`] for a plan: `named` targets are refused, while a default target that
/// cannot run a planned workload is left out with the reason, as the defaults this machine
/// cannot make are (tmpfs, half of RAM, cannot hold full-scale files) — unless no default
/// can: then the first reason refuses the plan. Estimates over a kept target's room (what the
/// run holds for certain fits) become notes, printed before the run as notices are. With
/// [`Space::Shown`] (a dry run shows a target too small for the data) bytes and inodes are
/// not checked.
fn fit(plan: &mut Plan, named: bool, space: Space) -> Result<(), UsageError> {
    if named || plan.targets.is_empty() {
        let warnings = check_needs(&plan.workloads, &plan.targets, space)?;
        plan.notes.extend(warnings);
        return Ok(());
    }
    let mut first = None;
    for t in std::mem::take(&mut plan.targets) {
        match check_needs(&plan.workloads, std::slice::from_ref(&t), space) {
            Ok(warnings) => {
                plan.notes.extend(warnings);
                plan.targets.push(t);
            }
            Err(e) => {
                plan.skipped.push(crate::model::SkippedTarget {
                    spec: t.spec().into(),
                    reason: e.to_string(),
                    fix: None,
                });
                first.get_or_insert(e);
            }
        }
    }
    match first {
        Some(e) if plan.targets.is_empty() => Err(e),
        _ => Ok(()),
    }
}

/// Every workload's needs against every target's capabilities (probed on the first call,
/// here, before any setup): O_DIRECT and its alignment, io_uring and, with [`Space::Checked`],
/// bytes and inodes. The first mismatch refuses the plan in one line that names the parameter
/// and fix; otherwise the warnings, one line each, for estimates over a target's room.
fn check_needs(
    workloads: &[PlannedWorkload],
    targets: &[Box<dyn Target>],
    space: Space,
) -> Result<Vec<String>, UsageError> {
    let mut warnings = Vec::new();
    for t in targets {
        let mut caps = t.capabilities();
        if space == Space::Shown {
            (caps.space_bytes, caps.inodes) = (None, None);
        }
        for w in workloads {
            let needs = w.workload.needs(&w.params);
            let warning = crate::workload::needs::check(w.workload.name(), &needs, t.spec(), &caps)
                .map_err(UsageError::Invalid)?;
            warnings.extend(warning);
        }
    }
    Ok(warnings)
}

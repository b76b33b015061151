//! The parts of a run made in several sittings: `run --resume` continues an interrupted run
//! in the same journal, and the record then says when each part ran, on which kernel and
//! boot, and which steps (target × workload × repeat) it measured.
//!
//! Invariants: a run made in one sitting has no parts (`RunRecord::parts` is empty, so its
//! record is byte-for-byte what it was before resuming existed); a resumed run lists every
//! part in order, the first being the original start, and each step is listed under the one
//! part whose samples the record keeps.

use serde::{Deserialize, Serialize};

/// One sitting of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RunPart {
    /// RFC 3339 start of this part.
    pub started: String,
    /// RFC 3339 end of this part; absent when it was killed (no end event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished: Option<String>,
    /// The part ended by a signal (or was killed: no end at all).
    pub interrupted: bool,
    /// Kernel release and version the part ran on.
    pub kernel: String,
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`): a reboot between parts shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_id: Option<String>,
    /// The steps whose samples this part measured, in the order measured.
    #[serde(default)]
    pub steps: Vec<PartStep>,
}

/// One workload run once on one target.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct PartStep {
    /// Target label.
    pub target: String,
    /// Workload.
    pub workload: String,
    /// Repeat index.
    pub repeat: u32,
}

impl crate::RunRecord {
    /// Made in more than one sitting (`run --resume`).
    pub fn resumed(&self) -> bool {
        self.parts.len() > 1
    }

    /// Did not run to its end: interrupted, killed (no end), or resumed and not yet finished.
    pub fn unfinished(&self) -> bool {
        self.interrupted || self.finished.is_none()
    }

    /// One line for reports, or `None` for a run made in one sitting that finished: "made in
    /// 2 parts (resumed 2026-11-28T17:05:01Z, after a reboot)" and/or "interrupted".
    pub fn parts_line(&self) -> Option<String> {
        let state = match (self.unfinished(), self.resumed()) {
            (false, false) => return None,
            (true, false) => return Some("interrupted: not every cell was measured".into()),
            (true, true) => "interrupted again",
            (false, true) => "finished",
        };
        let starts: Vec<&str> = self.parts[1..].iter().map(|p| p.started.as_str()).collect();
        let boots: std::collections::BTreeSet<_> = self
            .parts
            .iter()
            .filter_map(|p| p.boot_id.as_deref())
            .collect();
        let kernels: std::collections::BTreeSet<_> =
            self.parts.iter().map(|p| p.kernel.as_str()).collect();
        let mut across = Vec::new();
        if boots.len() > 1 {
            across.push("across a reboot");
        }
        if kernels.len() > 1 {
            across.push("on different kernels");
        }
        let across = match across.is_empty() {
            true => String::new(),
            false => format!(", {}", across.join(" and ")),
        };
        Some(format!(
            "resumed: made in {} parts (resumed {}{across}), {state}",
            self.parts.len(),
            starts.join(", ")
        ))
    }
}

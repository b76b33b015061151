//! One trial make-and-mount, before the run, of every target whose spec (or suite) gives
//! `mkfs=` or `mount=` options: an option the kernel or mkfs rejects (`mount=bogus_opt`)
//! fails the run here, in one line with its own exit status, instead of failing every cell
//! of that target with the same multi-line mount error after the other targets have run.
//!
//! Targets without such options are not tried: their defaults are what every other run uses,
//! and a trial costs a mkfs. The trial's filesystem is torn down at once; the run makes its
//! own, fresh, as always.

use fsbattery_core::runner::CheckedPlan;
use fsbattery_core::targets::Target;

/// A target the kernel or its mkfs refused as specified; exit status
/// [`fsbattery_core::error::EXIT_TARGET_REFUSED`].
#[derive(Debug)]
pub struct TargetRefused(pub String);

impl std::fmt::Display for TargetRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TargetRefused {}

/// Make and mount, then tear down, each target with its own mkfs or mount options.
pub fn check(plan: &mut CheckedPlan) -> Result<(), TargetRefused> {
    for t in plan
        .targets_mut()
        .iter_mut()
        .filter(|t| has_options(t.as_ref()))
    {
        if let Err(e) = t.setup(0) {
            return Err(TargetRefused(refusal(t.spec(), &e.to_string())));
        }
        if let Err(e) = t.teardown() {
            return Err(TargetRefused(format!(
                "target {}: trial teardown failed: {}",
                t.spec(),
                first_line(&e.to_string())
            )));
        }
    }
    Ok(())
}

fn has_options(t: &dyn Target) -> bool {
    let o = t.options();
    ["mkfs", "mount"]
        .iter()
        .any(|k| o.get(*k).is_some_and(|v| !v.is_empty()))
}

/// One line from a setup error: what the kernel logged (the reason, e.g. "ext4: Unknown
/// parameter 'bogus_opt'"), else the tool's own first line.
fn refusal(spec: &str, error: &str) -> String {
    let kernel = error
        .lines()
        .filter_map(|l| l.strip_prefix("kernel: "))
        .next_back();
    let why = kernel.map_or_else(|| first_line(error), str::to_string);
    format!(
        "target {spec}: refused by a trial mkfs and mount before the run: {why}; fix its mkfs= \
         or mount= options"
    )
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_reason_makes_the_one_line() {
        let e = "/usr/bin/mount -t ext4 /dev/loop0 /x -o bogus failed (exit status 32): mount: \
                 /x: wrong fs type, bad option\n       dmesg(1) may have more information\n\
                 kernel: ext4: Unknown parameter 'bogus'";
        assert_eq!(
            refusal("loop:ext4,mount=bogus", e),
            "target loop:ext4,mount=bogus: refused by a trial mkfs and mount before the run: \
             ext4: Unknown parameter 'bogus'; fix its mkfs= or mount= options"
        );
        let r = refusal(
            "loop:xfs,mkfs=-q",
            "mkfs.xfs failed (exit status 1): bad\nmore",
        );
        assert!(
            r.contains("before the run: mkfs.xfs failed (exit status 1): bad;"),
            "{r}"
        );
    }
}

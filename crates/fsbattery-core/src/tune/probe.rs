//! Plan-time probing: each non-default value of each option is made and mounted once, alone,
//! on a small image; a value the installed mkfs or the kernel refuses is left out of the
//! space with one line saying why, so the tune never spends its budget on cells that fail.
//!
//! Probing happens once per tune, before any measurement; each trial filesystem is torn down
//! at once (the target's guards remove image, loop device and mount point on any failure).

use super::space::OptionSpace;
use crate::targets::{parse, TargetOptions};

/// One value left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// Option name.
    pub option: String,
    /// The value refused.
    pub value: String,
    /// The tool's or kernel's reason, one line.
    pub why: String,
}

impl Refused {
    /// The line the tune prints.
    pub fn line(&self) -> String {
        format!(
            "option {}={} left out: this machine refused it ({})",
            self.option, self.value, self.why
        )
    }
}

/// Try every non-default value of `space` (with `extra` spec options, e.g. the image size)
/// and leave out the refused ones; returns what was left out. `stop` is asked between trials
/// (an interrupt ends probing early, with what was found so far).
pub fn probe(
    space: &mut OptionSpace,
    extra: &str,
    opts: &TargetOptions,
    stop: &dyn Fn() -> bool,
) -> Vec<Refused> {
    let mut refused = Vec::new();
    let defaults = space.defaults();
    for (i, o) in space.options.clone().iter().enumerate() {
        for (l, v) in o.values.iter().enumerate() {
            if l == defaults[i] || stop() {
                continue;
            }
            let mut c = defaults.clone();
            c[i] = l;
            if let Err(why) = trial(&space.spec(&c, extra), opts) {
                refused.push(Refused {
                    option: o.name.clone(),
                    value: v.clone(),
                    why,
                });
            }
        }
    }
    for r in &refused {
        space.drop_value(&r.option, &r.value);
    }
    refused
}

/// Make, mount and tear down `spec` once; the reason in one line when refused.
fn trial(spec: &str, opts: &TargetOptions) -> Result<(), String> {
    let mut t = parse(spec, opts).map_err(|e| e.to_string())?;
    let made = t.setup(0).map_err(|e| reason(&e.to_string()));
    let torn = t.teardown().map_err(|e| reason(&e.to_string()));
    made.and(torn).map(|_| ())
}

/// The kernel's logged reason when there is one, else the tool's first line.
fn reason(error: &str) -> String {
    error
        .lines()
        .filter_map(|l| l.strip_prefix("kernel: "))
        .next_back()
        .map_or_else(
            || error.lines().next().unwrap_or("").trim().to_string(),
            str::to_string,
        )
}

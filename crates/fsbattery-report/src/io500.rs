//! IO500 runs as the io500 app judges and prints them: its validity rules and its result
//! summary (`result_summary.txt`: the `[RESULT]` and `[SCORE ]` lines).
//!
//! Role: an IO500 user reads, diffs and submit-checks the app's summary; fsbattery writes
//! the same lines beside its record and says INVALID where the app would. Pure: built from
//! the record alone (phase values, elapsed times, cell states, the `stonewall_s` parameter),
//! so a record re-rendered later says the same.
//!
//! The app's rules (io500 `src/main.c`, `phase_ior.c`, `phase_dbg.c`): a stonewall other than
//! 300 s invalidates the run; a write phase shorter than the stonewall, a phase with an error
//! and a phase whose score is not above 0 invalidate the phase and so the run; a phase ≤ 0 is
//! left out of its group's geometric mean. An imported app summary keeps the app's own
//! verdict (parameter `app_valid`).

use fsbattery_record::{CellStatus, RunRecord};

/// The io500 phases in the app's order, by fsbattery metric name.
pub const PHASES: [&str; 12] = [
    "ior_easy_write",
    "mdtest_easy_write",
    "ior_hard_write",
    "mdtest_hard_write",
    "find",
    "ior_easy_read",
    "mdtest_easy_stat",
    "ior_hard_read",
    "mdtest_hard_stat",
    "mdtest_easy_delete",
    "mdtest_hard_read",
    "mdtest_hard_delete",
];

/// The stonewall a valid IO500 run uses (the app's `minwrite`).
pub const STONEWALL_S: u64 = 300;

/// The write phases, which must last at least the stonewall.
const WRITES: [&str; 4] = [
    "ior_easy_write",
    "mdtest_easy_write",
    "ior_hard_write",
    "mdtest_hard_write",
];

/// One phase of one io500 run.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// The app's name, e.g. "ior-easy-write".
    pub name: String,
    /// GiB/s (ior) or kIOPS; 0 when the phase failed.
    pub score: f64,
    /// Seconds, first start to last end.
    pub time_s: f64,
    /// Why the app would mark this phase `[INVALID]`.
    pub invalid: Option<String>,
}

/// One io500 run: one target, one repeat.
#[derive(Debug, Clone, PartialEq)]
pub struct Io500Run {
    /// Target label.
    pub target: String,
    /// Repeat index (0-based).
    pub repeat: u32,
    /// The phases in the app's order.
    pub phases: Vec<Phase>,
    /// Why the run is invalid as a whole (besides its phases).
    pub invalid: Vec<String>,
    /// Bandwidth score, GiB/s.
    pub bw: f64,
    /// Metadata score, kIOPS.
    pub md: f64,
}

impl Io500Run {
    /// Whether the app would call the run valid.
    pub fn valid(&self) -> bool {
        self.invalid.is_empty() && self.phases.iter().all(|p| p.invalid.is_none())
    }
    /// The total score, √(bandwidth × metadata).
    pub fn score(&self) -> f64 {
        (self.bw * self.md).sqrt()
    }
    /// Every reason the run is invalid: the run's, then each phase's.
    pub fn reasons(&self) -> Vec<String> {
        let phases = self
            .phases
            .iter()
            .filter_map(|p| p.invalid.as_ref().map(|r| format!("{}: {r}", p.name)));
        self.invalid.iter().cloned().chain(phases).collect()
    }
}

/// Geometric mean of the scores above 0, as the app's `calc_score`; 0 when none is.
pub fn group_score(xs: &[f64]) -> f64 {
    let kept: Vec<f64> = xs.iter().copied().filter(|&x| x > 0.0).collect();
    if kept.is_empty() {
        return 0.0;
    }
    (kept.iter().map(|x| x.ln()).sum::<f64>() / kept.len() as f64).exp()
}

/// Every io500 run of the record (per target and repeat), judged by the app's rules.
pub fn runs(rec: &RunRecord) -> Vec<Io500Run> {
    let Some(plan) = rec.plan.workloads.iter().find(|w| w.name == "io500") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in &rec.targets {
        let cells: Vec<_> = rec
            .cells
            .iter()
            .filter(|c| c.target == t.label && c.workload == "io500")
            .collect();
        let repeats = cells
            .iter()
            .flat_map(|c| c.samples.iter().map(|s| s.repeat));
        let Some(last) = repeats.max().or_else(|| (!cells.is_empty()).then_some(0)) else {
            continue;
        };
        for repeat in 0..=last {
            out.push(judge(&t.label, repeat, &cells, &plan.params));
        }
    }
    out
}

/// One run judged: its phases from `cells`, its stonewall from `params`.
fn judge(
    target: &str,
    repeat: u32,
    cells: &[&fsbattery_record::Cell],
    params: &std::collections::BTreeMap<String, String>,
) -> Io500Run {
    let mut invalid = Vec::new();
    let stonewall: Option<u64> = params.get("stonewall_s").and_then(|s| s.parse().ok());
    match (stonewall, params.get("app_valid")) {
        (_, Some(v)) if v == "no" => invalid.push("the io500 app marked the run INVALID".into()),
        (_, Some(_)) => {}
        (Some(s), None) if s != STONEWALL_S => {
            invalid.push(format!("stonewall-time {s}s != {STONEWALL_S}s"))
        }
        (Some(_), None) => {}
        (None, None) => invalid.push("the stonewall time is not recorded".into()),
    }
    let app_invalid: Vec<&str> = params
        .get("app_invalid")
        .map_or(Vec::new(), |v| v.split(',').collect());
    let phases: Vec<Phase> = PHASES
        .iter()
        .map(|m| {
            let mut p = phase(m, repeat, cells, stonewall);
            if p.invalid.is_none() && app_invalid.contains(&p.name.as_str()) {
                p.invalid = Some("marked INVALID by the io500 app".into());
            }
            p
        })
        .collect();
    let of = |ior: bool| -> Vec<f64> {
        let v = phases.iter().filter(|p| p.name.starts_with("ior") == ior);
        v.map(|p| p.score).collect()
    };
    Io500Run {
        target: target.into(),
        repeat,
        bw: group_score(&of(true)),
        md: group_score(&of(false)),
        phases,
        invalid,
    }
}

/// Phase `metric` of one repeat, with the app's phase rules.
fn phase(
    metric: &str,
    repeat: u32,
    cells: &[&fsbattery_record::Cell],
    stonewall: Option<u64>,
) -> Phase {
    let name = metric.replace('_', "-");
    let cell = cells.iter().find(|c| c.metric == metric);
    let sample = cell.and_then(|c| c.samples.iter().find(|s| s.repeat == repeat));
    let (score, time_s) = sample.map_or((0.0, 0.0), |s| (s.value, s.elapsed_s));
    let failed = match cell.map(|c| &c.status) {
        Some(CellStatus::Failed { reason }) => Some(format!("error: {reason}")),
        Some(CellStatus::Ok) | Some(CellStatus::Incomplete) if sample.is_some() => None,
        Some(CellStatus::Missing { reason } | CellStatus::Pending { reason }) => {
            Some(format!("no value: {reason}"))
        }
        _ => Some("not measured".into()),
    };
    let short = stonewall
        .filter(|&s| WRITES.contains(&metric) && sample.is_some() && time_s < s as f64)
        .map(|s| format!("write phase needed {time_s:.3}s instead of stonewall {s}s"));
    let invalid = failed
        .or(short)
        .or_else(|| (score <= 0.0).then(|| "resulting score shouldn't be 0.0".into()));
    Phase {
        name,
        score,
        time_s,
        invalid,
    }
}

/// The app's `result_summary.txt` of `run` (its `[RESULT]` and `[SCORE ]` lines with the
/// same fields and units). The app's timestamp line (`[      ] timestamp`) is left out:
/// fsbattery does not time the touch of the timestamp file.
pub fn result_summary(run: &Io500Run, version: &str) -> String {
    let mut out = format!("IO500 version {version} (standard)\n");
    for p in &run.phases {
        let unit = if p.name.starts_with('i') {
            "GiB/s"
        } else {
            "kIOPS"
        };
        let flag = if p.invalid.is_some() {
            " [INVALID]"
        } else {
            ""
        };
        out.push_str(&format!(
            "[RESULT] {:>20} {:>15} {unit} : time {:.3} seconds{flag}\n",
            p.name,
            format!("{:.6}", p.score),
            p.time_s
        ));
    }
    let flag = if run.valid() { "" } else { " [INVALID]" };
    out.push_str(&format!(
        "[SCORE ] Bandwidth {:.6} GiB/s : IOPS {:.6} kiops : TOTAL {:.6}{flag}\n",
        run.bw,
        run.md,
        run.score()
    ));
    out
}

/// One line per io500 run for the notes under the tables: VALID, or INVALID with every
/// reason. Empty when the record holds no io500 run.
pub fn notes(rec: &RunRecord) -> Vec<String> {
    let all = runs(rec);
    let many = all.len() > 1;
    all.iter()
        .map(|r| {
            let which = if many {
                format!("io500 on {} (repeat {})", r.target, r.repeat + 1)
            } else {
                format!("io500 on {}", r.target)
            };
            if r.valid() {
                format!("{which}: valid by the io500 app's rules (stonewall 300 s, every phase scored).")
            } else {
                format!(
                    "{which}: INVALID by the io500 app's rules: {}.",
                    r.reasons().join("; ")
                )
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;

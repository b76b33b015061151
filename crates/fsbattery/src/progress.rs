//! Live progress: an indicatif bar with the current cell and ETA on a terminal; off one, or
//! with `--quiet`, one line per target and repeat ([`Cells`]); with `--verbose` off a
//! terminal, a line per step and per phase ([`Log`]). Warnings and teardown reports always
//! reach stderr (a resource left behind must never go unsaid).

use crate::stderr::errln;
use fsbattery_core::model::Sample;
use fsbattery_core::runner::{RunObserver, Step};
use indicatif::{ProgressBar, ProgressStyle};

/// Progress for a terminal.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar over `total` steps.
    pub fn new(total: u64) -> Bar {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} ETA {eta}  {msg}",
            )
            .expect("static template"),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Bar { bar }
    }
}

impl RunObserver for Bar {
    fn step_start(&mut self, s: &Step<'_>) {
        self.bar.set_message(format!(
            "{} · {} · run {}",
            s.target,
            s.workload,
            s.repeat + 1
        ));
    }
    fn step_end(&mut self, s: &Step<'_>, error: Option<&str>) {
        if let Some(e) = error {
            self.bar
                .println(format!("failed: {} on {}: {e}", s.workload, s.target));
        }
        self.bar.set_position(s.index + 1);
    }
    fn message(&mut self, text: &str) {
        self.bar.println(text);
    }
    fn finish(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// Plain lines for logs.
pub struct Log;

impl RunObserver for Log {
    fn step_start(&mut self, s: &Step<'_>) {
        errln!(
            "[{}/{}] {} · {} · run {}",
            s.index + 1,
            s.total,
            s.target,
            s.workload,
            s.repeat + 1
        );
    }
    /// One line per sample, the value at the table's precision ("iops = 61460 ops/s", not
    /// "61459.9418"): a log is read beside the table, and four decimals of a rate are noise.
    fn sample(&mut self, _s: &Step<'_>, metric: &str, unit: &str, x: &Sample) {
        errln!(
            "    {metric} = {} {unit} (cpu {:.0}%)",
            fsbattery_report::format::num(x.value),
            x.cpu_pct
        );
    }
    fn step_end(&mut self, s: &Step<'_>, error: Option<&str>) {
        if let Some(e) = error {
            errln!("    failed: {} on {}: {e}", s.workload, s.target);
        }
    }
    fn message(&mut self, text: &str) {
        errln!("{text}");
    }
}

/// Piped without `--verbose`, or `--quiet`: one line per target and repeat as it finishes,
/// "[STEP/TOTAL] TARGET · run R: WORKLOAD VALUE UNIT · ...", the headline of each workload
/// being its first metric (the row its table leads with), wrapped at the width.
/// A target's workloads of one round run back to back, so a run of T targets and R rounds
/// logs about T × R lines whatever the number of workloads and phases; a failed step gets a
/// line of its own, and notices flush the pending line first so the order stays true.
pub struct Cells {
    width: usize,
    pending: Option<Pending>,
}

/// The line being gathered: one target, one repeat.
struct Pending {
    target: String,
    repeat: u32,
    last: u64,
    total: u64,
    parts: Vec<String>,
    headline: Option<String>,
}

impl Cells {
    /// Lines at most `width` characters wide (longer ones wrap between words).
    pub fn new(width: usize) -> Cells {
        Cells {
            width,
            pending: None,
        }
    }

    fn flush(&mut self) {
        let Some(p) = self.pending.take() else {
            return;
        };
        if p.parts.is_empty() {
            return;
        }
        let line = format!(
            "[{}/{}] {} · run {}: {}",
            p.last + 1,
            p.total,
            p.target,
            p.repeat + 1,
            p.parts.join(" · ")
        );
        errln!("{}", fsbattery_report::wrap::wrap_text(&line, self.width));
    }
}

impl RunObserver for Cells {
    fn step_start(&mut self, s: &Step<'_>) {
        let same = self
            .pending
            .as_ref()
            .is_some_and(|p| p.target == s.target && p.repeat == s.repeat);
        if !same {
            self.flush();
            self.pending = Some(Pending {
                target: s.target.to_string(),
                repeat: s.repeat,
                last: s.index,
                total: s.total,
                parts: Vec::new(),
                headline: None,
            });
        }
    }
    fn sample(&mut self, s: &Step<'_>, _metric: &str, unit: &str, x: &Sample) {
        if let Some(p) = self.pending.as_mut().filter(|p| p.headline.is_none()) {
            p.headline = Some(format!(
                "{} {} {unit}",
                s.workload,
                fsbattery_report::format::num(x.value)
            ));
        }
    }
    fn step_end(&mut self, s: &Step<'_>, error: Option<&str>) {
        let Some(p) = self.pending.as_mut() else {
            return;
        };
        p.last = s.index;
        let headline = p.headline.take();
        if let Some(e) = error {
            self.flush();
            let line = format!(
                "failed: {} on {} (run {}): {e}",
                s.workload,
                s.target,
                s.repeat + 1
            );
            errln!("{}", fsbattery_report::wrap::wrap_text(&line, self.width));
            return;
        }
        p.parts
            .push(headline.unwrap_or_else(|| s.workload.to_string()));
    }
    fn message(&mut self, text: &str) {
        self.flush();
        errln!("{}", fsbattery_report::wrap::wrap_text(text, self.width));
    }
    fn finish(&mut self) {
        self.flush();
    }
}

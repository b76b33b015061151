//! Live progress: an indicatif bar with the current cell and ETA on a terminal, plain log
//! lines on stderr otherwise (CI logs, pipes), only warnings and teardown reports with
//! `--quiet`.

use crate::stderr::errln;
use fsbattery_core::model::Sample;
use fsbattery_core::notice::Notice;
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

/// `--quiet`: no progress, but warnings and teardown reports still reach stderr (a resource
/// left behind must never go unsaid).
pub struct Quiet;

impl RunObserver for Quiet {
    fn warning(&mut self, text: &str) {
        errln!("{}", Notice::Warning(text.into()).line());
    }
    fn teardown(&mut self, text: &str) {
        errln!("{}", Notice::Teardown(text.into()).line());
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

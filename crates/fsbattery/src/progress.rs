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

/// Piped without `--verbose`, or `--quiet`: the first round one line per target as it
/// finishes, "[STEP/TOTAL] TARGET · run 1: WORKLOAD VALUE UNIT · ...", each workload's headline
/// being its first metric (the row its table leads with); every later round one line,
/// "[STEP/TOTAL] run R (s): TARGET SECONDS · ...", the seconds each target's steps took, for
/// rounds 2 to 5, then every 5th and the last (auto repeats run up to 30 rounds: one line each
/// took 60 of a default run's 158 lines). A run of T targets logs at most T + 10 lines whatever
/// the number of workloads, phases and rounds; lines wrap at the width. A failed step gets a line of
/// its own, and notices flush the pending line first so the order stays true.
pub struct Cells {
    width: usize,
    pending: Option<Pending>,
    started: Option<std::time::Instant>,
    /// A later round's line not printed (between every 5th): printed if the run ends on it.
    held: Option<String>,
}

/// Whether round `r` (1-based, after the first) gets its line: 2 to 5, then every 5th.
fn shown(r: u32) -> bool {
    r <= 5 || r.is_multiple_of(5)
}

/// The line being gathered: one target of the first round, or one later round.
struct Pending {
    /// The target, in the first round; `None` for a later round's line.
    target: Option<String>,
    repeat: u32,
    last: u64,
    total: u64,
    parts: Vec<String>,
    headline: Option<String>,
    /// A later round's targets and the seconds their steps took, in run order.
    seconds: Vec<(String, f64)>,
}

impl Cells {
    /// Lines at most `width` characters wide (longer ones wrap between words).
    pub fn new(width: usize) -> Cells {
        Cells {
            width,
            pending: None,
            started: None,
            held: None,
        }
    }

    fn flush(&mut self) {
        let Some(p) = self.pending.take() else {
            return;
        };
        let line = match &p.target {
            Some(t) if !p.parts.is_empty() => format!(
                "[{}/{}] {t} · run {}: {}",
                p.last + 1,
                p.total,
                p.repeat + 1,
                p.parts.join(" · ")
            ),
            None if !p.seconds.is_empty() => {
                let per: Vec<String> = p
                    .seconds
                    .iter()
                    .map(|(t, s)| format!("{t} {}", fsbattery_report::format::num(*s)))
                    .collect();
                let round = p.repeat + 1;
                let line = format!(
                    "[{}/{}] run {round} (s): {}{}",
                    p.last + 1,
                    p.total,
                    per.join(" · "),
                    if round == 5 {
                        " (then every 5th run)"
                    } else {
                        ""
                    }
                );
                if !shown(round) {
                    self.held = Some(line);
                    return;
                }
                line
            }
            _ => return,
        };
        self.held = None;
        errln!("{}", fsbattery_report::wrap::wrap_text(&line, self.width));
    }
}

impl RunObserver for Cells {
    fn step_start(&mut self, s: &Step<'_>) {
        self.started = Some(std::time::Instant::now());
        let target = (s.repeat == 0).then(|| s.target.to_string());
        let same = self
            .pending
            .as_ref()
            .is_some_and(|p| p.target == target && p.repeat == s.repeat);
        if !same {
            self.flush();
            self.pending = Some(Pending {
                target,
                repeat: s.repeat,
                last: s.index,
                total: s.total,
                parts: Vec::new(),
                headline: None,
                seconds: Vec::new(),
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
        let took = self
            .started
            .take()
            .map_or(0.0, |t| t.elapsed().as_secs_f64());
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
        if p.target.is_some() {
            p.parts
                .push(headline.unwrap_or_else(|| s.workload.to_string()));
        } else {
            match p.seconds.last_mut() {
                Some((t, sum)) if t == s.target => *sum += took,
                _ => p.seconds.push((s.target.to_string(), took)),
            }
        }
    }
    fn message(&mut self, text: &str) {
        self.flush();
        errln!("{}", fsbattery_report::wrap::wrap_text(text, self.width));
    }
    fn finish(&mut self) {
        self.flush();
        // The last round, when it fell between the shown ones.
        if let Some(line) = self.held.take() {
            errln!("{}", fsbattery_report::wrap::wrap_text(&line, self.width));
        }
    }
}

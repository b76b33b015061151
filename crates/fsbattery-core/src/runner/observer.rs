//! Live events of a run, kept apart from the final reports: the progress bar and the plain
//! log are observers; so will be a distributed mode's rank-0 aggregation.

use crate::model::Sample;

/// Where a step (one workload, on one target, one repeat) sits in the run.
#[derive(Debug, Clone)]
pub struct Step<'a> {
    /// 0-based index of this step.
    pub index: u64,
    /// Steps in the whole run.
    pub total: u64,
    /// Target label.
    pub target: &'a str,
    /// Workload name ("setup"/"teardown" for target lifecycle steps).
    pub workload: &'a str,
    /// Repeat index.
    pub repeat: u32,
}

/// Hooks called by the runner as the run progresses. All default to doing nothing.
pub trait RunObserver {
    /// A step starts.
    fn step_start(&mut self, _step: &Step<'_>) {}
    /// A metric was measured.
    fn sample(&mut self, _step: &Step<'_>, _metric: &str, _unit: &str, _sample: &Sample) {}
    /// A step ended; `error` is set when it failed.
    fn step_end(&mut self, _step: &Step<'_>, _error: Option<&str>) {}
    /// Something the user should know that is not a result.
    fn message(&mut self, _text: &str) {}
    /// A warning raised by core code (a retried command, a lazily detached mount; see
    /// [`crate::notice`]). By default shown as a [`RunObserver::message`] worded as stderr
    /// had it: `fsbattery: warning: TEXT`.
    fn warning(&mut self, text: &str) {
        self.message(&crate::notice::Notice::Warning(text.into()).line());
    }
    /// A teardown that did not release everything, or a target whose teardown failed: what
    /// remains and what to run. By default shown as a [`RunObserver::message`].
    fn teardown(&mut self, text: &str) {
        self.message(&crate::notice::Notice::Teardown(text.into()).line());
    }
    /// The run is over.
    fn finish(&mut self) {}
}

/// An observer that ignores everything (tests).
pub struct Silent;
impl RunObserver for Silent {}

/// Hand the notices collected by `capture` to `obs`, oldest first.
pub(crate) fn relay(capture: &crate::notice::Capture, obs: &mut dyn RunObserver) {
    use crate::notice::Notice;
    for n in capture.take() {
        match n {
            Notice::Warning(t) => obs.warning(&t),
            Notice::Teardown(t) => obs.teardown(&t),
            Notice::Note(_) => obs.message(&n.line()),
        }
    }
}

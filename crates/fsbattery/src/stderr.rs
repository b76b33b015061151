//! Writing to stderr. `eprintln!` panics when the write fails, and a run's stderr can fail
//! under it (a closed pipe, a terminal that hung up): a panic there would skip the end of a
//! teardown. [`errln!`] goes through [`fsbattery_core::notice::to_stderr`], which never
//! panics and turns a closed pipe into an interruption of the run.

/// `eprintln!` that never panics (see the module header).
macro_rules! errln {
    ($($arg:tt)*) => {
        fsbattery_core::notice::to_stderr(&format!($($arg)*))
    };
}
pub(crate) use errln;

//! How wide a line of the terminal output may be: `COLUMNS` when set (a script or a narrow
//! pane says so), else the terminal's own width when the stream is one, else 100, so a log or
//! a pipe gets the legend and notes as paragraphs rather than 478-character lines.

/// The width when neither `COLUMNS` nor a terminal gives one.
pub const DEFAULT: usize = 100;

/// The width for a stream that is (`tty`) or is not a terminal; stderr's size is asked for.
pub fn columns(tty: bool) -> usize {
    if let Some(w) = fsbattery_report::term_width::columns() {
        return usize::from(w);
    }
    if tty {
        if let Some((terminal_size::Width(w), _)) =
            terminal_size::terminal_size_of(std::io::stderr())
                .or_else(|| terminal_size::terminal_size_of(std::io::stdout()))
        {
            return usize::from(w).max(40);
        }
    }
    DEFAULT
}

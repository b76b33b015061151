//! The tune's answer, shown and saved: `tune.json` and the `tune.html` charts under `--out`,
//! and on stdout the JSON or the short text. The text and the charts are the report crate's,
//! rendered from the view [`super::view`] builds of the answer, so the answer does not reach
//! back to what reads it. A finished tune's
//! answer is kept (`tune.json`, `tune.txt`), and `--resume` of it prints it again.

use super::answer::Answer;
use super::search::FsSearch;
use crate::cli::{TuneArgs, TuneFormat};
use std::path::Path;

/// Print the answer and save `tune.json`.
pub fn print(args: &TuneArgs, searches: &[FsSearch], a: &Answer, out: &Path) -> anyhow::Result<()> {
    let j = super::answer::json(args, searches, a);
    let mut bytes = serde_json::to_vec_pretty(&j)?;
    bytes.push(b'\n');
    fsbattery_core::atomic::write(&out.join("tune.json"), &bytes)?;
    let view = super::view::view(&args.objective, args.alpha, args.margin, searches, a);
    let page = fsbattery_report::tune::chart::html(&view);
    fsbattery_core::atomic::write(&out.join("tune.html"), page.as_bytes())?;
    let text = format!(
        "{}\nresults: {}\nreport:  {}\ncharts:  {}\n",
        fsbattery_report::tune::text::text(&view)?,
        out.display(),
        out.join("report.html").display(),
        out.join("tune.html").display()
    );
    fsbattery_core::atomic::write(&out.join(TEXT), text.as_bytes())?;
    let shown = match args.format {
        TuneFormat::Json => String::from_utf8(bytes)?,
        TuneFormat::Table => text,
    };
    crate::stdout::write_unless_closed(shown)
}

/// The text answer saved beside `tune.json`, so a finished tune can show it again.
const TEXT: &str = "tune.txt";

/// `--resume` of a tune that finished: its answer again, as it was printed (None when the
/// tune in `out` has not finished).
pub fn finished(args: &TuneArgs, out: &Path) -> Option<String> {
    let file = match args.format {
        TuneFormat::Json => "tune.json",
        TuneFormat::Table => TEXT,
    };
    out.join("tune.json")
        .is_file()
        .then(|| std::fs::read_to_string(out.join(file)).ok())
        .flatten()
}

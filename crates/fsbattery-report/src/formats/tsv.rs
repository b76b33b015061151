//! TSV: the CSV rows (one per sample, with its cell's statistics) separated by tabs, for
//! tools that split lines on tabs (`cut`, `awk -F'\t'`, spreadsheets pasting a column).

use crate::{Format, Options, RenderError, Renderer, Report};

/// The TSV format's entry in [`super::FORMATS`].
pub const FORMAT: Format = Format {
    name: "tsv",
    about: "The CSV rows with tabs between the fields",
    noun: "tsv",
    run_file: None,
    stdout: true,
    terminal: false,
    renderer: |_: &Options| Box::new(Tsv),
};

/// Renders every sample of every cell as tab-separated values.
pub struct Tsv;

impl Renderer for Tsv {
    fn render(&self, report: &Report<'_>) -> Result<Vec<u8>, RenderError> {
        crate::csv_out::delimited(report, b'\t')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same rows as the CSV, a tab where the CSV has a comma between fields.
    #[test]
    fn tsv_is_the_csv_with_tabs() {
        let rec = crate::compare::tests::record(&[1.0, 2.0]);
        let report = Report::new(&rec, fsbattery_stats::Aggregate::Mean);
        let csv = String::from_utf8(crate::csv_out::Csv.render(&report).unwrap()).unwrap();
        let tsv = String::from_utf8(Tsv.render(&report).unwrap()).unwrap();
        assert!(!csv.contains('\t') && csv.lines().count() == 3, "{csv}");
        assert_eq!(tsv, csv.replace(',', "\t"));
    }
}

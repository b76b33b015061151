//! `--format` and `--export` values, generated from the report crate's table of formats
//! ([`fsbattery_report::formats::FORMATS`]), so a format's name is spelled there alone.

use clap::builder::PossibleValue;
use clap::ValueEnum;
use fsbattery_report::formats::{Format, FORMATS};
use std::path::PathBuf;
use std::sync::OnceLock;

/// A format that can go to stdout: one `--format` value per such entry of the table.
#[derive(Debug, Clone, Copy)]
pub struct FormatArg(pub &'static Format);

impl ValueEnum for FormatArg {
    fn value_variants<'a>() -> &'a [Self] {
        // clap asks for a slice of values; the table is static, so it is built once.
        static TO_STDOUT: OnceLock<Vec<FormatArg>> = OnceLock::new();
        TO_STDOUT.get_or_init(|| {
            FORMATS
                .iter()
                .filter(|f| f.stdout)
                .map(|f| FormatArg(f))
                .collect()
        })
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name).help(self.0.about))
    }
}

/// `--export FORMAT:FILE`: a format of the table and the file it goes to; `-` is stdout.
#[derive(Debug, Clone)]
pub struct ExportArg {
    /// The format.
    pub format: &'static Format,
    /// The file, `None` for stdout.
    pub file: Option<PathBuf>,
}

impl std::str::FromStr for ExportArg {
    type Err = String;

    fn from_str(s: &str) -> Result<ExportArg, String> {
        let names = || {
            FORMATS
                .iter()
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some((name, file)) = s.split_once(':').filter(|(_, f)| !f.is_empty()) else {
            return Err(format!(
                "expected FORMAT:FILE (e.g. csv:results.csv, or csv:- for stdout), FORMAT one of {}",
                names()
            ));
        };
        let Some(format) = FORMATS.iter().copied().find(|f| f.name == name) else {
            return Err(format!("unknown format {name:?}: one of {}", names()));
        };
        if file == "-" && !format.stdout {
            return Err(format!(
                "{name} is not text and cannot go to stdout: give a FILE"
            ));
        }
        Ok(ExportArg {
            format,
            file: (file != "-").then(|| PathBuf::from(file)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_values_name_a_format_of_the_table_and_a_file_or_stdout() {
        let e: ExportArg = "csv:out/r.csv".parse().unwrap();
        assert_eq!(e.format.name, "csv");
        assert_eq!(e.file, Some(PathBuf::from("out/r.csv")));
        assert_eq!("json:-".parse::<ExportArg>().unwrap().file, None);
        for bad in ["csv", "csv:", "nonesuch:x", ":x"] {
            assert!(bad.parse::<ExportArg>().is_err(), "{bad}");
        }
    }

    #[test]
    fn format_values_are_the_table_s_formats_that_may_go_to_stdout() {
        let values: Vec<&str> = FormatArg::value_variants()
            .iter()
            .map(|f| f.0.name)
            .collect();
        let stdout: Vec<&str> = FORMATS
            .iter()
            .filter(|f| f.stdout)
            .map(|f| f.name)
            .collect();
        assert_eq!(values, stdout);
        assert!(
            values.starts_with(&["table", "markdown", "csv", "json"]),
            "{values:?}"
        );
    }
}

//! The report formats, registered in one table ([`FORMATS`]), as workloads and targets are.
//!
//! Role: each format is one [`Format`] value, declared beside its renderer, that carries its
//! own name, the help line shown by `--format`, its capabilities (may it go to stdout, the
//! file it is in every run directory) and how to make its [`crate::Renderer`] from the
//! output's [`Options`]. The binary builds its `--format` values and its run-directory files
//! from this table alone and sends every format down one output path (its `cmd/outputs.rs`,
//! after hyperfine's `ExportManager`), so a value is spelled once, here.
//!
//! Adding a format: one file in this folder with its renderer and its `FORMAT`, and one line in
//! [`FORMATS`] (docs/src/adding-a-format.md shows the diff). The formats written before this
//! table existed keep their modules at the crate's top (`csv_out`, `markdown`, ...), whose
//! paths are public.

mod json;
mod tsv;

pub use crate::{Format, Options};

/// Every report format, in the order `--format` lists them.
pub static FORMATS: &[&Format] = &[
    &crate::table::FORMAT,
    &crate::markdown::FORMAT,
    &crate::csv_out::FORMAT,
    &json::FORMAT,
    &tsv::FORMAT,
    &crate::html::FORMAT,
    #[cfg(feature = "xlsx")]
    &crate::xlsx::FORMAT,
];

/// The JSON format (the run record with each cell's statistics), which the binary also
/// writes for `--json FILE`.
pub const JSON: &Format = &json::FORMAT;

/// The format named `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Format> {
    FORMATS.iter().copied().find(|f| f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_run_files_are_each_given_once() {
        for (i, f) in FORMATS.iter().enumerate() {
            for g in &FORMATS[i + 1..] {
                assert_ne!(f.name, g.name);
                assert!(
                    f.run_file.is_none() || f.run_file != g.run_file,
                    "{f:?} {g:?}"
                );
            }
            assert_eq!(find(f.name), Some(*f));
        }
        assert_eq!(find("nonesuch"), None);
    }

    /// A run directory holds what it always has (readers of old and new run directories
    /// find the same files), and the HTML report `run` names is one of them.
    #[test]
    fn a_run_directory_holds_the_same_files() {
        let files: Vec<_> = FORMATS.iter().filter_map(|f| f.run_file).collect();
        assert_eq!(
            files,
            ["results.md", "results.csv", "results.json", "report.html"]
        );
        assert_eq!(crate::html::FORMAT.run_file, Some("report.html"));
    }

    #[test]
    fn exactly_one_format_is_the_terminal_table() {
        let t: Vec<_> = FORMATS.iter().filter(|f| f.terminal).collect();
        assert_eq!(t.len(), 1, "{t:?}");
        assert!(t[0].stdout);
    }
}

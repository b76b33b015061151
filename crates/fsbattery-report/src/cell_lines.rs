//! The results without a terminal: one line per cell, "row label · target: value unit marks",
//! in place of the matrix tables. A pipe, a log or `grep` gets whole, self-describing lines
//! whatever the number of targets, where a table would be cut or wrapped into fragments.

use crate::matrix::{Matrix, Row};

/// One line per cell of `m`; `text(row, i)` gives cell `i`'s value and what follows it (the
/// table's own cell text, so both forms say the same). The unit follows the value when
/// `with_unit`; a row label's line breaks become spaces so each cell stays one line.
pub fn render(
    m: &Matrix,
    with_unit: bool,
    text: impl Fn(&Row, usize) -> (String, String),
) -> String {
    let mut out = String::new();
    for row in &m.rows {
        let unit = if with_unit { row.unit.as_str() } else { "" };
        for (i, column) in m.columns.iter().enumerate() {
            let (value, marks) = text(row, i);
            out.push_str(&line(&row.label, column, unit, &value, &marks));
        }
    }
    out
}

/// "label · column: value unit marks\n"; the unit only after a number, the label on one line.
fn line(label: &str, column: &str, unit: &str, value: &str, marks: &str) -> String {
    let label = label.split_whitespace().collect::<Vec<_>>().join(" ");
    let unit = if !unit.is_empty() && has_number(value) {
        format!(" {unit}")
    } else {
        String::new()
    };
    format!("{label} · {column}: {value}{unit}{marks}\n")
}

/// Whether a cell's text starts with a measured number (not "n/a", "failed", "-").
fn has_number(value: &str) -> bool {
    let digits = value.trim_start_matches('-');
    digits.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cell_is_one_line_with_its_unit_after_the_value() {
        assert_eq!(
            line("Touch 2,000\nFiles", "ext4", "s", "0.019 ±0.0017", " * ~"),
            "Touch 2,000 Files · ext4: 0.019 ±0.0017 s * ~\n"
        );
        assert_eq!(
            line("Write", "xfs data=journal", "MB/s", "-12.5 ±1.0", ""),
            "Write · xfs data=journal: -12.5 ±1.0 MB/s\n"
        );
        assert_eq!(line("mkfs", "tmpfs", "s", "n/a", ""), "mkfs · tmpfs: n/a\n");
        assert_eq!(line("mkfs", "tmpfs", "s", "-", ""), "mkfs · tmpfs: -\n");
        assert_eq!(
            line("CPU", "ext4", "", "45.2", " *"),
            "CPU · ext4: 45.2 *\n"
        );
    }
}

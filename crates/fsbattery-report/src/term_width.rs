//! How wide the terminal table may be: `COLUMNS` when set (a script or a narrow pane says so),
//! else the terminal's own width on a terminal, else unbounded (a pipe or file keeps each row
//! on one line, for grep) — unless the caller gives a width, as the binary's terminal output
//! does (100 columns when piped, see `fsbattery`'s `width`). Within the width comfy-table wraps cells (labels first, being the
//! widest), so six targets fit 100 columns instead of running off the edge.

use comfy_table::{ContentArrangement, Table};

/// Narrower than this, wrapping makes every cell a column of fragments: ignored.
const MIN_COLUMNS: u16 = 40;

/// `COLUMNS` as a width, when it is a number of at least 40 (narrower is ignored).
pub fn columns() -> Option<u16> {
    let v = std::env::var("COLUMNS").ok()?;
    v.trim().parse().ok().filter(|w| *w >= MIN_COLUMNS)
}

/// Fit `t` to [`columns`], or to the terminal when `tty`.
pub fn apply(t: &mut Table, tty: bool) {
    apply_width(t, tty, columns());
}

/// Fit `t` to `width`; without one, to the terminal (comfy-table measures it) when `tty`.
pub fn apply_width(t: &mut Table, tty: bool, width: Option<u16>) {
    match width {
        Some(w) => {
            t.set_content_arrangement(ContentArrangement::Dynamic);
            t.set_width(w);
        }
        None if tty => {
            t.set_content_arrangement(ContentArrangement::Dynamic);
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_targets_fit_a_hundred_columns() {
        let mut t = Table::new();
        t.force_no_tty();
        let mut header = vec!["test".to_string(), "unit".to_string()];
        header.extend((1..=6).map(|i| format!("ext4 data=journal {i}")));
        t.set_header(header);
        let mut row = vec![
            "The amount of space available after formatting with the default options".to_string(),
            "MiB".to_string(),
        ];
        row.extend((1..=6).map(|_| "0.0123 ±0.0045 ≈".to_string()));
        t.add_row(row);
        apply_width(&mut t, false, Some(100));
        let text = t.to_string();
        for l in text.lines() {
            assert!(l.chars().count() <= 100, "{} wide: {l}", l.chars().count());
        }
        assert!(text.contains("0.0123"), "numbers are kept whole:\n{text}");
    }
}

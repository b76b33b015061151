//! Prose lines of the terminal output (legend, notes, closing lines) wrapped at a width, so a
//! 478-character legend reads as a paragraph in a 100-column pane or log. Table lines (box
//! drawing) are left alone: comfy-table fits them itself ([`crate::term_width`]).
//!
//! Invariants: words are never split (a path or a URL longer than the width stays whole on
//! its own line); a wrapped line's continuation is indented two spaces past the line's own
//! indentation, so a paragraph's lines stay recognisably one item; widths are in characters.

/// Whether `line` belongs to a table drawn by comfy-table.
fn is_table(line: &str) -> bool {
    line.starts_with(['│', '┌', '╞', '└', '├', '╭', '╰', '┆'])
}

/// `text` with every line longer than `width` characters (other than table lines) wrapped.
pub fn wrap_text(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if is_table(body) || body.chars().count() <= width {
            out.push_str(line);
            continue;
        }
        out.push_str(&wrap_line(body, width));
        out.push_str(nl);
    }
    out
}

/// One long line as several, broken between words.
fn wrap_line(line: &str, width: usize) -> String {
    let indent = line.len() - line.trim_start().len();
    let hang = " ".repeat(indent + 2);
    let mut out = String::new();
    let mut current = line[..indent].to_string();
    let mut len = indent;
    let mut first_word = true;
    for word in line.split_whitespace() {
        let w = word.chars().count();
        if !first_word && len + 1 + w > width {
            out.push_str(current.trim_end());
            out.push('\n');
            current = hang.clone();
            len = hang.len();
            first_word = true;
        }
        if !first_word {
            current.push(' ');
            len += 1;
        }
        current.push_str(word);
        len += w;
        first_word = false;
    }
    out.push_str(current.trim_end());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_between_words_with_a_hanging_indent() {
        let text = "  alpha beta gamma delta epsilon\nshort\n│ table line that is long │\n";
        let w = wrap_text(text, 16);
        assert_eq!(
            w,
            "  alpha beta\n    gamma delta\n    epsilon\nshort\n│ table line that is long │\n"
        );
        for l in w.lines().filter(|l| !l.starts_with('│')) {
            assert!(l.chars().count() <= 16, "{l}");
        }
    }

    #[test]
    fn a_word_longer_than_the_width_stays_whole() {
        let w = wrap_text("see /a/very/long/path/that/cannot/break now", 10);
        assert_eq!(w, "see\n  /a/very/long/path/that/cannot/break\n  now");
    }

    #[test]
    fn characters_not_bytes_are_counted() {
        let line = "ä ".repeat(8);
        assert_eq!(wrap_text(line.trim_end(), 15), "ä ä ä ä ä ä ä ä");
    }
}

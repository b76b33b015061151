//! Byte sizes as people write them: `64MiB` in, `64MiB` out. A leaf: the error messages,
//! the parameter specs, the target specs and the reports all show sizes, so this module
//! depends on nothing in the crate.
//!
//! Sizes take binary suffixes (K, M, G, T, P, E, with optional "iB"/"B": `64M` = `64MiB` =
//! 67,108,864 bytes), as dd and fio read them.

/// Parse "64MiB", "1G", "4096", "10M" into bytes (binary multiples).
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !c.is_ascii_digit() && c != '_')
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    let n: u64 = num.replace('_', "").parse().ok()?;
    let mult: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        "p" | "pb" | "pib" => 1 << 50,
        "e" | "eb" | "eib" => 1 << 60,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// Bytes as a user types them (`64MiB`); defined with the record, which reports print from.
pub use fsbattery_record::format_bytes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("64MiB"), Some(64 << 20));
        assert_eq!(parse_bytes("64M"), Some(64 << 20));
        assert_eq!(parse_bytes("1g"), Some(1 << 30));
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("1EiB"), Some(1 << 60));
        assert_eq!(parse_bytes("16E"), None, "overflows u64");
        assert_eq!(parse_bytes("-1"), None);
        assert_eq!(parse_bytes("12x"), None);
        assert_eq!(parse_bytes(""), None);
    }

    #[test]
    fn bytes_format_round_trips_exact_units() {
        for v in [4096u64, 64 << 20, 1 << 30, 1000] {
            assert_eq!(parse_bytes(&format_bytes(v)), Some(v));
        }
        assert_eq!(format_bytes(1536), "1.5KiB");
    }
}

//! fio's value syntax (fio 3.x `parse.c`, `kb_base=1024`, the default): sizes where `k`, `kb`
//! mean 1024 and `ki`, `kib` mean 1000 (fio's compatibility inversion, see its HOWTO "int"),
//! an optional `0x` prefix, decimals; times in seconds by default (or the option's own
//! default unit) with `d h m s ms us` suffixes; ranges `A-B` or `A:B`; per-direction lists
//! `read,write[,trim]`; booleans; percentages.
//!
//! Pure; every error is a short phrase the caller prefixes with the option and its place.

/// A size in bytes (`4k` = 4096, `1m` = 1 MiB, `1mi` = 10^6, `4096`, `0x1000`, `1.5g`).
pub fn size(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let bad = || format!("'{s}' is not a fio size (e.g. 4k, 256m, 1g)");
    if let Some(hex) = t.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).map_err(|_| bad());
    }
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let suffix = suffix.trim();
    let suffix = suffix.strip_suffix('b').unwrap_or(suffix);
    let (prefix, decimal) = match suffix.strip_suffix('i') {
        Some(p) => (p, true),
        None => (suffix, false),
    };
    let power = match prefix {
        "" => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return Err(bad()),
    };
    if decimal && power == 0 {
        return Err(bad());
    }
    let base: f64 = if decimal { 1000.0 } else { 1024.0 };
    let n: f64 = num.parse().map_err(|_| bad())?;
    let v = n * base.powi(power);
    if !(0.0..1.8e19).contains(&v) {
        return Err(bad());
    }
    Ok(v as u64)
}

/// A time in nanoseconds; a bare number is in `unit_ns` (1e9 for most options, 1e3 for
/// `thinktime`, which fio reads in microseconds).
pub fn time_ns(s: &str, unit_ns: u64) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let bad = || format!("'{s}' is not a fio time (e.g. 60, 60s, 2m, 500ms, 100us)");
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let mult: f64 = match suffix.trim() {
        "" => unit_ns as f64,
        "us" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        "d" => 86400e9,
        _ => return Err(bad()),
    };
    let n: f64 = num.parse().map_err(|_| bad())?;
    let v = n * mult;
    if !(0.0..1.8e19).contains(&v) {
        return Err(bad());
    }
    Ok(v as u64)
}

/// A whole number (sizes' suffixes allowed, as fio's int options take them).
pub fn int(s: &str) -> Result<u64, String> {
    size(s).map_err(|_| format!("'{s}' is not a whole number"))
}

/// A boolean: 1/0, true/false, yes/no, on/off; a bare key is true.
pub fn boolean(v: Option<&str>) -> Result<bool, String> {
    match v.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("1") | Some("true") | Some("yes") | Some("on") => Ok(true),
        Some("0") | Some("false") | Some("no") | Some("off") => Ok(false),
        Some(o) => Err(format!("'{o}' is not 0 or 1")),
    }
}

/// A percentage 0..=100.
pub fn percent(s: &str) -> Result<u32, String> {
    let n = int(s)?;
    if n > 100 {
        return Err(format!("{n} is not a percentage (0 to 100)"));
    }
    Ok(n as u32)
}

/// `A-B` or `A:B` (swapped when A > B, as fio does), or a single size `A` (A-A).
pub fn size_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = match s.split_once(['-', ':']) {
        Some((a, b)) => (size(a)?, size(b)?),
        None => {
            let v = size(s)?;
            (v, v)
        }
    };
    Ok((a.min(b), a.max(b)))
}

/// fio's per-direction list `read,write[,trim]`: an empty or absent write entry repeats the
/// read one (fio: "bs=4k" is 4k for both; "bs=,8k" sets writes only, reads keep `default`).
/// `seps` are the separators the option allows (`,` everywhere; `/` too for ranges).
pub fn per_direction<'a>(s: &'a str, default: &'a str, seps: &[char]) -> [&'a str; 2] {
    let mut parts = s.split(seps).map(str::trim);
    let read = parts.next().unwrap_or("");
    let write = parts.next();
    let r = if read.is_empty() { default } else { read };
    let w = match write {
        None => r,
        Some("") => r,
        Some(w) => w,
    };
    [r, w]
}

/// `bssplit`'s entries for one direction: `4k/10:64k/50:32k` (block size / percent, `:`
/// between entries); entries without a percent share what is left equally, as fio does.
pub fn bssplit(s: &str) -> Result<Vec<(u64, u32)>, String> {
    let mut out: Vec<(u64, Option<u32>)> = Vec::new();
    for e in s.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        let (bs, pct) = match e.split_once('/') {
            Some((b, p)) => (size(b)?, Some(percent(p)?)),
            None => (size(e)?, None),
        };
        if bs == 0 {
            return Err("a block size of 0".into());
        }
        out.push((bs, pct));
    }
    if out.is_empty() {
        return Err(format!("'{s}' holds no block size (e.g. 4k/70:64k/30)"));
    }
    let given: u32 = out.iter().filter_map(|(_, p)| *p).sum();
    if given > 100 {
        return Err(format!("percentages in '{s}' add up to {given}, over 100"));
    }
    let open = out.iter().filter(|(_, p)| p.is_none()).count() as u32;
    let share = (100 - given).checked_div(open).unwrap_or(0);
    let mut v: Vec<(u64, u32)> = out.iter().map(|(b, p)| (*b, p.unwrap_or(share))).collect();
    // What integer division left over goes to the last open entry (fio fills up to 100).
    if let Some(i) = out.iter().rposition(|(_, p)| p.is_none()) {
        let total: u32 = v.iter().map(|(_, p)| *p).sum();
        v[i].1 += 100 - total;
    }
    v.retain(|(_, p)| *p > 0);
    if v.is_empty() {
        return Err(format!("'{s}': every entry has 0 %"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_kb_base_1024() {
        for (s, v) in [
            ("4k", 4096),
            ("4KB", 4096),
            ("4kib", 4000),
            ("1mi", 1_000_000),
            ("256m", 256 << 20),
            ("1g", 1 << 30),
            ("4096", 4096),
            ("0x1000", 4096),
            ("1.5k", 1536),
            ("10G", 10 << 30),
        ] {
            assert_eq!(size(s).unwrap(), v, "{s}");
        }
        for s in ["", "k", "4x", "-1", "1e9", "4i", "99999999999p"] {
            assert!(size(s).is_err(), "{s}");
        }
    }

    #[test]
    fn times_ranges_lists_and_splits() {
        assert_eq!(time_ns("5", 1_000_000_000).unwrap(), 5_000_000_000);
        assert_eq!(time_ns("2m", 1).unwrap(), 120_000_000_000);
        assert_eq!(time_ns("100", 1000).unwrap(), 100_000);
        assert_eq!(time_ns("10ms", 1).unwrap(), 10_000_000);
        assert_eq!(size_range("16k-4k").unwrap(), (4096, 16384));
        assert_eq!(size_range("4k:8k").unwrap(), (4096, 8192));
        assert_eq!(per_direction("4k", "4k", &[',']), ["4k", "4k"]);
        assert_eq!(per_direction("4k,8k", "4k", &[',']), ["4k", "8k"]);
        assert_eq!(per_direction(",8k", "4k", &[',']), ["4k", "8k"]);
        assert_eq!(
            per_direction("1k-4k/8k-32k", "", &[',', '/']),
            ["1k-4k", "8k-32k"]
        );
        assert_eq!(
            bssplit("4k/10:64k/50:32k").unwrap(),
            [(4096, 10), (65536, 50), (32768, 40)]
        );
        assert_eq!(bssplit("4k:8k:16k").unwrap()[2], (16384, 34));
        assert!(bssplit("4k/60:8k/50").is_err());
        assert!(boolean(None).unwrap() && !boolean(Some("0")).unwrap());
        assert!(percent("101").is_err());
    }
}

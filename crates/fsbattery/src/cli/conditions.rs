//! Parsers of the run conditions `--repeat N|auto[:MIN..MAX]`, `--precision PCT`,
//! `--budget DURATION` and `--age PCT[,seed=N]`: pure, so a mistake is a clap usage error (exit 2) naming the form.

use fsbattery_core::params;
use fsbattery_record::aging::AgeSpec;
use fsbattery_record::repeats::AutoRepeat;

/// `--repeat`: a fixed count, or auto with bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatArg {
    /// Exactly N repeats.
    Fixed(u32),
    /// As many as `--precision` needs, from `min` to `max`.
    Auto {
        /// At least this many (≥ 2).
        min: u32,
        /// At most this many.
        max: u32,
    },
}

/// `--repeat`: 1 to [`params::MAX_REPEAT`], or `auto`, or `auto:MIN..MAX`.
pub(super) fn repeat(s: &str) -> Result<RepeatArg, String> {
    let t = s.trim();
    let Some(rest) = t.strip_prefix("auto") else {
        let n = super::whole(t, 1..=i64::from(params::MAX_REPEAT))
            .map_err(|e| format!("{e}, or auto, or auto:MIN..MAX"))?;
        return params::repeat(n).map(RepeatArg::Fixed);
    };
    if rest.is_empty() {
        return Ok(RepeatArg::Auto {
            min: AutoRepeat::DEFAULT_MIN,
            max: AutoRepeat::DEFAULT_MAX,
        });
    }
    let bad = || {
        format!(
            "auto bounds must read auto:MIN..MAX with 2 ≤ MIN ≤ MAX ≤ {}, e.g. auto:3..15",
            params::MAX_REPEAT
        )
    };
    let (min, max) = rest
        .strip_prefix(':')
        .and_then(|r| r.split_once(".."))
        .ok_or_else(bad)?;
    let range = 2..=i64::from(params::MAX_REPEAT);
    let min = super::whole(min, range.clone()).map_err(|_| bad())?;
    let max = super::whole(max, range).map_err(|_| bad())?;
    if min > max {
        return Err(bad());
    }
    Ok(RepeatArg::Auto {
        min: min as u32,
        max: max as u32,
    })
}

/// `--precision`: a percentage above 0, at most 100.
pub(super) fn precision(s: &str) -> Result<f64, String> {
    let pct: f64 = s
        .trim()
        .trim_end_matches('%')
        .trim()
        .parse()
        .map_err(|_| "must be a percentage above 0 and at most 100, e.g. 3".to_string())?;
    if !(pct > 0.0 && pct <= 100.0) {
        return Err("must be a percentage above 0 and at most 100, e.g. 3".into());
    }
    Ok(pct)
}

/// `--budget`: a duration as humantime writes them (`30m`, `1h 30m`, `90s`), above zero.
pub(super) fn budget(s: &str) -> Result<std::time::Duration, String> {
    let bad = || "must be a duration above zero, e.g. 30m, 2h or 90s".to_string();
    let d = humantime::parse_duration(s.trim()).map_err(|_| bad())?;
    if d.is_zero() {
        return Err(bad());
    }
    Ok(d)
}

/// `--weights`: `GROUP=W`, W a finite number from 0 to 100 (0 leaves the group out).
pub(super) fn weight(s: &str) -> Result<(String, f64), String> {
    let bad = || "must read GROUP=W with W from 0 to 100, e.g. tree=2 or filesystem=1".to_string();
    let (group, w) = s.split_once('=').ok_or_else(bad)?;
    let w: f64 = w.trim().parse().map_err(|_| bad())?;
    if group.trim().is_empty() || !(0.0..=100.0).contains(&w) {
        return Err(bad());
    }
    Ok((group.trim().to_string(), w))
}

/// `--age`: `PCT[,seed=N]`, PCT from 1 to 95 (a full filesystem leaves the workloads no room).
pub(super) fn age(s: &str) -> Result<AgeSpec, String> {
    let bad = || "must read PCT[,seed=N] with PCT from 1 to 95, e.g. 70,seed=7".to_string();
    let mut parts = s.trim().split(',');
    let pct = parts.next().unwrap_or("").trim();
    let pct = super::whole(pct.trim_end_matches('%'), 1..=95).map_err(|_| bad())?;
    let mut seed = AgeSpec::DEFAULT_SEED;
    for p in parts {
        let v = p.trim().strip_prefix("seed=").ok_or_else(bad)?;
        seed = v.trim().parse().map_err(|_| bad())?;
    }
    Ok(AgeSpec {
        pct: pct as u32,
        seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_forms() {
        assert_eq!(repeat("5"), Ok(RepeatArg::Fixed(5)));
        assert_eq!(repeat("auto"), Ok(RepeatArg::Auto { min: 3, max: 30 }));
        assert_eq!(repeat("auto:2..4"), Ok(RepeatArg::Auto { min: 2, max: 4 }));
        for bad in [
            "0",
            "auto:1..4",
            "auto:5..4",
            "auto:3",
            "auto3..4",
            "autox",
            "-1",
        ] {
            assert!(repeat(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn budget_forms() {
        assert_eq!(budget("30m"), Ok(std::time::Duration::from_secs(1800)));
        assert_eq!(budget("1h 30m"), Ok(std::time::Duration::from_secs(5400)));
        for bad in ["", "0s", "soon", "-5m", "10"] {
            assert!(budget(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn weight_forms() {
        assert_eq!(weight("tree=2"), Ok(("tree".into(), 2.0)));
        assert_eq!(weight("filesystem=0.5"), Ok(("filesystem".into(), 0.5)));
        for bad in ["", "tree", "=2", "tree=-1", "tree=x", "tree=1000"] {
            assert!(weight(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn precision_and_age_forms() {
        assert_eq!(precision("3"), Ok(3.0));
        assert_eq!(precision("0.5%"), Ok(0.5));
        for bad in ["0", "-1", "101", "nan", "inf", ""] {
            assert!(precision(bad).is_err(), "{bad}");
        }
        assert_eq!(age("70"), Ok(AgeSpec { pct: 70, seed: 1 }));
        assert_eq!(age("70,seed=9"), Ok(AgeSpec { pct: 70, seed: 9 }));
        for bad in ["0", "96", "70,sed=1", "70,seed=x", "x"] {
            assert!(age(bad).is_err(), "{bad}");
        }
    }
}

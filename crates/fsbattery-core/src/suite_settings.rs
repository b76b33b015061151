//! How a suite says its seed measured, beside what it measured: the cache policy and the
//! pause before each timed phase (at every scale; quick may shorten the pause), the method
//! of each workload (`method = "commands"`: S1's one process per file), a note on a fixed
//! parameter, and default mkfs/mount options per filesystem (`[fs.xfs] mount = "logbufs=8"`).
//!
//! The suite parser ([`crate::suite`]) calls these checks on the raw TOML values; a bad value
//! fails with the file, line and key like every other suite error. The command line overrides
//! each of them (`--cache`, `--pause`, `--method`, a target's own `mkfs=`/`mount=`), and the
//! record says which was used ([`fsbattery_record::settings`]).

use crate::error::UsageError;
use crate::model::CachePolicy;
use crate::params::Scale;
use crate::targets::{FsDefault, FsDefaults};
use crate::workload::Method;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// Builds a suite-file error at a byte offset for a key.
pub(crate) type ErrAt<'a> = &'a dyn Fn(usize, &str, String) -> UsageError;

/// The longest pause quick scale keeps when the suite gives no `pause_quick`: quick runs
/// small files in seconds, and a 10 s pause before each of S1's ~20 phases would make it a
/// run of minutes; the sync and the (shortened) pause still happen, and the plan says so.
pub const QUICK_PAUSE_CAP: f64 = 0.1;

/// A `[fs.NAME]` table of a suite file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FsEntry {
    mkfs: Option<String>,
    mount: Option<String>,
}

/// A `[[workload]]`'s own settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkloadSetting {
    /// `method = "commands"|"native"`; `None` follows the run's `--method`.
    pub method: Option<Method>,
    /// Why a parameter is fixed (recorded with the run).
    pub note: Option<String>,
    /// `cache = ...`: this workload's policy, unless `--cache` (see [`crate::cache_plan`]).
    pub cache: Option<CachePolicy>,
    /// `phase_cache = { metric = policy }`: single phases that differ.
    pub phase_cache: BTreeMap<String, CachePolicy>,
}

/// The suite's pauses in seconds: `pause` (or its old name `pause_full`) at standard and
/// full scale, `pause_quick` at quick scale when given.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pauses {
    /// Before each timed phase, seconds.
    pub pause: f64,
    /// Quick scale's, if the suite sets one.
    pub quick: Option<f64>,
    /// Given as `pause_full`, which applied at full scale only before it became `pause`.
    pub old_name: bool,
}

impl Pauses {
    /// The pause at `scale`, and a note when it is not the suite's `pause` (quick scale).
    pub fn at(&self, scale: Scale) -> (f64, Option<String>) {
        let (secs, mut notes) = match scale {
            Scale::Quick => {
                let quick = self.quick.unwrap_or(self.pause.min(QUICK_PAUSE_CAP));
                let shortened = (quick != self.pause)
                    .then(|| format!("shortened from {} s at quick scale", self.pause));
                (quick, shortened.into_iter().collect::<Vec<_>>())
            }
            _ => (self.pause, Vec::new()),
        };
        if self.old_name {
            notes.push("the suite's pause_full, read as pause: it applies at every scale".into());
        }
        (secs, (!notes.is_empty()).then(|| notes.join("; ")))
    }
}

/// `cache = "none"|"tool"|"cold"|"warm"`.
pub(crate) fn cache(
    v: &Option<Spanned<String>>,
    err: ErrAt<'_>,
) -> Result<Option<CachePolicy>, UsageError> {
    let Some(v) = v else { return Ok(None) };
    let policy = match v.get_ref().as_str() {
        "none" => CachePolicy::None,
        "tool" => CachePolicy::Tool,
        "cold" => CachePolicy::Cold,
        "warm" => CachePolicy::Warm,
        other => {
            return Err(err(
                v.span().start,
                "cache",
                format!(
                    "cache = {other:?}: use \"none\" (sync only), \"tool\", \"cold\" or \"warm\""
                ),
            ))
        }
    };
    Ok(Some(policy))
}

/// `pause` (alias `pause_full`, its name before it applied at every scale) and
/// `pause_quick`, each finite seconds from 0 to an hour; no pause key: 0.
pub(crate) fn pauses(
    pause: &Option<Spanned<f64>>,
    pause_full: &Option<Spanned<f64>>,
    pause_quick: &Option<Spanned<f64>>,
    err: ErrAt<'_>,
) -> Result<Pauses, UsageError> {
    if let (Some(_), Some(old)) = (pause, pause_full) {
        return Err(err(
            old.span().start,
            "pause_full",
            "pause_full is the old name of pause: give only pause".into(),
        ));
    }
    let checked = |v: &Option<Spanned<f64>>, key: &str| -> Result<Option<f64>, UsageError> {
        let Some(p) = v else { return Ok(None) };
        let secs = *p.get_ref();
        crate::params::pause(secs)
            .map_err(|m| err(p.span().start, key, format!("{key} = {secs}: {m}")))?;
        Ok(Some(secs))
    };
    let main = match checked(pause, "pause")? {
        Some(p) => Some(p),
        None => checked(pause_full, "pause_full")?,
    };
    Ok(Pauses {
        pause: main.unwrap_or(0.0),
        quick: checked(pause_quick, "pause_quick")?,
        old_name: pause.is_none() && pause_full.is_some(),
    })
}

/// A `[[workload]]`'s `method` and `note`.
pub(crate) fn workload(
    method: &Option<Spanned<String>>,
    note: &Option<String>,
    err: ErrAt<'_>,
) -> Result<WorkloadSetting, UsageError> {
    let method = match method {
        None => None,
        Some(m) => Some(match m.get_ref().as_str() {
            "native" => Method::Native,
            "commands" => Method::Commands,
            other => {
                return Err(err(
                    m.span().start,
                    "method",
                    format!("method = {other:?}: use \"native\" or \"commands\""),
                ))
            }
        }),
    };
    Ok(WorkloadSetting {
        method,
        note: note.clone(),
        ..WorkloadSetting::default()
    })
}

/// `[fs.NAME]` tables: NAME a filesystem fsbattery can make, `tmpfs`, or `"*"` (every one
/// without its own table); tmpfs takes no `mkfs`.
pub(crate) fn fs_defaults(
    v: &Option<Spanned<BTreeMap<String, FsEntry>>>,
    err: ErrAt<'_>,
) -> Result<FsDefaults, UsageError> {
    let mut out = BTreeMap::new();
    let Some(tables) = v else {
        return Ok(FsDefaults(out));
    };
    let at = tables.span().start;
    for (name, e) in tables.get_ref() {
        let canonical = crate::targets::fs_name(name)
            .map_err(|m| err(at, "fs", format!("[fs.{name}]: {m}")))?;
        if !crate::targets::made_on_images(&canonical) && e.mkfs.is_some() {
            let why = format!("[fs.{canonical}]: {canonical} has no mkfs");
            return Err(err(at, "mkfs", why));
        }
        if let Some(m) = &e.mkfs {
            crate::targets::check_words(m)
                .map_err(|msg| err(at, "mkfs", format!("[fs.{name}] mkfs: {msg}")))?;
        }
        out.insert(
            canonical,
            FsDefault {
                mkfs: e.mkfs.clone(),
                mount: e.mount.clone(),
            },
        );
    }
    Ok(FsDefaults(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_shortens_the_pause_and_says_so() {
        let p = Pauses {
            pause: 10.0,
            quick: None,
            old_name: false,
        };
        assert_eq!(p.at(Scale::Standard), (10.0, None));
        assert_eq!(p.at(Scale::Full), (10.0, None));
        let (q, note) = p.at(Scale::Quick);
        assert_eq!(q, QUICK_PAUSE_CAP);
        assert_eq!(note.as_deref(), Some("shortened from 10 s at quick scale"));
        let p = Pauses {
            pause: 10.0,
            quick: Some(2.0),
            old_name: true,
        };
        assert_eq!(p.at(Scale::Quick).0, 2.0);
        let (secs, note) = p.at(Scale::Standard);
        assert_eq!(secs, 10.0);
        assert!(note.unwrap().contains("pause_full, read as pause"));
        let none = Pauses::default();
        assert_eq!(none.at(Scale::Quick), (0.0, None));
    }
}

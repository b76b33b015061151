//! Where the store lives by default: `$XDG_DATA_HOME/fsbattery/results.db`, else
//! `~/.local/share/fsbattery/results.db` (the XDG base directory default).

use std::path::PathBuf;

/// The default store path, or `None` when neither `XDG_DATA_HOME` nor `HOME` is set.
pub fn default_path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        // The spec says a relative XDG_DATA_HOME is invalid and must be ignored.
        Some(d) if PathBuf::from(&d).is_absolute() => PathBuf::from(d),
        _ => {
            PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".local/share")
        }
    };
    Some(base.join("fsbattery").join("results.db"))
}

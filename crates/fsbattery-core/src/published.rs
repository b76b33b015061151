//! The seeds' published numbers shipped with the presets (`suites/published/*.toml`).
//!
//! Role: a preset's run carries its seed's tables ([`fsbattery_record::published`]) so every
//! report can put them beside today's; `list suites NAME` and `report --then SUITE` show them.
//! The files are transcriptions of the seed texts (kept beside them in
//! `suites/published/seeds/`); tests/published.rs checks every value against its row there.

use crate::error::UsageError;
use fsbattery_record::published::Published;

/// (preset, TOML text) of every preset with published numbers.
const FILES: &[(&str, &str)] = &[
    (
        "piszcz2006",
        include_str!("../../../suites/published/piszcz2006.toml"),
    ),
    (
        "prolinux2013",
        include_str!("../../../suites/published/prolinux2013.toml"),
    ),
    (
        "iozone2016",
        include_str!("../../../suites/published/iozone2016.toml"),
    ),
    (
        "zfs2007",
        include_str!("../../../suites/published/zfs2007.toml"),
    ),
];

/// The published numbers of the preset named `suite` (its name or an alias), `None` for a
/// suite whose seed publishes none (postmark, io500) or a user's suite file.
pub fn for_suite(suite: &str) -> Option<Published> {
    let name = crate::suite::presets()
        .iter()
        .find(|p| p.name == suite || p.aliases.contains(&suite))
        .map_or(suite, |p| p.name);
    let (_, text) = FILES.iter().find(|(n, _)| *n == name)?;
    // The shipped files are parsed by this crate's tests; a failure here is a build defect.
    Some(parse(text).unwrap_or_else(|e| panic!("suites/published/{name}.toml: {e}")))
}

/// Parse a published-numbers file.
pub fn parse(text: &str) -> Result<Published, toml::de::Error> {
    toml::from_str(text)
}

/// The published numbers of `suite`, or a usage error naming those that have them.
pub fn for_suite_or_refuse(suite: &str) -> Result<Published, UsageError> {
    for_suite(suite).ok_or_else(|| {
        UsageError::Invalid(format!(
            "no published numbers for suite '{suite}': the seeds' tables ship for {}",
            names().join(", ")
        ))
    })
}

/// The presets with published numbers.
pub fn names() -> Vec<&'static str> {
    FILES.iter().map(|(n, _)| *n).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_file_parses_and_belongs_to_its_preset() {
        for name in super::names() {
            let p = super::for_suite(name).unwrap();
            assert_eq!(p.preset, name);
            for t in &p.tables {
                assert_eq!(t.columns.len(), t.fs.len(), "{name} {}", t.id);
                for r in &t.rows {
                    assert_eq!(r.values.len(), t.columns.len(), "{name} {}", r.label);
                }
            }
        }
        assert!(super::for_suite("classic").is_some());
        assert!(super::for_suite("postmark").is_none());
    }
}

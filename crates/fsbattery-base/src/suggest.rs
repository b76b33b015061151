//! "Did you mean": the known name closest to a mistyped one, by Jaro similarity (strsim's,
//! the measure and threshold clap uses for mistyped flags), so `--workload metdata` answers
//! "did you mean 'metadata'?" instead of leaving the user to scan a list of thirty names.

/// Below this a candidate is too unlike the name to suggest (clap's threshold).
const MIN_SIMILARITY: f64 = 0.7;

/// The candidate most like `name`, when one is like it enough; never `name` itself.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .into_iter()
        .filter(|c| !c.is_empty() && *c != name)
        .map(|c| (strsim::jaro(&lower, &c.to_lowercase()), c))
        .filter(|(s, _)| *s >= MIN_SIMILARITY)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// " (did you mean 'metadata'?)", or "" when no candidate is close.
pub fn hint<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, candidates).map_or(String::new(), |c| format!(" (did you mean '{c}'?)"))
}

/// The hint of a [`crate::error::UsageError::Unknown`]: a parameter (`metadata.filez`) is
/// matched on its own name, the choices being its workload's parameters.
pub fn unknown_hint(kind: &str, name: &str, choices: &str) -> String {
    let name = match kind {
        "parameter" => name.rsplit('.').next().unwrap_or(name),
        _ => name,
    };
    hint(name, names_in(choices))
}

/// The names in a list as messages give it ("dir:PATH[,label=NAME], tmpfs[:size=SIZE], ...,
/// or a FILE.toml", items apart by ", "): each item up to its first ':', '[', '(' or space.
pub fn names_in(list: &str) -> Vec<&str> {
    list.split(", ")
        .map(|item| item.trim().trim_start_matches("or "))
        .map(|item| item.split([':', '[', '(', ' ']).next().unwrap_or(""))
        .filter(|n| !n.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_and_far_ones_not() {
        let names = ["metadata", "stream", "split", "tree", "randomio"];
        assert_eq!(closest("metdata", names), Some("metadata"));
        assert_eq!(closest("Stream", names), Some("stream"));
        assert_eq!(closest("randio", names), Some("randomio"));
        assert_eq!(closest("zzzzzz", names), None);
        assert_eq!(hint("splt", names), " (did you mean 'split'?)");
        assert_eq!(hint("qqq", names), "");
    }

    #[test]
    fn names_are_read_out_of_a_listing() {
        assert_eq!(
            names_in("dir:PATH[,label=NAME], tmpfs[:size=SIZE], loop:FSTYPE, or a FILE.toml"),
            ["dir", "tmpfs", "loop", "a"]
        );
        assert_eq!(
            names_in("quick, standard, full"),
            ["quick", "standard", "full"]
        );
        let h = unknown_hint("parameter", "metadata.filez", "files, layout");
        assert_eq!(h, " (did you mean 'files'?)");
    }
}

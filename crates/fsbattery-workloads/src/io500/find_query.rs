//! What io500's find looks for and what it counts: the query (`-newer` the timestamp file,
//! `-size 3901c`, `-name "*01*"`) and a rank's tally. A leaf of its own, since both the
//! stealing loop (`find`) and the walk between messages (`find_work`) use them.

use super::name_match::NameMatch;
use crate::error::{IoContext, WorkloadError};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What find counts.
pub(super) struct Query {
    /// Status change time of the timestamp file, whole seconds.
    pub newer_s: i64,
    /// The size a match has (IO500: 3,901 bytes).
    pub size: u64,
    /// The `-name` pattern (IO500: `*01*`).
    pub name: NameMatch,
}

impl Query {
    /// Whether a file of status `st` (its name already matched) is a match: pfind's
    /// `check_buf`.
    pub(super) fn holds(&self, st: &libc::stat) -> bool {
        st.st_ctime >= self.newer_s && st.st_size as u64 == self.size
    }
}

/// What one rank saw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found {
    /// Files looked at.
    pub total: u64,
    /// Files that matched.
    pub found: u64,
}

/// IO500's `-name` pattern.
pub(super) const IO500_NAME: &str = "*01*";

/// The query of `timestamp` for IO500's rule.
pub(super) fn io500_query(timestamp: &Path) -> Result<Query, WorkloadError> {
    let m = timestamp
        .symlink_metadata()
        .ctx(|| format!("stat {}", timestamp.display()))?;
    Ok(Query {
        newer_s: m.ctime(),
        size: 3_901,
        name: NameMatch::new(IO500_NAME)?,
    })
}

//! How the release of one resource went: its own file, so the code that removes each kind of
//! resource (`release`, `zfs_pool`, `memcg_release`) can say so without naming the others.

/// How a release went.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Wall and CPU time of the unmount alone, when this release unmounted something.
    pub umount: Option<crate::measure::Timing>,
    /// Something worth telling (already gone, not ours, lazy unmount).
    pub note: Option<String>,
}

impl Outcome {
    /// Nothing was unmounted; `s` says what there is to tell.
    pub fn note(s: impl Into<String>) -> Outcome {
        Outcome {
            umount: None,
            note: Some(s.into()),
        }
    }
}
